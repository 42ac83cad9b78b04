'use strict';
// The kind table (harness/recipes/kinds/) against the two generators that
// draw recipes from it, the byte grammar and the fast-check arbitraries: each
// reaches every kind, and whatever either draws, the table accepts and
// builds, both ways.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const fc = require('fast-check');
const { kinds } = require('../../harness/recipes/kinds');
const { steps } = require('../../harness/recipes/tampering');
const { decodeRecipe, encodeRecipe, decodePart, tableKinds } = require('../../harness/recipes/bytes');
const { compileRecipe, compileWorld } = require('../../harness/recipes/codegen');
const { planRecipe, planWorld, Unplanned } = require('../../harness/recipes/interpret');
const { recipeNodes } = require('../../harness/recipes/nodes');
const { RecipeError } = require('../../harness/recipes/errors');
const { recipe, valueRecipe } = require('../../harness/arbitraries/recipes');
const { bundle } = require('../../harness/base/bundle');

const seed = Number(process.env.IPCFUZZ_SEED ?? 20261201);

// Seeded byte strings, so that a failure names the bytes that broke it.
function* randomInputs(count, length, start = 1) {
  let state = start;
  const random = () => { state = (state * 48271) % 2147483647; return state & 0xff; };
  for (let i = 0; i < count; i++) yield Buffer.from(Array.from({ length: 1 + (i % length) }, random));
}

// What a generator never drew of a table: one line per kind, naming the file that defines it.
function unreached(table, recipes, generator) {
  const seen = new Set(recipes.flatMap((r) => recipeNodes(r).map((node) => node.k)));
  return Object.entries(table).filter(([k]) => !seen.has(k)).map(([k, { file }]) =>
    `kind "${k}" (harness/recipes/kinds/${file}) is never drawn by ${generator}: give its definition a ` +
    '`draw` part (docs/recipes.md, "Defining a kind")');
}

// The table's verdict on a recipe: printed and planned without a RecipeError.
function accepted(r) {
  compileRecipe(r);
  compileWorld(r);
  for (const plan of [planRecipe, planWorld]) {
    try {
      plan(r);
    } catch (err) {
      if (!(err instanceof Unplanned)) throw err;
    }
  }
}

describe('kind table', function () {
  this.timeout(120_000);

  const decoded = [...randomInputs(4000, 160)].map((bytes) => decodeRecipe(bytes));
  const drawn = [...fc.sample(recipe, { seed, numRuns: 3000 }), ...fc.sample(valueRecipe, { seed, numRuns: 1000 })];

  it('defines each kind and each step with a print and a plan, from a file of kinds/', function () {
    for (const [name, kind] of Object.entries(kinds)) {
      assert.match(kind.file, /^[a-z-]+\.js$/, name);
      // A kind that refuses to stand anywhere alone (a hole) refuses in its check.
      if (!kind.print) assert.throws(() => kind.check({ k: name }, '$'), RecipeError, name);
      else assert.equal(typeof kind.plan, 'function', `${name} prints but does not plan`);
    }
    for (const [op, step] of Object.entries(steps)) {
      assert.deepEqual([typeof step.print, typeof step.plan], ['function', 'function'], op);
    }
  });

  it('holds every module of kinds/, and a repro script bundles them all', function () {
    const folder = path.join(__dirname, '..', '..', 'harness', 'recipes', 'kinds');
    const files = new Set(Object.values(kinds).map((kind) => kind.file));
    for (const file of fs.readdirSync(folder)) {
      assert.ok(files.has(file), `harness/recipes/kinds/${file} defines no kind of the table: require it in kinds.js`);
    }
    // A bundle holds only what is required by name: it builds each kind as the harness does.
    const harness = new Function('require', `${bundle(['recipes/codegen.js'])}\nreturn harness;`)(require);
    const { compileRecipe: bundled } = harness('recipes/codegen.js');
    for (const r of drawn.slice(0, 200)) assert.equal(bundled(r), compileRecipe(r));
  });

  it('is reached, every kind of it, by the byte grammar', function () {
    assert.deepEqual(unreached(kinds, decoded, 'the byte grammar'), []);
  });

  it('is reached, every kind of it, by the fast-check arbitraries', function () {
    assert.deepEqual(unreached(kinds, drawn, 'the fast-check arbitraries'), []);
  });

  it('names a kind added without a grammar part, and the file that defines it', function () {
    const table = { ...kinds, sparkly: { file: 'sparkly.js', print: () => 'null', plan: () => () => null } };
    assert.deepEqual(unreached(table, decoded, 'the byte grammar'), [
      'kind "sparkly" (harness/recipes/kinds/sparkly.js) is never drawn by the byte grammar: give its definition ' +
      'a `draw` part (docs/recipes.md, "Defining a kind")']);
  });

  it('accepts every recipe the byte grammar decodes, and each encodes back to itself', function () {
    for (const [i, r] of decoded.entries()) {
      accepted(r);
      assert.deepEqual(decodeRecipe(encodeRecipe(r)), r, `input ${i}`);
    }
  });

  it('accepts every recipe the arbitraries draw', function () {
    for (const r of drawn) accepted(r);
  });

  it('draws each kind that carries its own grammar part from it, both ways', function () {
    assert.ok(tableKinds.includes('resizable'), tableKinds.join(', '));
    for (const k of tableKinds) {
      for (const bytes of randomInputs(300, 24, k.length)) {
        const node = decodePart(k, bytes);
        assert.equal(node.k, k);
        accepted(node);
        // As the root of a recipe, the part reads back from the bytes it encodes to.
        assert.deepEqual(decodeRecipe(encodeRecipe(node)), node, `${k} ${bytes.toString('hex')}`);
      }
    }
  });

  it('refuses a resizable view that could not be made, naming the field', function () {
    const view = (fields) => ({ k: 'resizable', type: 'Uint16Array', bytes: '01020304', maxByteLength: 8, ...fields });
    const cases = [
      [{ type: 'Uint128Array' }, /"type" must be one of/],
      [{ maxByteLength: 2 }, /"maxByteLength" must hold "bytes"/],
      [{ offset: 1 }, /offset must be a multiple of 2/],
      [{ offset: 2, length: 2 }, /must fit in "bytes"/],
      [{ bytes: '010203', maxByteLength: 8 }, /must fit in "bytes"/],
      [{ to: 9 }, /"to" must be at most "maxByteLength"/],
      [{ shared: true, to: 2 }, /a growable buffer only grows/],
    ];
    for (const [fields, pattern] of cases) {
      for (const build of [compileRecipe, planRecipe]) {
        assert.throws(() => build(view(fields)), (err) => err instanceof RecipeError && pattern.test(err.message),
          JSON.stringify(fields));
      }
    }
    const makeable = [{}, { to: 0 }, { offset: 2, length: 1, to: 8 }, { shared: true, to: 8 }];
    for (const fields of makeable) accepted(view(fields));
  });
});
