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

const { compareOutcomes, compareReads, errorLabel } = require('../harness/compare');
const { describe, describeOutcome } = require('../harness/report');
const { classify } = require('../harness/known');
const { expectedRoundtrip } = require('./outcomes');
const { forChannel } = require('./trees');

const failing = new Set(['FAIL', 'CRASH', 'HANG']);

function difference(tier, where, a, b, key, detail) {
  return { tier, op: 'fork', where, a, b, signature: `${tier}/fork/${key}`, detail };
}

function side(outcome) {
  const s = { kind: outcome.kind };
  if (outcome.error) Object.assign(s, { name: outcome.error.name, code: outcome.error.code });
  return s;
}

function inProcessDifferences(vector, expected, actual) {
  const out = [];
  if (vector.kind === 'recipe') {
    // A binary may lack the value's type (Float16Array in Node 22) yet still decode one.
    if (actual.serialize.kind !== 'unbuildable') {
      out.push(...compareOutcomes('serialize', 'serialize', expected.serialize, actual.serialize));
    }
    if (expected.decode) {
      out.push(...compareOutcomes('deserialize', 'decode the expected frame', expected.decode, actual.decode));
    }
  } else if (expected.stream.kind === 'ok' && actual.stream.kind === 'ok') {
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

// Messages that came through a channel: { kind: 'ok', messages, effects?, errors?, next? },
// or a reject, crash or hang. `where` names the direction.
function channelDifferences(where, expected, actual) {
  if (expected.kind !== 'ok' || actual.kind !== 'ok') return compareOutcomes('fork', where, expected, actual);
  const out = [];
  const [em, am] = [expected.messages, actual.messages];
  for (let i = 0; i < Math.min(em.length, am.length); i++) {
    out.push(...compareOutcomes('fork', `${where}, message ${i + 1}`, { kind: 'ok', tree: em[i] }, { kind: 'ok', tree: am[i] }));
  }
  if (em.length !== am.length) {
    out.push(difference('framing', where, side(expected), side(actual), 'delivered',
      `expected ${em.length} messages, ${am.length} arrived`));
  }
  if (expected.errors) out.push(...errorDifferences(where, expected.errors, actual.errors));
  if (expected.next !== undefined && expected.next !== actual.next) {
    out.push(difference('framing', where, side(expected), side(actual), 'next',
      `the next message ${expected.next ? 'should arrive' : 'should not arrive'}, it ${actual.next ? 'did' : 'did not'}`));
  }
  if (expected.effects && JSON.stringify(expected.effects) !== JSON.stringify(actual.effects)) {
    out.push(difference('effects', where, side(expected), side(actual), 'effects',
      `expected [${expected.effects.join(', ')}], ran [${(actual.effects ?? []).join(', ')}]`));
  }
  return out;
}

// Uncaught errors a receiving process raised while reading raw bytes.
function errorDifferences(where, expected, actual) {
  const a = {
    kind: expected.length ? 'reject' : 'ok', ...(expected[0] && { name: expected[0].name, code: expected[0].code }),
  };
  const b = { kind: actual.length ? 'reject' : 'ok', ...(actual[0] && { name: actual[0].name, code: actual[0].code }) };
  if (!expected.length !== !actual.length) {
    const rejecter = expected.length ? 'a' : 'b';
    const label = errorLabel(expected[0] ?? actual[0]);
    return [difference('acceptance', where, a, b, `${rejecter}-rejects:${label}`,
      `expected ${expected.length} uncaught errors, got ${actual.length}`)];
  }
  const out = [];
  if (expected.length !== actual.length) {
    out.push(difference('framing', where, a, b, 'errors', `expected ${expected.length} uncaught errors, got ${actual.length}`));
  }
  if (expected.length && errorLabel(expected[0]) !== errorLabel(actual[0])) {
    out.push(difference('error-identity', where, a, b, `${errorLabel(expected[0])}~${errorLabel(actual[0])}`,
      `a ${errorLabel(expected[0])}, b ${errorLabel(actual[0])}`));
  }
  return out;
}

// What a value recipe's expectation says must arrive through a channel.
function expectedArrival(expected) {
  const { serialize, decode } = expected;
  if (serialize.kind !== 'ok') return serialize;
  if (decode.kind !== 'ok') return decode;
  return { kind: 'ok', messages: [forChannel(decode.tree)], effects: serialize.effects };
}

// outcomes: every outcome the codec produced for the case, to spot crashes,
// hangs and values it cannot build; differences leave the unbuildable out.
function cell({ vector, column, differences, outcomes, known }) {
  for (const d of differences) Object.assign(d, { vector: vector.id, column: column.id });
  classify(differences, known);
  const notes = differences.filter((d) => d.tier === 'error-identity');
  const judged = differences.filter((d) => d.tier !== 'error-identity');
  const base = { differences: judged, notes };
  const unbuildable = outcomes.find((o) => o?.kind === 'unbuildable');
  if (unbuildable) {
    base.why = `cannot build the value here: ${unbuildable.error.message.split('\n')[0]}`;
    if (outcomes.every((o) => !o || o.kind === 'unbuildable')) return { state: 'N/A', why: base.why };
  }
  const fatal = outcomes.find((o) => o?.kind === 'crash' || o?.kind === 'hang');
  if (fatal) {
    const crash = judged.find((d) => d.tier === 'crash');
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
  if (outcome.kind === 'unbuildable') return `cannot build the value: ${outcome.error.message.split('\n')[0]}`;
  return describeOutcome(outcome).split('\n')[0];
}

module.exports = {
  inProcessDifferences, channelDifferences, expectedArrival, cell, summarize, failing,
};
