'use strict';
// One entry per recipe kind: `emit(recipe, path, gen)` returns a JavaScript
// expression (or, for kinds with `binds`, the variable it declared).
const { RecipeError } = require('./errors');
const { hostTypes } = require('./hosts');
const { viewTypes, bytesPerElement } = require('../wire/tags');

const lit = (v) => JSON.stringify(v);

const errorTypes = ['Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError',
  'TypeError', 'URIError'];
// Names a recipe may use as values (`global`) and whose prototypes steps may touch.
const globals = new Set([...viewTypes, ...errorTypes, 'Object', 'Array', 'Map', 'Set', 'Date',
  'RegExp', 'ArrayBuffer', 'SharedArrayBuffer', 'Number', 'String', 'Boolean', 'BigInt',
  'Function', 'Symbol', 'MessagePort']);

// V8 string representations a `string` recipe can ask for (helpers in codegen.js).
const stringShapes = ['cons', 'sliced', 'external', 'thin'];

// Containers a `nest` recipe wraps its leaf in.
const nestings = {
  object: '(v) => ({ a: v })',
  array: '(v) => [v]',
  map: '(v) => new Map([[0, v]])',
  set: '(v) => new Set([v])',
  host: `(v) => Object.assign(${hostTypes['secret-key']}, { a: v })`,
};

// message: a string, or a function that makes it (a list of names joined at
// each check cost a planned recipe a tenth of its planning).
function check(ok, path, message) {
  if (!ok) throw new RecipeError(path, typeof message === 'function' ? message() : message);
}

function hex(value, path, field = 'bytes') {
  check(typeof value === 'string' && /^(?:[0-9a-fA-F]{2})*$/.test(value), path,
    `"${field}" must be a hex string`);
  return value.toLowerCase();
}

function count(value, path, field) {
  check(Number.isInteger(value) && value >= 0 && value <= 2 ** 32, path,
    `"${field}" must be a whole number of at most 2^32`);
  return value;
}

function globalName(name, path) {
  check(globals.has(name), path, () => `${lit(name)} is not a known global`);
  return name === 'MessagePort' ? 'require(\'node:worker_threads\').MessagePort' : name;
}

function key(k, path) {
  if (typeof k === 'string') return lit(k);
  if (k && typeof k.symbol === 'string') return `Symbol(${lit(k.symbol)})`;
  if (k && typeof k.wellKnown === 'string' && typeof Symbol[k.wellKnown] === 'symbol') {
    return `Symbol.${k.wellKnown}`;
  }
  throw new RecipeError(path, 'a key is a string, {"symbol": description} or {"wellKnown": name}');
}

function entries(list, path, field) {
  check(Array.isArray(list ?? []), path, `"${field}" must be an array`);
  return list ?? [];
}

function number(v, path) {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  check(['-0', 'NaN', 'Infinity', '-Infinity'].includes(v), path,
    '"v" must be a number or one of "-0", "NaN", "Infinity", "-Infinity"');
  return v;
}

// A view recipe's bytes and where they sit, checked.
function viewLayout(r, path) {
  check(viewTypes.includes(r.type), path, () => `"type" must be one of ${viewTypes.join(', ')}`);
  const bytes = hex(r.bytes ?? '', path);
  // `repeat` repeats the bytes, for views of 64 KiB and more.
  const times = r.repeat === undefined ? 1 : count(r.repeat, path, 'repeat');
  const size = bytes.length / 2 * times;
  const width = bytesPerElement[r.type] ?? 1;
  check(size % width === 0, path, `${r.type} needs a multiple of ${width} bytes`);
  const offset = count(r.offset ?? 0, path, 'offset');
  check(offset % width === 0, path, `a ${r.type} offset must be a multiple of ${width}`);
  return { bytes, times, size, width, offset };
}

function props(name, recipe, path, gen) {
  for (const [i, pair] of entries(recipe.props, path, 'props').entries()) {
    check(Array.isArray(pair) && pair.length === 2, `${path}.props[${i}]`, 'a property is [key, recipe]');
    const value = gen.emit(pair[1], `${path}.props[${i}][1]`);
    gen.lines.push(`${name}[${key(pair[0], `${path}.props[${i}][0]`)}] = ${value};`);
  }
}

const primitive = (emit) => ({ emit });

const kinds = {
  undefined: primitive(() => 'undefined'),
  null: primitive(() => 'null'),
  bool: primitive((r, path) => {
    check(typeof r.v === 'boolean', path, '"v" must be a boolean');
    return String(r.v);
  }),
  number: primitive((r, path) => number(r.v, path)),
  bigint: primitive((r, path) => {
    check(typeof r.v === 'string' && /^-?\d+$/.test(r.v), path, '"v" must be a decimal string');
    return `${r.v}n`;
  }),
  // `repeat` makes the long length classes; `shape` the V8 string
  // representation the codec meets (see the helpers in codegen.js).
  string: primitive((r, path, gen) => {
    check(typeof r.v === 'string', path, '"v" must be a string');
    const times = r.repeat === undefined ? 1 : count(r.repeat, path, 'repeat');
    const text = times === 1 ? lit(r.v) : `${lit(r.v)}.repeat(${times})`;
    if (r.shape === undefined || r.shape === 'literal') return text;
    check(stringShapes.includes(r.shape), path, () => `"shape" must be one of literal, ${stringShapes.join(', ')}`);
    return `${gen.helper(r.shape)}(${text})`;
  }),
  symbol: primitive((r) => `Symbol(${lit(String(r.description ?? ''))})`),
  function: primitive(() => '(function f() {})'),
  global: primitive((r, path) => globalName(r.name, path)),

  ref: { binds: true, emit: (r, path, gen) => gen.ref(r, path) },

  object: {
    binds: true,
    emit(r, path, gen) {
      const name = gen.bind(r, path, '{}');
      props(name, r, path, gen);
      return name;
    },
  },

  array: {
    binds: true,
    // Items are assigned in order, so an array without holes stays packed (V8
    // writes it dense); a {"k": "hole"} item or a larger length makes it holey
    // (written sparse).
    emit(r, path, gen) {
      const name = gen.bind(r, path, '[]');
      const items = entries(r.items, path, 'items');
      for (const [i, item] of items.entries()) {
        if (item?.k === 'hole') continue;
        gen.lines.push(`${name}[${i}] = ${gen.emit(item, `${path}.items[${i}]`)};`);
      }
      if (items.length && items.at(-1)?.k === 'hole') gen.lines.push(`${name}.length = ${items.length};`);
      if (r.length !== undefined) gen.lines.push(`${name}.length = ${count(r.length, path, 'length')};`);
      props(name, r, path, gen);
      return name;
    },
  },
  hole: { emit: (r, path) => { throw new RecipeError(path, 'a hole may only stand in "items"'); } },

  map: {
    binds: true,
    emit(r, path, gen) {
      const name = gen.bind(r, path, 'new Map()');
      for (const [i, pair] of entries(r.entries, path, 'entries').entries()) {
        check(Array.isArray(pair) && pair.length === 2, `${path}.entries[${i}]`, 'an entry is [key, value]');
        const k = gen.emit(pair[0], `${path}.entries[${i}][0]`);
        gen.lines.push(`${name}.set(${k}, ${gen.emit(pair[1], `${path}.entries[${i}][1]`)});`);
      }
      return name;
    },
  },

  set: {
    binds: true,
    emit(r, path, gen) {
      const name = gen.bind(r, path, 'new Set()');
      for (const [i, item] of entries(r.values, path, 'values').entries()) {
        gen.lines.push(`${name}.add(${gen.emit(item, `${path}.values[${i}]`)});`);
      }
      return name;
    },
  },

  date: primitive((r, path) => `new Date(${number(r.v, path)})`),

  regexp: primitive((r, path) => {
    check(typeof r.source === 'string' && typeof (r.flags ?? '') === 'string', path,
      '"source" and "flags" must be strings');
    return `new RegExp(${lit(r.source)}, ${lit(r.flags ?? '')})`;
  }),

  boxed: primitive((r, path, gen) => {
    check(['bool', 'number', 'bigint', 'string'].includes(r.of?.k), path,
      '"of" must be a bool, number, bigint or string recipe');
    return `Object(${gen.emit(r.of, `${path}.of`)})`;
  }),

  error: {
    binds: true,
    emit(r, path, gen) {
      const type = r.type ?? 'Error';
      check(errorTypes.includes(type), path, () => `"type" must be one of ${errorTypes.join(', ')}`);
      const args = [lit(String(r.message ?? ''))];
      if (r.cause !== undefined) args.push(`{ cause: ${gen.emit(r.cause, `${path}.cause`)} }`);
      const name = gen.bind(r, path, `new ${type}(${args.join(', ')})`);
      // The default stack names where the value was built: a fixed one keeps
      // the value the same in every process that builds it.
      if (r.stack === false) gen.lines.push(`delete ${name}.stack;`);
      else gen.lines.push(`${name}.stack = ${lit(r.stack ?? `${type}: ${r.message ?? ''}\n    at ipcfuzz recipe`)};`);
      return name;
    },
  },

  arraybuffer: primitive((r, path, gen) => {
    const bytes = hex(r.bytes, path);
    const size = bytes.length / 2;
    const Ctor = r.shared ? 'SharedArrayBuffer' : 'ArrayBuffer';
    const options = r.maxByteLength === undefined ? '' :
      `, { maxByteLength: ${Math.max(size, count(r.maxByteLength, path, 'maxByteLength'))} }`;
    const make = `new ${Ctor}(${size}${options})`;
    return size ? `${gen.helper('fill')}(${make}, 0, ${lit(bytes)})` : make;
  }),

  view: primitive((r, path, gen) => {
    const { bytes, times, size, width, offset } = viewLayout(r, path);
    if (r.type === 'Buffer' && r.pooled) {
      return `Buffer.from(${times === 1 ? lit(bytes) : `${lit(bytes)}.repeat(${times})`}, 'hex')`;
    }
    const filled = `${offset}, ${lit(bytes)}${times === 1 ? '' : `, ${times}`}`;
    const backing = r.buffer !== undefined ? gen.emit(r.buffer, `${path}.buffer`) :
      `${gen.helper('fill')}(new ArrayBuffer(${offset + size + count(r.slack ?? 0, path, 'slack')}), ${filled})`;
    // A length-tracking view follows a resizable buffer's size: no length argument.
    const length = r.lengthTracking ? '' : `, ${size / width}`;
    if (r.type === 'Buffer') return `Buffer.from(${backing}, ${offset}${length})`;
    const ctor = r.subclass ? `(class ${r.type}Subclass extends ${r.type} {})` : r.type;
    return `new ${ctor}(${backing}, ${offset}${length})`;
  }),

  port: {
    binds: true,
    // A MessagePort is a real host object; it is closed again after the call.
    emit(r, path, gen) {
      gen.require('MessageChannel', 'node:worker_threads');
      const channel = gen.declare('new MessageChannel()');
      gen.closes.push(`${channel}.port1.close();`, `${channel}.port2.close();`);
      const name = gen.bind(r, path, `${channel}.port1`);
      props(name, r, path, gen);
      return name;
    },
  },

  // Other host objects (KeyObjects, X509Certificate) and the WebAssembly.Module.
  host: {
    binds: true,
    emit(r, path, gen) {
      check(Object.hasOwn(hostTypes, r.type), path, () => `"type" must be one of ${Object.keys(hostTypes).join(', ')}`);
      const name = gen.bind(r, path, hostTypes[r.type]);
      props(name, r, path, gen);
      return name;
    },
  },

  // Host objects whose properties come from interceptors, not own data
  // properties: the process's one `process.env` and `sessionStorage`. For
  // the codec call (setup to teardown) they hold `props` alone, in order,
  // as strings; what they held before is put back after.
  env: interceptorHost('process.env'),
  storage: interceptorHost('sessionStorage'),

  // `leaf` wrapped `depth` times in a container, up to and past the stack limit.
  nest: primitive((r, path, gen) => {
    check(Object.hasOwn(nestings, r.in), path, () => `"in" must be one of ${Object.keys(nestings).join(', ')}`);
    const depth = count(r.depth, path, 'depth');
    check(depth <= 100000, path, '"depth" must be at most 100000');
    const leaf = r.leaf === undefined ? 'null' : gen.emit(r.leaf, `${path}.leaf`);
    return `${gen.helper('nest')}(${leaf}, ${depth}, ${nestings[r.in]})`;
  }),

  // A long array of numbers: packed (`every` 1, written dense) or holey with
  // every `every`-th index set (written sparse); doubles or small integers.
  range: primitive((r, path) => {
    const n = count(r.n, path, 'n');
    check(n <= 1 << 24, path, '"n" must be at most 2^24');
    const every = r.every === undefined ? 1 : count(r.every, path, 'every');
    const item = r.double ? 'i + 0.5' : 'i';
    if (every <= 1) return `Array.from({ length: ${n} }, (_, i) => ${item})`;
    return `((a) => { for (let i = 0; i < ${n}; i += ${every}) a[i] = ${item}; return a; })(new Array(${n}))`;
  }),

  // Objects made alike (same keys, same order), so that they share a hidden
  // class, then changed (`then`: [row, key, recipe]) so that V8 generalizes
  // or deprecates it before the value is sent.
  shapes: {
    binds: true,
    emit(r, path, gen) {
      const name = gen.bind(r, path, '[]');
      const keys = entries(r.keys, path, 'keys');
      for (const [i, row] of entries(r.rows, path, 'rows').entries()) {
        check(Array.isArray(row) && row.length === keys.length, `${path}.rows[${i}]`, 'a row has one value per key');
        const object = gen.declare('{}');
        for (const [j, k] of keys.entries()) {
          gen.lines.push(`${object}[${key(k, `${path}.keys[${j}]`)}] = ${gen.emit(row[j], `${path}.rows[${i}][${j}]`)};`);
        }
        gen.lines.push(`${name}.push(${object});`);
      }
      for (const [i, change] of entries(r.then, path, 'then').entries()) {
        const [row, k, value] = Array.isArray(change) ? change : [];
        check(Number.isInteger(row) && row >= 0 && row < (r.rows?.length ?? 0), `${path}.then[${i}]`,
          'a change is [row, key, recipe] naming an existing row');
        gen.lines.push(`${name}[${row}][${key(k, `${path}.then[${i}]`)}] = ${gen.emit(value, `${path}.then[${i}][2]`)};`);
      }
      return name;
    },
  },
};

// The names of the kinds above whose value is a shared interceptor-backed host object.
const interceptorHosts = { env: 'process.env', storage: 'sessionStorage' };

function interceptorHost(target) {
  return primitive((r, path, gen) => {
    const pairs = entries(r.props, path, 'props').map((pair, i) => {
      check(Array.isArray(pair) && pair.length === 2, `${path}.props[${i}]`, 'a property is [key, recipe]');
      return `[${key(pair[0], `${path}.props[${i}][0]`)}, ${gen.emit(pair[1], `${path}.props[${i}][1]`)}]`;
    });
    const restore = `restore${gen.setup.length}`;
    gen.lines.push(`let ${restore} = null;`);
    gen.setup.push(`${restore} = ${gen.helper('holding')}(${target}, [${pairs.join(', ')}]);`);
    gen.teardown.push(`${restore}?.();`);
    return target;
  });
}

// Steps a getter may run on the object being copied (`then`), or on one of
// its properties (a step with `on`: the key), e.g. deleting a later key or
// detaching a buffer the serializer has yet to reach.
const getterSteps = new Set([
  'set', 'define', 'delete', 'prototype', 'detach', 'resize', 'freeze', 'preventExtensions',
]);

function getterEffects(get, name, path, gen) {
  const outer = gen.lines;
  gen.lines = [];
  try {
    for (const [i, step] of entries(get.then, path, 'then').entries()) {
      const where = `${path}.then[${i}]`;
      check(getterSteps.has(step?.op), where, () => `a getter runs one of ${[...getterSteps].join(', ')}`);
      applyTamper(step, step.on === undefined ? name : `${name}[${key(step.on, where)}]`, where, gen);
    }
    return gen.lines;
  } finally {
    gen.lines = outer;
  }
}

function getter(step, label, path, gen, name) {
  const get = step.get;
  const body = [`effects.push(${lit(`get ${label}`)});`];
  if (get.then !== undefined) body.push(...getterEffects(get, name, `${path}.get`, gen));
  if (get.throws !== undefined) body.push(`throw new Error(${lit(String(get.throws))});`);
  else if (get.returns !== undefined) body.push(`return ${gen.emit(get.returns, `${path}.get.returns`)};`);
  return `get() { ${body.join(' ')} }`;
}

function setter(step, label) {
  const body = [`effects.push(${lit(`set ${label}`)});`];
  if (step.throws !== undefined) body.push(`throw new Error(${lit(String(step.throws))});`);
  return `set(value) { ${body.join(' ')} }`;
}

function descriptor(step, label, path, gen, name) {
  const parts = [];
  if (step.get) parts.push(getter(step, label, path, gen, name));
  else if (step.value !== undefined) parts.push(`value: ${gen.emit(step.value, `${path}.value`)}`);
  else throw new RecipeError(path, 'a "define" step needs "value" or "get"');
  parts.push(`enumerable: ${step.enumerable !== false}`, 'configurable: true');
  if (!step.get) parts.push(`writable: ${step.writable !== false}`);
  return `{ ${parts.join(', ')} }`;
}

// A step that changes shared state (a prototype) for the duration of one call.
// Teardown undoes only what setup managed to install.
function aroundCall(gen, target, k, newDescriptor) {
  const saved = `saved${gen.setup.length}`;
  gen.lines.push(`let ${saved} = null;`);
  gen.setup.push(`${saved} = { old: Object.getOwnPropertyDescriptor(${target}, ${k}), installed: false };`,
    `Object.defineProperty(${target}, ${k}, ${newDescriptor});`,
    `${saved}.installed = true;`);
  gen.teardown.push(`if (${saved}?.installed && ${saved}.old) Object.defineProperty(${target}, ${k}, ${saved}.old); ` +
    `else if (${saved}?.installed) delete ${target}[${k}];`);
}

const steps = {
  set(step, name, path, gen) {
    gen.lines.push(`${name}[${key(step.key, path)}] = ${gen.emit(step.value, `${path}.value`)};`);
  },
  define(step, name, path, gen) {
    const k = key(step.key, path);
    gen.lines.push(`Object.defineProperty(${name}, ${k}, ${descriptor(step, labelOf(step.key), path, gen, name)});`);
  },
  delete(step, name, path, gen) {
    gen.lines.push(`delete ${name}[${key(step.key, path)}];`);
  },
  // `proxy`: the prototype is a Proxy of it whose reads are recorded.
  prototype(step, name, path, gen) {
    const to = step.of === null ? 'null' : `${globalName(step.of, path)}.prototype`;
    const proxy = `new Proxy(${step.of === null ? 'Object.create(null)' : to}, { get(t, k, r) { ` +
      'effects.push(`proto get ${String(k)}`); return Reflect.get(t, k, r); } })';
    gen.lines.push(`Object.setPrototypeOf(${name}, ${step.proxy ? proxy : to});`);
  },
  // Replaces a property of a built-in prototype (e.g. Buffer.prototype.constructor).
  proto(step, name, path, gen) {
    const target = `${globalName(step.of, path)}.prototype`;
    aroundCall(gen, target, key(step.key, path), descriptor(step, labelOf(step.key), path, gen));
  },
  // An Object.prototype setter, as in the review repro of the native codec.
  'inherited-setter'(step, name, path, gen) {
    const k = key(step.key, path);
    aroundCall(gen, 'Object.prototype', k, `{ ${setter(step, labelOf(step.key))}, configurable: true }`);
  },
  // Replaces a built-in method or accessor (a prototype's, `static`: the
  // constructor's own) by one that records its calls and does what it did.
  patch(step, name, path, gen) {
    const owner = patchOwner(step, path);
    const k = key(step.key, path);
    aroundCall(gen, owner, k, `${gen.helper('recording')}(${owner}, ${k}, effects, ${lit(patchLabel(step))})`);
  },
  // Buffer's pool: how far each codec call moved its offset is an effect.
  pool(step, name, path, gen) { gen.pool = true; },
  detach(step, name, path, gen) {
    gen.lines.push(`structuredClone(${name}, { transfer: [ArrayBuffer.isView(${name}) ? ${name}.buffer : ${name}] });`);
  },
  resize(step, name, path, gen) {
    gen.lines.push(`(ArrayBuffer.isView(${name}) ? ${name}.buffer : ${name}).resize(${count(step.to, path, 'to')});`);
  },
  freeze(step, name, path, gen) { gen.lines.push(`Object.freeze(${name});`); },
  preventExtensions(step, name, path, gen) { gen.lines.push(`Object.preventExtensions(${name});`); },
};

// Built-ins whose methods a `patch` step may replace: globals, the classes
// of node:v8 that the JS codec extends, and %TypedArray%.
const patchOwners = {
  'v8.Serializer': 'require(\'node:v8\').Serializer',
  'v8.Deserializer': 'require(\'node:v8\').Deserializer',
  'TypedArray': 'Object.getPrototypeOf(Uint8Array)',
};

function patchOwner(step, path) {
  const ctor = Object.hasOwn(patchOwners, step.of) ? patchOwners[step.of] : globalName(step.of, path);
  return step.static ? ctor : `${ctor}.prototype`;
}

const patchLabel = (step) => `${step.of}${step.static ? '' : '.prototype'}.${labelOf(step.key)}`;

// The side of a check a world step changes: the process that serializes
// (`send`, the default), the one that decodes the frames (`receive`), or both.
const sides = ['send', 'receive', 'both'];
const worldSteps = new Set(['proto', 'inherited-setter', 'patch', 'pool']);
function sideOf(step, path) {
  const side = step?.side ?? 'send';
  check(sides.includes(side) && (side === 'send' || worldSteps.has(step?.op)), path,
    () => `"side" must be one of ${sides.join(', ')}, on a ${[...worldSteps].join(', ')} step`);
  return side;
}
// Whether a step is planned where `planning` ('send' or 'receive') is.
const onSide = (step, planning, path) => [planning, 'both'].includes(sideOf(step, path));

function labelOf(k) {
  if (typeof k === 'string') return k;
  return k.symbol !== undefined ? `Symbol(${k.symbol})` : `Symbol.${k.wellKnown}`;
}

// gen.side: the side being planned ('send' unless a receiving world is, see worldCode).
function applyTamper(step, name, path, gen) {
  const apply = step && Object.hasOwn(steps, step.op) ? steps[step.op] : undefined;
  check(apply, path, () => `unknown tampering step ${lit(step?.op)}; one of ${Object.keys(steps).join(', ')}`);
  if (onSide(step, gen.side ?? 'send', path)) apply(step, name, path, gen);
}

module.exports = {
  kinds, applyTamper, errorTypes, stringShapes, nestings, getterSteps, steps, interceptorHosts,
  patchOwners, patchLabel, onSide, worldSteps,
  // The checks interpret.js shares, so that a recipe is refused with the same words either way.
  check, hex, count, entries, number, key, globalName, labelOf, viewLayout,
};
