'use strict';
// Every two-way mapping, checked the way fast-check checks its mappers: what
// one side makes, the other side reads back the same. The byte grammar's
// decodeRecipe(encodeRecipe(r)) is checked with the grammar, in recipes.test.js.
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const fc = require('fast-check');
const { compileRecipe } = require('../../harness/recipes/codegen');
const { recipe } = require('../../harness/arbitraries/recipes');
const { tampered } = require('../../harness/recipes/steps');
const inputs = require('../../fuzzers/jazzer/inputs');
const { root, node26 } = require('../fixtures/helpers');

const seed = Number(process.env.IPCFUZZ_SEED ?? 20261123);

// Canonical trees of recipes built in a fresh node under test, one per line:
// through buildInput (how workers build a check's value), or from the source
// compileRecipe printed (how a repro script builds it), or through buildInput
// and described as a plain value (see canonicalize). A getter that a
// tampering step installed may throw while the tree is read: its message
// stands for the tree.
function treesInFreshProcess(recipes, way) {
  const script = `
    const { canonicalize } = require(${JSON.stringify(path.join(root, 'harness', 'oracle', 'canonical.js'))});
    const { buildInput } = require(${JSON.stringify(path.join(root, 'harness', 'recipes', 'build.js'))});
    const { compileRecipe } = require(${JSON.stringify(path.join(root, 'harness', 'recipes', 'codegen.js'))});
    const build = {
      buildInput: (recipe) => buildInput({ recipe }, []).value,
      plain: (recipe) => buildInput({ recipe }, []).value,
      source: (recipe) => new Function('require', 'effects', compileRecipe(recipe))(require, []).value,
    }[process.argv[1]];
    for (const recipe of JSON.parse(require('node:fs').readFileSync(0, 'utf8'))) {
      let tree;
      try {
        tree = canonicalize(build(recipe), { plain: process.argv[1] === 'plain' });
      } catch (err) {
        tree = { threw: String(err.message).split('\\n')[0] };
      }
      console.log(JSON.stringify(tree));
    }`;
  const run = spawnSync(node26, ['-e', script, way], {
    input: JSON.stringify(recipes), encoding: 'utf8', maxBuffer: 1 << 28,
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim().split('\n');
}

describe('round trips', function () {
  it('recipe to code: the compiled source builds the value buildInput builds', function () {
    const recipes = fc.sample(recipe, { seed, numRuns: 200 });
    // Compiling throws on no recipe the arbitrary draws.
    for (const r of recipes) compileRecipe(r);
    const viaBuild = treesInFreshProcess(recipes, 'buildInput');
    const viaSource = treesInFreshProcess(recipes, 'source');
    assert.equal(viaBuild.length, recipes.length);
    // The same text is the same tree; a tree 10000 deep is too deep to be compared as objects.
    for (const [i, tree] of viaBuild.entries()) {
      if (viaSource[i] === tree) continue;
      assert.deepEqual(JSON.parse(viaSource[i]), JSON.parse(tree), JSON.stringify(recipes[i]));
    }
  });

  // describeInput (ops.js) describes the value of such a recipe as plain.
  it('recipe to tree: a value built without tampering steps is plain, its tree the same read either way', function () {
    const recipes = fc.sample(recipe, { seed, numRuns: 300 }).filter((r) => !tampered(r));
    assert.ok(recipes.length > 100, `${recipes.length} recipes without tampering steps`);
    const plain = treesInFreshProcess(recipes, 'plain');
    const described = treesInFreshProcess(recipes, 'buildInput');
    for (const [i, tree] of described.entries()) {
      if (plain[i] === tree) continue;
      assert.deepEqual(JSON.parse(plain[i]), JSON.parse(tree), JSON.stringify(recipes[i]));
    }
  });

  it('frame target: the seed of a frame reads back as that frame', function () {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (frame) => {
      const bytes = Buffer.from(frame);
      assert.equal(inputs.frame(inputs.frameSeed(bytes)).bytes, bytes.toString('hex'));
    }), { seed, numRuns: 500 });
  });

  it('stream target: the seed of a stream reads back as its bytes and read sizes', function () {
    const chunks = fc.array(fc.integer({ min: 0, max: 31 }), { maxLength: 7 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), chunks, (stream, sizes) => {
      const bytes = Buffer.from(stream);
      assert.deepEqual(inputs.stream(inputs.streamSeed(bytes, sizes)), { bytes: bytes.toString('hex'), chunks: sizes });
    }), { seed, numRuns: 500 });
  });
});
