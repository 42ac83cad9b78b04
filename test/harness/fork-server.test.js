'use strict';
// The fork server on every pinned binary: once it is up, a codec that crashes
// worker after worker is answered as a crash, in a fork, well within the time
// limit, on both the asynchronous and the synchronous path. Where its forks
// die before they start, the first fork tells so at once: the workers start
// as nodes, the stats say why once, and no request waits out its time limit.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Session } = require('../../harness/run/session');
const { BlockingWorker } = require('../../harness/run/blocking-driver');
const { forkServerLibrary } = require('../../harness/run/fork-server');
const { resolveNode, pinnedVersions } = require('../../harness/base/binaries');
const { root, fixture, waitWhile, skipWith, requestUntilForkServerReady } = require('../fixtures/helpers');

const recipe = { k: 'number', v: 1 };
const abort = fixture('abort.js');
// Far above what a crash costs in a fork (milliseconds), far below the time limit.
const kTimeoutMs = 5000;
const kAnswerMs = 2000;

// In a process started with this preloaded, a fork of the fork server dies in
// its fork handlers, as one did in glibc on a binary whose stack made a stale
// entry of forkserver.c's table read as a priority-protect mutex.
const forkAbortSource = `
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void child(void) {
  char line[8192];
  int fd = open("/proc/self/cmdline", O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read(fd, line, sizeof line - 1);
  if (fd >= 0) close(fd);
  for (ssize_t at = 0; at < n; at += strlen(line + at) + 1) {
    size_t length = strlen(line + at);
    if (length >= 20 && strcmp(line + at + length - 20, "/fork-server-main.js") == 0) abort();
  }
}
__attribute__((constructor)) static void init(void) { pthread_atfork(NULL, NULL, child); }
`;

function needForkServer(test) {
  if (!fs.existsSync(forkServerLibrary)) skipWith(test, `${forkServerLibrary} is not built`);
}

describe('fork server', function () {
  this.timeout(120_000);
  beforeEach(function () {
    needForkServer(this);
  });

  for (const version of pinnedVersions()) {
    it(`answers crash after crash in forks within the time limit on ${version}`, async function () {
      const node = resolveNode(version);
      const session = new Session({ a: { codec: 'js', node }, b: { codec: abort, node }, timeoutMs: kTimeoutMs });
      try {
        const crashed = (result) => {
          const { b } = result.outcomes.serialize;
          assert.deepEqual([b.kind, b.signal], ['crash', 'SIGABRT'], JSON.stringify(b));
        };
        crashed(await session.check('value', { recipe }));
        const worker = session.worker(node);
        await waitWhile(() => worker.forkServer.state === 'starting', kTimeoutMs);
        assert.deepEqual([worker.forkServer.state, worker.stats.forkServerOff], ['ready', null]);
        for (let i = 0; i < 3; i++) {
          const started = Date.now();
          crashed(await session.check('value', { recipe }));
          assert.ok(Date.now() - started < kAnswerMs, `check ${i} took ${Date.now() - started} ms`);
        }
        assert.ok(worker.forkServer.forks >= 3, `${worker.forkServer.forks} forks`);
      } finally {
        session.close();
      }
    });

    it(`answers crash after crash in forks within the time limit on ${version}, synchronously`, function () {
      const worker = new BlockingWorker(resolveNode(version), { timeoutMs: kTimeoutMs });
      const crashed = () => {
        const crash = worker.request({ op: 'serialize', codec: abort, input: { recipe } });
        assert.deepEqual([crash.kind, crash.signal], ['crash', 'SIGABRT'], JSON.stringify(crash));
      };
      const ok = () => assert.equal(worker.request({ op: 'serialize', codec: 'js', input: { recipe } }).kind, 'ok');
      try {
        crashed();  // in a node, whose loss starts the fork server
        requestUntilForkServerReady(worker, ok, kTimeoutMs);
        for (let i = 0; i < 3; i++) {
          const started = Date.now();
          crashed();
          assert.ok(worker.current.forked, 'a worker after a crash is not a fork');
          ok();
          assert.ok(Date.now() - started < kAnswerMs, `request ${i} took ${Date.now() - started} ms`);
        }
        assert.equal(worker.stats.forkServerOff, null);
      } finally {
        worker.close();
      }
    });
  }

  describe('whose forks die before they start', function () {
    let folder;
    before(function () {
      needForkServer(this);
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-fork-abort-'));
      fs.writeFileSync(path.join(folder, 'fork-abort.c'), forkAbortSource);
      const built = spawnSync('cc', ['-shared', '-fPIC', '-o', 'fork-abort.so', 'fork-abort.c'],
        { cwd: folder, encoding: 'utf8' });
      if (built.error || built.status !== 0) skipWith(this, `cannot build a preloaded library: ${built.error?.code ?? built.stderr}`);
    });
    after(function () {
      if (folder) fs.rmSync(folder, { recursive: true, force: true });
    });

    // Run in a process of its own, the library preloaded there (and so in its fork servers).
    function runPreloaded(script) {
      const file = path.join(folder, 'run.js');
      fs.writeFileSync(file, `'use strict';\nconst root = ${JSON.stringify(root)};\n${script}`);
      const run = spawnSync(process.execPath, [file], {
        env: { ...process.env, LD_PRELOAD: path.join(folder, 'fork-abort.so') }, encoding: 'utf8', timeout: 60_000,
      });
      assert.equal(run.status, 0, run.stderr);
      return JSON.parse(run.stdout);
    }

    it('start their workers as nodes, say so once, and keep no check waiting', function () {
      const { times, kinds, state, off } = runPreloaded(`
        const { Session } = require(root + '/harness/run/session');
        const { resolveNode } = require(root + '/harness/base/binaries');
        (async () => {
          const node = resolveNode();
          const session = new Session({ a: { codec: 'js', node }, b: { codec: ${JSON.stringify(abort)}, node },
            timeoutMs: ${kTimeoutMs} });
          const times = [];
          const kinds = [];
          await session.check('value', { recipe: ${JSON.stringify(recipe)} });
          const worker = session.worker(node);
          while (worker.forkServer.state === 'starting') await new Promise((resolve) => setTimeout(resolve, 10));
          for (let i = 0; i < 3; i++) {
            const started = Date.now();
            const result = await session.check('value', { recipe: ${JSON.stringify(recipe)} });
            times.push(Date.now() - started);
            kinds.push(result.outcomes.serialize.b.kind);
          }
          process.stdout.write(JSON.stringify({ times, kinds, state: worker.forkServer.state,
            off: worker.stats.forkServerOff }));
          session.close();
        })();`);
      assert.equal(state, 'ended');
      assert.match(off ?? '', /^fork server of .* off \(a fork ended with SIGABRT before it started\): workers start as nodes$/);
      assert.deepEqual(kinds, ['crash', 'crash', 'crash']);
      for (const ms of times) assert.ok(ms < kAnswerMs, `checks took ${times.join(', ')} ms`);
    });

    it('start their workers as nodes, say so once, and keep no request waiting, synchronously', function () {
      const { times, kinds, zygote, off } = runPreloaded(`
        const { BlockingWorker } = require(root + '/harness/run/blocking-driver');
        const { resolveNode } = require(root + '/harness/base/binaries');
        const worker = new BlockingWorker(resolveNode(), { timeoutMs: ${kTimeoutMs} });
        const times = [];
        const kinds = new Set();
        // Until it is found out, and once more.
        for (let i = 0, until = Date.now() + ${kTimeoutMs}; (i < 3 || worker.zygote !== null) && Date.now() < until; i++) {
          const started = Date.now();
          kinds.add(worker.request({ op: 'serialize', codec: ${JSON.stringify(abort)},
            input: { recipe: ${JSON.stringify(recipe)} } }).kind);
          times.push(Date.now() - started);
        }
        process.stdout.write(JSON.stringify({ times, kinds: [...kinds], zygote: worker.zygote,
          off: worker.stats.forkServerOff }));
        worker.close();`);
      assert.equal(zygote, null);
      assert.match(off ?? '', /^fork server of .* off \(its first fork ended with SIGABRT\): workers start as nodes$/);
      assert.deepEqual(kinds, ['crash']);
      assert.ok(times.every((ms) => ms < kAnswerMs), `requests took ${times.join(', ')} ms`);
    });
  });
});
