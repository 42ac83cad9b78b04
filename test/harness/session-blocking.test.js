'use strict';
// The synchronous session of the Jazzer.js targets runs builtin codecs of its
// own binary in-process and everything else in a worker: both ways give the
// same results (outcomes and differences, as JSON), and a worker is started
// only when something needs one.
const assert = require('node:assert/strict');
const path = require('node:path');
const { node26, runNode, fixture } = require('../fixtures/helpers');

const paths = async (target, mode) => {
  const run = await runNode(node26, ['--expose-internals', '--no-warnings', fixture('sync-paths.js'), target, mode]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
};

// Runs `body` in a node of its own, where `s` is a blocking session of js
// against codec b (a name or an adapter file), and gives what it printed, parsed.
async function inBlockingSession(body, { b = 'native', ...options } = {}) {
  const session = path.join(__dirname, '..', '..', 'harness', 'run', 'session');
  const script = `
    const { Session } = require(${JSON.stringify(session)});
    const node = process.execPath;
    const s = new Session({ blocking: true, sides: { a: { codec: 'js', node }, b: { codec: ${JSON.stringify(b)}, node } },
      timeoutMs: 10000, ...${JSON.stringify(options)} });
    ${body}
    s.close();`;
  const run = await runNode(node26, ['--expose-internals', '--no-warnings', '-e', script]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('synchronous session', function () {
  this.timeout(300_000);

  for (const target of ['frame', 'stream', 'value']) {
    it(`${target}: the seed corpus gives the same results, as saved, in-process as in workers`, async function () {
      const local = await paths(target, 'in-process');
      const remote = await paths(target, 'worker');
      assert.ok(local.results.length > 10);
      assert.deepEqual(local.results, remote.results);
      assert.ok(local.results.some(([, signatures]) => signatures.length), 'no difference at all');
      assert.equal(remote.workers, 1);
      assert.equal(remote.apart, 0);
      if (target !== 'value') {
        assert.equal(local.apart, 0);
        assert.deepEqual(local.screened, []);
        assert.equal(local.workers, 0, 'a worker started with nothing to run');
        return;
      }
      // The seeds of the known native crash are screened, and crash in the worker as before.
      const crashed = local.results.filter(([, s]) => s.includes('crash/serialize/b:crash SIGSEGV'))
        .map(([seed]) => seed);
      assert.ok(crashed.length > 0);
      assert.deepEqual(crashed.filter((seed) => !local.screened.includes(seed)), []);
      assert.equal(local.workers, 1);
      // The seeds that change a built-in prototype are checked in a worker of their own, twice
      // (the differences, then every outcome).
      assert.ok(local.apart >= 2, 'no seed checked apart');
    });
  }

  it('runs an adapter file in a worker, whatever its binary', async function () {
    const out = await inBlockingSession(`
      const r = s.check('value', { recipe: { k: 'number', v: 1 } });
      process.stdout.write(JSON.stringify({ kinds: [r.outcomes.serialize.a.kind, r.outcomes.serialize.b.kind],
        workers: s.workers.size }));`, { b: fixture('hang.js'), timeoutMs: 1000 });
    assert.deepEqual(out, { kinds: ['ok', 'hang'], workers: 1 });
  });

  // The bench's trace of a Jazzer.js target's codec calls (fuzzers/jazzer/target.js).
  it('tells of each input checked in-process, given its result again too, and whether it was screened',
    async function () {
    const out = await inBlockingSession(`
      const told = [];
      s.onChecked = (type, input, screened) => told.push([type, input, screened]);
      const plain = { recipe: { k: 'number', v: 1 } };
      const again = { recipe: { k: 'number', v: 1 } };
      // An index key on a host object: the screen sends its native side to a worker.
      const screened = { recipe: { k: 'host', type: 'secret-key', props: [['0', { k: 'null' }]] } };
      const crashed = { recipe: { k: 'number', v: 2 } };
      for (const input of [plain, again, screened, screened]) s.check('value', input);
      // One that ended an earlier process runs every request of it in a worker.
      s.check('value', crashed, { awayFromHere: true });
      const which = (input) => [plain, again, screened, crashed].indexOf(input);
      process.stdout.write(JSON.stringify({ told: told.map(([type, input, screened]) => [type, which(input), screened]),
        workers: s.workers.size }));`);
    assert.deepEqual(out, {
      told: [['value', 0, false], ['value', 1, false], ['value', 2, true], ['value', 2, true]], workers: 1,
    });
  });

  it('serializes here a screened input the crash judge finds clear of the known crash', async function () {
    const out = await inBlockingSession(`
      // The screen sees an index key on a host object; a step takes it away before the codec comes.
      const port = (key) => ({ k: 'port', props: [[key, { k: 'number', v: 1 }]], tamper: [{ op: 'delete', key: '0' }] });
      const clear = s.checkInFull('value', { recipe: port('0') });
      const workers = s.workers.size;
      const crash = s.checkInFull('value', { recipe: port('1') });
      process.stdout.write(JSON.stringify({ screened: [s.screened(clear.input), s.screened(crash.input)],
        kinds: [clear, crash].map((r) => r.outcomes.serialize.b.kind), workers: [workers, s.workers.size] }));`);
    const { screened, kinds, workers } = out;
    assert.deepEqual(screened, Array(2).fill('index key on a host object'));
    assert.deepEqual(kinds, ['ok', 'crash']);
    assert.deepEqual(workers, [0, 1], 'the clear one ran in a worker');
  });

  // libFuzzer's mutations of a crashing input often leave its recipe as it was.
  it('gives a request that crashed its worker the same crash again, without another worker', async function () {
    const out = await inBlockingSession(`
      // In full: a check given again (checked-before.js) would not run the request.
      const b = (v) => s.checkInFull('value', { recipe: { k: 'number', v } }).outcomes.serialize.b;
      const outcomes = [b(1), b(1), b(2)].map((o) => [o.kind, o.signal]);
      process.stdout.write(JSON.stringify({ outcomes, crashes: [...s.workers.values()][0].stats.crashes }));`,
      { b: fixture('abort.js') });
    const crash = ['crash', 'SIGABRT'];
    assert.deepEqual(out, { outcomes: [crash, crash, crash], crashes: 2 });
  });

  it('checks an input that changes a built-in prototype in a worker of its own, isolated if it crashes there',
    async function () {
      // No screen: the input shaped like the known native crash is not foreseen.
      const out = await inBlockingSession(`
        const told = [];
        s.onChecked = (type, input) => told.push(input.recipe.props[0][0]);
        const proto = [{ op: 'proto', of: 'Object', key: 'p', value: { k: 'number', v: 1 } }];
        const object = (key, value) => ({ recipe: { k: 'object', props: [[key, value]], tamper: proto } });
        const plain = object('plain', { k: 'number', v: 1 });
        const crash = object('crash', { k: 'host', type: 'secret-key', props: [['0', { k: 'null' }]] });
        const checked = [plain, crash, crash].map((input) => s.check('value', input));
        const full = s.checkInFull('value', plain);
        process.stdout.write(JSON.stringify({
          differences: checked.map((r) => r.differences.map((d) => d.signature)),
          outcomes: [Boolean(checked[0].outcomes), Object.keys(full.outcomes ?? {})],
          crash: checked[1].outcomes?.serialize.b.kind, told, apart: s.apart.stats, workers: s.workers.size }));`,
        { useScreen: false });
      const { differences, outcomes, crash, told, apart, workers } = out;
      assert.deepEqual(differences, [[], ...Array(2).fill(['crash/serialize/b:crash SIGSEGV'])]);
      // The differences of a check apart, every outcome when asked in full.
      assert.deepEqual(outcomes, [false, ['serialize', 'decode']]);
      assert.equal(crash, 'crash');
      assert.deepEqual(told, ['plain', 'plain'], 'plain, then plain in full');
      // plain, crash (which took the worker down), plain in full; the crash, then again, request by request.
      assert.deepEqual([apart.requests, apart.crashes], [3, 1]);
      assert.equal(workers, 1);
    });

  it('checks an input that gives Object.prototype an element in the worker of the screened inputs', async function () {
    const out = await inBlockingSession(`
      const setter = (key) => ({ recipe: { k: 'array', items: [{ k: 'number', v: 1 }], length: 3,
        tamper: [{ op: 'inherited-setter', key, throws: 'setter called' }] } });
      const results = [setter('1'), setter('x')].map((input) => s.check('value', input).differences.length);
      process.stdout.write(JSON.stringify({ results, apart: s.apart.stats.requests,
        screened: s.worker(node).stats.requests }));`);
    const { results, apart, screened } = out;
    assert.equal(results.length, 2);
    assert.deepEqual([screened, apart], [1, 1], 'the element in the screened inputs\' worker, the named key apart');
  });

  it('builds a screened input that changes a built-in prototype only in its worker, and judges its crash there',
    async function () {
      const out = await inBlockingSession(`
        const sent = [];
        const worker = s.worker(node);
        const request = worker.request.bind(worker);
        worker.request = (message, options) => {
          sent.push(message.op + ' ' + message.codec);
          return request(message, options);
        };
        const proto = [{ op: 'proto', of: 'Object', key: 'p', value: { k: 'number', v: 1 } }];
        // An index key on a host object: the shape of the known native crash.
        const crash = (v) => ({ recipe: { k: 'object', tamper: proto,
          props: [['h', { k: 'host', type: 'secret-key', props: [['0', { k: 'number', v }]] }]] } });
        const differences = [1, 2].map((v) => {
          const result = s.check('value', crash(v));
          const lines = sent.splice(0);
          return [result.differences.map((d) => d.signature), lines];
        });
        process.stdout.write(JSON.stringify({ differences, judged: s.knownCrash.judged, apart: s.apart }));`);
      const { differences, judged, apart } = out;
      const crashed = ['crash/serialize/b:crash SIGSEGV'];
      // Both sides' values are built in the worker, which judges the known crash too: the
      // first crash is run to be shown, the second judged.
      assert.deepEqual(differences, [[crashed, ['serialize js', 'judge native', 'serialize native']],
        [crashed, ['serialize js', 'judge native']]]);
      assert.equal(judged, 1);
      assert.equal(apart, null);
    });
});
