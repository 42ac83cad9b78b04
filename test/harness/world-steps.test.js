'use strict';
// The world step table (harness/recipes/tampering.js worldVariants): what the
// byte grammar, the arbitraries and the coverage view draw and count of the
// steps that change the world a check runs in, each from its one entry.
const assert = require('node:assert/strict');
const fc = require('fast-check');
const { worldVariants, worldSteps } = require('../../harness/recipes/tampering');
const { decodePart, decodeRecipe, encodeRecipe } = require('../../harness/recipes/bytes');
const { compileRecipe, compileWorld } = require('../../harness/recipes/codegen');
const { planWorld } = require('../../harness/recipes/interpret');
const { valueRecipe } = require('../../harness/arbitraries/recipes');
const { groups } = require('../../harness/observe/coverage');
const { useSession, checkAgainst } = require('../fixtures/helpers');

const names = Object.keys(worldVariants);
const rowOf = (step) => `${step.op} ${step.side}`;
// The bytes that draw variant `i`, then `tail`.
const drawn = (i, tail) => decodePart('world', Buffer.from([i, ...tail]));
const tails = Array.from({ length: 24 }, (_, n) => [n, n >> 1, 7 * n + 1, n >> 2]);
// A value a world step can act on: named keys, a host object, a Buffer.
const num = (v) => ({ k: 'number', v });
const holder = (step) => ({
  k: 'object',
  props: [['visible', num(1)], ['x', { k: 'port', props: [['data', num(2)]] }], ['a', { k: 'view', type: 'Buffer',
    bytes: '01' }]],
  tamper: [step],
});

describe('world step table', function () {
  it('draws each variant as its step, only on the sides it names, and each of those sides', function () {
    for (const [i, name] of names.entries()) {
      const { op, sides } = worldVariants[name];
      const seen = new Set();
      for (const tail of tails) {
        const step = drawn(i, tail);
        assert.equal(step.op, op, name);
        assert.ok(sides.includes(step.side), `${name} drew side ${step.side}`);
        seen.add(step.side);
        // As a step of a recipe, it builds both ways and reads back from the bytes it encodes to.
        const recipe = holder(step);
        compileWorld(recipe);
        planWorld(recipe);
        assert.deepEqual(decodeRecipe(encodeRecipe(recipe)), recipe, `${name} ${JSON.stringify(step)}`);
      }
      assert.deepEqual([...seen].sort(), [...sides].sort(), name);
    }
  });

  it('gives the coverage view one row per step and side, and lets only those steps take a side', function () {
    const rows = new Set(names.flatMap((name) => worldVariants[name].sides.map((side) => `${worldVariants[name].op} ${side}`)));
    assert.deepEqual([...groups.world].sort(), [...rows].sort());
    assert.deepEqual([...worldSteps].sort(), [...new Set(names.map((name) => worldVariants[name].op))].sort());
    assert.throws(() => compileRecipe(holder({ op: 'set', key: 'a', value: num(1), side: 'receive' })), /"side"/);
  });

  it('is drawn, every variant, by the fast-check arbitraries', function () {
    const seen = new Set();
    for (const r of fc.sample(valueRecipe, { seed: 57, numRuns: 3000 })) {
      for (const step of r.tamper ?? []) if (worldSteps.has(step.op) && step.side) seen.add(rowOf(step));
    }
    assert.deepEqual([...seen].sort(), [...groups.world].sort());
  });

  describe('checked with the reference codec on both sides', function () {
    this.timeout(120_000);
    const session = useSession('js');

    // A step that made the reference differ from itself, or fail where it
    // does not otherwise, would be a fault of the harness, not a codec's
    // behaviour. The one failure the reference shows is its own: a getter-only
    // `buffer` on a receiving Object.prototype leaves its frames of views unreadable.
    const itsOwn = { accessor: ['roundtrip/deserialize/a+b:unreadable:TypeError'] };
    it('finds it differing from itself in no variant, nor failing but where it does on its own', async function () {
      for (const [i, name] of names.entries()) {
        for (const tail of tails.slice(0, 6)) {
          const recipe = holder(drawn(i, tail));
          const { differences } = await session.check('value', { recipe });
          assert.deepEqual(differences.map((d) => d.signature), itsOwn[name] ?? [],
            `${name}: ${JSON.stringify(recipe.tamper)}`);
        }
      }
    });
  });

  it('setter: finds a codec that builds what it decodes by assignment', async function () {
    this.timeout(60_000);
    const adapter = require.resolve('../fixtures/assigning-copy.js');
    const recipe = holder({ op: 'inherited-setter', key: 'visible', side: 'receive' });
    assert.deepEqual(recipe.tamper[0], drawn(names.indexOf('setter'), [0, 0, 1]));
    const found = await checkAgainst(adapter, 'value', { recipe });
    assert.ok(found.differences.some((d) => d.tier === 'effects'), JSON.stringify(found.differences));
    // In an unchanged world the copy is faithful.
    const { differences } = await checkAgainst(adapter, 'value', { recipe: { ...recipe, tamper: [] } });
    assert.deepEqual(differences, []);
  });
});
