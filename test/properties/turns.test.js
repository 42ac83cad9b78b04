'use strict';
// The order in which the properties' turns come round.

const assert = require('node:assert/strict');
const { turnCycle, runsPerTurn } = require('../../properties/engine');
const { properties } = require('../../properties/definitions');

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
});
