'use strict';
// The logic of a session, on a fake driver that answers from a table and
// starts no process (test/fixtures/fake-driver.js): both ways of waiting give
// the same results, a screened input's known crash is judged once a worker
// showed it, a blocking session gives a request that took its worker down its
// outcome again, and a difference is confirmed only where fresh workers show it.
const assert = require('node:assert/strict');
const { Session } = require('../../harness/run/session');
const { fakeDriver } = require('../fixtures/fake-driver');

const info = { node: 'v26.12.1', ipcSerdes: true, builtin: true };
// Two binaries that are not this process's: every request goes to the driver.
const sides = { a: { codec: 'js', node: '/fake/a', info }, b: { codec: 'native', node: '/fake/b', info } };
const crash = { kind: 'crash', code: null, signal: 'SIGSEGV', stderr: 'a fake crash' };

// The table: each codec writes a recipe's text as its frame and reads back
// what it wrote, but codec native crashes on a port, and rejects a string 's'
// always and a string 'h' in a process that answered before.
function answer(message, worker) {
  const recipe = message.input?.recipe;
  switch (message.op) {
    case 'judge': return { kind: 'ok', reaches: recipe?.k === 'port' };
    case 'serialize': {
      if (message.codec === 'native') {
        if (recipe.k === 'port') return { ...crash };
        if (recipe.k === 'string' && (recipe.v === 's' || (recipe.v === 'h' && worker.answered > 0))) {
          return { kind: 'reject', error: { name: 'Error', message: `no ${recipe.v}` } };
        }
      }
      const payload = Buffer.from(JSON.stringify(recipe));
      const length = Buffer.alloc(4);
      length.writeUInt32BE(payload.length);
      return { kind: 'ok', bytes: Buffer.concat([length, payload]).toString('hex') };
    }
    case 'deserialize': return { kind: 'ok', value: Buffer.from(message.bytes, 'hex').toString() };
    default: throw new Error(`no fake answer to ${message.op}`);
  }
}

const port = (v) => ({ recipe: { k: 'port', props: [['0', { k: 'number', v }]] } });
const string = (v) => ({ recipe: { k: 'string', v } });

// A session of each way of waiting on its own fake driver; check(type, input, options) gives a promise either way.
function open(blocking, options = {}) {
  const driver = fakeDriver({ answer, blocking });
  const lost = [];
  const session = new Session({ sides, blocking, startWorker: driver.startWorker, onLoss: (k) => lost.push(k),
    ...options });
  return { session, driver, lost };
}
const ways = [['blocking', true], ['async', false]];

describe('session logic (a fake driver)', function () {
  it('gives the same results blocking as async, crashes included', async function () {
    const inputs = [{ recipe: { k: 'number', v: 1 } }, port(1), string('s'), string('x')];
    const results = [];
    for (const [, blocking] of ways) {
      const { session } = open(blocking);
      results.push(await Promise.all(inputs.map((input) => session.checkInFull('value', input))));
      session.close();
    }
    assert.deepEqual(results[0], results[1]);
    assert.deepEqual(results[0].map((r) => r.differences.map((d) => d.signature)), [
      [], ['crash/serialize/b:crash SIGSEGV'], ['acceptance/serialize/b-rejects:Error'], [],
    ]);
  });

  for (const [way, blocking] of ways) {
    it(`${way}: judges a screened input's known crash once a worker showed it, and has a worker check every 32nd`,
      async function () {
        const { session, driver, lost } = open(blocking);
        // As placement.js places a screened input (async: as batches.js passes it).
        const options = blocking ? { answer: 'whole' } : { keptOut: 'input' };
        const kinds = [];
        for (let v = 0; v < 33; v++) {
          const result = await session.check('value', port(v), options);
          kinds.push(result.outcomes.serialize.b.kind);
        }
        assert.deepEqual([...new Set(kinds)], ['crash']);
        const sent = driver.take();
        assert.equal(sent.filter((line) => line === 'judge native').length, 33);
        assert.equal(sent.filter((line) => line === 'serialize native').length, 2, 'the first, then the 32nd judged');
        assert.equal(session.stats().judged, 31);
        assert.equal(session.stats().crashes, 2);
        assert.deepEqual(lost.filter((k) => k === 'crash').length, 2);
        assert.deepEqual(lost.filter((k) => k === 'judged').length, 31);
        session.close();
      });
  }

  it('blocking: gives a request that took its worker down the same outcome again, without the worker', function () {
    const { session, driver } = open(true, { useScreen: false });
    const outcomes = [port(1), port(1), port(2)]
      .map((input) => session.checkInFull('value', input).outcomes.serialize.b);
    assert.deepEqual(outcomes.map((o) => o.kind), ['crash', 'crash', 'crash']);
    assert.equal(driver.take().filter((line) => line === 'serialize native').length, 2);
    assert.equal(session.stats().crashes, 2);
    session.close();
  });

  it('async: sends a request that took its worker down again', async function () {
    const { session, driver } = open(false);
    for (const input of [port(1), port(1)]) await session.check('value', input);
    assert.equal(driver.take().filter((line) => line === 'serialize native').length, 2);
    session.close();
  });

  for (const [way, blocking] of ways) {
    it(`${way}: confirms a difference only where fresh workers still show it`, async function () {
      const { session, driver } = open(blocking);
      const standing = async (input) => {
        // The first request of the session's worker for b answers a number: a used process from then on.
        await session.check('value', { recipe: { k: 'number', v: 1 } });
        const result = await session.check('value', input);
        const [difference] = result.differences;
        assert.equal(difference.signature, 'acceptance/serialize/b-rejects:Error');
        return session.confirm('value', input, difference);
      };
      assert.equal(await standing(string('s')), true);
      assert.equal(await standing(string('h')), false);
      const fresh = driver.workers.filter((w) => w.fresh);
      // Per confirmation: the two codecs, then each against itself; every fresh worker booted, used once, closed.
      assert.equal(fresh.length, 12);
      assert.ok(fresh.every((w) => w.booted && w.closed && w.stats.requests >= 1));
      session.close();
    });
  }
});
