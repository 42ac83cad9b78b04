'use strict';
// A difference is confirmed with both sides in fresh processes before it is
// reported: one owed to what a process did before does not stand.
const assert = require('node:assert/strict');
const { Session } = require('../../harness/run/session');
const { AsyncWorker } = require('../../harness/run/async-driver');
const { compareOutcomes } = require('../../harness/oracle/compare');
const { confirm } = require('../../harness/run/confirm');
const { fixture, node26 } = require('../fixtures/helpers');

const recipe = { k: 'object', props: [['a', { k: 'number', v: 1 }]] };

describe('confirming a difference in fresh processes', function () {
  this.timeout(60_000);

  function withSession(b, fn) {
    return async () => {
      const session = new Session({ a: { codec: 'js' }, b: { codec: b }, timeoutMs: 10_000 });
      try {
        await fn(session);
      } finally {
        session.close();
      }
    };
  }

  it('does not confirm a difference that only a used process shows', withSession(fixture('history-counter.js'),
    async (session) => {
      assert.deepEqual((await session.check('value', { recipe })).differences, []);
      const second = await session.check('value', { recipe });
      const difference = second.differences.find((d) => d.op === 'serialize');
      assert.ok(difference, JSON.stringify(second.differences));
      assert.equal(await session.confirm(second.type, second.input, difference), false);
    }));

  it('confirms a difference of the codec itself', withSession(fixture('drop-last-prop.js'), async (session) => {
    const result = await session.check('value', { recipe });
    assert.ok(result.differences.length);
    assert.equal(await session.confirm(result.type, result.input, result.differences[0]), true);
  }));

  // Buffer's pool holds different bytes in each process: a pooled Buffer
  // whose own byteOffset property lies makes js copy from elsewhere in the
  // pool. Where the Buffer lands in the pool depends on what the process
  // allocated first (the checkout's path among it), so a lie can happen to
  // be the truth: a few are tried.
  it('does not confirm a difference where a codec disagrees with itself between fresh processes',
    withSession(fixture('wrapped-js.js'), async (session) => {
      const lyingAt = (byteOffset) => ({ recipe: { k: 'object', props: [['b', {
        k: 'view', type: 'Buffer', bytes: '6f03232323232323', offset: 3, pooled: true,
        tamper: [{ op: 'define', key: 'byteOffset', value: { k: 'number', v: byteOffset } }],
      }]] } });
      // What two fresh processes give: the frames differ, with the same codec.
      let differences = [];
      let input;
      for (const byteOffset of [0, 64, 512]) {
        input = lyingAt(byteOffset);
        for (let i = 0; i < 3 && !differences.length; i++) {
          const workers = [new AsyncWorker(node26), new AsyncWorker(node26)];
          const [a, b] = await Promise.all(workers.map((w) => w.request({ op: 'serialize', codec: 'js', input })));
          for (const w of workers) w.close();
          differences = compareOutcomes('serialize', 'serialize', a, b);
        }
        if (differences.length) break;
      }
      assert.equal(differences[0]?.tier, 'bytes');
      assert.equal(await session.confirm('value', input, differences[0]), false);
    }));

  it('starts the workers of every fresh check before the first check runs, each given one check', function () {
    const events = [];
    let made = 0;
    const startWorker = (node) => {
      const id = made++;
      events.push(`start ${id} ${node}`);
      return {
        request: ({ codec }) => {
          events.push(`request ${id}`);
          return { codec };
        },
        close: () => events.push(`close ${id}`),
      };
    };
    // A check of one request per side that differs when the two codecs do.
    function* check() {
      const [a, b] = yield [['a', {}], ['b', {}]];
      return { differences: a.codec === b.codec ? [] : [{ signature: 's', tier: 'value' }] };
    }
    const sides = { a: { codec: 'js', node: 'node-a' }, b: { codec: 'native', node: 'node-b' } };
    const difference = { signature: 's', tier: 'value' };
    assert.equal(confirm({ type: check, input: {}, difference, sides, startWorker }), true);
    assert.deepEqual(events, [
      'start 0 node-a', 'start 1 node-b', 'start 2 node-a', 'start 3 node-a', 'start 4 node-b', 'start 5 node-b',
      'request 0', 'request 1', 'request 2', 'request 3', 'request 4', 'request 5',
      'close 0', 'close 1', 'close 2', 'close 3', 'close 4', 'close 5',
    ]);
  });
});
