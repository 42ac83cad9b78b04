'use strict';
// Turns a decoded value into a JSON tree of everything a user could observe of
// it, so two codecs' results compare with plain deep equality. Runs inside the
// node under test, on the value the codec returned.
//
// Node types (`t`): undefined, null, boolean, number, bigint, string, symbol,
// function, ref (an object seen before: identity of shared and circular
// references), object, array, map, set, date, regexp, boxed, error,
// arraybuffer, view. Objects carry `proto`, their prototype chain by name.

const { types } = require('node:util');
const { internalBinding } = require('../codecs/binding');

const typedArrayTag = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;

// Well-known prototypes by name: those of the global constructors (names
// that start with a capital); anything else in a chain shows as '?'. Made at
// the first description, not at load: reading a global can wake one of
// Node's lazy ones, which a worker that only serializes, and may crash doing
// so, never needs. The lazy globals that load a module of their own (the
// fetch implementation and Web Crypto) are not read even then: a
// worker that starts after a crash would pay for them on its first
// description. A prototype named after one of them is looked up when met.
const kLazyGlobals = new Set(['FormData', 'Headers', 'Request', 'Response', 'MessageEvent', 'CloseEvent',
  'ErrorEvent', 'WebSocket', 'EventSource', 'Crypto', 'CryptoKey', 'SubtleCrypto']);
let knownPrototypes = null;
function wellKnownPrototypes() {
  if (knownPrototypes) return knownPrototypes;
  knownPrototypes = new Map();
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    // Reading only constructors' names keeps lazy globals (localStorage) asleep.
    if (!/^[A-Z]/.test(name) || kLazyGlobals.has(name)) continue;
    const value = globalThis[name];
    if (typeof value === 'function' && value.prototype) {
      knownPrototypes.set(value.prototype, name);
    }
  }
  knownPrototypes.set(Buffer.prototype, 'Buffer');
  knownPrototypes.set(Object.getPrototypeOf(Uint8Array.prototype), 'TypedArray');
  return knownPrototypes;
}

// An own data property, read without running user code (not of a proxy).
function ownData(object, key) {
  if (types.isProxy(object)) return undefined;
  const desc = Object.getOwnPropertyDescriptor(object, key);
  return desc && 'value' in desc ? desc.value : undefined;
}

function nameOf(prototype) {
  const known = wellKnownPrototypes().get(prototype);
  if (known) return known;
  const constructor = ownData(prototype, 'constructor');
  const name = typeof constructor === 'function' ? ownData(constructor, 'name') : undefined;
  if (!kLazyGlobals.has(name) || globalThis[name]?.prototype !== prototype) return '?';
  knownPrototypes.set(prototype, name);
  return name;
}

function prototypeChain(object) {
  const chain = [];
  for (let p = Object.getPrototypeOf(object); p !== null; p = Object.getPrototypeOf(p)) chain.push(nameOf(p));
  return chain;
}

function number(n) {
  if (Object.is(n, -0)) return '-0';
  return Number.isNaN(n) ? 'NaN' : String(n);
}

const kMaxListedIndices = 1 << 16;

// Own keys already described by a node's fields.
const skipKeys = {
  error: (k) => k === 'message' || k === 'stack' || k === 'cause',
  view: (k) => /^\d+$/.test(k),
};

// An object's own string keys but its indices, listed by the binary's
// internals; null without them (canonical.js needs none). Listing indices
// makes a string of each: a typed array's bytes describe its items, and an
// array's are asked for by number (arrayItems).
let nonIndexKeys;
function ownNonIndexKeys(object) {
  if (nonIndexKeys === undefined) {
    try {
      const { getOwnNonIndexProperties, constants: { SKIP_SYMBOLS } } = internalBinding('util');
      nonIndexKeys = (o) => getOwnNonIndexProperties(o, SKIP_SYMBOLS);
    } catch {
      nonIndexKeys = null;
    }
  }
  return nonIndexKeys?.(object) ?? null;
}

// Index keys as strings, made once: a long array is described three times per check.
const indexKeys = [];
const kIndexKeys = 1 << 17;
const indexKey = (i) => (i < kIndexKeys ? (indexKeys[i] ??= String(i)) : String(i));

// Leaf nodes of the values met most (numbers, short strings), one object per
// value: a long array's items then compare by identity (compare.js). Frozen,
// since trees share them.
const leaves = new Map();
const kLeaves = 1 << 16;
const kLeafString = 32;
const constants = {
  undefined: Object.freeze({ t: 'undefined' }),
  null: Object.freeze({ t: 'null' }),
  true: Object.freeze({ t: 'boolean', v: true }),
  false: Object.freeze({ t: 'boolean', v: false }),
};

function leaf(t, v) {
  // A Map tells -0 from 0 as little as NaN from itself: -0 is never shared.
  if ((t === 'string' && v.length > kLeafString) || Object.is(v, -0)) return { t, v: t === 'number' ? number(v) : v };
  const byValue = leaves.get(t) ?? leaves.set(t, new Map()).get(t);
  let node = byValue.get(v);
  if (!node) {
    if (byValue.size >= kLeaves) byValue.clear();
    node = Object.freeze({ t, v: t === 'number' ? number(v) : v });
    byValue.set(v, node);
  }
  return node;
}

// A copy of a view's bytes. allocUnsafe and set: Buffer.from(view) copies
// MiBs several times slower.
function copyBytes(view) {
  const copy = Buffer.allocUnsafe(view.byteLength);
  copy.set(view);
  return copy;
}

// Byte runs this long are kept as a copy, and spelled out in hex only when
// read (JSON, a report): compare.js compares the copies (sameBytes).
const kLazyHex = 4096;
const kCopy = Symbol('bytes');

// The last copies made. A check describes the same bytes several times (the
// value each codec was given, what each decoded): they share one copy, which
// nothing writes to, and compare as the same.
const recentCopies = [];
const kRecentCopies = 4;

function copyOf(bytes) {
  const copy = recentCopies.find((c) => c.length === bytes.length && c.equals(bytes));
  if (copy) return copy;
  recentCopies.unshift(copyBytes(bytes));
  if (recentCopies.length > kRecentCopies) recentCopies.pop();
  return recentCopies[0];
}

function setBytes(node, bytes) {
  if (bytes.length < kLazyHex) {
    node.bytes = bytes.toString('hex');
    return;
  }
  const copy = copyOf(bytes);
  Object.defineProperty(node, kCopy, { value: copy });
  Object.defineProperty(node, 'bytes', {
    enumerable: true,
    configurable: true,
    get() {
      const hex = copy.toString('hex');
      Object.defineProperty(this, 'bytes', { value: hex, enumerable: true, writable: true, configurable: true });
      return hex;
    },
  });
}

// Whether two nodes hold the same long byte run, known without spelling either out.
const sameBytes = (a, b) => a[kCopy] !== undefined && b[kCopy] !== undefined &&
  (a[kCopy] === b[kCopy] || a[kCopy].equals(b[kCopy]));

// An array with this many items, each an enumerable number, keeps them as a
// run: their indices and values in typed arrays, its props spelled out only
// when read (JSON, a report, a difference in them). A long array is described
// several times per check, and two runs compare as their bytes (sameRun).
const kRunItems = 256;
const kRun = Symbol('run');
const kHole = Symbol('hole');

// Whether a hole of this array reads as undefined: no object on its
// prototype chain is a proxy or has a key that may be an index (one that
// starts with a digit). Asked of arrays of kReadFirst items or more.
const kReadFirst = 64;
function holesReadUndefined(array) {
  for (let p = Object.getPrototypeOf(array); p !== null; p = Object.getPrototypeOf(p)) {
    if (types.isProxy(p) || Object.getOwnPropertyNames(p).some((key) => /^\d/.test(key))) return false;
  }
  return true;
}

// items: { indices, slots } (arrayItems); null unless a run.
function numberRun({ indices, slots }, plain) {
  const count = indices.length;
  if (count < kRunItems) return null;
  const values = new Float64Array(count);
  for (let k = 0; k < count; k++) {
    const value = plain ? slots[k] : slots[k].enumerable ? slots[k].value : undefined;
    if (typeof value !== 'number') return null;
    values[k] = value;
  }
  return { indices: Uint32Array.from(indices), values };
}

function setRun(node, run, named) {
  Object.defineProperty(node, kRun, { value: { ...run, named } });
  Object.defineProperty(node, 'props', {
    enumerable: true,
    configurable: true,
    get() {
      const props = Array.from(run.indices, (i, k) => [indexKey(i), leaf('number', run.values[k])]);
      props.push(...named);
      Object.defineProperty(this, 'props', { value: props, enumerable: true, writable: true, configurable: true });
      return props;
    },
  });
}

const bytesOf = (typed) => Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);

// Whether two array nodes hold the same run of numbers (the same bits: a NaN
// of another payload, or -0 against 0, is left to the props). Their other
// props, the `named`, are left to the caller.
const sameRun = (a, b) => a[kRun] !== undefined && b[kRun] !== undefined &&
  bytesOf(a[kRun].indices).equals(bytesOf(b[kRun].indices)) && bytesOf(a[kRun].values).equals(bytesOf(b[kRun].values));

// `frame` is the ArrayBuffer the payload was decoded from, so views can say
// whether they borrow it or own a copy. `plain`: every own property of every
// object in the value is an enumerable data property, and none is a proxy, so
// no user code can run and values are read, not descriptors (far cheaper for
// long arrays): what V8's deserializer makes (a
// builtin codec's decoding), and a value built from a recipe without
// tampering steps.
function canonicalize(value, { frame, plain = false } = {}) {
  const seen = new Map();

  const item = (desc) => ('value' in desc ? visit(desc.value) : { t: 'accessor' });
  // An array item's slot (arrayItems), when it is enumerable: as a tree.
  const slotItem = (slot) => (plain ? visit(slot) : slot.enumerable ? item(slot) : undefined);

  // The node's props: [key, tree] of each enumerable own string key, in
  // the order Reflect.ownKeys lists them (an array's items maybe as a run).
  function setProps(node, object, skip) {
    const out = [];
    node.props = out;
    // Listing a large view's or String object's keys lists every index: its
    // bytes or its value say it all.
    const typed = types.isTypedArray(object);
    if ((typed || types.isStringObject(object)) && object.length > kMaxListedIndices) return;
    let keys = (typed || Array.isArray(object)) && !types.isProxy(object) ? ownNonIndexKeys(object) : null;
    const items = keys && !typed ? arrayItems(object) : null;
    if (items === null && !typed) keys = null;
    const run = items && numberRun(items, plain);
    for (let k = 0; !run && k < items?.indices.length; k++) {
      const tree = slotItem(items.slots[k]);
      if (tree) out.push([indexKey(items.indices[k]), tree]);
    }
    if (plain && !keys) {
      // Object.keys lists the same keys, in the same order.
      for (const key of Object.keys(object)) if (!skip?.(key)) out.push([key, visit(object[key])]);
    } else {
      for (const key of keys ?? Reflect.ownKeys(object)) {
        if (typeof key === 'symbol' || skip?.(key)) continue;
        const desc = Object.getOwnPropertyDescriptor(object, key);
        if (desc.enumerable) out.push([key, item(desc)]);
      }
    }
    if (run) setRun(node, run, out);
  }

  // An array's own items in the order Reflect.ownKeys lists them, asked for
  // by index: { indices, slots }, a slot the item's descriptor, or of a
  // plain array its value (no descriptor made per item); null when it is
  // so sparse (under one index in 8 set) that listing its keys costs less.
  // Nothing is visited before that is known: a visit numbers the objects it meets.
  // A plain array's item is read first, and asked whether it is own only
  // when it reads as undefined, where its prototypes have no index keys (a
  // hole then reads as undefined): cheaper than asking each.
  function arrayItems(array) {
    const indices = [];
    const slots = [];
    let holes = 0;
    const readFirst = plain && array.length >= kReadFirst && holesReadUndefined(array);
    for (let i = 0; i < array.length; i++) {
      let slot;
      if (readFirst) {
        slot = array[i];
        if (slot === undefined && !Object.hasOwn(array, i)) slot = kHole;
      } else {
        slot = !plain ? Object.getOwnPropertyDescriptor(array, i) ?? kHole : Object.hasOwn(array, i) ? array[i] : kHole;
      }
      if (slot !== kHole) {
        indices.push(i);
        slots.push(slot);
      } else if (++holes > 1024 && holes > indices.length * 8) {
        return null;
      }
    }
    return { indices, slots };
  }

  function backing(view) {
    const buffer = view.buffer;
    if (buffer === frame) return 'frame';
    if (view.byteOffset === 0 && buffer.byteLength === view.byteLength) return 'exact';
    return 'slice';  // part of a larger buffer, such as Buffer's allocation pool
  }

  function view(v, node) {
    node.kind = types.isDataView(v) ? 'DataView' : typedArrayTag.call(v);
    node.isBuffer = Buffer.isBuffer(v);
    if (!types.isDataView(v)) node.length = v.length;
    node.byteLength = v.byteLength;
    node.backing = backing(v);
    // Offsets into a slice depend on allocation history, not on the codec.
    if (node.backing === 'frame') node.byteOffset = v.byteOffset;
    setBytes(node, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    return node;
  }

  function visit(v) {
    switch (typeof v) {
      case 'undefined': return constants.undefined;
      case 'boolean': return constants[v];
      case 'number': return leaf('number', v);
      case 'bigint': return { t: 'bigint', v: String(v) };
      case 'string': return leaf('string', v);
      case 'symbol': return { t: 'symbol', v: v.description };
      case 'function': return { t: 'function', name: v.name };
    }
    if (v === null) return constants.null;
    if (seen.has(v)) return { t: 'ref', id: seen.get(v) };
    const node = { t: 'object', id: seen.size };
    seen.set(v, node.id);
    node.proto = prototypeChain(v);

    if (types.isArrayBufferView(v)) {
      node.t = 'view';
      view(v, node);
    } else if (types.isAnyArrayBuffer(v)) {
      node.t = 'arraybuffer';
      node.shared = types.isSharedArrayBuffer(v);
      node.byteLength = v.byteLength;
      node.resizable = Boolean(v.resizable ?? v.growable);
      if (node.resizable) node.maxByteLength = v.maxByteLength;
      setBytes(node, Buffer.from(v));
    } else if (Array.isArray(v)) {
      node.t = 'array';
      node.length = v.length;
    } else if (types.isMap(v)) {
      node.t = 'map';
      node.entries = [...v].map(([k, val]) => [visit(k), visit(val)]);
    } else if (types.isSet(v)) {
      node.t = 'set';
      node.values = [...v].map(visit);
    } else if (types.isDate(v)) {
      node.t = 'date';
      node.v = number(v.getTime());
    } else if (types.isRegExp(v)) {
      node.t = 'regexp';
      node.source = v.source;
      node.flags = v.flags;
    } else if (types.isBoxedPrimitive(v)) {
      node.t = 'boxed';
      node.v = visit(v.valueOf());
    } else if (types.isNativeError(v)) {
      node.t = 'error';
      node.name = v.name;
      node.message = v.message;
      node.hasStack = typeof v.stack === 'string';
      if ('cause' in v) node.cause = visit(v.cause);
    }
    setProps(node, v, skipKeys[node.t]);
    return node;
  }

  return visit(value);
}

module.exports = { canonicalize, sameBytes, sameRun, kRun, copyBytes };
