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
const { annotateFrame } = require('../harness/annotate');
const { applyCorruption } = require('../harness/corrupt');
const { tags } = require('../harness/wire');
const { Session } = require('../harness/session');
const { root } = require('../harness/binaries');

const corpus = path.join(root, 'corpus');
const num = (v) => ({ k: 'number', v });
const global = (name) => ({ k: 'global', name });

// The cases reviewers care about, written so the byte grammar can express them.
const reviewCases = [
  { k: 'view', type: 'Buffer', bytes: '616263', tamper: [{ op: 'set', key: 'constructor', value: global('Uint8Array') }] },
  { k: 'view', type: 'Uint8Array', bytes: '010203', tamper: [{ op: 'set', key: 'constructor', value: global('Buffer') }] },
  { k: 'view', type: 'Buffer', bytes: '78', tamper: [{ op: 'proto', of: 'Buffer', key: 'constructor', value: global('Uint8Array') }] },
  { k: 'port', props: [['visible', num(1)]], tamper: [{ op: 'inherited-setter', key: 'visible', throws: 'setter called' }] },
  { k: 'view', type: 'Float16Array', bytes: '003c', offset: 2 },
  { k: 'view', type: 'Float64Array', bytes: '000000000000f03f' },
  { k: 'view', type: 'DataView', bytes: '0102' },
  { k: 'view', type: 'BigInt64Array', bytes: '0100000000000000' },
  { k: 'object', props: [['a', { k: 'array', items: [num(1), { k: 'hole' }, { k: 'string', v: 'x' }] }],
    ['b', { k: 'map', entries: [[num(1), { k: 'set', values: [{ k: 'bigint', v: '-5' }] }]] }],
    ['x', { k: 'error', type: 'TypeError', message: 'm', cause: { k: 'null' } }]] },
  { k: 'object', id: 0, props: [['a', { k: 'ref', to: 0 }], ['b', { k: 'date', v: 0 }], ['x', { k: 'regexp', source: 'a', flags: '' }]] },
  { k: 'arraybuffer', bytes: '0102', maxByteLength: 8 },
  { k: 'boxed', of: { k: 'string', v: 'é' } },
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
  return outcome.kind === 'ok' ? Buffer.from(outcome.bytes, 'hex') : null;
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
    for (const recipe of reviewCases) {
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
      frames.push(frame);
    };
    for (const recipe of reviewCases) await keep(recipe, true);
    const random = pseudoRandomBytes(1);
    for (let i = 0; i < 4000 && frames.length < 80; i++) await keep(decodeRecipe(random.next().value), false);

    for (const frame of frames) save('frame', Buffer.concat([Buffer.from([0]), frame]));
    for (const [i, c] of corruptions.entries()) {
      const frame = applyCorruption(frames[i % frames.length], c);
      save('frame', Buffer.concat([Buffer.from([0]), frame]));
    }
    for (let i = 0; i + 2 < frames.length; i += 3) {
      const sizes = [2, frames[i].length, 1];
      save('stream', Buffer.concat([Buffer.from([sizes.length, ...sizes.map((s) => s % 32)]), frames[i], frames[i + 1], frames[i + 2]]));
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
  lines.push(`host_copy=${hex([0x5c, 0x01])}`, `host_tag_2=${hex([0x5c, 0x02])}`, '# length prefixes');
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
