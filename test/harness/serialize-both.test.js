'use strict';
// Both codecs of a check serializing one value built once (ops.both): each
// must see what it would see on a value of its own, the value is built once
// unless user code ran that may have changed it, and then a side whose such
// code ran gets its own.
const assert = require('node:assert/strict');
const fc = require('fast-check');
const { recipe } = require('../../harness/arbitraries/recipes');
const { screen } = require('../../harness/recipes/crash-shapes');
const { fixtureLines } = require('../fixtures/helpers');

const seed = Number(process.env.IPCFUZZ_SEED ?? 20261126);
const num = (v) => ({ k: 'number', v });
const key = { k: 'host', type: 'private-key' };

// Recipes whose user code runs in one codec, in both, or around the calls.
const corners = [
  // Only js copies a host object's own symbol-keyed getter.
  { ...key, tamper: [{ op: 'define', key: { symbol: 'hidden' }, get: { returns: num(2) } }] },
  // Both codecs run this getter, which changes the value.
  { k: 'object', props: [['a', num(1)]], tamper: [{ op: 'define', key: 'g', get: { then: [{ op: 'delete', key: 'a' }],
    returns: num(3) } }] },
  // A port, closed by the teardown done after the calls.
  { k: 'port', props: [['x', num(1)]] },
  // A setter on Object.prototype, put there by the setup and taken away by the teardown.
  { k: 'object', props: [['v', { k: 'view', type: 'Buffer', bytes: '00' }]],
    tamper: [{ op: 'inherited-setter', key: '1' }] },
  // A teardown that throws.
  { k: 'port', tamper: [{ op: 'prototype', of: null, proxy: true }] },
  { k: 'function' },
  // Only js runs this getter, which changes the value.
  { ...key, tamper: [{ op: 'define', key: { symbol: 'hidden' }, get: { then: [{ op: 'set', key: 'x', value: num(1) }],
    returns: num(2) } }] },
  // User code that runs while the value is built (reading `buffer` through a recorded prototype, to detach it).
  { k: 'view', type: 'Uint8Array', bytes: '00',
    tamper: [{ op: 'prototype', of: 'Uint8Array', proxy: true }, { op: 'detach' }] },
];

describe('serializing one value for both codecs', function () {
  this.timeout(120_000);

  it('gives each codec what a value of its own gives it, building fewer values', function () {
    const drawn = fc.sample(recipe, { seed, numRuns: 400 }).filter((r) => !screen({ recipe: r }));
    const recipes = [...corners, ...drawn];
    const lines = fixtureLines('serialize-both.js', recipes);
    assert.equal(lines.length, recipes.length);
    let built = 0;
    let alone = 0;
    for (const [i, { alone: one, both }] of lines.entries()) {
      const where = JSON.stringify(recipes[i]);
      for (const side of [0, 1]) {
        const { frame, ...seen } = both.outcomes[side];
        const { frame: ownFrame, ...ownSeen } = one.outcomes[side];
        assert.deepEqual(seen, ownSeen, where);
        // An integral number in an object's field is written as int32 or as
        // double by the field's representation, which a value built before
        // may have changed: the frames must decode alike.
        if (frame !== ownFrame) assert.ok(seen.decoded, where);
      }
      built += both.builds;
      alone += one.builds;
    }
    // One value for both sides, unless user code ran that may have changed it.
    assert.equal(lines[5].both.builds, 1);
    assert.equal(lines[2].both.builds, 1);
    assert.ok(built < alone * 0.6, `${built} values built in one go against ${alone} one by one`);
    // js alone ran a getter that only returns: one value still, described for native.
    assert.deepEqual(lines[0].both.outcomes.map((o) => o.effects.length > 0), [true, false]);
    assert.equal(lines[0].both.builds, 1);
    assert.ok(lines[0].both.outcomes[1].inputTree);
    // js alone ran the getter that changes the value: native gets the value again to describe it.
    assert.deepEqual(lines[6].both.outcomes.map((o) => o.effects.length > 0), [true, false]);
    assert.equal(lines[6].both.builds, 2);
    assert.ok(lines[6].both.outcomes[1].inputTree);
    // Both codecs are told what ran while the one value was built.
    assert.equal(lines[7].both.builds, 1);
    assert.deepEqual(lines[7].both.outcomes.map((o) => o.effects[0]), ['proto get buffer', 'proto get buffer']);
    // Both ran the getter: js is given a value of its own.
    assert.deepEqual(lines[1].both.outcomes.map((o) => o.effects.length > 0), [true, true]);
    assert.equal(lines[1].both.builds, 2);
    assert.match(lines[4].both.outcomes[0].error.message, /close is not a function/);
  });
});
