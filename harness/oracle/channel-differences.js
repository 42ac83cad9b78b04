'use strict';
// Differences between two records of what came through a real child_process
// channel, with the tiers and signatures of the harness comparison: the
// conformance fork cases (a binary against the reference's decoding) and the
// reachability check of findings (the build under test against the reference
// release) judge channels by it.

const { compareOutcomes, errorLabel } = require('./compare');
const { Outcome, Tier } = require('../base/vocabulary');

function difference(tier, where, a, b, key, detail) {
  return { tier, op: 'fork', where, a, b, signature: `${tier}/fork/${key}`, detail };
}

function side(outcome) {
  const s = { kind: outcome.kind };
  if (outcome.error) Object.assign(s, { name: outcome.error.name, code: outcome.error.code });
  return s;
}

// Messages that came through a channel: { kind: 'ok', messages, effects?, errors?, next? },
// or a reject, crash or hang. `where` names the direction.
function channelDifferences(where, expected, actual) {
  if (expected.kind !== Outcome.ok || actual.kind !== Outcome.ok) {
    return compareOutcomes('fork', where, expected, actual);
  }
  const out = [];
  const [em, am] = [expected.messages, actual.messages];
  for (let i = 0; i < Math.min(em.length, am.length); i++) {
    out.push(...compareOutcomes('fork', `${where}, message ${i + 1}`, { kind: Outcome.ok, tree: em[i] }, { kind: Outcome.ok, tree: am[i] }));
  }
  if (em.length !== am.length) {
    out.push(difference(Tier.framing, where, side(expected), side(actual), 'delivered',
      `expected ${em.length} messages, ${am.length} arrived`));
  }
  if (expected.errors) out.push(...errorDifferences(where, expected.errors, actual.errors));
  if (expected.next !== undefined && expected.next !== actual.next) {
    out.push(difference(Tier.framing, where, side(expected), side(actual), 'next',
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
    kind: expected.length ? Outcome.reject : Outcome.ok,
    ...(expected[0] && { name: expected[0].name, code: expected[0].code }),
  };
  const b = { kind: actual.length ? Outcome.reject : Outcome.ok,
    ...(actual[0] && { name: actual[0].name, code: actual[0].code }) };
  if (!expected.length !== !actual.length) {
    const rejecter = expected.length ? 'a' : 'b';
    const label = errorLabel(expected[0] ?? actual[0]);
    return [difference(Tier.acceptance, where, a, b, `${rejecter}-rejects:${label}`,
      `expected ${expected.length} uncaught errors, got ${actual.length}`)];
  }
  const out = [];
  if (expected.length !== actual.length) {
    out.push(difference(Tier.framing, where, a, b, 'errors', `expected ${expected.length} uncaught errors, got ${actual.length}`));
  }
  if (expected.length && errorLabel(expected[0]) !== errorLabel(actual[0])) {
    out.push(difference(Tier.errorIdentity, where, a, b, `${errorLabel(expected[0])}~${errorLabel(actual[0])}`,
      `a ${errorLabel(expected[0])}, b ${errorLabel(actual[0])}`));
  }
  return out;
}

module.exports = { channelDifferences };
