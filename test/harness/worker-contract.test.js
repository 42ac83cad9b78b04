'use strict';
// The contract every worker keeps (harness/run/protocol.js workerContract):
// the async and blocking drivers' workers and the tests' fake offer all of
// it, so that the batches (harness/run/batches.js) run on the fake as on
// real workers, with no process started.
const assert = require('node:assert/strict');
const { AsyncWorker } = require('../../harness/run/async-driver');
const { BlockingWorker } = require('../../harness/run/blocking-driver');
const { contractGaps, workerContract } = require('../../harness/run/protocol');
const { Session } = require('../../harness/run/session');
const { Outcome } = require('../../harness/base/vocabulary');
const { fakeDriver } = require('../fixtures/fake-driver');
const { node26 } = require('../fixtures/helpers');

describe('the worker contract', function () {
  it('is kept by the async and blocking drivers\' workers and by the fake, none of them started', function () {
    const fake = fakeDriver({ answer: () => ({ kind: Outcome.ok }), blocking: false });
    const workers = [new AsyncWorker(node26), new BlockingWorker(node26, { forkServer: false }),
      fake.startWorker(node26, {})];
    for (const worker of workers) {
      assert.deepEqual(contractGaps(worker), [], worker.constructor.name);
      worker.close();
    }
  });

  it('names what a worker lacks of it', function () {
    assert.deepEqual(contractGaps({ request() {}, stats: {} }), ['boot', 'end', 'close', 'recipes']);
    assert.deepEqual(contractGaps(null), [...workerContract.methods, ...workerContract.fields]);
  });
});

// Both codecs in one binary, which is not this process's: whole checks go in batches to the fake's workers.
const info = { node: 'v26.12.1', ipcSerdes: true, builtin: true };
const sides = { a: { codec: 'js', node: '/fake/n', info }, b: { codec: 'native', node: '/fake/n', info } };
const differing = { differences: [{ tier: 'bytes', signature: 'bytes/serialize/fake', where: 'w', detail: 'd' }] };

// A batch answers 0 for an input with no difference, a result for one with; a string 'crash' takes its worker down.
function answer(message) {
  if (message.op === 'checks') {
    const parts = [];
    for (const input of message.inputs) {
      if (input.recipe.v === 'crash') return { kind: Outcome.crash, code: null, signal: 'SIGSEGV', stderr: '', parts };
      parts.push(input.recipe.k === 'string' ? differing : 0);
    }
    return { kind: Outcome.ok, parts };
  }
  // The per-operation path: each codec writes the recipe's text and reads it back; native crashes on 'crash' there too.
  if (message.op === 'serialize' && message.codec === 'native' && message.input.recipe.v === 'crash') {
    return { kind: Outcome.crash, code: null, signal: 'SIGSEGV', stderr: '' };
  }
  if (message.op === 'serialize') {
    const hex = Buffer.from(JSON.stringify(message.input.recipe)).toString('hex');
    return { kind: Outcome.ok, bytes: (hex.length / 2).toString(16).padStart(8, '0') + hex };
  }
  return { kind: Outcome.ok, tree: { t: 'string', v: message.bytes } };
}

describe('batches (on the fake driver)', function () {
  const open = () => {
    const driver = fakeDriver({ answer, blocking: false });
    return { session: new Session({ sides, startWorker: driver.startWorker }), driver };
  };
  const values = (...vs) => vs.map((v) => ({ recipe: { k: typeof v === 'string' ? 'string' : 'number', v } }));

  it('checks inputs whole in a batch, each result the part its worker answered', async function () {
    const { session, driver } = open();
    assert.equal(session.batches.inProcess, true);
    const results = await session.batches.run('value', values(1, 'x', 2));
    assert.deepEqual(results.map((r) => r.differences.map((d) => d.signature)), [[], ['bytes/serialize/fake'], []]);
    assert.deepEqual(driver.sent.map(({ message }) => message.op), ['checks']);
    assert.equal(session.batches.checked, 3);
    session.close();
  });

  it('runs the inputs a dead worker did not answer one by one, and the rest in a new batch', async function () {
    const { session, driver } = open();
    const results = await session.batches.run('value', values(1, 'crash', 3, 4));
    assert.equal(results.length, 4);
    const ops = driver.sent.map(({ message }) => message.op);
    // The first batch answered input 1 and died on 'crash', which runs alone on the per-operation path.
    assert.equal(ops[0], 'checks');
    assert.ok(ops.includes('serialize'), ops.join());
    assert.ok(ops.lastIndexOf('checks') > 0, 'inputs 3 and 4 went on in a new batch');
    session.close();
  });

  it('ends its workers when it settles, as processes end once idle', async function () {
    const { session, driver } = open();
    await session.batches.run('value', values(1));
    await session.batches.endIdle();
    assert.ok(driver.workers.every((w) => w.closed));
    session.close();
  });
});
