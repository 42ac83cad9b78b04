'use strict';
// The synchronous worker (what the Jazzer.js targets drive the codec under
// test with) hands back replies whole, whatever the pipe reads cut; a worker
// that dies or hangs is an outcome, the next request runs in a fresh one, and
// none is left running once the worker is closed.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { SyncWorker } = require('../../harness/sync-worker');
const { node26, fixture } = require('../fixtures/helpers');

// The workers that synchronous workers of this process started: node
// processes below it whose parent is a shell of the spawner (a worker process
// of another kind is a child of this process itself).
function spawnedWorkers() {
  const parents = new Map();
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      parents.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone meanwhile */ }
  }
  const program = (pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    } catch {
      return null;
    }
  };
  const below = (pid) => pid > 1 && (parents.get(pid) === process.pid || below(parents.get(pid)));
  return [...parents.keys()].filter((pid) => below(pid) && program(pid) === node26 &&
    program(parents.get(pid)) === '/bin/sh');
}

describe('synchronous worker', function () {
  this.timeout(60_000);

  it('keeps characters that a pipe read cuts in two', function () {
    const worker = new SyncWorker(node26, { timeoutMs: 20_000 });
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

  it('gives a crash with its signal and a hang, goes on in fresh workers, and leaves none behind', function () {
    const recipe = { k: 'number', v: 1 };
    const before = new Set(spawnedWorkers());
    const started = () => spawnedWorkers().filter((pid) => !before.has(pid));
    const worker = new SyncWorker(node26, { timeoutMs: 2000 });
    try {
      assert.equal(worker.request({ op: 'serialize', codec: 'js', input: { recipe } }).kind, 'ok');
      for (let i = 0; i < 3; i++) {
        const crash = worker.request({ op: 'serialize', codec: fixture('abort.js'), input: { recipe } });
        assert.deepEqual({ kind: crash.kind, signal: crash.signal }, { kind: 'crash', signal: 'SIGABRT' });
      }
      const hang = worker.request({ op: 'serialize', codec: fixture('hang.js'), input: { recipe } });
      assert.equal(hang.kind, 'hang');
      assert.equal(worker.request({ op: 'serialize', codec: 'js', input: { recipe } }).kind, 'ok');
      assert.deepEqual(worker.stats, { requests: 6, crashes: 3, hangs: 1, restarts: 4 });
      assert.ok(started().length > 0);
    } finally {
      worker.close();
    }
    // Spares still booting end on their own, when they find their requests closed.
    const until = Date.now() + 20_000;
    while (started().length && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    assert.deepEqual(started(), []);
  });
});
