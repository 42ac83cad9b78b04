'use strict';
// Turns a codec's outcomes on a vector into a cell of the matrix. The
// reference's outcomes (the vector's expectation) play side a of the harness
// comparison and the codec under test side b, so differences carry the same
// tiers and signatures as the fuzzers' and known-differences.json applies.
//
// States: PASS, FAIL, CRASH, HANG, KNOWN (every difference is a known one),
// IMPL (implementation-defined: recorded, not judged), N/A (the case does not
// apply, e.g. a value this binary cannot build). A differing error class or
// code never decides a cell: a reject vector only has to be rejected.

const { compareOutcomes, compareReads, errorLabel } = require('../harness/oracle/compare');
const { describe, describeOutcome } = require('../harness/findings/report');
const { classify } = require('../harness/oracle/known');
const { expectedRoundtrip } = require('./outcomes');
const { forChannel } = require('../harness/oracle/channel');
const { Outcome, Tier } = require('../harness/base/vocabulary');

const failing = new Set(['FAIL', 'CRASH', 'HANG']);

function inProcessDifferences(vector, expected, actual) {
  const out = [];
  if (vector.kind === 'recipe') {
    // A binary may lack the value's type (Float16Array in Node 22) yet still decode one.
    if (actual.serialize.kind !== Outcome.unbuildable) {
      out.push(...compareOutcomes('serialize', 'serialize', expected.serialize, actual.serialize));
    }
    if (expected.decode) {
      out.push(...compareOutcomes('deserialize', 'decode the expected frame', expected.decode, actual.decode));
    }
  } else if (expected.stream.kind === Outcome.ok && actual.stream.kind === Outcome.ok) {
    out.push(...compareReads(expected.stream.reads, actual.stream.reads));
  } else {
    out.push(...compareOutcomes('stream', 'framer', expected.stream, actual.stream));
  }
  if (actual.roundtrip) {
    out.push(...compareOutcomes('roundtrip', 'decode and re-encode', expectedRoundtrip(vector, expected),
      actual.roundtrip));
  }
  return out;
}

// What a value recipe's expectation says must arrive through a channel.
function expectedArrival(expected) {
  const { serialize, decode } = expected;
  if (serialize.kind !== Outcome.ok) return serialize;
  if (decode.kind !== Outcome.ok) return decode;
  return { kind: Outcome.ok, messages: [forChannel(decode.tree)], effects: serialize.effects };
}

// outcomes: every outcome the codec produced for the case, to spot crashes,
// hangs and values it cannot build; differences leave the unbuildable out.
function cell({ vector, column, differences: found, outcomes, known }) {
  const differences = classify(found.map((d) => ({ ...d, vector: vector.id, column: column.id })), known);
  const notes = differences.filter((d) => d.tier === Tier.errorIdentity);
  const judged = differences.filter((d) => d.tier !== Tier.errorIdentity);
  const base = { differences: judged, notes };
  const unbuildable = outcomes.find((o) => o?.kind === Outcome.unbuildable);
  if (unbuildable) {
    base.why = `cannot build the value here: ${unbuildable.error.message.split('\n')[0]}`;
    if (outcomes.every((o) => !o || o.kind === Outcome.unbuildable)) return { state: 'N/A', why: base.why };
  }
  const fatal = outcomes.find((o) => o?.kind === Outcome.crash || o?.kind === Outcome.hang);
  if (fatal) {
    const crash = judged.find((d) => d.tier === Tier.crash);
    return { ...base, state: crash?.known ? 'KNOWN' : fatal.kind.toUpperCase() };
  }
  if (vector.verdict === 'implementation-defined') return { ...base, state: 'IMPL', same: differences.length === 0 };
  if (!judged.length) return { ...base, state: 'PASS' };
  return { ...base, state: judged.every((d) => d.known) ? 'KNOWN' : 'FAIL' };
}

// One line for an outcome of any op, for reports.
function summarize(outcome) {
  if (!outcome) return 'not run';
  if (outcome.reads) {
    return outcome.reads.map((r, i) => `read ${i + 1}: ${r.delivered.length} delivered` +
      `${r.error ? `, ${errorLabel(r.error)}` : ''}, buffering ${r.buffering}`).join('; ');
  }
  if (outcome.messages) {
    const errors = outcome.errors?.length ? `, uncaught ${outcome.errors.map(errorLabel).join(', ')}` : '';
    const next = outcome.next === undefined ? '' : `, next message ${outcome.next ? 'delivered' : 'not delivered'}`;
    return `${outcome.messages.map((t) => describe(t)).join('; ') || 'nothing'} delivered${errors}${next}`;
  }
  if (outcome.kind === Outcome.unbuildable) return `cannot build the value: ${outcome.error.message.split('\n')[0]}`;
  return describeOutcome(outcome).split('\n')[0];
}

module.exports = {
  inProcessDifferences, expectedArrival, cell, summarize, failing,
};
