'use strict';
// The order in which the properties' turns come round, and what a turn checks.

const assert = require('node:assert/strict');
const fc = require('fast-check');
const { turnCycle, runsPerTurn, runProperties } = require('../../properties/engine');
const { properties } = require('../../properties/definitions');

// A session whose two sides differ on a value recipe with a container at its
// root, one signature per kind of container, so that a turn meets several.
const containers = ['array', 'map', 'set', 'object', 'error'];
const shown = (input) => (containers.includes(input.recipe?.k) ?
  [{ signature: `bytes/serialize/${input.recipe.k}`, tier: 'bytes', where: 'serialize', detail: input.recipe.k }] : []);
function fakeSession() {
  const result = (type, input) => ({ type, input, outcomes: {}, differences: shown(input) });
  return {
    sides: { a: { codec: 'js' }, b: { codec: 'js' } },
    batches: { inProcess: false, width: 1, maxWorkers: 1, pause() {}, resume() {}, endIdle: async () => {} },
    checkEach: (type, inputs) => ({ results: inputs.map((i) => Promise.resolve(result(type, i))), cancel() {} }),
    checkMany: async (type, inputs) => inputs.map((i) => result(type, i)),
    check: async (type, input) => result(type, input),
    confirm: async () => true,
    bootFresh() {},
  };
}

describe('turns of the properties', function () {
  const names = Object.keys(properties);
  const cycle = turnCycle(names);

  it('draws as many inputs of every property in a cycle, a cheap check drawing more a turn', function () {
    const drawn = Object.fromEntries(names.map((name) => [name, 0]));
    for (const name of cycle) drawn[name] += runsPerTurn(name);
    assert.equal(new Set(Object.values(drawn)).size, 1, JSON.stringify(drawn));
    assert.ok(runsPerTurn('frame') > runsPerTurn('value'));
  });

  it('starts with a turn of each property and spreads the others over the cycle', function () {
    assert.deepEqual(cycle.slice(0, names.length), names);
    for (let i = 1; i < cycle.length; i++) assert.notEqual(cycle[i], cycle[i - 1], `turns ${i - 1} and ${i}`);
  });

  it('gives one property alone every turn', function () {
    assert.deepEqual(turnCycle(['frame']), ['frame']);
    assert.deepEqual(turnCycle(['value', 'stream']), ['value', 'stream']);
  });

  it('goes on with the inputs of a turn after each finding in it', async function () {
    const seed = 11;
    const numRuns = runsPerTurn('value');
    const drawn = fc.sample(properties.value.arbitrary, { seed, numRuns });
    const causes = new Set(drawn.flatMap((r) => shown({ recipe: r }).map((d) => d.signature)));
    assert.ok(causes.size >= 2, `the first turn shows ${[...causes]}`);
    const summary = await runProperties({ session: fakeSession(), known: [], store: null, seed, runs: numRuns,
      only: ['value'] });
    assert.equal(summary.runs, numRuns);
    assert.deepEqual(new Set(summary.findings.map((f) => f.difference.signature)), causes);
    // All of them in the first turn, none in a turn drawn after it.
    for (const f of summary.findings) assert.equal(f.seed, seed, f.difference.signature);
  });
});
