'use strict';
// What is blamed on whom, and counted truly: both codecs crashing alike is
// agreement, a value module that never returns is the input's fault, and the
// engines' summaries count the codec's crashes where they happen.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { AsyncWorker } = require('../../harness/run/async-driver');
const { BlockingWorker } = require('../../harness/run/blocking-driver');
const { node26, fixture, cli } = require('../fixtures/helpers');

const conformanceDir = path.join(__dirname, '..', '..', 'conformance', 'vectors', 'accept', 'host');

describe('outcomes and counts', function () {
  this.timeout(120_000);

  it('reports native against native on a port with an integer key as SAME, showing that both crash', async function () {
    const { code, stdout } = await cli(['diff', '--a', 'native', '--b', 'native', '--no-known',
      '--recipe', path.join(conformanceDir, 'port-integer-key.json')]);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /crash +same \(serialize: both crash SIG\w+\)/);
    assert.match(stdout, /\nSAME$/m);
  });

  describe('a crash carries the end of what the worker wrote on stderr', function () {
    // process.abort() prints the stack it was called from, down to the worker's request.
    const request = { op: 'serialize', codec: fixture('abort.js'), input: { recipe: { k: 'null' } } };
    const said = /handle \(\S+worker-main\.js/;

    it('from an async worker, started afresh and forked', async function () {
      const worker = new AsyncWorker(node26, { timeoutMs: 10_000 });
      try {
        for (let i = 0; i < 2; i++) {
          const crash = await worker.request(request);
          assert.equal(crash.kind, 'crash');
          assert.match(crash.stderr, said);
        }
      } finally {
        worker.close();
      }
    });

    for (const forkServer of [false, true]) {
      it(`from a blocking worker${forkServer ? ' (fork server)' : ''}, once per crash`, function () {
        const worker = new BlockingWorker(node26, { timeoutMs: 10_000, forkServer });
        try {
          for (let i = 0; i < 2; i++) {
            const crash = worker.request(request);
            assert.equal(crash.kind, 'crash');
            assert.match(crash.stderr, said);
            assert.equal(crash.stderr.match(new RegExp(said.source, 'g')).length, 1, crash.stderr);
          }
        } finally {
          worker.close();
        }
      });
    }
  });

  it('renders a result where one side crashed and the other ran user code', function () {
    const { renderResult } = require('../../harness/findings/report');
    const info = { node: 'v26.12.1' };
    const sides = { a: { codec: 'js', info }, b: { codec: 'native', info } };
    const a = { kind: 'ok', bytes: '00000004ff0f4902', effects: ['get x'] };
    const b = { kind: 'crash', signal: 'SIGSEGV', code: null };
    const text = renderResult({ type: 'value', input: { module: 'v.js' }, outcomes: { serialize: { a, b }, decode: [] },
      differences: [] }, sides);
    assert.match(text, /side effects\n +get x +│ none\n/);
  });

  describe('a value module that never returns', function () {
    const request = { op: 'serialize', codec: 'js', input: { module: fixture('hanging-value.js') } };
    const unbuildable = {
      kind: 'unbuildable', error: { name: 'Error', message: 'building the value did not finish in 1500 ms' },
    };

    it('is unbuildable, not a hang, in a worker process', async function () {
      const worker = new AsyncWorker(node26, { timeoutMs: 1500 });
      try {
        assert.deepEqual(await worker.request(request), unbuildable);
        assert.equal(worker.stats.hangs, 0);
        // A codec that hangs on a built value still does.
        const recipe = { k: 'number', v: 1 };
        const hang = await worker.request({ ...request, codec: fixture('hang.js'), input: { recipe } });
        assert.equal(hang.kind, 'hang');
      } finally {
        worker.close();
      }
    });

    it('is unbuildable, not a hang, in a synchronous worker', function () {
      const worker = new BlockingWorker(node26, { timeoutMs: 1500 });
      try {
        assert.deepEqual(worker.request(request), unbuildable);
        assert.equal(worker.stats.hangs, 0);
      } finally {
        worker.close();
      }
    });

    it('makes diff say the value could not be built, exit 2', async function () {
      const { code, stderr } = await cli(['diff', '--value', fixture('hanging-value.js'), '--timeout', '1500']);
      assert.equal(code, 2);
      assert.match(stderr, /the value could not be built: building the value did not finish/);
    });
  });

  it('counts a codec crashing in a Jazzer.js target where it happens, and fast-check per property', async function () {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-outcomes-'));
    try {
      const { code, stdout } = await cli(['fuzz', '--engine', 'all', '--target', 'value', '--property', 'value,frame',
        '--a', 'js', '--b', fixture('abort.js'), '--seconds', '8', '--out', path.join(scratch, 'f'),
        '--work', path.join(scratch, 'w')]);
      assert.equal(code, 1, stdout);
      const crashes = Number(/value .* codec crashes (\d+), hangs \d+, target restarts 0/.exec(stdout)?.[1]);
      assert.ok(crashes > 0, stdout);
      assert.match(stdout,
        /\n {2}value +\d+ runs, (1 new finding|0 new findings), \d+ seen again, \d+ known hits\n {2}frame +\d+ runs, 0 new/);
      // The two engines share the findings folder: whichever meets the crash first saves it, the other sees it again.
      assert.match(stdout, /\n1 new finding in /);
      assert.match(stdout, /crash\/serialize\/b:crash SIGABRT/);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
