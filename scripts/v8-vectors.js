#!/usr/bin/env node
'use strict';
// Writes V8's serializer test vectors (conformance/sources/v8-value-serializer.json,
// made by scripts/extract-v8-vectors.js) where the suites read them:
// - conformance/vectors/<verdict>/v8/: one vector each, a frame (.bin), a
//   frame with long repeats (.stream.json, read in one read) or a recipe
//   (.json), with the verdict conformance/v8-vectors.js gives; files of
//   vectors no longer made are removed from those two folders only;
// - corpus/jazzer/frame/: each frame of at most 4 KiB as a seed of the frame
//   target, named by content like every seed (nothing is rewritten).
// Then `node conformance/generate.js` writes their expectations, and refuses
// any whose verdict the reference codec does not give.
//
//   node scripts/v8-vectors.js [--check]   (--check: exit 1 when a file is missing or stale)

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { v8Vectors, group } = require('../conformance/v8-vectors');
const { verdicts } = require('../conformance/vectors');
const { frameSeed } = require('../fuzzers/jazzer/inputs');
const { root } = require('../harness/base/binaries');

const vectorsDir = path.join(root, 'conformance', 'vectors');
const seedsDir = path.join(root, 'corpus', 'jazzer', 'frame');
// Frame seeds stay small, as scripts/make-corpus.js keeps them.
const kMaxSeed = 4096;

const prefix = (length) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(length);
  return b.toString('hex');
};

const partLength = (p) => (typeof p === 'string' ? p.length / 2 : p.count * p.repeat.length / 2);

// { file name: contents } of one vector.
function filesOf(vector) {
  if (vector.kind === 'recipe') return { [`${vector.name}.json`]: `${JSON.stringify(vector.recipe, null, 2)}\n` };
  const length = vector.parts.reduce((n, p) => n + partLength(p), 0);
  if (vector.parts.every((p) => typeof p === 'string')) {
    return { [`${vector.name}.bin`]: Buffer.from(prefix(length) + vector.parts.join(''), 'hex') };
  }
  return { [`${vector.name}.stream.json`]: `${JSON.stringify({ bytes: [prefix(length), ...vector.parts], chunks: [] }, null, 2)}\n` };
}

function main(args) {
  const check = args.includes('--check');
  const wanted = new Map();  // path -> contents
  for (const vector of v8Vectors()) {
    for (const [name, contents] of Object.entries(filesOf(vector))) {
      wanted.set(path.join(vectorsDir, vector.verdict, group, name), contents);
      if (Buffer.isBuffer(contents) && contents.length <= kMaxSeed) {
        const seed = frameSeed(contents);
        wanted.set(path.join(seedsDir, crypto.createHash('sha1').update(seed).digest('hex')), seed);
      }
    }
  }
  const stale = [];
  for (const [file, contents] of wanted) {
    const same = fs.existsSync(file) && fs.readFileSync(file).equals(Buffer.from(contents));
    if (same) continue;
    stale.push(file);
    if (!check) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, contents);
    }
  }
  // Vector files (and their expectations) of V8 vectors no longer made.
  const stems = new Set([...wanted.keys()].map((f) => f.replace(/\.(bin|json|stream\.json)$/, '')));
  const removed = [];
  for (const verdict of verdicts) {
    const dir = path.join(vectorsDir, verdict, group);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      if (stems.has(file.replace(/\.(expect\.json|stream\.json|bin|json)$/, ''))) continue;
      removed.push(file);
      if (!check) fs.rmSync(file);
    }
  }
  const rel = (f) => path.relative(root, f);
  for (const f of check ? [...stale, ...removed] : []) {
    console.error(`${rel(f)}: ${stale.includes(f) ? 'missing or stale' : 'not made any more'}`);
  }
  const files = [...wanted.keys()];
  const counts = verdicts.map((v) => [v, files.filter((f) => f.startsWith(path.join(vectorsDir, v) + path.sep)).length])
    .filter(([, n]) => n);
  console.log(`V8 vectors: ${counts.map(([v, n]) => `${n} ${v}`).join(', ')}; ` +
    `${files.filter((f) => f.startsWith(seedsDir)).length} frame seeds; ` +
    `${stale.length} file${stale.length === 1 ? '' : 's'} ${check ? 'stale' : 'written'}, ${removed.length} ${check ? 'left over' : 'removed'}` +
    `${check ? '' : '; now run node conformance/generate.js'}`);
  return check && (stale.length || removed.length) ? 1 : 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  console.error(`v8-vectors: ${err.message}`);
  process.exitCode = 2;
}
