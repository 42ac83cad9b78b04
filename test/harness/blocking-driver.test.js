'use strict';
// The synchronous worker (what the Jazzer.js targets drive the codec under
// test with) hands back replies whole, whatever the pipe reads cut; a worker
// that dies or hangs is an outcome, the next request runs in a fresh one, and
// none is left running once the worker is closed. Workers forked by the fork
// server give the outcomes that workers started afresh give.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { BlockingWorker, forkServerLibrary } = require('../../harness/run/blocking-driver');
const { node26, fixture, skipWith, descendants, requestUntilForkServerReady } = require('../fixtures/helpers');

// The workers that synchronous workers of this process started: node
// processes below it, not its own children (a worker process of another kind).
const spawnedWorkers = () => descendants(node26).filter(({ ppid }) => ppid !== process.pid);

const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

// Workers still booting end on their own, when they find their requests closed.
function assertNoneLeft(before) {
  const started = () => spawnedWorkers().filter(({ pid }) => !before.has(pid));
  const until = Date.now() + 20_000;
  while (started().length && Date.now() < until) pause(100);
  assert.deepEqual(started(), []);
}

// The fork server is built by `make install` where cc is installed.
function needForkServer(test) {
  if (!fs.existsSync(forkServerLibrary)) skipWith(test, `${forkServerLibrary} is not built`);
}

describe('synchronous worker', function () {
  this.timeout(60_000);

  it('keeps characters that a pipe read cuts in two', function () {
    const worker = new BlockingWorker(node26, { timeoutMs: 20_000 });
    try {
      // A two-byte character (U+0320 is cc a0 in UTF-8) across reads of 64 KiB:
      // padding of 0 to 5 characters moves the cut through both of its bytes.
      for (let pad = 0; pad < 6; pad++) {
        const recipe = {
          k: 'array', items: [{ k: 'string', v: 'x'.repeat(pad) }, { k: 'string', v: '\u0320', repeat: 30000 }],
        };
        const outcome = worker.request({ op: 'serialize', codec: 'js', input: { recipe }, tree: true });
        assert.equal(outcome.inputTree.props[1][1].v, '\u0320'.repeat(30000), `padding ${pad}`);
      }
    } finally {
      worker.close();
    }
  });

  for (const forkServer of [false, true]) {
    it(`gives a crash with its signal and a hang, goes on in fresh workers, and leaves none behind${
      forkServer ? ' (fork server)' : ''}`, function () {
      if (forkServer) needForkServer(this);
      const recipe = { k: 'number', v: 1 };
      const before = new Set(spawnedWorkers().map(({ pid }) => pid));
      const worker = new BlockingWorker(node26, { timeoutMs: 2000, forkServer });
      try {
        assert.equal(worker.request({ op: 'serialize', codec: 'js', input: { recipe } }).kind, 'ok');
        let requests = 1;
        // A first loss starts the fork server; once it is ready, the workers after a crash are forks.
        const first = worker.request({ op: 'serialize', codec: fixture('abort.js'), input: { recipe } });
        assert.equal(first.kind, 'crash');
        requests++;
        if (forkServer) {
          requests += requestUntilForkServerReady(worker,
            () => assert.equal(worker.request({ op: 'serialize', codec: 'js', input: { recipe } }).kind, 'ok'));
        }
        for (let i = 0; i < 2; i++) {
          const crash = worker.request({ op: 'serialize', codec: fixture('abort.js'), input: { recipe } });
          assert.deepEqual({ kind: crash.kind, signal: crash.signal }, { kind: 'crash', signal: 'SIGABRT' });
        }
        const hang = worker.request({ op: 'serialize', codec: fixture('hang.js'), input: { recipe } });
        assert.equal(hang.kind, 'hang');
        assert.equal(worker.request({ op: 'serialize', codec: 'js', input: { recipe } }).kind, 'ok');
        assert.deepEqual(worker.stats,
          { requests: requests + 4, crashes: 3, hangs: 1, restarts: 4, forkServerOff: null });
        const started = spawnedWorkers().filter(({ pid }) => !before.has(pid));
        assert.ok(started.length > 0);
        // Forked workers keep the fork server's command line. (A spare of an
        // earlier test may still turn from its shell into a worker-main.js meanwhile.)
        const running = (main) => started.filter(({ args }) => args.some((arg) => path.basename(arg) === main)).length;
        if (forkServer) assert.ok(running('fork-server-main.js') > 1, JSON.stringify(started));
        else assert.equal(running('worker-main.js'), started.length, JSON.stringify(started));
      } finally {
        worker.close();
      }
      assertNoneLeft(before);
    });
  }

  it('leaves no FIFOs behind a process that ends without its exit handlers', function () {
    // As a Jazzer.js target ends, in libFuzzer's exit(): here, by SIGKILL.
    const script = `
      const path = require('node:path');
      const { BlockingWorker } = require(${JSON.stringify(require.resolve('../../harness/run/blocking-driver'))});
      const worker = new BlockingWorker(${JSON.stringify(node26)});
      worker.request({ op: 'serialize', codec: 'js', input: { recipe: { k: 'null' } } });
      process.stdout.write(path.dirname(worker.fifoPrefix), () => process.kill(process.pid, 'SIGKILL'));`;
    const { stdout, signal } = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(signal, 'SIGKILL');
    assert.match(stdout, /ipcfuzz-sync-/);
    const until = Date.now() + 10_000;
    while (fs.existsSync(stdout) && Date.now() < until) pause(50);
    assert.equal(fs.existsSync(stdout), false, `${stdout} is left`);
  });

  describe('fork server', function () {
    beforeEach(function () {
      needForkServer(this);
    });

    it('gives the outcomes of workers started afresh, the native crash included', function () {
      const port = (key) => ({ k: 'port', props: [[key, { k: 'number', v: 1 }]] });
      const requests = [
        { op: 'serialize', codec: 'native', input: { recipe: port('a') }, tree: true },
        { op: 'serialize', codec: 'native', input: { recipe: port('0') } },  // the index key's SIGSEGV
        { op: 'deserialize', codec: 'native', bytes: 'ff0f5c016f220161307b01' },
        { op: 'deserialize', codec: 'native', bytes: 'ff0f5c' },
        { op: 'serialize', codec: 'js', input: { recipe: { k: 'host', type: 'x509', props: [['0', { k: 'null' }]] } } },
        { op: 'serialize', codec: fixture('abort.js'), input: { recipe: port('a') } },
      ];
      const outcomes = (forkServer) => {
        const worker = new BlockingWorker(node26, { timeoutMs: 10_000, forkServer });
        try {
          // A lost worker starts the fork server: once it is ready, the workers after a crash are forks.
          assert.equal(worker.request(requests[1]).kind, 'crash');
          const ok = () => assert.equal(worker.request(requests[0]).kind, 'ok');
          if (forkServer) requestUntilForkServerReady(worker, ok);
          const all = requests.map((request) => worker.request(request));
          assert.deepEqual([worker.zygote !== null, worker.current.forked], [forkServer, forkServer]);
          return all;
        } finally {
          worker.close();
        }
      };
      const forked = outcomes(true);
      assert.deepEqual(forked.map((o) => o.kind), ['ok', 'crash', 'ok', 'reject', 'ok', 'crash']);
      assert.equal(forked[1].signal, 'SIGSEGV');
      assert.deepEqual(forked, outcomes(false));
    });

    // Its start would otherwise hold up the first check of every Jazzer.js run, most of which lose no worker.
    it('starts at the first loss of a worker, and no request waits for it', function () {
      const worker = new BlockingWorker(node26, { timeoutMs: 10_000, forkServer: true });
      const recipe = { k: 'port', props: [['0', { k: 'null' }]] };
      const check = (codec) => worker.request({ op: 'serialize', codec, input: { recipe } });
      try {
        assert.equal(check('js').kind, 'ok');
        assert.equal(check('js').kind, 'ok');
        assert.deepEqual([worker.zygote, worker.current.forked], [undefined, false]);
        assert.equal(check('native').signal, 'SIGSEGV');
        assert.deepEqual([worker.zygote?.ready, worker.current.forked], [false, false]);
        requestUntilForkServerReady(worker, () => assert.equal(check('js').kind, 'ok'));
        assert.equal(worker.stats.forkServerOff, null);
        assert.equal(check('native').signal, 'SIGSEGV');
        assert.equal(worker.current.forked, true);
        assert.equal(check('js').kind, 'ok');
      } finally {
        worker.close();
      }
    });

    it('makes the FIFOs of the workers in this process, private to its user', function () {
      const library = { exports: {} };
      process.dlopen(library, forkServerLibrary);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-test-'));
      try {
        const fifos = ['a', 'b'].map((name) => path.join(dir, name));
        assert.equal(library.exports.mkfifos(fifos), 0);
        for (const fifo of fifos) {
          const stat = fs.statSync(fifo);
          assert.ok(stat.isFIFO());
          assert.equal(stat.mode & 0o777, 0o600);
        }
        assert.equal(library.exports.mkfifos([fifos[0]]), -os.constants.errno.EEXIST);
        assert.throws(() => library.exports.mkfifos('not a list'), TypeError);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    // The driving process sleeps in the kernel, not polling, until its worker answers.
    it('waits for a FIFO to have something to read, up to a time', function () {
      const library = { exports: {} };
      process.dlopen(library, forkServerLibrary);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-test-'));
      const fifo = path.join(dir, 'answers');
      assert.equal(library.exports.mkfifos([fifo]), 0);
      const fd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
      try {
        let start = performance.now();
        assert.equal(library.exports.waitReadable(fd, 200_000), false);
        assert.ok(performance.now() - start >= 190, 'returned before its time, with nothing to read');
        // Written by another process while this one waits.
        const writer = spawn('/bin/sh', ['-c', 'sleep 0.3; echo answer > "$1"', 'sh', fifo], { stdio: 'ignore' });
        start = performance.now();
        assert.equal(library.exports.waitReadable(fd, 20_000_000), true);
        const waited = performance.now() - start;
        assert.ok(waited >= 250 && waited < 10_000, `woke up after ${waited} ms`);
        const buffer = Buffer.alloc(64);
        assert.equal(buffer.toString('utf8', 0, fs.readSync(fd, buffer)), 'answer\n');
        writer.kill();
        assert.throws(() => library.exports.waitReadable('not a descriptor', 1), TypeError);
      } finally {
        fs.closeSync(fd);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    // A Jazzer.js --sync target never returns to its event loop, where closed handles are freed.
    it('runs the event loop once for a process that never returns to it, freeing closed ports', function () {
      const script = `
        const { MessageChannel } = require('node:worker_threads');
        const { runEventLoopOnce } = require(${JSON.stringify(require.resolve('../../harness/run/fork-server'))});
        globalThis.gc();
        const before = process.memoryUsage().heapUsed;
        for (let i = 1; i <= 10000; i++) {
          const { port1, port2 } = new MessageChannel();
          port1.close();
          port2.close();
          if (process.argv[1] === 'loop' && i % 256 === 0) runEventLoopOnce();
        }
        globalThis.gc();
        console.log(process.memoryUsage().heapUsed - before);`;
      const grown = (how) => {
        const run = spawnSync(node26, ['--expose-gc', '-e', script, how], { encoding: 'utf8' });
        assert.equal(run.status, 0, run.stderr);
        return Number(run.stdout) / 2 ** 20;
      };
      // About 2 KB of heap a channel until its ports' close callbacks run.
      assert.ok(grown('never') > 10, 'the closed ports were freed without the loop: the test shows nothing');
      assert.ok(grown('loop') < 3, 'the closed ports stayed after the loop ran');
    });

    it('is left for fresh node processes when a binary cannot run it', function () {
      // A node that refuses V8's --single-threaded, as a runtime without it would.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-test-'));
      const refusing = path.join(dir, 'node');
      fs.writeFileSync(refusing, `#!/bin/sh\n[ "$1" = --single-threaded ] && exit 9\nexec '${node26}' "$@"\n`,
        { mode: 0o755 });
      const recipe = { k: 'port', props: [['0', { k: 'null' }]] };
      const worker = new BlockingWorker(refusing, { timeoutMs: 10_000, forkServer: true });
      const check = (codec) => worker.request({ op: 'serialize', codec, input: { recipe } });
      try {
        assert.equal(check('native').signal, 'SIGSEGV');
        for (const until = Date.now() + 10_000; worker.zygote !== null && Date.now() < until;) {
          assert.equal(check('js').kind, 'ok');
        }
        assert.match(worker.stats.forkServerOff ?? '', /\(it ended with code 9\)/);
        assert.equal(check('native').signal, 'SIGSEGV');
        assert.equal(check('js').kind, 'ok');
        assert.deepEqual([worker.zygote, worker.current.forked], [null, false]);
      } finally {
        worker.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
