#!/usr/bin/env node
'use strict';
// Writes the seed corpus of the native fuzz targets (corpus/native/): raw
// frames, [uint32 BE length][payload], as the reference codec serializes the
// conformance recipes and pseudo-random recipes, plus corrupted variants of
// each. Deterministic; files are named by content (sha1, as libFuzzer does),
// so regenerating adds what is new and rewrites nothing.
//
// Usage: node scripts/native-corpus.js [--count N] [--out DIR]

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { parseArgs } = require('node:util');
const fc = require('fast-check');
const { recipe } = require('../harness/arbitraries/recipes');
const { corruption } = require('../harness/arbitraries/frames');
const { applyCorruption } = require('../harness/wire/corrupt');
const { Session } = require('../harness/run/session');
const { root } = require('../harness/base/binaries');
const { loadVectors } = require('../conformance/vectors');
const { Outcome } = require('../harness/base/vocabulary');
const { kCallTimeoutMs } = require('../harness/base/defaults');

const kSeed = 2601;
const kCorruptionsPerFrame = 2;

function save(dir, frame) {
  const file = path.join(dir, crypto.createHash('sha1').update(frame).digest('hex'));
  if (fs.existsSync(file)) return false;
  fs.writeFileSync(file, frame);
  return true;
}

async function main() {
  const { values } = parseArgs({ options: {
    count: { type: 'string', default: '200' },
    out: { type: 'string', default: path.join(root, 'corpus', 'native') },
  } });
  const dir = path.resolve(values.out);
  fs.mkdirSync(dir, { recursive: true });
  const vectors = loadVectors();
  const recipes = [
    ...vectors.filter((v) => v.kind === 'recipe').map((v) => v.input.recipe),
    ...fc.sample(recipe, { seed: kSeed, numRuns: Number(values.count) }),
  ];
  const session = new Session({ a: { codec: 'js' }, b: { codec: 'js' }, timeoutMs: kCallTimeoutMs });
  const frames = vectors.filter((v) => v.kind === 'frame').map((v) => Buffer.from(v.input.bytes, 'hex'));
  try {
    for (const r of recipes) {
      const outcome = await session.run('a', { op: 'serialize', input: { recipe: r } });
      if (outcome.kind === Outcome.ok) frames.push(Buffer.from(outcome.bytes, 'hex'));
    }
  } finally {
    session.close();
  }
  const corruptions = fc.sample(corruption, { seed: kSeed, numRuns: frames.length * kCorruptionsPerFrame });
  let added = 0;
  frames.forEach((frame, i) => {
    added += save(dir, frame);
    for (let k = 0; k < kCorruptionsPerFrame; k++) {
      added += save(dir, applyCorruption(frame, corruptions[i * kCorruptionsPerFrame + k]));
    }
  });
  console.log(`${path.relative(process.cwd(), dir)}: ${added} new seeds, ${fs.readdirSync(dir).length} in all`);
}

main().catch((err) => {
  console.error(`native-corpus: ${err.message}`);
  process.exitCode = 1;
});
