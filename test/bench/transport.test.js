'use strict';
// The transport grid (its cells, labels, summaries and codec shares), the
// frames its unix socket carries in both codecs, and the bench's deadline:
// a stage cut, a stage killed with all it started, a whole run ended by a
// tiny budget. No timing is asserted beyond the deadline's own.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const { resolveNode, defaultVersion } = require('../../harness/base/binaries');
const { binary } = require('../../bench/machine');
const transportTable = require('../../bench/transport-table');
const { sizes } = require('../../bench/codec-table');
const { runStage, checkTime, Cut, kGraceMs } = require('../../bench/deadline');

const benchDir = path.join(__dirname, '..', '..', 'bench');
const head = resolveNode();
const base = resolveNode('26.3.1');
const fixture = path.join(__dirname, 'fixtures', 'overrunning-stage.js');

// The pids of live processes whose environment holds `marker` (a zombie is not live).
function processesMarked(marker) {
  const found = [];
  for (const name of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const state = fs.readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1][0];
      if (state !== 'Z' && fs.readFileSync(`/proc/${name}/environ`, 'utf8').includes(marker)) found.push(Number(name));
    } catch { /* gone, or not ours */ }
  }
  return found;
}

// The processes marked, once they have had `ms` to go.
async function markedAfter(marker, ms) {
  for (const end = Date.now() + ms; Date.now() < end && processesMarked(marker).length;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return processesMarked(marker);
}

const sample = (over) => ({
  role: 'head', serialization: 'advanced', transport: 'pipe', workers: 1, inflight: 4, len: 64, rep: 0,
  rate: 1000, cpuMicrosPerRoundTrip: 40, ...over,
});

describe('bench: transport grid', function () {
  this.timeout(60_000);
  const binaries = [binary('base', base), binary('head', head)];

  it('runs one worker to all the cores less one, with one and half the cores between', function () {
    assert.deepEqual(transportTable.workerCounts(1), [1]);
    assert.deepEqual(transportTable.workerCounts(2), [1]);
    assert.deepEqual(transportTable.workerCounts(4), [1, 2, 3]);
    assert.deepEqual(transportTable.workerCounts(16), [1, 8, 15]);
  });

  it('has every codec over both transports at every W × C × P, labelled as the study does', function () {
    const { runs, points } = transportTable.grid({ binaries, cores: 4 });
    assert.deepEqual(runs.map((r) => `${r.binary.version} ${r.serialization} ${r.transport}`), [
      'v26.3.1 advanced pipe', 'v26.3.1 advanced unix', `v${defaultVersion} advanced pipe`,
      `v${defaultVersion} advanced unix`, `v${defaultVersion} json pipe`, `v${defaultVersion} json unix`]);
    assert.equal(points.length, 3 * 3 * sizes.length);
    assert.deepEqual([...new Set(points.map((p) => `${p.workers}x${p.inflight}`))],
      ['1x1', '1x4', '1x32', '2x1', '2x4', '2x32', '3x1', '3x4', '3x32']);
    assert.equal(transportTable.workload({ workers: 2, inflight: 32, len: 1024 }), '2x32 payload = 1 KiB');
    assert.equal(transportTable.grid({ binaries, cores: 2 }).points.length, 3 * sizes.length);
  });

  it('summarizes a row per workload and transport, the native/JS ratio by repetition, the CPU shared', function () {
    const samples = [
      sample({ role: 'base', rate: 100, rep: 0 }), sample({ role: 'base', rate: 300, rep: 1 }),
      sample({ rate: 200, rep: 0 }), sample({ rate: 300, rep: 1 }),
      sample({ serialization: 'json', rate: 500, cpuMicrosPerRoundTrip: 10 }),
      sample({ transport: 'unix', rate: 400, rep: 0 }),
      sample({ inflight: 1, transport: 'unix', rate: 50 }),
    ];
    const rows = transportTable.summarizeTransport(samples);
    assert.deepEqual(rows.map((r) => `${transportTable.workload(r)} ${r.transport}`),
      ['1x1 payload = 64 B unix', '1x4 payload = 64 B pipe', '1x4 payload = 64 B unix']);
    const pipe = rows[1];
    // 200/100 in repetition 0, 300/300 in repetition 1.
    assert.deepEqual(pipe.headOverBase, { median: 1.5, min: 1, max: 2, n: 2 });
    assert.deepEqual(pipe.cells['head/advanced'].rate, { median: 250, min: 200, max: 300, n: 2 });
    // Two serializations and two decodes of 10 µs of CPU each: 20 µs of a 40 µs round trip.
    const cpu = { 'head/builtin': { median: 10 }, 'head/json': { median: 1 } };
    const inproc = { rows: [{ len: 64, cells: {}, cpu }] };
    const shares = transportTable.codecShares(pipe, inproc);
    assert.equal(shares['head/advanced'], 0.5);
    assert.equal(shares['head/json'], 0.2);
    assert.equal(shares['base/advanced'], null);  // no in-process figure for it
    const table = transportTable.markdown(rows, binaries, inproc);
    assert.match(table, /\| 1x4 payload = 64 B \| pipe \| 200 \[100–300\] \| 250 \[200–300\] \| 500 \| 1\.50× \[1\.00×–2\.00×\] \| — · 50% · 20% \|/);
    assert.match(table, /\| 1x1 payload = 64 B \| unix socket \| — \| 50\.0 \| — \| — \| — · 50% · — \|/);
    const [, native] = transportTable.socketOverPipe(rows);
    assert.deepEqual(native.ratio, { median: 1.6, min: 1.6, max: 1.6, n: 1 });  // 400 over 250
  });

  it('draws a tick per workload, grouped by W×C, a line per codec and transport', function () {
    const rows = transportTable.summarizeTransport([sample({}), sample({ transport: 'unix' }), sample({ len: 1024 })]);
    const panel = transportTable.panel(rows, binaries);
    assert.deepEqual(panel.x.map((t) => `${t.group} ${t.label}`), ['1x4 64 B', '1x4 1 KiB']);
    assert.equal(panel.series.length, 6);
    assert.deepEqual(panel.series.find((s) => s.label === `advanced v${defaultVersion} unix socket`).points.map((p) => p.x),
      ['1x4 payload = 64 B']);
  });

  it('carries child_process frames over the socket in both codecs, read back in any chunks', function () {
    const script = `
      const { serializationOf } = require(${JSON.stringify(path.join(benchDir, 'serializations'))});
      const messages = [{ payload: '.'.repeat(300) }, { n: 1, s: 'é€😀', a: [1, null, true] }, { payload: '' }];
      const out = {};
      for (const name of ['advanced', 'json']) {
        const codec = serializationOf(name);
        const frames = messages.map((m) => codec.serialize(m));
        const stream = Buffer.concat(frames);
        const read = (step) => {
          const framer = codec.createFramer();
          const got = [];
          for (let i = 0; i < stream.length; i += step) got.push(...framer.push(stream.subarray(i, i + step)));
          return got;
        };
        out[name] = { frames: frames.map((f) => f.toString('hex')), byByte: read(1), by7: read(7), whole: read(stream.length),
          decoded: frames.map((f) => codec.decode(f)) };
      }
      process.stdout.write(JSON.stringify(out));`;
    const run = (node) =>
      JSON.parse(execFileSync(node, ['--expose-internals', '--no-warnings', '-e', script], { encoding: 'utf8' }));
    const [js, native] = [run(base), run(head)];
    const messages = [{ payload: '.'.repeat(300) }, { n: 1, s: 'é€😀', a: [1, null, true] }, { payload: '' }];
    for (const side of [js, native]) {
      for (const name of ['advanced', 'json']) {
        for (const read of ['byByte', 'by7', 'whole', 'decoded']) assert.deepEqual(side[name][read], messages, `${name} ${read}`);
      }
      // [uint32 BE length][payload]; a JSON line.
      for (const hex of side.advanced.frames) assert.equal(Buffer.from(hex, 'hex').readUInt32BE(0), hex.length / 2 - 4);
      assert.deepEqual(side.json.frames.map((h) => Buffer.from(h, 'hex').toString()), messages.map((m) => `${JSON.stringify(m)}\n`));
    }
    // The JS codec of 26.3.1 and the native one write the same bytes.
    assert.deepEqual(native.advanced.frames, js.advanced.frames);
  });

  it('times round trips of several workers over the unix socket in both codecs and json', function () {
    for (const [node, serialization] of [[base, 'advanced'], [head, 'advanced'], [head, 'json']]) {
      const r = JSON.parse(execFileSync(node, ['--expose-internals', '--no-warnings',
        path.join(benchDir, 'ipc-roundtrip.js'),
        '--serialization', serialization, '--transport', 'unix', '--workers', '2', '--inflight', '4', '--len', '1024',
        '--seconds', '0.1', '--warmup', '0.05'], { encoding: 'utf8' }));
      assert.equal(r.transport, 'unix');
      assert.equal(r.workers, 2);
      assert.ok(r.roundTrips > 0 && r.rate > 0 && r.cpuMicrosPerRoundTrip > 0, JSON.stringify(r));
    }
  });

  it('refuses an unknown transport in one line, exit 2', function () {
    const r = spawnSync(head, [path.join(benchDir, 'ipc-roundtrip.js'), '--transport', 'tcp'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^ipc-roundtrip: --transport is pipe or unix, not tcp\n$/);
  });
});

describe('bench: deadline', function () {
  this.timeout(60_000);
  let tmp;
  beforeEach(function () { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-deadline-test-')); });
  afterEach(function () { fs.rmSync(tmp, { recursive: true, force: true }); });

  it('refuses a measurement that would end past the deadline', function () {
    assert.throws(() => checkTime(Date.now() + 1000, 2, 'a run'), Cut);
    checkTime(Date.now() + 3000, 2, 'a run');
    checkTime(undefined, 1e6, 'a run');
  });

  it('kills a stage that overruns its deadline with every process it started, keeping what it sent', async function () {
    const marker = `TEST_IPCFUZZ_DEADLINE=${crypto.randomUUID()}`;
    const env = { ...process.env, TEST_IPCFUZZ_DEADLINE: marker.split('=')[1], TMPDIR: tmp };
    const started = Date.now();
    const until = started + 1500;
    let during = [];
    const look = setTimeout(() => { during = processesMarked(marker); }, 1200);
    const r = await runStage(fixture, { behave: 'overrun' }, { until, env });
    clearTimeout(look);
    const elapsed = Date.now() - started;
    assert.equal(r.cut, 'killed at the deadline');
    assert.equal(r.error, null);
    assert.deepEqual(r.samples, [{ first: true }]);
    assert.ok(elapsed >= 1500 + kGraceMs - 100 && elapsed < 1500 + kGraceMs + 1500, `${elapsed} ms`);
    // The stage, its child and the grandchild in a group of its own were seen, and are gone.
    assert.ok(during.length >= 3, `${during.length} marked processes seen while it ran`);
    assert.deepEqual(await markedAfter(marker, 2000), []);
    // Its TMPDIR (made in ours) is removed with the file it left.
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  it('ends a stage cut by its own check, or failed, with what it sent', async function () {
    const env = { ...process.env, TMPDIR: tmp };
    const cut = await runStage(fixture, { behave: 'cut' }, { until: Date.now() + 30_000, env });
    assert.deepEqual(cut, { samples: [{ first: true }], cut: 'no time for the next one', error: null });
    const failed = await runStage(fixture, { behave: 'fail' }, { until: Date.now() + 30_000, env });
    assert.equal(failed.cut, null);
    assert.match(failed.error, /^Error: the stage broke\n/);
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  it('ends `make bench` within seconds of a tiny budget, the stage cut, its files written, nothing left', function () {
    const marker = crypto.randomUUID();
    const out = path.join(tmp, 'out');
    const scratch = fs.mkdirSync(path.join(tmp, 'scratch'), { recursive: true });
    const started = Date.now();
    const r = spawnSync(process.execPath, [path.join(benchDir, 'run.js'), '--quick', '--only', 'codec,transport',
      '--minutes', '0.2', '--out', out],
    { encoding: 'utf8', env: { ...process.env, TMPDIR: scratch, TEST_IPCFUZZ_DEADLINE: marker } });
    const elapsed = Date.now() - started;
    assert.equal(r.status, 0, r.stderr);
    assert.ok(elapsed < 12_000 + 3000, `${elapsed} ms for a 12 s budget`);
    const { meta, results } = JSON.parse(fs.readFileSync(path.join(out, 'quick.json'), 'utf8'));
    assert.equal(meta.minutes, 0.2);
    // The codec stage got some of its runs in and was cut; the transport stage got what was left.
    assert.match(results.codec.cut, /past the deadline/);
    assert.ok(results.codec.measured > 0 && results.codec.rows.length > 0, JSON.stringify(results.codec.rows));
    assert.ok(results.transport.cut);
    const md = fs.readFileSync(path.join(out, 'quick.md'), 'utf8');
    assert.match(md, /^Deadline: 0\.2 min \(`--minutes`\), each stage given what remained; cut: codec \(/m);
    assert.match(md, /^\*\*Cut\*\* \(.*past the deadline\): the table holds the \d+ measurements taken before\.$/m);
    assert.match(r.stderr, /^bench: [\d.]+ min of 0\.2, cut: codec, transport; wrote /m);
    assert.deepEqual(processesMarked(marker), []);
    assert.deepEqual(fs.readdirSync(scratch), []);
  });

  it('leaves no process and no folder behind when `make bench` is killed by SIGKILL mid-stage', async function () {
    const marker = crypto.randomUUID();
    const scratch = fs.mkdirSync(path.join(tmp, 'scratch'), { recursive: true });
    const run = spawn(process.execPath, [path.join(benchDir, 'run.js'), '--quick', '--only', 'transport',
      '--out', path.join(tmp, 'out')], { env: { ...process.env, TMPDIR: scratch, TEST_IPCFUZZ_DEADLINE: marker },
      stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    await new Promise((resolve) => run.stderr.on('data', (d) => {
      stderr += d;
      if (/bench: transport \.\.\./.test(stderr)) setTimeout(resolve, 1500);
    }));
    // The stage and a measurement's processes are running (on a busy machine, a moment after the stage says so).
    for (const until = Date.now() + 10_000; processesMarked(marker).length < 3 && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const running = processesMarked(marker).length;
    assert.ok(running >= 3, `${running} marked processes`);
    assert.equal(fs.readdirSync(scratch).length, 1);
    run.kill('SIGKILL');
    assert.deepEqual(await markedAfter(marker, 2000), []);
    assert.deepEqual(fs.readdirSync(scratch), []);
  });

  it('refuses a deadline that is not a number of minutes, in one line, exit 2', function () {
    const r = spawnSync(process.execPath, [path.join(benchDir, 'run.js'), '--minutes', 'soon', '--out', tmp],
      { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'bench: --minutes is a number of minutes above 0, not "soon"\n');
  });
});
