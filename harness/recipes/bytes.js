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
  return (choices, key) =>
    choices.pick(choices.pick(classes, key === undefined || !isIntegerKey(key) ? named : indices), key);
}
const hostKey = hostKeyFrom(portKeys);
const hostEffectKey = hostKeyFrom(effectKeys);
const objectEffectKey = (choices, key) => choices.pick(effectKeys, key);
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

// Each grammar function reads (decode) or re-writes (encode) one part; `given` is
// the recipe part being encoded, undefined when decoding.
function text(choices, v) {
  const length = choices.small(12, v?.length);
  const units = choices.raw(length * 2, v !== undefined && Buffer.from(v, 'utf16le'));
  return Buffer.from(units).toString('utf16le');
}

// A short text, or one code unit repeated to a length class (63, 64, 65,
// 4 KiB, 64 KiB, 1 Mi units); then one of V8's string shapes.
function string(choices, given) {
  const repeat = choices.pick(repeats, given?.repeat ?? 1);
  const node = { k: 'string', v: repeat === 1 ? text(choices, given?.v) : unit(choices, given?.v) };
  if (repeat !== 1) node.repeat = repeat;
  const shape = choices.pick([undefined, ...stringShapes], given?.shape);
  if (shape) node.shape = shape;
  return node;
}

function unit(choices, v) {
  return Buffer.from(choices.raw(2, v !== undefined && Buffer.from(v, 'utf16le'))).toString('utf16le');
}

function hexBytes(choices, count, hex) {
  return Buffer.from(choices.raw(count, hex && Buffer.from(hex, 'hex'))).toString('hex');
}

function number(choices, given) {
  if (choices.flag(given && !numbers.includes(given.v))) {
    const bytes = choices.raw(8, given && (() => { const b = Buffer.alloc(8); b.writeDoubleLE(given.v); return b; })());
    const v = Buffer.from(bytes).readDoubleLE(0);
    // Values JSON cannot carry are written as the recipe's names for them.
    return { k: 'number', v: Number.isFinite(v) && !Object.is(v, -0) ? v : String(Object.is(v, -0) ? '-0' : v) };
  }
  return { k: 'number', v: choices.pick(numbers, given?.v) };
}

function bigint(choices, given) {
  const value = given && BigInt(given.v);
  const negative = choices.flag(given && value < 0n);
  const magnitude = given && (negative ? -value : value).toString(16);
  const hex = given && (magnitude.length % 2 ? `0${magnitude}` : magnitude);
  const length = choices.small(17, given && hex.length / 2);
  const digits = hexBytes(choices, length, hex);
  const v = digits ? BigInt(`0x${digits}`) : 0n;
  return { k: 'bigint', v: String(negative ? -v : v) };
}

function view(choices, given, depth) {
  const type = choices.pick(viewTypes, given?.type);
  const width = bytesPerElement[type] ?? 1;
  const sizeOf = (repeat) => viewSizes.find((c) => c !== null && Math.floor(c / width) === repeat) ?? null;
  const size = choices.pick(viewSizes, given && (given.repeat === undefined ? null : sizeOf(given.repeat)));
  const elements = size === null ? choices.small(8, given && given.bytes.length / 2 / width) : 1;
  const node = { k: 'view', type, bytes: hexBytes(choices, elements * width, given?.bytes) };
  if (size !== null) node.repeat = Math.floor(size / width);
  const offset = choices.small(3, given && (given.offset ?? 0) / width) * width;
  if (offset) node.offset = offset;
  if (choices.flag(given?.subclass) && type !== 'Buffer') node.subclass = true;
  if (choices.flag(given?.pooled) && type === 'Buffer') node.pooled = true;
  return withSteps(choices, given, node, viewSteps, depth);
}

const viewSteps = {
  constructor: (choices, s) => ({
    op: 'set', key: 'constructor', value: { k: 'global', name: choices.pick(constructorNames, s?.value.name) },
  }),
  'own-length': (choices, s) => ({
    op: 'define', key: choices.pick(lengthKeys, s?.key), value: { k: 'number', v: choices.small(4, s?.value.v) },
  }),
  'to-string-tag': (choices, s) => ({
    op: 'define', key: { wellKnown: 'toStringTag' }, value: { k: 'string', v: choices.pick(toStringTags, s?.value.v) },
    enumerable: false,
  }),
  prototype,
  detach: () => ({ op: 'detach' }),
  'throwing-constructor': () => ({ op: 'define', key: 'constructor', get: { throws: 'constructor getter' } }),
  'buffer-prototype-constructor': (choices, s) => ({
    op: 'proto', of: 'Buffer', key: 'constructor',
    value: { k: 'global', name: choices.pick(bufferPrototypeConstructors, s?.value.name) },
  }),
};

function prototype(choices, s) {
  const step = { op: 'prototype', of: choices.pick(prototypes, s?.of) };
  if (choices.flag(s?.proxy)) step.proxy = true;
  return step;
}

// What a getter does to the object being copied before it returns or throws;
// `key` reads the keys it touches.
const effects = {
  delete: (choices, s, key) => ({ op: 'delete', key: key(choices, s?.key) }),
  add: (choices, s, key) => ({ op: 'set', key: key(choices, s?.key), value: { k: 'number', v: 9 } }),
  hide: (choices, s, key) => ({ op: 'define', key: key(choices, s?.key), value: { k: 'number', v: 5 },
    enumerable: false }),
  redefine: (choices, s, key) => ({ op: 'define', key: key(choices, s?.key), get: { returns: { k: 'number', v: 7 } } }),
  prototype,
  detach: () => ({ op: 'detach', on: 'v' }),
  resize: () => ({ op: 'resize', on: 'v', to: 1 }),
  // Appended, so that seeds written before them decode as they did.
  freeze: () => ({ op: 'freeze' }),
  'prevent-extensions': () => ({ op: 'preventExtensions' }),
};

// A getter that changes the object, at a key and touching keys `key` reads.
const effectGetter = (key) => (choices, s) => {
  const step = { op: 'define', key: key(choices, s?.key), get: {} };
  const name = choices.pick(Object.keys(effects), s && stepName(effects, s.get.then[0], key));
  step.get.then = [effects[name](choices, s?.get.then[0], key)];
  if (choices.flag(s?.get.throws)) step.get.throws = 'getter';
  else step.get.returns = { k: 'number', v: 1 };
  if (choices.flag(s?.enumerable === false)) step.enumerable = false;
  return step;
};

const objectSteps = { 'effect-getter': effectGetter(objectEffectKey), prototype };

const portSteps = {
  'effect-getter': effectGetter(hostEffectKey),
  getter: (choices, s) => ({
    op: 'define', key: hostKey(choices, s?.key),
    get: choices.flag(s?.get.throws) ? { throws: 'getter' } : { returns: { k: 'number', v: 1 } },
  }),
  'inherited-setter': (choices, s) => {
    const step = { op: 'inherited-setter', key: hostKey(choices, s?.key) };
    if (choices.flag(s?.throws)) step.throws = 'setter called';
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
const worldStep = (choices, s) => worldVariants[choices.pick(worldNames, s && variantOf(s))].draw(choices, s);
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

function withSteps(choices, given, node, table, depth) {
  const count = choices.small(2, given && (given.tamper?.length ?? 0));
  const names = Object.keys(table);
  const tamper = [];
  for (let i = 0; i < count; i++) {
    const step = given?.tamper[i];
    const name = choices.pick(names, step && stepName(table, step));
    tamper.push(table[name](choices, step, depth));
  }
  return tamper.length ? { ...node, tamper } : node;
}

function hostProps(choices, given) {
  const count = choices.small(3, given?.props.length);
  const props = [];
  for (let i = 0; i < count; i++) {
    const [key, value] = given?.props[i] ?? [];
    props.push([hostKey(choices, key), primitive(choices, value)]);
  }
  return props;
}

function port(choices, given, depth) {
  return withSteps(choices, given, { k: 'port', props: hostProps(choices, given) }, portSteps, depth);
}

function host(choices, given, depth) {
  const type = choices.pick(Object.keys(hostTypes), given?.type);
  return withSteps(choices, given, { k: 'host', type, props: hostProps(choices, given) }, portSteps, depth);
}

function shapes(choices, given) {
  const names = choices.pick(shapeKeys, given?.keys);
  const rows = list(choices, given?.rows, 4, (row) => names.map((_, j) => choices.pick(representations, row?.[j])));
  const then = rows.length ? list(choices, given?.then, 3, (c) =>
    [choices.small(3, c?.[0]) % rows.length, choices.pick(names, c?.[1]), choices.pick(representations, c?.[2])]) : [];
  return { k: 'shapes', keys: names, rows, then };
}

const primitives = {
  undefined: () => ({ k: 'undefined' }),
  null: () => ({ k: 'null' }),
  bool: (choices, given) => ({ k: 'bool', v: choices.flag(given?.v) }),
  number,
  bigint,
  string,
};

function primitive(choices, given) {
  const kind = choices.pick(Object.keys(primitives), given?.k);
  return primitives[kind](choices, given);
}

function list(choices, given, max, item) {
  const count = choices.small(max, given?.length);
  const out = [];
  for (let i = 0; i < count; i++) out.push(item(given?.[i]));
  return out;
}

const kinds = {
  ...primitives,
  view,
  port,
  arraybuffer: (choices, given) => {
    const length = choices.small(8, given && given.bytes.length / 2);
    const node = { k: 'arraybuffer', bytes: hexBytes(choices, length, given?.bytes) };
    if (choices.flag(given?.shared)) node.shared = true;
    if (choices.flag(given?.maxByteLength !== undefined)) node.maxByteLength = choices.small(16, given?.maxByteLength);
    return node;
  },
  date: (choices, given) => ({ k: 'date',
    v: choices.flag(given?.v === 'NaN') ? 'NaN' : number(choices, given && { v: given.v }).v }),
  regexp: (choices, given) => {
    const [source, flags] = choices.pick(regexps, given && [given.source, given.flags]);
    return { k: 'regexp', source, flags };
  },
  boxed: (choices, given) => ({
    k: 'boxed', of: primitives[choices.pick(['bool', 'number', 'bigint', 'string'], given?.of.k)](choices, given?.of),
  }),
  object: (choices, given, depth) => withSteps(choices, given, {
    k: 'object',
    props: list(choices, given?.props, 4, (p) => [choices.pick(keys, p?.[0]), node(choices, p?.[1], depth + 1)]),
  }, objectSteps, depth),
  array: (choices, given, depth) => {
    const items = list(choices, given?.items, 5,
      (item) => (choices.flag(item?.k === 'hole') ? { k: 'hole' } : node(choices, item, depth + 1)));
    const extra = choices.small(7, given && (given.length ?? items.length) - items.length);
    return extra ? { k: 'array', items, length: items.length + extra } : { k: 'array', items };
  },
  map: (choices, given, depth) => ({
    k: 'map',
    entries: list(choices, given?.entries, 3,
      (entry) => [node(choices, entry?.[0], depth + 1), node(choices, entry?.[1], depth + 1)]),
  }),
  set: (choices, given, depth) => ({ k: 'set',
    values: list(choices, given?.values, 3, (v) => node(choices, v, depth + 1)) }),
  error: (choices, given, depth) => {
    const error = { k: 'error', type: choices.pick(errorTypes, given?.type), message: text(choices, given?.message) };
    if (choices.flag(given?.cause !== undefined)) error.cause = node(choices, given?.cause, depth + 1);
    if (choices.flag(given?.stack === false)) error.stack = false;
    return error;
  },
  ref: (choices, given) => ({ k: 'ref', to: choices.small(255, given?.to) % Math.max(1, choices.ids) }),
  host,
  // Interceptor-backed host objects, with the host objects' keys (index boundaries among them).
  env: (choices, given) => ({ k: 'env', props: hostProps(choices, given) }),
  storage: (choices, given) => ({ k: 'storage', props: hostProps(choices, given) }),
  nest: (choices, given) => ({ k: 'nest', in: choices.pick(Object.keys(nestings), given?.in),
    depth: choices.pick(depths, given?.depth),
    leaf: primitive(choices, given?.leaf) }),
  // At most 10000 numbers set: more would outlast a fuzzer's time limit per input.
  range: (choices, given) => {
    const lengths = [1000, 10000, 100000];
    const capped = (n, every) => Math.min(n, 10000 * every);
    const n = choices.pick(lengths, given && lengths.find((length) => capped(length, given.every) === given.n));
    const node = { k: 'range', n };
    node.every = choices.pick([1, 2, 1000], given?.every);
    node.n = capped(node.n, node.every);
    if (choices.flag(given?.double)) node.double = true;
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
for (const k of tableKinds) kinds[k] = (choices, given, depth) => table[k].draw(choices, given, depth, grammar);

// Host objects come in five types: met as often as the other kinds each.
const weighted = [...Object.keys(kinds).filter((k) => !tableKinds.includes(k)), 'host', 'host', ...tableKinds];
const containers = new Set(['object', 'array', 'map', 'set', 'error', 'shapes']);
const referable = new Set(Object.keys(table).filter((k) => table[k].referable));

// The kinds a node may take, [deep][referring]: deep down, containers give
// way to leaves; references need an earlier id. Long arrays (range) are heavy values.
const kindTables = [false, true].map((deep) => [false, true].map((referring) => rarely(
  weighted.filter((k) => (!deep || !containers.has(k)) && (referring || k !== 'ref')), (k) => k === 'range')));

function node(choices, given, depth) {
  const kind = choices.pick(kindTables[Number(depth >= kMaxDepth)][Number(choices.ids > 0)], given?.k);
  const withId = referable.has(kind) && choices.flag(given?.id !== undefined);
  const id = withId ? choices.ids++ : undefined;
  const made = kinds[kind](choices, given, depth);
  return id === undefined ? made : { ...made, id };
}

function decodeRecipe(bytes) {
  return node(new Decoder(bytes), undefined, 0);
}

// Throws a RangeError when the recipe is outside what the grammar expresses.
function encodeRecipe(recipe) {
  const choices = new Encoder();
  node(choices, recipe, 0);
  return Buffer.from(choices.out);
}

// Grammar parts that other generators (the fast-check arbitraries) draw from
// bytes, so that both engines reach the same classes the same way.
const parts = { ...Object.fromEntries(tableKinds.map((k) => [k, kinds[k]])),
  host, nest: kinds.nest, range: kinds.range, shapes, string, prototype,
  interceptor: (choices, given) => kinds[choices.pick(['env', 'storage'], given?.k)](choices, given),
  world: (choices, s) => worldStep(choices, s),
  effectGetter: objectSteps['effect-getter'], hostEffectGetter: portSteps['effect-getter'] };

function decodePart(name, bytes) {
  return parts[name](new Decoder(bytes), undefined, 0);
}

module.exports = { decodeRecipe, encodeRecipe, decodePart, tableKinds };
