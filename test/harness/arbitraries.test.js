'use strict';
// The fast-check recipes draw heavy values (long strings, deep nests, long
// arrays, large views) rarely, so that they do not take most of a run's time,
// yet every class of them is drawn.
const assert = require('node:assert/strict');
const fc = require('fast-check');
const { recipe } = require('../../harness/arbitraries/recipes');

const seed = Number(process.env.IPCFUZZ_SEED ?? 20261123);

// The heavy classes a recipe holds, by name.
function heavyClasses(node, found = new Set()) {
  if (node === null || typeof node !== 'object') return found;
  if (node.k === 'string' && node.repeat >= 4096) found.add(`string x${node.repeat}`);
  if (node.k === 'nest' && node.depth >= 1000) found.add(`nest ${node.depth}`);
  if (node.k === 'range') found.add(`range ${node.n}`);
  if (node.k === 'view' && node.repeat) {
    found.add(node.bytes.length / 2 * node.repeat >= 1 << 20 ? 'view MiB' : 'view 64 KiB');
  }
  for (const child of Object.values(node)) heavyClasses(child, found);
  return found;
}

describe('fast-check recipes', function () {
  this.timeout(60_000);

  it('draw each heavy class, and all of them together in under one recipe in 30', function () {
    const runs = 30_000;
    const counts = new Map();
    let heavy = 0;
    for (const r of fc.sample(recipe, { seed, numRuns: runs })) {
      const found = heavyClasses(r);
      if (found.size) heavy++;
      for (const name of found) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    const expected = ['string x4096', 'string x65536', 'string x1048576', 'nest 1000', 'nest 10000',
      'range 1000', 'range 10000', 'range 20000', 'range 100000', 'view 64 KiB', 'view MiB'];
    assert.deepEqual([...counts.keys()].sort(), expected.sort(), JSON.stringify([...counts]));
    assert.ok(heavy < runs / 30, `${heavy} of ${runs} recipes hold a heavy value`);
  });
});
