'use strict';
// A byte grammar for recipes, written once and run both ways: decoding turns
// any byte string into a valid recipe (what coverage-guided fuzzers feed),
// encoding turns a recipe of the grammar back into bytes (how seed corpora
// are made from recipes, so fuzzing starts from depth). Missing bytes read
// as zero, so every prefix of an input is an input too.

const { kinds: table, errorTypes, stringShapes, nestings } = require('./kinds');
const { viewTypes, bytesPerElement } = require('../wire/tags');
const { hostTypes } = require('./hosts');
const { isDeepStrictEqual } = require('node:util');
const { worldVariants } = require('./tampering');
const {
  integerKeys, portKeys, constructorNames, lengthKeys, toStringTags, bufferPrototypeConstructors,
} = require('./vocabulary');

class Decoder {
  constructor(bytes) {
    this.bytes = bytes;
    this.pos = 0;
    this.ids = 0;
  }

  byte() {
    return this.pos < this.bytes.length ? this.bytes[this.pos++] : 0;
  }

  pick(list) { return list[this.byte() % list.length]; }
  small(max) { return this.byte() % (max + 1); }
  flag() { return (this.byte() & 1) === 1; }

  raw(length) {
    const out = [];
    for (let i = 0; i < length; i++) out.push(this.byte());
    return Buffer.from(out);
  }
}

class Encoder {
  constructor() {
    this.out = [];
    this.ids = 0;
  }

  write(b) { this.out.push(b & 0xff); }

  pick(list, value) {
    const i = list.findIndex((v) => JSON.stringify(v) === JSON.stringify(value));
    if (i < 0) throw new RangeError(`the byte grammar cannot express ${JSON.stringify(value)}`);
    this.write(i);
    return value;
  }

  small(max, value) {
    if (!(value >= 0 && value <= max)) throw new RangeError(`${value} is outside 0..${max}`);
    this.write(value);
    return value;
  }

  flag(value) {
    this.write(value ? 1 : 0);
    return Boolean(value);
  }

  raw(length, bytes) {
    for (let i = 0; i < length; i++) this.write(bytes[i]);
    return bytes;
  }
}

const kMaxDepth = 4;
const numbers = ['-0', 'NaN', 'Infinity', '-Infinity', 0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 32, 2 ** 53,
  0.5];
const keys = ['a', 'b', 'visible', 'x', 'data', 'constructor', 'length', '', 'v', ...integerKeys];
// Keys a getter's side effect touches: earlier, later and new ones.
const effectKeys = ['a', 'b', 'x', 'visible', 'g', '0', '2147483648', { symbol: 'hidden' }];
// A list of 256, one entry per byte value: the first give every entry of
// `list`, as seeds were written with them, the others only the entries
// `rare` does not hold for, so that a random byte names a rare one seldom.
function rarely(list, rare) {
  const common = list.filter((x) => !rare(x));
  return Array.from({ length: 256 }, (_, i) => (i < list.length ? list[i] : common[i % common.length]));
}
// A key from `list` for a host object. Index keys on one crash the native
// codec of 26.4+ (harness/recipes/crash-shapes.js), a known finding that costs a
// worker each time: a first byte names the named keys or the index keys,
// these for 4 byte values in 256, as often as fast-check draws them, and a
// second which. A lookup, not a branch: a branch taken for index keys alone
// would be a feature of its own to libFuzzer, which then mutates the inputs
// that take it the most.
const isIntegerKey = (k) => integerKeys.includes(k);
function hostKeyFrom(list) {
  const named = list.filter((k) => !isIntegerKey(k));
  const indices = list.filter(isIntegerKey);
  const classes = rarely([named, indices, indices, indices, indices], (keys) => keys === indices);
  return (ch, key) => ch.pick(ch.pick(classes, key === undefined || !isIntegerKey(key) ? named : indices), key);
}
const hostKey = hostKeyFrom(portKeys);
const hostEffectKey = hostKeyFrom(effectKeys);
const objectEffectKey = (ch, key) => ch.pick(effectKeys, key);
const regexps = [['a', ''], ['^x+$', 'gi'], ['[\\u0100-\\uffff]', 'u'], ['(?<n>.)\\k<n>', 'dsy'], ['', 'm']];
// Ordinary and null prototypes more often than all view types together.
const prototypes = [...viewTypes, ...Array(8).fill(['Object', 'Array', null]).flat()];
// Values that cost a check milliseconds rather than microseconds (long
// strings, views of 64 KiB and more, nests 1000 deep and more, long arrays)
// are named by a few byte values each: met in every other input, they took
// most of a run's time; as rare as fast-check draws them (a few inputs in a
// hundred), each class is still met thousands of times in a run.
const repeats = rarely([1, 1, 1, 1, 1, 1, 63, 64, 64, 65, 65, 4096, 65536, 1 << 20, 1 << 20], (n) => n >= 4096);
// Byte sizes of large views: one element repeated to around 64 KiB or to 3 MiB.
const viewSizes = rarely([null, null, null, null, null, null, null, null, 65535, 65536, 65537, 3 << 20, 3 << 20,
  3 << 20], (size) => size !== null);
// Up to 1000 the codecs write the value (the JS codec fails on host objects);
// at 10000 both hit the stack limit.
const depths = rarely([2, 10, 100, 1000, 1000, 10000], (depth) => depth >= 1000);
const shapeKeys = [['x'], ['x', 'y'], ['y', 'x'], ['x', 'y', 'z']];
// Values of every field representation: Smi, double, heap number, object, string, -0, NaN, bigint.
const representations = [{ k: 'number', v: 1 }, { k: 'number', v: 1.5 }, { k: 'number', v: 2 ** 40 },
  { k: 'object', props: [] }, { k: 'string', v: 's' }, { k: 'number', v: '-0' }, { k: 'number', v: 'NaN' },
  { k: 'bigint', v: '1' }, { k: 'null' }];

// Each grammar function reads (decode) or re-writes (encode) one part; `r` is
// the recipe part being encoded, undefined when decoding.
function text(ch, v) {
  const length = ch.small(12, v?.length);
  const units = ch.raw(length * 2, v !== undefined && Buffer.from(v, 'utf16le'));
  return Buffer.from(units).toString('utf16le');
}

// A short text, or one code unit repeated to a length class (63, 64, 65,
// 4 KiB, 64 KiB, 1 Mi units); then one of V8's string shapes.
function string(ch, r) {
  const repeat = ch.pick(repeats, r?.repeat ?? 1);
  const node = { k: 'string', v: repeat === 1 ? text(ch, r?.v) : unit(ch, r?.v) };
  if (repeat !== 1) node.repeat = repeat;
  const shape = ch.pick([undefined, ...stringShapes], r?.shape);
  if (shape) node.shape = shape;
  return node;
}

function unit(ch, v) {
  return Buffer.from(ch.raw(2, v !== undefined && Buffer.from(v, 'utf16le'))).toString('utf16le');
}

function hexBytes(ch, count, hex) {
  return Buffer.from(ch.raw(count, hex && Buffer.from(hex, 'hex'))).toString('hex');
}

function number(ch, r) {
  if (ch.flag(r && !numbers.includes(r.v))) {
    const bytes = ch.raw(8, r && (() => { const b = Buffer.alloc(8); b.writeDoubleLE(r.v); return b; })());
    const v = Buffer.from(bytes).readDoubleLE(0);
    // Values JSON cannot carry are written as the recipe's names for them.
    return { k: 'number', v: Number.isFinite(v) && !Object.is(v, -0) ? v : String(Object.is(v, -0) ? '-0' : v) };
  }
  return { k: 'number', v: ch.pick(numbers, r?.v) };
}

function bigint(ch, r) {
  const value = r && BigInt(r.v);
  const negative = ch.flag(r && value < 0n);
  const magnitude = r && (negative ? -value : value).toString(16);
  const hex = r && (magnitude.length % 2 ? `0${magnitude}` : magnitude);
  const length = ch.small(17, r && hex.length / 2);
  const digits = hexBytes(ch, length, hex);
  const v = digits ? BigInt(`0x${digits}`) : 0n;
  return { k: 'bigint', v: String(negative ? -v : v) };
}

function view(ch, r, depth) {
  const type = ch.pick(viewTypes, r?.type);
  const width = bytesPerElement[type] ?? 1;
  const sizeOf = (repeat) => viewSizes.find((c) => c !== null && Math.floor(c / width) === repeat) ?? null;
  const size = ch.pick(viewSizes, r && (r.repeat === undefined ? null : sizeOf(r.repeat)));
  const elements = size === null ? ch.small(8, r && r.bytes.length / 2 / width) : 1;
  const node = { k: 'view', type, bytes: hexBytes(ch, elements * width, r?.bytes) };
  if (size !== null) node.repeat = Math.floor(size / width);
  const offset = ch.small(3, r && (r.offset ?? 0) / width) * width;
  if (offset) node.offset = offset;
  if (ch.flag(r?.subclass) && type !== 'Buffer') node.subclass = true;
  if (ch.flag(r?.pooled) && type === 'Buffer') node.pooled = true;
  return withSteps(ch, r, node, viewSteps, depth);
}

const viewSteps = {
  constructor: (ch, s) => ({
    op: 'set', key: 'constructor', value: { k: 'global', name: ch.pick(constructorNames, s?.value.name) },
  }),
  'own-length': (ch, s) => ({
    op: 'define', key: ch.pick(lengthKeys, s?.key), value: { k: 'number', v: ch.small(4, s?.value.v) },
  }),
  'to-string-tag': (ch, s) => ({
    op: 'define', key: { wellKnown: 'toStringTag' }, value: { k: 'string', v: ch.pick(toStringTags, s?.value.v) },
    enumerable: false,
  }),
  prototype,
  detach: () => ({ op: 'detach' }),
  'throwing-constructor': () => ({ op: 'define', key: 'constructor', get: { throws: 'constructor getter' } }),
  'buffer-prototype-constructor': (ch, s) => ({
    op: 'proto', of: 'Buffer', key: 'constructor',
    value: { k: 'global', name: ch.pick(bufferPrototypeConstructors, s?.value.name) },
  }),
};

function prototype(ch, s) {
  const step = { op: 'prototype', of: ch.pick(prototypes, s?.of) };
  if (ch.flag(s?.proxy)) step.proxy = true;
  return step;
}

// What a getter does to the object being copied before it returns or throws;
// `key` reads the keys it touches.
const effects = {
  delete: (ch, s, key) => ({ op: 'delete', key: key(ch, s?.key) }),
  add: (ch, s, key) => ({ op: 'set', key: key(ch, s?.key), value: { k: 'number', v: 9 } }),
  hide: (ch, s, key) => ({ op: 'define', key: key(ch, s?.key), value: { k: 'number', v: 5 }, enumerable: false }),
  redefine: (ch, s, key) => ({ op: 'define', key: key(ch, s?.key), get: { returns: { k: 'number', v: 7 } } }),
  prototype,
  detach: () => ({ op: 'detach', on: 'v' }),
  resize: () => ({ op: 'resize', on: 'v', to: 1 }),
  // Appended, so that seeds written before them decode as they did.
  freeze: () => ({ op: 'freeze' }),
  'prevent-extensions': () => ({ op: 'preventExtensions' }),
};

// A getter that changes the object, at a key and touching keys `key` reads.
const effectGetter = (key) => (ch, s) => {
  const step = { op: 'define', key: key(ch, s?.key), get: {} };
  const name = ch.pick(Object.keys(effects), s && stepName(effects, s.get.then[0], key));
  step.get.then = [effects[name](ch, s?.get.then[0], key)];
  if (ch.flag(s?.get.throws)) step.get.throws = 'getter';
  else step.get.returns = { k: 'number', v: 1 };
  if (ch.flag(s?.enumerable === false)) step.enumerable = false;
  return step;
};

const objectSteps = { 'effect-getter': effectGetter(objectEffectKey), prototype };

const portSteps = {
  'effect-getter': effectGetter(hostEffectKey),
  getter: (ch, s) => ({
    op: 'define', key: hostKey(ch, s?.key),
    get: ch.flag(s?.get.throws) ? { throws: 'getter' } : { returns: { k: 'number', v: 1 } },
  }),
  'inherited-setter': (ch, s) => {
    const step = { op: 'inherited-setter', key: hostKey(ch, s?.key) };
    if (ch.flag(s?.throws)) step.throws = 'setter called';
    return step;
  },
  'symbol-getter': () => ({ op: 'define', key: { symbol: 'hidden' }, get: { returns: { k: 'number', v: 2 } } }),
};

// Steps that change the world a check runs in: the variants of the step
// table's world steps (tampering.js), in its order, so that seeds written
// before a variant decode as they did.
const worldNames = Object.keys(worldVariants);
// The variant that draws `s` again, for encoding it.
function variantOf(s) {
  return worldNames.find((name) => {
    try {
      return s.op === worldVariants[name].op && isDeepStrictEqual(worldVariants[name].draw(new Encoder(), s), s);
    } catch {
      return false;
    }
  });
}
const worldStep = (ch, s) => worldVariants[ch.pick(worldNames, s && variantOf(s))].draw(ch, s);
viewSteps.world = worldStep;
objectSteps.world = worldStep;
portSteps.world = worldStep;

// Which step of a table a recipe step is, for encoding.
function stepName(table, step, ...rest) {
  return Object.keys(table).find((name) => {
    try {
      return JSON.stringify(table[name](new Encoder(), step, ...rest)) === JSON.stringify(step);
    } catch {
      return false;
    }
  });
}

function withSteps(ch, r, node, table, depth) {
  const count = ch.small(2, r && (r.tamper?.length ?? 0));
  const names = Object.keys(table);
  const tamper = [];
  for (let i = 0; i < count; i++) {
    const step = r?.tamper[i];
    const name = ch.pick(names, step && stepName(table, step));
    tamper.push(table[name](ch, step, depth));
  }
  return tamper.length ? { ...node, tamper } : node;
}

function hostProps(ch, r) {
  const count = ch.small(3, r?.props.length);
  const props = [];
  for (let i = 0; i < count; i++) {
    const [key, value] = r?.props[i] ?? [];
    props.push([hostKey(ch, key), primitive(ch, value)]);
  }
  return props;
}

function port(ch, r, depth) {
  return withSteps(ch, r, { k: 'port', props: hostProps(ch, r) }, portSteps, depth);
}

function host(ch, r, depth) {
  const type = ch.pick(Object.keys(hostTypes), r?.type);
  return withSteps(ch, r, { k: 'host', type, props: hostProps(ch, r) }, portSteps, depth);
}

function shapes(ch, r) {
  const names = ch.pick(shapeKeys, r?.keys);
  const rows = list(ch, r?.rows, 4, (row) => names.map((_, j) => ch.pick(representations, row?.[j])));
  const then = rows.length ? list(ch, r?.then, 3, (c) =>
    [ch.small(3, c?.[0]) % rows.length, ch.pick(names, c?.[1]), ch.pick(representations, c?.[2])]) : [];
  return { k: 'shapes', keys: names, rows, then };
}

const primitives = {
  undefined: () => ({ k: 'undefined' }),
  null: () => ({ k: 'null' }),
  bool: (ch, r) => ({ k: 'bool', v: ch.flag(r?.v) }),
  number,
  bigint,
  string,
};

function primitive(ch, r) {
  const kind = ch.pick(Object.keys(primitives), r?.k);
  return primitives[kind](ch, r);
}

function list(ch, r, max, item) {
  const count = ch.small(max, r?.length);
  const out = [];
  for (let i = 0; i < count; i++) out.push(item(r?.[i]));
  return out;
}

const kinds = {
  ...primitives,
  view,
  port,
  arraybuffer: (ch, r) => {
    const node = { k: 'arraybuffer', bytes: hexBytes(ch, ch.small(8, r && r.bytes.length / 2), r?.bytes) };
    if (ch.flag(r?.shared)) node.shared = true;
    if (ch.flag(r?.maxByteLength !== undefined)) node.maxByteLength = ch.small(16, r?.maxByteLength);
    return node;
  },
  date: (ch, r) => ({ k: 'date', v: ch.flag(r?.v === 'NaN') ? 'NaN' : number(ch, r && { v: r.v }).v }),
  regexp: (ch, r) => {
    const [source, flags] = ch.pick(regexps, r && [r.source, r.flags]);
    return { k: 'regexp', source, flags };
  },
  boxed: (ch, r) => ({
    k: 'boxed', of: primitives[ch.pick(['bool', 'number', 'bigint', 'string'], r?.of.k)](ch, r?.of),
  }),
  object: (ch, r, depth) => withSteps(ch, r, {
    k: 'object',
    props: list(ch, r?.props, 4, (p) => [ch.pick(keys, p?.[0]), node(ch, p?.[1], depth + 1)]),
  }, objectSteps, depth),
  array: (ch, r, depth) => {
    const items = list(ch, r?.items, 5,
      (item) => (ch.flag(item?.k === 'hole') ? { k: 'hole' } : node(ch, item, depth + 1)));
    const extra = ch.small(7, r && (r.length ?? items.length) - items.length);
    return extra ? { k: 'array', items, length: items.length + extra } : { k: 'array', items };
  },
  map: (ch, r, depth) => ({
    k: 'map', entries: list(ch, r?.entries, 3, (e) => [node(ch, e?.[0], depth + 1), node(ch, e?.[1], depth + 1)]),
  }),
  set: (ch, r, depth) => ({ k: 'set', values: list(ch, r?.values, 3, (v) => node(ch, v, depth + 1)) }),
  error: (ch, r, depth) => {
    const error = { k: 'error', type: ch.pick(errorTypes, r?.type), message: text(ch, r?.message) };
    if (ch.flag(r?.cause !== undefined)) error.cause = node(ch, r?.cause, depth + 1);
    if (ch.flag(r?.stack === false)) error.stack = false;
    return error;
  },
  ref: (ch, r) => ({ k: 'ref', to: ch.small(255, r?.to) % Math.max(1, ch.ids) }),
  host,
  // Interceptor-backed host objects, with the host objects' keys (index boundaries among them).
  env: (ch, r) => ({ k: 'env', props: hostProps(ch, r) }),
  storage: (ch, r) => ({ k: 'storage', props: hostProps(ch, r) }),
  nest: (ch, r) => ({ k: 'nest', in: ch.pick(Object.keys(nestings), r?.in), depth: ch.pick(depths, r?.depth),
    leaf: primitive(ch, r?.leaf) }),
  // At most 10000 numbers set: more would outlast a fuzzer's time limit per input.
  range: (ch, r) => {
    const lengths = [1000, 10000, 100000];
    const capped = (n, every) => Math.min(n, 10000 * every);
    const node = { k: 'range', n: ch.pick(lengths, r && lengths.find((n) => capped(n, r.every) === r.n)) };
    node.every = ch.pick([1, 2, 1000], r?.every);
    node.n = capped(node.n, node.every);
    if (ch.flag(r?.double)) node.double = true;
    return node;
  },
  shapes,
};

// What a kind's own grammar part (its definition's `draw`) may use.
const grammar = { node, list, text, hexBytes, primitive, hostProps, withSteps, viewSteps, objectSteps, portSteps };
// The kinds of the table drawn by the part their definition carries: appended,
// so that seeds written before them decode as they did. A kind drawing
// children is drawn deep down too: its part bounds its own depth.
const tableKinds = Object.keys(table).filter((k) => typeof table[k].draw === 'function' && !Object.hasOwn(kinds, k));
for (const k of tableKinds) kinds[k] = (ch, r, depth) => table[k].draw(ch, r, depth, grammar);

// Host objects come in five types: met as often as the other kinds each.
const weighted = [...Object.keys(kinds).filter((k) => !tableKinds.includes(k)), 'host', 'host', ...tableKinds];
const containers = new Set(['object', 'array', 'map', 'set', 'error', 'shapes']);
const referable = new Set(Object.keys(table).filter((k) => table[k].referable));

// The kinds a node may take, [deep][referring]: deep down, containers give
// way to leaves; references need an earlier id. Long arrays (range) are heavy values.
const kindTables = [false, true].map((deep) => [false, true].map((referring) => rarely(
  weighted.filter((k) => (!deep || !containers.has(k)) && (referring || k !== 'ref')), (k) => k === 'range')));

function node(ch, r, depth) {
  const kind = ch.pick(kindTables[Number(depth >= kMaxDepth)][Number(ch.ids > 0)], r?.k);
  const withId = referable.has(kind) && ch.flag(r?.id !== undefined);
  const id = withId ? ch.ids++ : undefined;
  const made = kinds[kind](ch, r, depth);
  return id === undefined ? made : { ...made, id };
}

function decodeRecipe(bytes) {
  return node(new Decoder(bytes), undefined, 0);
}

// Throws a RangeError when the recipe is outside what the grammar expresses.
function encodeRecipe(recipe) {
  const ch = new Encoder();
  node(ch, recipe, 0);
  return Buffer.from(ch.out);
}

// Grammar parts that other generators (the fast-check arbitraries) draw from
// bytes, so that both engines reach the same classes the same way.
const parts = { ...Object.fromEntries(tableKinds.map((k) => [k, kinds[k]])),
  host, nest: kinds.nest, range: kinds.range, shapes, string, prototype,
  interceptor: (ch, r) => kinds[ch.pick(['env', 'storage'], r?.k)](ch, r),
  world: (ch, s) => worldStep(ch, s),
  effectGetter: objectSteps['effect-getter'], hostEffectGetter: portSteps['effect-getter'] };

function decodePart(name, bytes) {
  return parts[name](new Decoder(bytes), undefined, 0);
}

module.exports = { decodeRecipe, encodeRecipe, decodePart, tableKinds };
