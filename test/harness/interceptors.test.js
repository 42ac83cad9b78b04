'use strict';
// The interceptor-backed host objects (process.env, sessionStorage): for the
// codec call they hold the recipe's properties alone, in the printed code and
// in the planned one alike, what they held comes back after, and the codecs'
// key enumeration at the index boundaries is compared.
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { node26, useSession } = require('../fixtures/helpers');
const { changesSharedState, tampered } = require('../../harness/recipes/steps');

const str = (v) => ({ k: 'string', v });
const env = { k: 'env', props: [['0', str('a')], ['x', { k: 'number', v: 1 }], ['4294967295', str('c')]] };
const storage = { k: 'storage', props: [['0', str('a')], ['2147483648', str('d')], ['x', str('b')]] };

// What a store holds inside setup/teardown and after, built both ways in the binary under test.
function heldBothWays(recipe) {
  const script = `
    const { buildInput } = require(${JSON.stringify(require.resolve('../../harness/recipes/build'))});
    const { compileRecipe } = require(${JSON.stringify(require.resolve('../../harness/recipes/codegen'))});
    const recipe = ${JSON.stringify(recipe)};
    const printed = () => (0, eval)('(function (require, effects) {' + compileRecipe(recipe) + '})')(require, []);
    const store = () => (recipe.k === 'env' ? process.env : sessionStorage);
    const before = JSON.stringify({ ...store() });
    const out = {};
    for (const [name, build] of [['planned', () => buildInput({ recipe }, [])], ['printed', printed]]) {
      const b = build();
      b.setup();
      out[name] = Object.keys(store()).map((k) => [k, store()[k]]);
      b.teardown();
      out[name + 'Restored'] = JSON.stringify({ ...store() }) === before;
    }
    console.log(JSON.stringify(out));`;
  const run = spawnSync(node26, ['-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('interceptor-backed host objects', function () {
  this.timeout(60_000);
  const session = useSession();

  it('hold the recipe\'s properties alone for the call, then what they held before', function () {
    const held = heldBothWays(env);
    assert.deepEqual(held.planned, [['0', 'a'], ['x', '1'], ['4294967295', 'c']]);
    assert.deepEqual(held.printed, held.planned);
    assert.equal(held.plannedRestored, true);
    assert.equal(held.printedRestored, true);
    const kept = heldBothWays(storage);
    // Filled through setItem: 2^31 stays 2^31 (as a property, V8's index interceptor would store -2^31).
    assert.deepEqual(kept.planned.map(([k]) => k).sort(), ['0', '2147483648', 'x']);
    assert.deepEqual(kept.printed, kept.planned);
    assert.equal(kept.plannedRestored, true);
  });

  it('change shared state: checked apart, the value not compared by the round-trip oracle', function () {
    for (const recipe of [env, storage, { k: 'array', items: [storage] }]) {
      assert.equal(changesSharedState(recipe), true);
      assert.equal(tampered(recipe), true);
    }
  });

  it('key 2^31 of a Web Storage object: the js codec leaves it out, the native codec writes it', async function () {
    const result = await session.check('value', { recipe: storage });
    const [bytes] = result.differences.filter((d) => d.tier === 'bytes');
    assert.ok(bytes, JSON.stringify(result.differences));
    assert.equal(result.outcomes.serialize.a.kind, 'ok');
    // The native frame holds a double key (2^31 is no Smi), the js frame none.
    assert.ok(result.outcomes.serialize.b.bytes.includes('4e000000000000e041'), result.outcomes.serialize.b.bytes);
    assert.ok(!result.outcomes.serialize.a.bytes.includes('4e000000000000e041'));
  });

  it('process.env with the index boundaries: both codecs write the same frame', async function () {
    const result = await session.check('value', { recipe: env });
    assert.deepEqual(result.differences, []);
    assert.equal(result.outcomes.serialize.a.kind, 'ok');
  });
});
