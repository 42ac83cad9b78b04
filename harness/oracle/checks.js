'use strict';
// The checks, each running one input through side a and side b and comparing
// what came out. A check is a generator: it yields a batch of operations
// ([side, request] pairs, see ops.js) and gets their outcomes back, so the
// same check runs against worker processes (async) or in-process (sync).

const { compareOutcomes, compareReads, bytesAsReadBack, keysAGetterChanged } = require('./compare');
const { roundtripDifferences } = require('./roundtrip');
const { tampered, receivingWorld, getterChangesKeys } = require('../recipes/steps');
const { payloadRequest, kFrame, frameOf } = require('./ops');
const { Outcome } = require('../base/vocabulary');

const { drive, isPromise } = require('./drive');

const both = (request) => [['a', request], ['b', request]];

// `to`, with the bytes `from` carries beside its hex (ops.js bytesInput), if any.
function carryBytes(from, to) {
  if (from[kFrame]) to[kFrame] = from[kFrame];
  return to;
}

function unbuildable(type, input, a, b) {
  const { error } = a.kind === Outcome.unbuildable ? a : b;
  return { type, input, skipped: error.message, outcomes: { serialize: { a, b }, decode: [] }, differences: [] };
}

// input: { recipe } or { module }. Serializes with both codecs, then decodes
// every distinct frame that came out with both; each codec must also read its
// own frame back (the round-trip oracle). The value sent is described for
// that oracle only when it will be compared: never for a tampered recipe.
function* value(input) {
  const [sa, sb] = yield both({ op: 'serialize', input, tree: !tampered(input.recipe) });
  if (sa.kind === Outcome.unbuildable || sb.kind === Outcome.unbuildable) return unbuildable('value', input, sa, sb);
  const outcomes = { serialize: { a: sa, b: sb }, decode: [] };
  const frames = [['a', sa], ['b', sb]].filter(([, o]) => o.kind === Outcome.ok);
  // One string for a frame both wrote (in-process it is already; from workers it comes twice):
  // comparing it again (below, roundtrip.js) then costs nothing.
  if (frames.length === 2 && sa.bytes === sb.bytes) sb.bytes = sa.bytes;
  const differences = compareOutcomes('serialize', 'serialize', sa, sb);
  if (frames.length === 2 && sa.bytes === sb.bytes) frames.pop();
  // A recipe with steps on the receiving side has its frames decoded in that world, on both sides.
  const world = receivingWorld(input.recipe) ? { world: input.recipe } : {};
  for (const [producer, outcome] of frames) {
    const [da, db] = yield both(Object.assign(payloadRequest('deserialize', outcome), world));
    outcomes.decode.push({ producer, a: da, b: db });
    differences.push(...compareOutcomes('deserialize', `decode ${producer}'s frame`, da, db));
  }
  // With one frame for both, it is listed as a's.
  const decodeOf = (producer, side) => outcomes.decode.find((d) => d.producer === producer)?.[side] ??
    (sa.bytes === sb.bytes ? outcomes.decode[0]?.[side] : undefined);
  if (frames.length === 2) {
    const [readA, readB] = ['a', 'b'].map((producer) => decodeOf(producer, 'a')?.tree);
    const written = [frameOf(sa), frameOf(sb)];
    differences.forEach((d, i) => { differences[i] = bytesAsReadBack(d, readA, readB, written); });
    if (getterChangesKeys(input.recipe)) keysAGetterChanged(differences);
  }
  differences.push(...roundtripDifferences(input, { a: sa, b: sb }, decodeOf));
  return { type: 'value', input, outcomes, differences };
}

// input: { recipe } or { module }. Serializes with codec a, then lets each
// codec decode that frame and serialize what it got: both must give the same frame.
function* roundtrip(input) {
  const [serialized] = yield [['a', { op: 'serialize', input }]];
  if (serialized.kind === Outcome.unbuildable) return unbuildable('roundtrip', input, serialized, serialized);
  const outcomes = { serialize: { a: serialized, b: serialized }, decode: [] };
  if (serialized.kind !== Outcome.ok) return { type: 'roundtrip', input, outcomes, differences: [] };
  const [ra, rb] = yield both(payloadRequest('roundtrip', serialized));
  outcomes.roundtrip = { a: ra, b: rb };
  const differences = compareOutcomes('roundtrip', 'decode and re-encode', ra, rb);
  return { type: 'roundtrip', input, outcomes, differences };
}

// input: { bytes (hex), chunks: [sizes] }: a byte stream cut into reads of
// the given sizes, the rest as a last read.
function* stream(input) {
  const [oa, ob] = yield both(carryBytes(input, { op: 'stream', bytes: input.bytes, chunks: input.chunks ?? [] }));
  const differences = oa.kind === Outcome.ok && ob.kind === Outcome.ok ?
    compareReads(oa.reads, ob.reads) :
    compareOutcomes('stream', 'framer', oa, ob);
  return { type: 'stream', input, outcomes: { stream: { a: oa, b: ob } }, differences };
}

// input: { bytes (hex) }: a whole frame, length prefix included, fed to a
// fresh framer as one read.
function* frame(input) {
  return { ...(yield* stream(carryBytes(input, { bytes: input.bytes }))), type: 'frame', input };
}

const checks = { value, roundtrip, stream, frame };

const stepsOf = (type, input) => (typeof type === 'function' ? type : checks[type])(input);

// Those told of each result a check gives here, with its type: the engines
// add what observes a run (observe/coverage.js), and no harness module requires it.
const observers = [];
const observeChecks = (observer) => { if (!observers.includes(observer)) observers.push(observer); };

// The result of check `type` (a name, or a check's generator function, see
// from-recipes.js) of `input`: run(side, request) answers each request with
// an outcome, or a promise of one, and so the result is one or a promise of
// one. both(request), when given, runs a request that sides a and b make
// alike in one go, giving [outcome a, outcome b], or null to run them side by side.
function runCheck(type, run, input, both) {
  const answer = (requests) => (both && requests.length === 2 && requests[0][1] === requests[1][1] ?
    both(requests[0][1]) : null) ?? requests.map(([side, request]) => run(side, request));
  const result = drive(stepsOf(type, input), answer);
  if (!observers.length) return result;
  const tell = (r) => {
    for (const observer of observers) observer(type, r);
    return r;
  };
  return isPromise(result) ? result.then(tell) : tell(result);
}

module.exports = { runCheck, observeChecks, checks };
