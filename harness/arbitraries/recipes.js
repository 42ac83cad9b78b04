'use strict';
// fast-check arbitraries of value recipes (see harness/recipes). Small
// composable pieces, weighted towards what the IPC codec treats specially:
// ArrayBufferViews, host objects and tampered identities, nested in
// containers, with shared and circular references added afterwards.

const fc = require('fast-check');
const { kinds, errorTypes } = require('../recipes/kinds');
const { viewTypes, bytesPerElement } = require('../wire/tags');
const { decodePart, tableKinds } = require('../recipes/bytes');
const { estimatedBytes } = require('../recipes/weight');
const { screen } = require('../recipes/crash-shapes');
const {
  integerKeys, portKeys, constructorNames, lengthKeys, toStringTags, bufferPrototypeConstructors,
} = require('../recipes/vocabulary');

// A part of the byte grammar drawn from bytes (shrinks with them).
const part = (name, length = 16) =>
  fc.uint8Array({ minLength: length, maxLength: length }).map((b) => decodePart(name, b));

// Values that cost a check milliseconds rather than microseconds: strings of
// 4 KiB and more, nests 1000 deep and more, long arrays. Drawn as often as
// the rest, they would take most of a run's time; drawn rarely (below), each
// is still met over a hundred times in a default `make fuzz`.
const isHeavy = (node) => (node.k === 'string' && (node.repeat ?? 1) >= 4096) ||
  (node.k === 'nest' && node.depth >= 1000) || node.k === 'range';
const holdsHeavy = (node) => node !== null && typeof node === 'object' &&
  (isHeavy(node) || Object.values(node).some(holdsHeavy));

const num = (v) => ({ k: 'number', v });
const str = (v) => ({ k: 'string', v });
const global = (name) => ({ k: 'global', name });

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

// Any code point but a surrogate: what the unit 'binary' draws, from the
// same random numbers, but read back (to shrink) by arithmetic, where
// fast-check's unit builds a map of all 1.1 million on first use (0.9 s).
const kSurrogates = 0x800;
const codePoint = fc.nat({ max: 0x10ffff - kSurrogates }).map(
  (i) => String.fromCodePoint(i < 0xd800 ? i : i + kSurrogates),
  (s) => {
    const cp = typeof s === 'string' ? s.codePointAt(0) : undefined;
    if (cp === undefined || String.fromCodePoint(cp) !== s || (cp >= 0xd800 && cp < 0xe000)) {
      throw new Error('not a code point outside the surrogates');
    }
    return cp < 0xd800 ? cp : cp - kSurrogates;
  });

const string = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: codePoint, maxLength: 8 }),
  fc.string({ unit: fc.oneof(fc.constantFrom('a', 'é', 'ÿ', '€', '😀'), loneSurrogate), maxLength: 6 }),
);

const number = fc.oneof(
  fc.constantFrom('-0', 'NaN', 'Infinity', '-Infinity', 0, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 32, 2 ** 53),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
).map(num);

const primitive = fc.oneof(
  fc.constant({ k: 'undefined' }),
  fc.constant({ k: 'null' }),
  fc.boolean().map((v) => ({ k: 'bool', v })),
  number,
  fc.bigInt({ min: -(2n ** 130n), max: 2n ** 130n }).map((v) => ({ k: 'bigint', v: String(v) })),
  string.map(str),
  // Length classes up to 65 units and V8's string shapes; longer ones are heavy (below).
  part('string', 32).filter((node) => !holdsHeavy(node)),
);

const key = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', 'b', 'visible', 'constructor', 'length', '', '__proto__x') },
  { weight: 2, arbitrary: fc.constantFrom('7', '1.5', ...integerKeys) },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
);

const hex = (min, max) => fc.uint8Array({ minLength: min, maxLength: max })
  .map((bytes) => Buffer.from(bytes).toString('hex'));

// The arbitrary make(arg) gives, made once per argument (by its key): a
// chain() calls its function at every draw, and building the arbitrary it
// returns (a record of seven fields, a oneof of records) cost more than
// drawing from it. Arbitraries are descriptions: the same one draws the same.
function once(make, keyOf = String) {
  const made = new Map();
  return (arg) => {
    const key = keyOf(arg);
    if (!made.has(key)) made.set(key, make(arg));
    return made.get(key);
  };
}

// A view recipe, with the backing layouts that change what codecs read: an
// offset into a larger buffer, a Buffer from the pool, a subclass, a
// length-tracking view on a resizable buffer.
const view = fc.constantFrom(...viewTypes).chain(once((type) => {
  const width = bytesPerElement[type] ?? 1;
  return fc.record({
    k: fc.constant('view'),
    type: fc.constant(type),
    bytes: fc.integer({ min: 0, max: 6 }).chain(once((n) => hex(n * width, n * width))),
    offset: fc.integer({ min: 0, max: 3 }).map((n) => n * width),
    slack: fc.integer({ min: 0, max: 9 }),
    subclass: type === 'Buffer' ? fc.constant(false) : fc.boolean(),
    pooled: type === 'Buffer' ? fc.boolean() : fc.constant(false),
  }, { requiredKeys: ['k', 'type', 'bytes'] });
}));

const arrayBuffer = fc.record({
  k: fc.constant('arraybuffer'),
  bytes: hex(0, 8),
  shared: fc.boolean(),
  maxByteLength: fc.integer({ min: 8, max: 32 }),
}, { requiredKeys: ['k', 'bytes'] });

// Tampering steps that change what a codec reads from a view.
const viewTamper = fc.oneof(
  fc.constantFrom(...constructorNames)
    .map((name) => ({ op: 'set', key: 'constructor', value: global(name) })),
  // Shadowed view fields: what the JS codec read and the native codec does not.
  { weight: 2, arbitrary: fc.record({
    op: fc.constant('define'),
    key: fc.constantFrom(...lengthKeys),
    value: fc.integer({ min: 0, max: 4 }).map(num),
  }) },
  fc.constantFrom(...toStringTags)
    .map((tag) => ({ op: 'define', key: { wellKnown: 'toStringTag' }, value: str(tag), enumerable: false })),
  part('prototype', 2),
  fc.constant({ op: 'detach' }),
  fc.record({ op: fc.constant('set'), key, value: primitive }),
  fc.record({ op: fc.constant('define'), key: fc.constant('constructor'),
    get: fc.oneof(fc.constant({ returns: global('Buffer') }), fc.constant({ throws: 'constructor getter' })) }),
);

// Steps that change what the copy of a host object reads and runs.
const hostTamper = (keys) => fc.oneof(
  fc.record({ op: fc.constant('define'), key: fc.constantFrom(...keys),
    get: fc.oneof(fc.constant({ returns: num(1) }), fc.constant({ throws: 'getter' })) }),
  fc.record({ op: fc.constant('inherited-setter'), key: fc.constantFrom(...keys),
    throws: fc.option(fc.constant('setter called'), { nil: undefined }) }, { requiredKeys: ['op', 'key'] }),
  fc.record({ op: fc.constant('define'), key: fc.constant({ symbol: 'hidden' }),
    get: fc.constant({ returns: num(2) }) }),
  part('hostEffectGetter', 6),
);

// Steps on shared prototypes, undone after each call.
const globalTamper = fc.oneof(
  fc.constantFrom(...bufferPrototypeConstructors).map((name) =>
    ({ op: 'proto', of: 'Buffer', key: 'constructor', value: global(name) })),
  fc.constant({ op: 'proto', of: 'Uint8Array', key: 'constructor', value: global('Buffer') }),
);

const withTamper = (base, steps, maxLength = 2) =>
  fc.tuple(base, fc.array(steps, { maxLength })).map(([node, tamper]) => (tamper.length ? { ...node, tamper } : node));

// A pooled Buffer whose byteLength or offset is overridden makes the JS codec
// read neighbouring pool memory, whose contents vary from call to call.
const readsPastView = (step) => step.op === 'define' && lengthKeys.includes(step.key);
const viewOrGlobalTamper = fc.oneof({ weight: 5, arbitrary: viewTamper }, { weight: 1, arbitrary: globalTamper });
const tamperedView = withTamper(view, viewOrGlobalTamper)
  .filter((v) => !(v.pooled && v.tamper?.some(readsPastView)));

// Index keys on a host object crash the native codec of 26.4+ (see
// harness/recipes/crash-shapes.js): one known finding, and a worker restart each
// time, so ports and host objects carry them rarely (about one recipe in a
// hundred), often enough to be met thousands of times in a run.
const namedPortKeys = portKeys.filter((k) => !integerKeys.includes(k));
const portKey = fc.oneof({ weight: 60, arbitrary: fc.constantFrom(...namedPortKeys) },
  { weight: 1, arbitrary: fc.constantFrom(...integerKeys) });
const hostPart = fc.oneof({ weight: 30, arbitrary: part('host', 24).filter((node) => !screen({ recipe: node })) },
  { weight: 1, arbitrary: part('host', 24) }).filter((node) => !holdsHeavy(node));

const port = fc.uniqueArray(portKey, { maxLength: 3 }).chain(once((keys) =>
  withTamper(
    fc.tuple(...keys.map(() => primitive)).map((values) =>
      ({ k: 'port', props: keys.map((k, i) => [k, values[i]]) })),
    hostTamper(keys.length ? keys : ['visible']),
  ), (keys) => JSON.stringify(keys)));

const date = fc.oneof(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.constant('NaN')).map((v) => ({ k: 'date', v }));
const regexp = fc.record({
  k: fc.constant('regexp'),
  source: fc.constantFrom('a', '^x+$', '[\\u0100-\\uffff]', '(?<n>.)\\k<n>', ''),
  flags: fc.subarray(['d', 'g', 'i', 'm', 's', 'u', 'y']).map((f) => f.join('')),
});
const boxed = fc.oneof(
  fc.boolean().map((v) => ({ k: 'bool', v })), number,
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((v) => ({ k: 'bigint', v: String(v) })), string.map(str),
).map((of) => ({ k: 'boxed', of }));

// Heavy values, one class as often as another: long strings, deep nests,
// long packed and holey arrays, views around 64 KiB and of MiBs.
const heavy = fc.oneof(
  ...[4096, 65536, 1 << 20].map((repeat) =>
    part('string', 32).filter((node) => node.repeat !== undefined).map((node) => ({ ...node, repeat }))),
  ...[1000, 10000].map((depth) => part('nest', 4).map((node) => ({ ...node, depth }))),
  ...[1000, 10000, 20000, 100000].map((n) => part('range', 4).filter((node) => node.n === n)),
  ...[[65535, 65537], [3 << 20, 3 << 20]].map(([min, max]) => fc.tuple(fc.constantFrom(...viewTypes),
    fc.integer({ min, max }), fc.uint8Array({ minLength: 8, maxLength: 8 })).map(([type, size, bytes]) => {
    const width = bytesPerElement[type] ?? 1;
    return { k: 'view', type, bytes: Buffer.from(bytes.subarray(0, width)).toString('hex'),
      repeat: Math.floor(size / width) };
  })),
);

// The kinds drawn by arbitraries of this file. Any other kind of the table
// is drawn from the grammar part its definition carries (recipes/kinds/),
// so that a kind added there is drawn here too.
const drawnHere = new Set(['undefined', 'null', 'bool', 'number', 'bigint', 'string', 'symbol', 'function', 'global',
  'ref', 'hole', 'object', 'array', 'map', 'set', 'error', 'shapes', 'date', 'regexp', 'boxed', 'arraybuffer', 'view',
  'port', 'host', 'env', 'storage', 'nest', 'range']);
const fromTable = tableKinds.filter((k) => !drawnHere.has(k)).map((k) => part(k, 16));

const ordinaryLeaf = fc.oneof(
  { weight: 6, arbitrary: primitive },
  { weight: 6, arbitrary: tamperedView },
  { weight: 3, arbitrary: port },
  { weight: 2, arbitrary: hostPart },
  { weight: 1, arbitrary: part('interceptor', 16) },
  { weight: 1, arbitrary: part('nest', 4).filter((node) => !holdsHeavy(node)) },
  { weight: 1, arbitrary: part('shapes', 32) },
  { weight: 2, arbitrary: arrayBuffer },
  { weight: 1, arbitrary: date },
  { weight: 1, arbitrary: regexp },
  { weight: 1, arbitrary: boxed },
  { weight: 1, arbitrary: fc.constantFrom({ k: 'symbol' }, { k: 'function' }) },
  ...fromTable.length ? [{ weight: 1, arbitrary: fc.oneof(...fromTable) }] : [],
);

// About one recipe in 80 holds a heavy value, each of the eleven kinds of
// them one in 900: over a hundred of each class in a default `make fuzz`.
// At one in 45 they were 1.5% of the value checks and 28% of their time.
const leaf = fc.oneof({ weight: 350, arbitrary: ordinaryLeaf }, { weight: 2, arbitrary: heavy });

const tree = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: tie('object') },
    { weight: 1, arbitrary: tie('array') },
    { weight: 1, arbitrary: tie('map') },
    { weight: 1, arbitrary: tie('set') },
    { weight: 1, arbitrary: tie('error') }),
  // Getters on objects that change the object being copied, and prototype surgery.
  object: withTamper(fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }).map((props) => ({ k: 'object', props })),
    fc.oneof(part('effectGetter', 6), part('prototype', 2)), 1),
  array: fc.record({
    k: fc.constant('array'),
    items: fc.array(fc.oneof(
      { weight: 4, arbitrary: tie('node') },
      { weight: 1, arbitrary: fc.constant({ k: 'hole' }) },
    ), { maxLength: 5 }),
    length: fc.integer({ min: 0, max: 12 }),
  }, { requiredKeys: ['k', 'items'] })
    // A length below the items would cut them: it grows to hold them.
    .map((a) => (a.length !== undefined && a.length < a.items.length ? { ...a, length: a.items.length } : a)),
  map: fc.array(fc.tuple(tie('node'), tie('node')), { maxLength: 3 }).map((entries) => ({ k: 'map', entries })),
  set: fc.array(tie('node'), { maxLength: 3 }).map((values) => ({ k: 'set', values })),
  error: fc.record({
    k: fc.constant('error'),
    type: fc.constantFrom(...errorTypes),
    message: fc.string({ maxLength: 8 }),
    cause: tie('node'),
    stack: fc.constantFrom(false, 'custom stack'),
  }, { requiredKeys: ['k', 'type', 'message'] }),
}));

// The objects references may point back to (the kind table's `referable`).
const referable = new Set(Object.keys(kinds).filter((k) => kinds[k].referable));

// Gives some referable nodes an id and turns some later nodes into references
// to them (shared when the target is done, circular when it is an ancestor).
// Driven by a list of choices so that fast-check can shrink it.
function addReferences(root, choices) {
  let c = 0;
  const next = () => (c < choices.length ? choices[c++] : 0);
  const ids = [];
  // A copy of each node: fast-check may hand the same tree to another map.
  const walk = (node) => {
    if (ids.length && next() % 5 === 1) return { k: 'ref', to: ids[next() % ids.length] };
    const out = { ...node };
    if (referable.has(node.k) && next() % 3 === 1) {
      out.id = ids.length;
      ids.push(out.id);
    }
    if (out.props) out.props = out.props.map(([k, v]) => [k, walk(v)]);
    if (out.items) out.items = out.items.map((v) => (v.k === 'hole' ? v : walk(v)));
    if (out.entries) out.entries = out.entries.map(([k, v]) => [walk(k), walk(v)]);
    if (out.values) out.values = out.values.map(walk);
    if (out.cause) out.cause = walk(out.cause);
    return out;
  };
  return walk(root);
}

const recipe = fc.tuple(tree.node, fc.array(fc.nat(30), { maxLength: 24 }))
  .map(([root, choices]) => addReferences(root, choices));

// The value property's recipes. The native codec's known crash (see
// harness/recipes/crash-shapes.js) costs a worker process each time it is met, some
// fifty ordinary checks; most recipes with its shape are kept from being
// drawn again, so that about one in 350 has it rather than one in 90: still
// thousands in a run, and each class of them met as before, but the crash
// takes a twentieth of the rate, not a fifth.
const screened = fc.oneof(
  { weight: 3, arbitrary: recipe.filter((r) => screen({ recipe: r }) === null) },
  { weight: 1, arbitrary: recipe });
// One value in twelve is sent and read in a world a step changed (a
// built-in recording its calls, Buffer's pool watched, a receiving
// prototype's property): over a thousand of each kind of world step in a
// default `make fuzz`.
const worldStep = fc.oneof({ weight: 11, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: part('world', 8) });
const valueRecipe = fc.tuple(screened, worldStep)
  .map(([root, step]) => (step === null ? root : { ...root, tamper: [...(root.tamper ?? []), step] }));

// For the frame and stream properties, which corrupt and cut frames byte by
// byte: values whose frames stay small.
const smallRecipe = recipe.filter((r) => estimatedBytes(r) <= 1 << 14);

module.exports = { recipe, valueRecipe, smallRecipe };
