'use strict';
// The three checks, each running one input through side a and side b and
// comparing what came out. `run(side, request)` executes one operation (see
// ops.js) for a side and returns its outcome, or a promise of it.

const { compareOutcomes, compareReads } = require('./compare');

function both(run, request) {
  return Promise.all([run('a', request), run('b', request)]);
}

function unbuildable(type, input, a, b) {
  return { type, input, skipped: (a.kind === 'unbuildable' ? a : b).error.message, outcomes: { serialize: { a, b }, decode: [] }, differences: [] };
}

// input: { recipe } or { module }. Serializes with both codecs, then decodes
// every distinct frame that came out with both.
async function value(run, input) {
  const [sa, sb] = await both(run, { op: 'serialize', input });
  if (sa.kind === 'unbuildable' || sb.kind === 'unbuildable') return unbuildable('value', input, sa, sb);
  const outcomes = { serialize: { a: sa, b: sb }, decode: [] };
  const differences = compareOutcomes('serialize', 'serialize', sa, sb);
  const frames = [['a', sa], ['b', sb]].filter(([, o]) => o.kind === 'ok');
  if (frames.length === 2 && sa.bytes === sb.bytes) frames.pop();
  for (const [producer, outcome] of frames) {
    const [da, db] = await both(run, { op: 'deserialize', bytes: outcome.bytes.slice(8) });
    outcomes.decode.push({ producer, a: da, b: db });
    differences.push(...compareOutcomes('deserialize', `decode ${producer}'s frame`, da, db));
  }
  return { type: 'value', input, outcomes, differences };
}

// input: { recipe } or { module }. Serializes with codec a, then lets each
// codec decode that frame and serialize what it got: both must give the same frame.
async function roundtrip(run, input) {
  const serialized = await run('a', { op: 'serialize', input });
  if (serialized.kind === 'unbuildable') return unbuildable('roundtrip', input, serialized, serialized);
  const outcomes = { serialize: { a: serialized, b: serialized }, decode: [] };
  if (serialized.kind !== 'ok') return { type: 'roundtrip', input, outcomes, differences: [] };
  const [ra, rb] = await both(run, { op: 'roundtrip', bytes: serialized.bytes.slice(8) });
  outcomes.roundtrip = { a: ra, b: rb };
  return { type: 'roundtrip', input, outcomes, differences: compareOutcomes('roundtrip', 'decode and re-encode', ra, rb) };
}

// input: { bytes (hex), chunks: [sizes] }: a byte stream cut into reads of
// the given sizes, the rest as a last read.
async function stream(run, input) {
  const request = { op: 'stream', bytes: input.bytes, chunks: input.chunks ?? [] };
  const [oa, ob] = await both(run, request);
  const differences = oa.kind === 'ok' && ob.kind === 'ok' ?
    compareReads(oa.reads, ob.reads) :
    compareOutcomes('stream', 'framer', oa, ob);
  return { type: 'stream', input, outcomes: { stream: { a: oa, b: ob } }, differences };
}

// input: { bytes (hex) }: a whole frame, length prefix included, fed to a
// fresh framer as one read.
async function frame(run, input) {
  return { ...(await stream(run, { bytes: input.bytes })), type: 'frame', input };
}

module.exports = { value, roundtrip, stream, frame };
