'use strict';
// Worker isolation: a request that kills or wedges the worker is answered as
// a crash or hang, the worker is replaced, and every other request is answered.
const assert = require('node:assert/strict');
const { AsyncWorker } = require('../../harness/run/async-driver');
const { Session } = require('../../harness/run/session');
const { EnvironmentError, StoppedError } = require('../../harness/base/errors');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ForkServer, forkServerLibrary, makeFifos } = require('../../harness/run/fork-server');
const {
  node26, fixture, within, waitWhile, useWorker, checkAgainst, skipWith, descendants,
} = require('../fixtures/helpers');

const recipe = { k: 'number', v: 1 };
const serialize = (codec, extra) => ({ op: 'serialize', codec, input: { recipe }, ...extra });

describe('AsyncWorker', function () {
  describe('a codec that aborts', function () {
    let session;
    before(function () {
      session = new Session({ a: { codec: 'js' }, b: { codec: fixture('abort.js') }, timeoutMs: 10_000 });
    });
    after(function () {
      session.close();
    });

    it('gives a crash outcome with SIGABRT, and the crash tier', async function () {
      const result = await session.check('value', { recipe });
      const { a, b } = result.outcomes.serialize;
      assert.equal(a.kind, 'ok');
      assert.deepEqual([b.kind, b.signal], ['crash', 'SIGABRT']);
      assert.deepEqual(result.differences.map((d) => d.tier), ['crash']);
      // The frame from a was still decoded by both, in the replacement worker.
      assert.deepEqual(result.outcomes.decode.map((d) => [d.a.kind, d.b.kind]), [['ok', 'ok']]);
    });

    it('leaves the session working for the next request', async function () {
      const out = await session.run('a', { op: 'serialize', input: { recipe } });
      assert.equal(out.kind, 'ok');
      assert.equal(session.stats().crashes, 1);
    });
  });

  describe('an outcome JSON has no form for', function () {
    const worker = useWorker();

    it('is answered with its BigInt as digits and n, alone or among gathered operations', async function () {
      const alone = await worker.request(serialize(fixture('bigint-error.js')));
      assert.deepEqual([alone.kind, alone.error.name, alone.error.message], ['reject', '5n', 'thrown by the adapter']);
      const gathered = await checkAgainst(fixture('bigint-error.js'), 'value', { recipe });
      assert.equal(gathered.outcomes.serialize.b.error.name, '5n');
    });
  });

  describe('requests queued around a crash', function () {
    const worker = useWorker(10_000);

    it('are all answered, each with its own outcome', async function () {
      const requests = [];
      for (let i = 0; i < 6; i++) requests.push(serialize('js'));
      requests.push(serialize(fixture('abort.js')));
      for (let i = 0; i < 6; i++) requests.push(serialize('js'));
      requests.push(serialize(fixture('abort.js')), serialize('js'));
      const outcomes = await Promise.all(requests.map((r) => worker.request(r)));
      assert.equal(outcomes.map((o) => o.kind[0]).join(''), `${'o'.repeat(6)}c${'o'.repeat(6)}co`);
      for (const o of outcomes.filter((x) => x.kind === 'ok')) assert.equal(o.bytes, '00000004ff0f4902');
      assert.equal(worker.stats.crashes, 2);
    });
  });

  // Requests made together go as one; when that one loses its process, each
  // is sent again alone, so that only the request at fault gets the crash or hang.
  describe('requests gathered into one', function () {
    let worker;
    beforeEach(function () {
      worker = new AsyncWorker(node26, { timeoutMs: 1500, gather: true });
    });
    afterEach(function () {
      worker.close();
    });

    it('are answered each with its own outcome, in one request', async function () {
      const requests = [serialize('js'), serialize('js', { tree: true })];
      const outcomes = await Promise.all(requests.map((r) => worker.request(r)));
      const one = ['ok', '00000004ff0f4902'];
      assert.deepEqual(outcomes.map((o) => [o.kind, o.bytes]), [one, one]);
      assert.ok(outcomes[1].inputTree && !outcomes[0].inputTree, 'each request was run as sent');
      assert.equal(worker.stats.gathered, 1);
      assert.equal(worker.stats.requests, 2);
    });

    it('give the crash to the request that crashes, and the others their outcomes', async function () {
      const abort = serialize(fixture('abort.js'));
      const requests = [serialize('js'), abort, serialize('js'), abort];
      const outcomes = await Promise.all(requests.map((r) => worker.request(r)));
      assert.equal(outcomes.map((o) => o.kind[0]).join(''), 'ococ');
      assert.equal(outcomes[1].signal, 'SIGABRT');
      assert.equal(worker.stats.crashes, 2);
      assert.equal(worker.stats.gathered, 1);
      // Each crash cost one process: the first was blamed where it happened,
      // not found by sending the gathered requests again one by one.
      assert.equal(worker.stats.restarts, 1);
    });

    it('give the hang to the request that hangs, and the others their outcomes', async function () {
      const requests = [serialize('js'), serialize(fixture('hang.js')), serialize('js')];
      const outcomes = await within(Promise.all(requests.map((r) => worker.request(r))), 8000);
      assert.deepEqual(outcomes[1], { kind: 'hang', ms: 1500 });
      assert.deepEqual([outcomes[0].kind, outcomes[2].kind], ['ok', 'ok']);
      assert.equal(worker.stats.hangs, 1);
    });

    it('send a recipe again to the process that took over', async function () {
      const shared = { recipe: { k: 'string', v: 'xy' } };
      const request = { op: 'serialize', codec: 'js', input: shared };
      const twice = () => Promise.all([0, 1].map(() => worker.request(request)));
      const first = await twice();
      await worker.request(serialize(fixture('abort.js')));
      const again = await twice();
      assert.deepEqual(again, first);
      assert.equal(first[0].kind, 'ok');
      assert.equal(worker.stats.gathered, 2);
    });

    it('end with a stopped error when the worker is closed first', async function () {
      const pending = worker.request(serialize('js'));
      worker.close();
      await assert.rejects(pending, StoppedError);
    });
  });

  describe('a codec that never returns', function () {
    const worker = useWorker(400);

    it('gives a hang outcome after the time limit, and the queue behind it goes on', async function () {
      const started = Date.now();
      const [hang, next] = await Promise.all([
        worker.request(serialize(fixture('hang.js'))),
        worker.request(serialize('js')),
      ]);
      assert.deepEqual(hang, { kind: 'hang', ms: 400 });
      assert.ok(Date.now() - started >= 400);
      assert.equal(next.kind, 'ok');
      assert.equal(worker.stats.hangs, 1);
    });

    it('leaves later requests answered by a new worker', async function () {
      const out = await worker.request(serialize('js'));
      assert.equal(out.kind, 'ok');
    });

    // A request sent to an idle worker that is already running needs its
    // time limit too, not only the ones queued behind another.
    it('gives a hang outcome when the request reaches an idle, running worker', async function () {
      await worker.request(serialize('js'));
      const out = await within(worker.request(serialize(fixture('hang.js'))), 3000);
      assert.deepEqual(out, { kind: 'hang', ms: 400 });
    });

    it('puts a hang in the crash tier', async function () {
      const session = new Session({ a: { codec: 'js' }, b: { codec: fixture('hang.js') }, timeoutMs: 400 });
      try {
        const result = await session.check('value', { recipe });
        assert.equal(result.outcomes.serialize.b.kind, 'hang');
        assert.deepEqual(result.differences.map((d) => d.tier), ['crash']);
        assert.match(result.differences[0].signature, /^crash\/serialize\/b:hang/);
      } finally {
        session.close();
      }
    });
  });

  // A worker that confirms a finding answers one check and goes without the
  // warm-up (fresh-worker-main.js); what it answers is what any worker answers.
  describe('a fresh worker', function () {
    it('answers as a warmed-up worker does, and is the one a confirmation starts', async function () {
      const fresh = new AsyncWorker(node26, { timeoutMs: 10_000, fresh: true });
      const warm = new AsyncWorker(node26, { timeoutMs: 10_000 });
      const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
      try {
        const view = { recipe: { k: 'view', type: 'Buffer', bytes: '0102' } };
        const request = { ...serialize('native'), input: view, tree: true };
        const [a, b] = await Promise.all([fresh, warm].map((w) => w.request(request)));
        assert.equal(a.kind, 'ok');
        assert.deepEqual(a, b);
        assert.match(fresh.child.spawnargs.at(-1), /harness\/run\/fresh-worker-main\.js$/);
        assert.match(warm.child.spawnargs.at(-1), /harness\/run\/worker-main\.js$/);
        const difference = { tier: 'bytes', signature: 'bytes/serialize/x' };
        assert.equal(await session.confirm('value', view, difference), false);
        const started = [...session.freshWorkers].map((w) => w.main);
        assert.equal(started.length, 6);
        for (const main of started) assert.match(main, /harness\/run\/fresh-worker-main\.js$/);
      } finally {
        for (const w of [fresh, warm, session]) w.close();
      }
    });
  });

  // After the first crash the processes that take over are forks of a warm
  // process of the binary (fork-server.js), and give what nodes started afresh give.
  describe('workers that take over after a crash', function () {
    this.timeout(60_000);
    beforeEach(function () {
      if (!fs.existsSync(forkServerLibrary)) skipWith(this, `${forkServerLibrary} is not built`);
    });

    const forkFifos = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`ipcfuzz-fork-${process.pid}-`));
    const untilReady = async (server) => {
      await waitWhile(() => server.state === 'starting', 20_000);
      assert.equal(server.state, 'ready');
    };

    it('are forks once the fork server is up, with the same outcomes, and none is left behind', async function () {
      const before = new Set(descendants(node26).map(({ pid }) => pid));
      const session = new Session({ a: { codec: 'js' }, b: { codec: fixture('abort.js') }, timeoutMs: 10_000 });
      try {
        const crashes = [];
        for (let i = 0; i < 4; i++) {
          crashes.push(await session.check('value', { recipe }));
          if (i === 0) await untilReady(session.worker(node26).forkServer);
        }
        for (const result of crashes) {
          const { a, b } = result.outcomes.serialize;
          assert.deepEqual([a.kind, b.kind, b.signal], ['ok', 'crash', 'SIGABRT']);
          assert.deepEqual(result.outcomes.decode.map((d) => [d.a.kind, d.b.kind]), [['ok', 'ok']]);
        }
        assert.equal(session.stats().crashes, 4);
        // The worker now answering is a fork: its parent is the fork's monitor, not this process.
        const worker = session.worker(node26);
        assert.equal((await session.run('a', serialize('js'))).bytes, '00000004ff0f4902');
        const answering = descendants(node26).find(({ pid }) => pid === worker.child.pid);
        assert.notEqual(answering.ppid, process.pid);
        assert.match(answering.args.join(' '), /harness\/run\/fork-server-main\.js/);
      } finally {
        session.close();
      }
      const started = () => descendants(node26).filter(({ pid }) => !before.has(pid));
      await waitWhile(() => started().length, 10_000, 50);
      assert.deepEqual(started(), []);
      assert.deepEqual(forkFifos(), []);
    });

    // Killed after asking for a fork, before the fork's monitor opened its FIFOs.
    it('leave no process waiting for a fork whose asker is gone', async function () {
      const server = new ForkServer(node26);
      server.fork();
      await untilReady(server);
      const prefix = path.join(os.tmpdir(), `ipcfuzz-fork-${process.pid}-gone`);
      const fifos = [`${prefix}-requests`, `${prefix}-answers`];
      try {
        makeFifos(fifos);
        server.process.stdin.write(`${fifos.join('\t')}\n`);
        // The monitor removes the FIFOs once it has opened them, or found no one there.
        const left = () => fifos.filter((fifo) => fs.existsSync(fifo));
        await waitWhile(() => left().length, 5000);
        assert.deepEqual(left(), []);
        // A monitor that ended is a zombie until the next fork, with no command line.
        const monitors = () => descendants(node26).filter(({ ppid }) => ppid === server.process.pid);
        await waitWhile(() => monitors().length, 5000);
        assert.deepEqual(monitors(), []);
      } finally {
        server.close();
        for (const fifo of fifos) fs.rmSync(fifo, { force: true });
      }
    });

    it('go on in nodes started afresh once the fork server has ended', async function () {
      const server = new ForkServer(node26);
      const worker = new AsyncWorker(node26, { timeoutMs: 10_000, forkServer: server });
      try {
        assert.equal((await worker.request(serialize(fixture('abort.js')))).kind, 'crash');
        assert.equal((await worker.request(serialize('js'))).kind, 'ok');
        await untilReady(server);  // started for the spare booted after that answer
        assert.equal((await worker.request(serialize(fixture('abort.js')))).kind, 'crash');
        assert.equal((await worker.request(serialize('js'))).kind, 'ok');
        // The spare booted after that answer is a fork whose pid has not come
        // yet (that takes another read): it never starts.
        const spare = worker.spare;
        assert.equal(spare.pid, null);
        const unstarted = new Promise((resolve) => spare.once('unstarted', resolve));
        server.close();
        assert.notEqual(await within(unstarted, 1000), 'no answer');
        const outcomes = await Promise.all([fixture('abort.js'), 'js', fixture('abort.js'), 'js']
          .map((codec) => worker.request(serialize(codec))));
        assert.deepEqual(outcomes.map((o) => o.kind), ['crash', 'ok', 'crash', 'ok']);
        assert.equal(worker.stats.crashes, 4);
      } finally {
        worker.close();
        server.close();
      }
      assert.deepEqual(forkFifos(), []);
    });
  });

  describe('a closed worker', function () {
    // fast-check leaves an interrupted property running: its next request
    // must not start a process after the run is over.
    it('ends the requests waiting on it and starts no process for later ones', async function () {
      const worker = new AsyncWorker(node26, { timeoutMs: 10_000 });
      const waiting = worker.request(serialize(fixture('hang.js')));
      await new Promise((resolve) => setTimeout(resolve, 300));
      worker.close();
      await assert.rejects(waiting, StoppedError);
      await assert.rejects(worker.request(serialize('js')), StoppedError);
      assert.equal(worker.child, null);
    });

    it('makes a closed session confirm nothing and start nothing', async function () {
      const session = new Session({ a: { codec: 'js' }, b: { codec: 'js' }, timeoutMs: 10_000 });
      session.close();
      await assert.rejects(session.check('value', { recipe }), StoppedError);
      const difference = { tier: 'bytes', signature: 'bytes/serialize/x' };
      await assert.rejects(session.confirm('value', { recipe }, difference), StoppedError);
      assert.deepEqual([...session.workers.values()].map((w) => w.child), [null]);
    });
  });

  describe('a binary that cannot start', function () {
    it('fails every queued request with an environment error', async function () {
      const worker = new AsyncWorker('/nonexistent/node');
      const results = await Promise.allSettled([worker.request(serialize('js')), worker.request(serialize('js'))]);
      for (const r of results) {
        assert.equal(r.status, 'rejected');
        assert.ok(r.reason instanceof EnvironmentError);
        assert.match(r.reason.message, /ENOENT/);
      }
      worker.close();
    });
  });
});
