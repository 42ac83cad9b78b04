'use strict';
// Checks run many at a time: whole checks in one worker when both codecs are
// built into one binary, the per-operation path otherwise. Both give the same
// differences and findings, and a codec that takes a batch's worker down
// costs that input its crash outcome, not the others their results.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout } = require('node:timers/promises');
const { Session } = require('../../harness/run/session');
const { FindingStore } = require('../../harness/findings/recorder');
const { loadKnown } = require('../../harness/oracle/known');
const { runProperties } = require('../../properties/engine');

const num = (v) => ({ k: 'number', v });
// A MessagePort with an index key: ipc_serdes in 26.12.1 dies on it (SIGSEGV).
const crasher = { recipe: { k: 'port', props: [['0', num(1)]] } };

describe('batches of checks', function () {
  this.timeout(240_000);

  describe('a batch whose worker dies', function () {
    let session;
    before(function () {
      // No screen: the crasher goes into the batch.
      session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000, screen: () => null });
    });
    after(() => session.close());

    it('gives the input that killed it its crash, and the others their results', async function () {
      const inputs = [{ recipe: num(1) }, crasher, { recipe: num(2) }, { recipe: { k: 'string', v: 'x' } }];
      const results = await session.checkMany('value', inputs);
      assert.deepEqual(results.map((r) => r.differences.map((d) => d.tier)), [[], ['crash'], [], []]);
      assert.equal(results[1].outcomes.serialize.b.kind, 'crash');
      assert.ok(session.stats().crashes >= 1);
      // The batch worker took a new process and goes on.
      const [again] = await session.checkMany('value', [{ recipe: num(3) }]);
      assert.deepEqual(again.differences, []);
    });

    // Their recipes travel once to each worker process, then by number. Each
    // batch here waits for the batch workers to be idle, so that it goes to the first.
    it('sends the recipes of frame checks again to the process that took over', async function () {
      const run = async (type, inputs) => {
        const results = await session.checkMany(type, inputs);
        while (session.batches.workers.some((w) => w.queue.length)) await setTimeout(10);
        return results;
      };
      const frames = [num(1), { k: 'string', v: 'xy' }, num(2)]
        .map((recipe) => ({ recipe, corruption: { k: 'truncate', at: 5, keepPrefix: true } }));
      const first = await run('recipeFrame', frames);
      assert.ok(first.every((r) => r !== null), 'codec a wrote every frame');
      const [worker] = session.batches.workers;
      const crashes = worker.stats.crashes;
      await run('value', [crasher]);
      assert.equal(worker.stats.crashes, crashes + 1, 'the batch worker lost its process');
      assert.deepEqual(await run('recipeFrame', frames), first);
    });
  });

  it('keeps screened inputs out of the batch', async function () {
    const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
    try {
      const [result] = await session.checkMany('value', [crasher]);
      assert.equal(result.outcomes.serialize.b.kind, 'crash');
      assert.deepEqual(session.batches.workers, [], 'no batch worker was needed');
    } finally {
      session.close();
    }
  });

  // Each a worker process less: the crash judge (harness/run/crash-judge.js)
  // finds in a worker, without the crash, that the native codec reaches it.
  it('gives screened inputs the known crash a worker has shown, judged, and has a worker check every 32nd',
    async function () {
      const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
      try {
        const inputs = Array.from({ length: 40 }, (_, i) => ({ recipe: { k: 'port', props: [['0', num(i)]] } }));
        const results = await session.checkMany('value', inputs);
        const signatures = results.map((r) => r.differences.map((d) => d.signature).join());
        assert.deepEqual(new Set(signatures), new Set([signatures[0]]));
        assert.match(signatures[0], /crash/);
        assert.deepEqual(results.map((r) => r.outcomes.serialize.b), inputs.map(() => results[0].outcomes.serialize.b));
        const { crashes, judged } = session.stats();
        assert.equal(crashes + judged, 40);
        assert.equal(crashes, 2, 'the first and the 32nd judged after it');
      } finally {
        session.close();
      }
    });

  it('checks the inputs that change a built-in prototype in a worker of their own', async function () {
    const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
    try {
      const setter = { k: 'object', props: [['y', num(1)]], tamper: [{ op: 'inherited-setter', key: 'z' }] };
      const proto = { k: 'view', type: 'Buffer', bytes: '01', tamper: [{ op: 'proto', of: 'Buffer', key: 'constructor',
        value: { k: 'global', name: 'Uint8Array' } }] };
      const inputs = [{ recipe: num(1) }, { recipe: setter }, { recipe: num(2) }, { recipe: proto }];
      const batched = await session.checkMany('value', inputs);
      const [main, apart] = session.batches.workers;
      assert.equal(session.batches.workers.length, 2);
      assert.ok(session.batches.apart.has(apart) && !session.batches.apart.has(main));
      assert.deepEqual([main, apart].map((w) => w.stats.requests), [1, 1], 'one batch each');
      // The code of the one apart is thrown away at each check: V8 does not optimize it.
      assert.deepEqual([main, apart].map((w) => w.child.spawnargs.includes('--max-opt=1')), [false, true]);
      // The same results as one by one.
      const perOp = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000, inProcess: false });
      try {
        const alone = await Promise.all(inputs.map((input) => perOp.check('value', input)));
        assert.deepEqual(batched.map((r) => r.differences), alone.map((r) => r.differences));
      } finally {
        perOp.close();
      }
    } finally {
      session.close();
    }
  });

  // An element on Object.prototype leaves the process slower for good (recipes/steps.js spoilsProcess).
  it('checks an input that gives Object.prototype an element on the per-operation path', async function () {
    const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
    const perOp = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000, inProcess: false });
    try {
      const element = { k: 'array', items: [num(1)], length: 3,
        tamper: [{ op: 'inherited-setter', key: '1', throws: 'setter called' }] };
      const setter = { k: 'object', props: [['y', num(1)]], tamper: [{ op: 'inherited-setter', key: 'z' }] };
      const inputs = [{ recipe: num(1) }, { recipe: element }, { recipe: setter }];
      const batched = await session.checkMany('value', inputs);
      const [main, apart] = session.batches.workers;
      assert.equal(session.batches.workers.length, 2);
      assert.deepEqual([main, apart].map((w) => w.stats.requests), [1, 1], 'one input each, in a batch');
      assert.equal(session.batches.checked, 2);
      const perOpRequests = [...session.workers.values()].reduce((n, w) => n + w.stats.requests, 0);
      assert.ok(perOpRequests >= 4, `the element's serializations and decodings, a request each: ${perOpRequests}`);
      const alone = await Promise.all(inputs.map((input) => perOp.check('value', input)));
      assert.deepEqual(batched.map((r) => r.differences), alone.map((r) => r.differences));
    } finally {
      session.close();
      perOp.close();
    }
  });

  // A shrink step does not wait for the turns drawn ahead: while a finding is
  // shrunk and confirmed they are held, and an urgent check goes first.
  it('holds batches while paused, and sends an urgent check ahead of them', async function () {
    const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
    try {
      await session.checkMany('value', [{ recipe: num(0) }]);
      session.batches.pause();
      const settled = [];
      const turns = [1, 2, 3].map((turn) => {
        const { results } = session.checkEach('value', [{ recipe: num(turn) }, { recipe: { k: 'string', v: 'x' } }]);
        return Promise.all(results).then((r) => {
          settled.push(turn);
          return r;
        });
      });
      const [urgent] = await session.checkMany('value', [{ recipe: num(9) }], { answer: 'differing', urgent: true });
      assert.deepEqual(urgent.differences, []);
      await setTimeout(200);
      assert.deepEqual(settled, [], 'a batch went while paused');
      session.batches.resume();
      const results = await Promise.all(turns);
      assert.deepEqual(settled.sort(), [1, 2, 3]);
      assert.deepEqual(results.flat().map((r) => r.differences), [[], [], [], [], [], []]);
    } finally {
      session.close();
    }
  });

  // What a run of the engine found and saved, with a session made by `open`.
  async function findings(open, property, runs, seed) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-batches-'));
    const session = open();
    try {
      const summary = await runProperties({
        session, known: loadKnown(), store: new FindingStore(dir), seed, runs, only: [property],
      });
      const saved = summary.findings.map((f) => {
        const meta = FindingStore.read(f.folder);
        return { signature: meta.signature, origin: meta.origin, input: meta.input, path: path.basename(f.folder) };
      }).sort((x, y) => x.signature.localeCompare(y.signature));
      // Which known entries were met, not how often: whether an unaligned
      // view is copied depends on where Buffer's pool stands in each process.
      return { runs: summary.runs, known: Object.keys(summary.known).sort(), saved, stats: session.stats() };
    } finally {
      session.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  // The same seed both ways, with `open(on)` making the session: in one binary,
  // whole checks in batch workers or the per-operation path; across two (the
  // gate's case), the operations of the checks in flight gathered into one
  // request per worker, or each sent alone. used(stats): whether the way was taken.
  const ways = [
    {
      name: 'in one binary, whole checks in batches or one operation at a time',
      // A time limit no loaded machine reaches: a hang must not depend on the load.
      open: (inProcess) => new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 120_000, inProcess }),
      used: (stats) => stats.batched > 0,
      saves: 'the value property saves differences',
      seed: 20261123,
    },
    {
      name: 'across two binaries, operations gathered or not',
      open: (gather) => new Session({
        a: { codec: 'builtin', node: '26.3.1' }, b: { codec: 'native', node: '26.12.1' }, timeoutMs: 120_000, gather,
      }),
      used: (stats) => stats.gathered > 0,
      // A crash of the native codec, found where its operation was gathered with
      // others: a seed whose first value input crashes it, the first of the run
      // to differ in a way not known (a value input in a few thousand crashes).
      saves: 'the value property saves a crash',
      crash: true,
      seed: 39722,
    },
  ];
  for (const way of ways) {
    for (const [property, runs] of [['value', 240], ['frame', 400], ['stream', 400]]) {
      it(`finds the same differences ${way.name}: ${property}`, async function () {
        const both = [];
        for (const on of [true, false]) {
          const { stats, ...found } = await findings(() => way.open(on), property, runs, way.seed);
          both.push({ ...found, used: way.used(stats) });
        }
        const [yes, no] = both;
        assert.equal(yes.used, true);
        assert.equal(no.used, false);
        assert.deepEqual(yes, { ...no, used: true });
        // Not an agreement on nothing: the value property finds and saves
        // differences, and every property meets known ones.
        if (property === 'value') {
          const saved = yes.saved.filter((f) => !way.crash || f.signature.startsWith('crash/'));
          assert.ok(saved.length > 0, way.saves);
        }
        assert.ok(yes.known.length > 0);
        assert.equal(yes.runs, runs);
      });
    }
  }
});
