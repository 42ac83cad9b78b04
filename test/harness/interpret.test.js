'use strict';
// The recipe planner (harness/recipes/interpret.js) against the code
// compileRecipe prints: checks build their values with the first, repro
// scripts with the second, so a finding is only as good as their agreement.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const fc = require('fast-check');
const { recipe } = require('../../harness/arbitraries/recipes');
const inputs = require('../../fuzzers/jazzer/inputs');
const { root, node26, fixtureLines } = require('../fixtures/helpers');

const seed = Number(process.env.IPCFUZZ_SEED ?? 20261125);
const num = (v) => ({ k: 'number', v });
const getter = (get) => ({ op: 'define', key: 'g', get });

// Recipes whose printed code does what few drawn recipes ask for.
const corners = [
  // A ref, from outside a getter, to a node built inside it: the printed code's variable is not in scope.
  { k: 'object', props: [['a', { k: 'object', tamper: [getter({ then: [{ op: 'set', key: 'x', value:
    { k: 'object', id: 7 } }], returns: num(1) })] }], ['b', { k: 'ref', to: 7 }]] },
  // A getter that returns what its own steps built.
  { k: 'object', tamper: [getter({ then: [{ op: 'set', key: 'x', value: { k: 'object', id: 3 } }],
    returns: { k: 'ref', to: 3 } })] },
  // A step that changes a prototype for the call, from inside a getter: left to the printed code.
  { k: 'object', tamper: [getter({ then: [{ op: 'set', key: 'x', value: { k: 'object', tamper: [
    { op: 'proto', of: 'Buffer', key: 'constructor', value: { k: 'global', name: 'Object' } }] } }],
  returns: num(1) })] },
  // Assignments to a frozen array fail silently in the printed (sloppy) code.
  { k: 'array', id: 0, items: [{ k: 'ref', to: 0, tamper: [{ op: 'freeze' }] }, num(1)], props: [['x', num(2)]] },
  { k: 'view', type: 'Uint8Array', bytes: '0102', tamper: [{ op: 'set', key: 'length', value: num(9) },
    { op: 'define', key: 'x', value: num(1), writable: false }, { op: 'set', key: 'x', value: num(2) }] },
  // An Object.prototype setter for an index key is installed before the steps after it.
  { k: 'object', props: [['v', { k: 'view', type: 'Buffer', bytes: '00' }]], tamper: [
    { op: 'inherited-setter', key: '1' }, { op: 'inherited-setter', key: '0', throws: 'no' },
    { op: 'proto', of: 'Buffer', key: 'constructor', value: { k: 'global', name: 'Uint8Array' } },
    { op: 'proto', of: 'Uint8Array', key: { symbol: 's' }, value: num(1) }] },
  // A port whose close method a step took away: teardown throws as the printed code does.
  { k: 'port', tamper: [{ op: 'prototype', of: null, proxy: true }] },
  { k: 'error', type: 'RangeError', message: 'm', cause: { k: 'ref', to: 1 }, id: 1 },
  { k: 'error', stack: { not: 'a string' } },
  { k: 'nest', in: 'array', depth: 3, leaf: num(1.5) },
  { k: 'range', n: 10, every: 3, double: true },
  { k: 'string', v: 'ab', repeat: 3, shape: 'cons' },
  { k: 'function', tamper: [{ op: 'set', key: 'x', value: num(1) }] },
  { k: 'view', type: 'Float16Array', bytes: '0000', subclass: true, lengthTracking: true,
    buffer: { k: 'arraybuffer', bytes: '00000000', maxByteLength: 8 } },
  // Views of resizable and growable buffers: out of bounds after a shrink, tracking a growth.
  { k: 'resizable', type: 'DataView', bytes: '0102030405060708', maxByteLength: 16, offset: 2, length: 4, to: 3 },
  { k: 'resizable', type: 'Uint16Array', bytes: '01020304', maxByteLength: 8, to: 7, id: 2,
    tamper: [{ op: 'set', key: 'self', value: { k: 'ref', to: 2 } }] },
  { k: 'resizable', type: 'Buffer', bytes: '0102', shared: true, maxByteLength: 6, offset: 1, to: 6 },
];

// One line per recipe of what the fixture saw, built one way in a fresh node under test.
const outcomes = (recipes, way) => fixtureLines('build-outcomes.js', recipes, [way]);

describe('recipe planner', function () {
  this.timeout(120_000);

  it('builds what the printed code builds: same errors, frames, effects and trees', function () {
    const corpus = path.join(root, 'corpus', 'jazzer', 'value');
    const recipes = [
      ...corners,
      ...fc.sample(recipe, { seed, numRuns: 500 }),
      ...fc.sample(fc.uint8Array({ maxLength: 300 }), { seed, numRuns: 500 })
        .map((bytes) => inputs.value(Buffer.from(bytes)).recipe),
      ...fs.readdirSync(corpus).map((file) => inputs.value(fs.readFileSync(path.join(corpus, file))).recipe),
    ];
    const planned = outcomes(recipes, 'plan');
    const printed = outcomes(recipes, 'source');
    assert.equal(planned.length, recipes.length);
    let unplanned = 0;
    for (const [i, out] of planned.entries()) {
      if (out.unplanned) unplanned++;
      const { unplanned: _, frame, ...seen } = out;
      const { frame: printedFrame, ...printedSeen } = printed[i];
      const where = JSON.stringify(recipes[i]);
      // As text first: a deep nest's tree is deeper than deepEqual's recursion goes.
      if (JSON.stringify(seen) !== JSON.stringify(printedSeen)) assert.deepEqual(seen, printedSeen, where);
      // V8 writes an integral number held in an object's field as int32 or
      // as double by the field's representation, which depends on what the
      // process built before: the frames must decode to the same value.
      if (frame !== printedFrame) assert.ok(seen.decoded, where);
    }
    // The corner left to the printed code is, and few others are.
    assert.equal(planned[2].unplanned, true);
    assert.ok(unplanned < recipes.length / 50, `${unplanned} of ${recipes.length} recipes left to the printed code`);
    // The corners hold what they are there for.
    assert.match(planned[0].unbuilt ?? planned[0].threw ?? '', /ReferenceError: v\d+ is not defined/);
    assert.match(planned[6].teardown, /TypeError: v\d+\.port1\.close is not a function/);
  });

  it('undoes the shared state steps changed even when closing a port throws, both ways', function () {
    const recipe = { k: 'array', items: [
      { k: 'view', type: 'Buffer', bytes: '00', tamper: [
        { op: 'proto', of: 'Buffer', key: 'constructor', value: { k: 'global', name: 'Uint8Array' } }] },
      { k: 'port', tamper: [{ op: 'prototype', of: null, proxy: true }] },
    ] };
    const script = `
      const { planRecipe } = require(${JSON.stringify(path.join(root, 'harness', 'recipes', 'interpret.js'))});
      const { compileRecipe } = require(${JSON.stringify(path.join(root, 'harness', 'recipes', 'codegen.js'))});
      const recipe = ${JSON.stringify(recipe)};
      const ways = { plan: planRecipe(recipe), source: new Function('require', 'effects', compileRecipe(recipe)) };
      for (const [way, make] of Object.entries(ways)) {
        const built = make(require, []);
        built.setup();
        const during = Buffer.prototype.constructor.name;
        let threw = null;
        try { built.teardown(); } catch (err) { threw = err.message; }
        console.log(JSON.stringify({ way, during, threw, after: Buffer.prototype.constructor.name }));
      }`;
    const run = spawnSync(node26, ['--expose-internals', '--no-warnings', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    for (const line of lines) {
      assert.equal(line.during, 'Uint8Array', line.way);
      assert.match(line.threw, /close is not a function/, line.way);
      assert.equal(line.after, 'Buffer', line.way);
    }
    assert.equal(lines.length, 2);
  });

  it('starts an array as a fresh function would, whatever arrays it made before', function () {
    const script = `
      const { planRecipe } = require(${JSON.stringify(path.join(root, 'harness', 'recipes', 'interpret.js'))});
      const js = require(${JSON.stringify(path.join(root, 'harness', 'codecs', 'js.js'))});
      const build = (r) => planRecipe(r)(require, []).value;
      const doubles = { k: 'array', items: [{ k: 'number', v: 0.5 }] };
      for (let i = 0; i < 100; i++) build(doubles);
      for (let i = 0; i < 100; i++) build({ k: 'range', n: 4, every: 2, double: true });
      for (let i = 0; i < 100; i++) build({ k: 'range', n: 4, double: true });
      for (let i = 0; i < 100; i++) build({ k: 'nest', in: 'array', depth: 1, leaf: { k: 'number', v: 0.5 } });
      const frames = [
        { k: 'array', items: [{ k: 'number', v: 1 }] },
        { k: 'range', n: 4, every: 2 },
        { k: 'range', n: 4 },
        { k: 'nest', in: 'array', depth: 1, leaf: { k: 'number', v: 1 } },
      ].map((r) => js.serialize(build(r)).toString('hex'));
      const holey = [0, , 2, ,];
      console.log(JSON.stringify([frames, [[1], holey, [0, 1, 2, 3], [1]].map((v) => js.serialize(v).toString('hex'))]));`;
    const run = spawnSync(node26, ['--expose-internals', '--no-warnings', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const [planned, literal] = JSON.parse(run.stdout);
    // Small integers are written as int32 (tag I), not as doubles.
    assert.deepEqual(planned, literal);
  });
});
