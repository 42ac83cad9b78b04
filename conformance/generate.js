#!/usr/bin/env node
'use strict';
// Regenerates every vector's expectation (<name>.expect.json) from the
// reference codec, js in the default pinned binary, and refuses a vector whose
// folder disagrees with what the reference does (an accept vector it rejects,
// a reject vector it accepts). --check writes nothing and exits 1 when an
// expectation on disk is stale or missing.
//
//   node conformance/generate.js [--check]

const fs = require('node:fs');
const path = require('node:path');
const { AsyncWorker } = require('../harness/run/async-driver');
const { resolveNode } = require('../harness/base/binaries');
const { loadVectors } = require('./vectors');
const { runVector } = require('./outcomes');
const { SENTINEL, pieces, channelRecord } = require('./e2e/plan');
const { forChannel } = require('../harness/oracle/channel');
const { Outcome } = require('../harness/base/vocabulary');

const referenceCodec = 'js';

// What a receiving process should record when the vector's bytes, then the
// sentinel's frame, arrive in a channel one write per read.
async function channelExpectation(request, vector, sentinelFrame) {
  const writes = pieces(vector.input);
  const { reads } = await request({
    op: 'stream', bytes: writes.join('') + sentinelFrame, chunks: writes.map((p) => p.length / 2),
  });
  return channelRecord(reads.flatMap((r) => r.delivered).map(forChannel),
    reads.filter((r) => r.error).map((r) => r.error));
}

// Map of vector id -> expectation, from the reference codec in `nodePath`.
async function referenceExpectations(vectors, { nodePath = resolveNode(), timeoutMs = 30_000 } = {}) {
  const worker = new AsyncWorker(nodePath, { timeoutMs });
  const request = (r) => worker.request({ ...r, codec: referenceCodec });
  try {
    const sentinel = await request({ op: 'serialize', input: { recipe: { k: 'string', v: SENTINEL } } });
    const entries = await Promise.all(vectors.map(async (vector) => {
      const expectation = await runVector(request, vector);
      if (vector.kind !== 'recipe') expectation.fork = await channelExpectation(request, vector, sentinel.bytes);
      return [vector.id, expectation];
    }));
    return new Map(entries);
  } finally {
    worker.close();
  }
}

function rejected(expectation) {
  if (expectation.serialize) {
    return expectation.serialize.kind === Outcome.reject || expectation.decode?.kind === Outcome.reject;
  }
  return expectation.stream.kind === Outcome.ok && expectation.stream.reads.some((r) => r.error);
}

// Why a vector's folder and the reference's behaviour disagree, or null.
function verdictProblem(vector, expectation) {
  const outcomes = [expectation.serialize, expectation.decode, expectation.stream].filter(Boolean);
  const odd = outcomes.find((o) => ![Outcome.ok, Outcome.reject].includes(o.kind));
  if (odd) return `the reference ended in ${odd.kind}`;
  if (vector.verdict === 'accept' && rejected(expectation)) return 'an accept vector the reference rejects';
  if (vector.verdict === Outcome.reject && !rejected(expectation)) return 'a reject vector the reference accepts';
  return null;
}

const serializeExpectation = (expectation) => `${JSON.stringify(expectation, null, 2)}\n`;

async function main(args) {
  const check = args.includes('--check');
  const vectors = loadVectors();
  const expectations = await referenceExpectations(vectors);
  let stale = 0;
  let problems = 0;
  for (const vector of vectors) {
    const expectation = expectations.get(vector.id);
    const problem = verdictProblem(vector, expectation);
    if (problem) {
      problems++;
      console.error(`${vector.id}: ${problem}`);
      continue;
    }
    const text = serializeExpectation(expectation);
    const current = fs.existsSync(vector.expectFile) ? fs.readFileSync(vector.expectFile, 'utf8') : null;
    if (current === text) continue;
    stale++;
    if (check) console.error(`${vector.id}: expectation ${current === null ? 'missing' : 'stale'}`);
    else fs.writeFileSync(vector.expectFile, text);
  }
  const rel = (f) => path.relative(process.cwd(), f);
  console.log(`${vectors.length} vectors, ${stale} expectation${stale === 1 ? '' : 's'} ` +
    `${check ? 'stale' : 'written'}, ${problems} refused (reference: ${referenceCodec} in ${rel(resolveNode())})`);
  return problems || (check && stale) ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    console.error(`generate: ${err.message}`);
    process.exitCode = 2;
  });
}

module.exports = { referenceExpectations, verdictProblem };
