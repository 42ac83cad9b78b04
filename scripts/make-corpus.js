#!/usr/bin/env node
'use strict';
// Regenerates the seed corpora of the Jazzer.js targets (corpus/jazzer/<target>/)
// and their dictionaries (corpus/dict/), deterministically: value seeds are
// recipes in the byte grammar (the review cases of the native codec, then
// pseudo-random recipes kept while they reach new V8 tag pairs), frame seeds
// are their frames as the reference codec writes them, plain and corrupted,
// and stream seeds are runs of those frames with read sizes. Files are named
// by content, so regenerating adds what is new and rewrites nothing.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { isDeepStrictEqual } = require('node:util');
const { encodeRecipe, decodeRecipe } = require('../harness/recipes/bytes');
const { annotateFrame } = require('../harness/wire/annotate');
const { applyCorruption } = require('../harness/wire/corrupt');
const { tags, viewTypes, bytesPerElement } = require('../harness/wire/tags');
const { Session } = require('../harness/run/session');
const { root } = require('../harness/base/binaries');
const { frameSeed, streamSeed } = require('../fuzzers/jazzer/inputs');
const { Outcome } = require('../harness/base/vocabulary');
const {
  patchTargets, receivingProtoKeys, receivingProtoAccessors, sendingHooks, worldSides,
} = require('../harness/recipes/vocabulary');

const corpus = path.join(root, 'corpus');
const num = (v) => ({ k: 'number', v });
const global = (name) => ({ k: 'global', name });

// The cases reviewers care about, written so the byte grammar can express them.
const reviewCases = [
  { k: 'view', type: 'Buffer', bytes: '616263',
    tamper: [{ op: 'set', key: 'constructor', value: global('Uint8Array') }] },
  { k: 'view', type: 'Uint8Array', bytes: '010203',
    tamper: [{ op: 'set', key: 'constructor', value: global('Buffer') }] },
  { k: 'view', type: 'Buffer', bytes: '78',
    tamper: [{ op: 'proto', of: 'Buffer', key: 'constructor', value: global('Uint8Array') }] },
  { k: 'port', props: [['visible', num(1)]],
    tamper: [{ op: 'inherited-setter', key: 'visible', throws: 'setter called' }] },
  { k: 'view', type: 'Float16Array', bytes: '003c', offset: 2 },
  { k: 'view', type: 'Float64Array', bytes: '000000000000f03f' },
  { k: 'view', type: 'DataView', bytes: '0102' },
  { k: 'view', type: 'BigInt64Array', bytes: '0100000000000000' },
  { k: 'object', props: [['a', { k: 'array', items: [num(1), { k: 'hole' }, { k: 'string', v: 'x' }] }],
    ['b', { k: 'map', entries: [[num(1), { k: 'set', values: [{ k: 'bigint', v: '-5' }] }]] }],
    ['x', { k: 'error', type: 'TypeError', message: 'm', cause: { k: 'null' } }]] },
  { k: 'object', id: 0,
    props: [['a', { k: 'ref', to: 0 }], ['b', { k: 'date', v: 0 }], ['x', { k: 'regexp', source: 'a', flags: '' }]] },
  { k: 'arraybuffer', bytes: '0102', maxByteLength: 8 },
  { k: 'boxed', of: { k: 'string', v: 'é' } },
];

// The side whose code path uses a patch target: the reader's, for the deserializer and the view copy's built-ins.
const readSide = (target) => (target.of === 'v8.Deserializer' || target.key === 'set' || target.key === 'from' ?
  'receive' : 'send');

// One seed for each class of value the codecs branch on (see README, "Value
// classes"): the fuzzers start next to every one of them, every view type
// index among them.
const getter = (key, then, end = { returns: num(1) }) => ({ op: 'define', key, get: { then: [then], ...end } });
const ab = [['x', num(1)], ['visible', num(2)]];
const classCases = [
  ...viewTypes.map((type) => ({ k: 'view', type, bytes: '01'.repeat(bytesPerElement[type] ?? 1) })),
  ...['2147483647', '2147483648', '4294967294', '4294967295', '01'].map((key) =>
    ({ k: 'host', type: 'secret-key', props: [[key, num(1)]] })),
  { k: 'port', props: [['2147483648', num(1)]] },
  { k: 'host', type: 'x509', props: [['4294967294', { k: 'null' }]] },
  { k: 'host', type: 'wasm-module', props: [] },
  { k: 'object', props: [['9007199254740992', num(1)], ['-0', num(2)], ['1e3', num(3)]] },
  { k: 'port', props: ab, tamper: [getter('x', { op: 'delete', key: 'visible' })] },
  { k: 'host', type: 'public-key', props: ab,
    tamper: [getter('g', { op: 'define', key: 'visible', value: num(5), enumerable: false })] },
  { k: 'object', props: ab, tamper: [getter('x', { op: 'set', key: 'b', value: num(9) }, { throws: 'getter' })] },
  { k: 'port', props: ab, tamper: [getter('x', { op: 'freeze' })] },
  { k: 'object', props: ab, tamper: [getter('x', { op: 'preventExtensions' })] },
  { k: 'object', props: [['v', { k: 'view', type: 'Uint8Array', bytes: '0102' }]],
    tamper: [getter('a', { op: 'detach', on: 'v' })] },
  { k: 'view', type: 'Float64Array', bytes: '000000000000f03f', tamper: [{ op: 'prototype', of: 'Int8Array' }] },
  { k: 'view', type: 'DataView', bytes: '01', tamper: [{ op: 'prototype', of: 'Buffer', proxy: true }] },
  { k: 'view', type: 'Buffer', bytes: '01', tamper: [{ op: 'prototype', of: null }] },
  { k: 'string', v: '\u20ac', repeat: 65536, shape: 'external' },
  { k: 'string', v: 'a', repeat: 64, shape: 'sliced' },
  { k: 'string', v: '\ud800', repeat: 65, shape: 'thin' },
  { k: 'string', v: 'ab', shape: 'cons' },
  { k: 'nest', in: 'host', depth: 1000, leaf: { k: 'null' } },
  { k: 'nest', in: 'array', depth: 10000, leaf: { k: 'null' } },
  { k: 'range', n: 100000, every: 1000 },
  { k: 'range', n: 10000, every: 1 },
  { k: 'view', type: 'Uint8Array', bytes: '07', repeat: 65536 },
  { k: 'shapes', keys: ['x', 'y'], rows: [[num(1), num(1.5)], [num(1), num(1.5)]],
    then: [[1, 'x', { k: 'object', props: [] }]] },
  // Views on resizable and growable buffers: a DataView a shrink left out of
  // bounds (the JS codec throws, the native one writes it empty), and
  // length-tracking views of a growth and a shrink.
  { k: 'resizable', type: 'DataView', bytes: '01020304', maxByteLength: 8, offset: 2, length: 2, to: 1 },
  { k: 'resizable', type: 'Uint8Array', bytes: '0102', maxByteLength: 6, to: 6 },
  { k: 'resizable', type: 'Int16Array', bytes: '01020304', maxByteLength: 8, shared: true, to: 8 },
  { k: 'resizable', type: 'Float64Array', bytes: '000000000000f03f', maxByteLength: 16, offset: 8, to: 4 },
  // Interceptor-backed host objects with keys at the index boundaries.
  ...['env', 'storage'].flatMap((k) => ['2147483647', '2147483648', '4294967295', 'x'].map((key) =>
    ({ k, props: [[key, { k: 'string', v: 'v' }], ['0', num(1)]] }))),
  // Each world step, on views every path of the JS codec meets (its view
  // accessors, a DataView, an unaligned Float64Array's copy), on the side
  // whose code uses the built-in, and on both.
  ...patchTargets.flatMap((target) => [readSide(target), 'both'].map((side) => ({ k: 'object', props: [
    ['a', { k: 'view', type: 'Uint8Array', bytes: '01' }],
    ['b', { k: 'view', type: 'Float64Array', bytes: '000000000000f03f' }],
    ['x', { k: 'view', type: 'DataView', bytes: '0102' }]], tamper: [{ op: 'patch', ...target, side }] }))),
  ...worldSides.map((side) => ({ k: 'view', type: 'Float64Array', bytes: '000000000000f03f',
    tamper: [{ op: 'pool', side }] })),
  ...receivingProtoKeys.map(([of, key]) => ({ k: 'view', type: 'DataView', bytes: '01020304',
    tamper: [{ op: 'proto', of, key, value: num(2), side: 'receive' }] })),
  ...receivingProtoAccessors.map(([of, key]) => ({ k: 'view', type: 'Uint8Array', bytes: '0102',
    tamper: [{ op: 'proto', of, key, get: {}, side: 'receive' }] })),
  ...sendingHooks.map(([of, key]) => ({ k: 'object', props: [['a', { k: 'arraybuffer', bytes: '01', shared: true }]],
    tamper: [{ op: 'proto', of, key, value: { k: 'function', name: key, returns: num(0) }, side: 'send' }] })),
];

// A small deterministic generator, so the corpus is the same on every machine.
function* pseudoRandomBytes(seed) {
  let state = crypto.createHash('sha256').update(String(seed)).digest();
  for (;;) {
    state = crypto.createHash('sha256').update(state).digest();
    yield state.subarray(0, 8 + (state[31] % 24));
  }
}

function tagPairs(frame) {
  const tagsSeen = annotateFrame(frame).segments.filter((s) => s.field.startsWith('tag.')).map((s) => s.field);
  return new Set(tagsSeen.map((t, i) => `${tagsSeen[i - 1] ?? '^'}>${t}`));
}

function save(target, bytes) {
  const dir = path.join(corpus, 'jazzer', target);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, crypto.createHash('sha1').update(bytes).digest('hex'));
  if (!fs.existsSync(file)) fs.writeFileSync(file, bytes);
}

async function frameOf(session, recipe) {
  const outcome = await session.run('a', { op: 'serialize', input: { recipe } });
  return outcome.kind === Outcome.ok ? Buffer.from(outcome.bytes, 'hex') : null;
}

const corruptions = [
  { k: 'host-tag', nth: 0, value: 2, overlong: 0 },
  { k: 'host-tag', nth: 0, value: 2 ** 32 - 1, overlong: 0 },
  { k: 'view-index', nth: 0, value: 14, overlong: 0 },
  { k: 'view-index', nth: 0, value: 10, overlong: 1 },
  { k: 'view-length', nth: 0, delta: 5 },
  { k: 'host-nonobject', nth: 0, value: [0x49, 0x02] },
  { k: 'padding', nth: 1, count: 1 },
  { k: 'truncate', at: 5, keepPrefix: false },
  { k: 'prefix', value: 2 ** 31 },
  { k: 'prefix', value: 0xffffffff },
  { k: 'version', value: 16 },
  { k: 'version', value: null },
  { k: 'trailing', bytes: '00' },
];

async function main() {
  const session = new Session({ a: { codec: 'js' }, b: { codec: 'js' } });
  try {
    for (const recipe of [...reviewCases, ...classCases]) {
      if (!isDeepStrictEqual(decodeRecipe(encodeRecipe(recipe)), recipe)) {
        throw new Error(`the byte grammar reads back another recipe for ${JSON.stringify(recipe)}`);
      }
    }
    const covered = new Set();
    const frames = [];
    const keep = async (recipe, always) => {
      const frame = await frameOf(session, recipe);
      if (!frame) return;
      const pairs = [...tagPairs(frame)];
      if (!always && pairs.every((p) => covered.has(p))) return;
      pairs.forEach((p) => covered.add(p));
      save('value', encodeRecipe(recipe));
      // Frame seeds stay small and within the C model's depth (256 nested values).
      if (frame.length <= 4096 && !JSON.stringify(recipe).includes('"k":"nest"')) frames.push(frame);
    };
    for (const recipe of [...reviewCases, ...classCases]) await keep(recipe, true);
    // Up to 80 frames of pseudo-random recipes besides those of the cases.
    const random = pseudoRandomBytes(1);
    const fixed = frames.length;
    for (let i = 0; i < 4000 && frames.length < fixed + 80; i++) await keep(decodeRecipe(random.next().value), false);

    for (const frame of frames) save('frame', frameSeed(frame));
    for (const [i, c] of corruptions.entries()) {
      const frame = applyCorruption(frames[i % frames.length], c);
      save('frame', frameSeed(frame));
    }
    for (let i = 0; i + 2 < frames.length; i += 3) {
      const sizes = [2, frames[i].length, 1];
      save('stream', streamSeed(Buffer.concat([frames[i], frames[i + 1], frames[i + 2]]), sizes.map((s) => s % 32)));
    }
    writeDictionary();
    console.log(`corpus: ${count('value')} value, ${count('frame')} frame, ${count('stream')} stream seeds; ${covered.size} tag pairs`);
  } finally {
    session.close();
  }
}

function count(target) {
  return fs.readdirSync(path.join(corpus, 'jazzer', target)).length;
}

// libFuzzer dictionary: V8 tags, the header, IPC host-object openings and
// view indices, and length prefixes around the edges.
function writeDictionary() {
  const hex = (bytes) => `"${bytes.map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}"`;
  const lines = ['# V8 serialization tags'];
  for (const [byte, name] of Object.entries(tags)) lines.push(`tag_${name.replace(/-/g, '_')}=${hex([Number(byte)])}`);
  lines.push('# header, version 15', `header=${hex([0xff, 0x0f])}`, '# IPC host objects: tag 0 + view type index, tag 1');
  for (let index = 0; index <= 14; index++) lines.push(`host_view_${index}=${hex([0x5c, 0x00, index])}`);
  lines.push(`host_copy=${hex([0x5c, 0x01])}`, `host_tag_2=${hex([0x5c, 0x02])}`);
  // Keys V8 writes as int32 (Smi indices), as doubles (2^31 to 2^32-2) or as strings.
  lines.push('# integer-like keys');
  for (const n of [2 ** 31 - 1, 2 ** 31, 2 ** 32 - 2]) {
    const double = Buffer.alloc(8);
    double.writeDoubleLE(n);
    lines.push(`key_double_${n}=${hex([0x4e, ...double])}`);
  }
  for (const k of ['4294967295', '9007199254740992', '-0', '01', '1e3']) {
    lines.push(`key_string_${k.replace(/-/g, 'minus')}=${hex([0x22, k.length, ...Buffer.from(k)])}`);
  }
  lines.push('# length prefixes');
  for (const n of [0, 0x7fffffff, 0x80000000, 0xffffffff]) {
    lines.push(`prefix_${n.toString(16)}=${hex([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255])}`);
  }
  fs.mkdirSync(path.join(corpus, 'dict'), { recursive: true });
  for (const target of ['frame', 'stream']) fs.writeFileSync(path.join(corpus, 'dict', `${target}.dict`), `${lines.join('\n')}\n`);
}

main().catch((err) => {
  console.error(`make-corpus: ${err.message}`);
  process.exitCode = 2;
});
