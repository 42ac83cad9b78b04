'use strict';
// Where an input and each of its requests run, decided by placement.js alone,
// without starting a process.
const assert = require('node:assert/strict');
const { placeCheck, placeRequest, sameProcess } = require('../../harness/run/placement');

const node = '/usr/bin/node';
const sides = { a: { codec: 'js', node }, b: { codec: 'native', node } };
const plain = { recipe: { k: 'number', v: 1 } };
// An index key on a host object: the shape of the known native crash.
const screened = { recipe: { k: 'host', type: 'secret-key', props: [['0', { k: 'null' }]] } };
const proto = (value) => ({ recipe: { k: 'object', props: [['p', value ?? { k: 'null' }]],
  tamper: [{ op: 'proto', of: 'Object', key: 'p', value: { k: 'number', v: 1 } }] } });
// An element given to Object.prototype leaves its process slower for good.
const spoiling = { recipe: { k: 'array', items: [{ k: 'number', v: 1 }], length: 3,
  tamper: [{ op: 'inherited-setter', key: '1', throws: 'setter called' }] } };

const local = { a: true, b: true };
const where = (input, facts) => placeCheck(input, { type: 'value', sides, ...facts });

describe('placement', function () {
  it('batches an async session\'s inputs when both codecs are built in and share a binary', function () {
    assert.equal(sameProcess(sides), true);
    assert.equal(sameProcess({ ...sides, b: { codec: 'native', node: '/other/node' } }), false);
    assert.equal(sameProcess({ ...sides, b: { codec: '/adapter.js', node } }), false);
    const batching = { batching: true };
    assert.deepEqual(where(plain, batching), { where: 'batch', keptOut: null });
    assert.deepEqual(where(proto(), batching), { where: 'batch apart', keptOut: null });
    assert.deepEqual(where(spoiling, batching), { where: 'requests', keptOut: null });
    assert.deepEqual(where(screened, batching), { where: 'requests', keptOut: 'input' });
    assert.deepEqual(where(screened, { ...batching, skipScreened: true }), { where: 'left out', keptOut: 'input' });
  });

  it('runs every request of an async session that does not batch as it comes, screening nothing', function () {
    for (const input of [plain, proto(), spoiling, screened]) {
      assert.deepEqual(where(input, {}), { where: 'requests', keptOut: null });
    }
  });

  it('checks a blocking session\'s input here, apart, or request by request', function () {
    const blocking = { local, screening: true };
    assert.deepEqual(where(plain, blocking), { where: 'here', keptOut: null });
    assert.deepEqual(where(proto(), blocking), { where: 'apart', keptOut: null });
    assert.deepEqual(where(spoiling, blocking), { where: 'screened worker', keptOut: null });
    assert.deepEqual(where(screened, blocking), { where: 'requests', keptOut: 'input' });
    assert.deepEqual(where(plain, { ...blocking, awayFromHere: true }), { where: 'requests', keptOut: 'all' });
    assert.deepEqual(where(screened, { ...blocking, screening: false }), { where: 'here', keptOut: null });
    // A side in a worker: nothing is checked whole here.
    assert.deepEqual(where(proto(), { ...blocking, local: { a: true, b: false } }),
      { where: 'requests', keptOut: null });
  });

  it('screens only where a codec that may crash serializes', function () {
    const jsOnly = { a: sides.a, b: { codec: 'js', node } };
    assert.deepEqual(placeCheck(screened, { type: 'value', sides: jsOnly, local, screening: true }),
      { where: 'here', keptOut: null });
    // Of the frame checks, side a alone serializes the recipes.
    const items = { items: [{ recipe: screened.recipe }], plan: [] };
    const aNative = { a: sides.b, b: sides.a };
    assert.equal(placeCheck(items, { type: 'recipeStream', sides, batching: true }).keptOut, null);
    assert.equal(placeCheck(items, { type: 'recipeStream', sides: aNative, batching: true }).keptOut, 'input');
  });

  it('keeps a screened input\'s value out of this process, and judges its known crash', function () {
    const serialize = { op: 'serialize', input: screened };
    const decode = { op: 'deserialize', bytes: '00' };
    const at = (request, codec, facts) => placeRequest(request, { codec, ...facts });
    // Blocking, its side here: the value is judged here, a codec that cannot crash stays, a frame is decoded here.
    assert.equal(at(serialize, 'native', { local: true, keptOut: 'input' }), 'judge here');
    assert.equal(at(serialize, 'js', { local: true, keptOut: 'input' }), 'here');
    assert.equal(at(decode, 'native', { local: true, keptOut: 'input' }), 'here');
    // Once the input crashed this process, none of its requests run a codec that may crash here.
    assert.equal(at(decode, 'native', { local: true, keptOut: 'all' }), 'worker');
    assert.equal(at(decode, 'js', { local: true, keptOut: 'all' }), 'here');
    // A value that changes shared state is never built here: judged in its worker.
    const shared = { op: 'serialize', input: proto(screened.recipe) };
    assert.equal(at(shared, 'native', { local: true, keptOut: 'input' }), 'judge in worker');
    assert.equal(at(shared, 'js', { local: true, keptOut: null }), 'worker');
    // A side in a worker (every async side): judged there, or run there.
    assert.equal(at(serialize, 'native', { local: false, keptOut: 'input' }), 'judge in worker');
    assert.equal(at(serialize, 'native', { local: false, keptOut: null }), 'worker');
    assert.equal(at(serialize, '/adapter.js', { local: false, keptOut: 'input' }), 'worker');
    assert.equal(at(decode, 'native', { local: false, keptOut: 'input' }), 'worker');
  });
});
