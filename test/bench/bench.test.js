'use strict';
// The bench code computes what it says, on tiny runs: the shape of its
// results, and that every measured figure is a positive number. No timing
// is asserted.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const { resolveNode, defaultVersion } = require('../../harness/base/binaries');
const { binary } = require('../../bench/machine');
const codecTable = require('../../bench/codec-table');
const { summarize, median } = require('../../bench/stats');
const { chartSvg, renderPng, fontFamily, payloadAxis, payloadLabel } = require('../../bench/chart');
const { isSlowdown } = require('../../bench/gate');
const ttf = require('../../bench/time-to-find');
const throughput = require('../../bench/throughput');
const { sampleTree } = require('../../bench/rss');
const { Trace } = require('../../harness/observe/trace');

const benchDir = path.join(__dirname, '..', '..', 'bench');

const head = resolveNode();
const base = resolveNode('26.3.1');
const positive = (x) => typeof x === 'number' && Number.isFinite(x) && x > 0;
const nodeJson = (node, args) => JSON.parse(execFileSync(node, args, { encoding: 'utf8' }));

describe('bench', function () {
  this.timeout(30_000);

  it('times fork() IPC round trips with both serializations', function () {
    for (const serialization of ['advanced', 'json']) {
      const r = nodeJson(head, [path.join(benchDir, 'ipc-roundtrip.js'), '--serialization', serialization,
        '--len', '64', '--seconds', '0.1', '--warmup', '0.05', '--inflight', '4']);
      assert.equal(r.node, `v${defaultVersion}`);
      assert.equal(r.serialization, serialization);
      assert.ok(r.roundTrips > 0 && positive(r.rate) && positive(r.cpuMicrosPerRoundTrip), JSON.stringify(r));
    }
  });

  it('interleaves binaries and serializations and pairs the ratios by repetition', async function () {
    const binaries = [binary('base', base), binary('head', head)];
    assert.deepEqual(binaries.map((b) => b.codec), ['JavaScript', 'native']);
    const samples = await codecTable.forkRoundTrips({
      binaries, reps: 1, seconds: 0.1, warmup: 0.05, inflight: 4, lens: [64],
    });
    assert.equal(samples.length, 4);
    const rows = codecTable.summarizeFork(samples);
    assert.deepEqual(rows.map((r) => `${r.serialization} ${r.len}`), ['advanced 64', 'json 64']);
    for (const r of rows) {
      for (const s of [r.base, r.head, r.ratio, r.baseCpu, r.headCpu]) {
        assert.ok(s.n === 1 && positive(s.median), JSON.stringify(r));
      }
    }
    assert.match(codecTable.forkMarkdown(rows, binaries), /\| advanced \| 64 B \|/);
  });

  it('times each codec in-process, native only where the binary has it', function () {
    const args = ['--expose-internals', '--no-warnings', path.join(benchDir, 'codec-inproc.js'),
      '--sizes', '64,1024', '--ms', '5'];
    const inHead = nodeJson(head, args);
    const inBase = nodeJson(base, args);
    assert.deepEqual([...new Set(inHead.results.map((r) => r.codec))].sort(), ['builtin', 'js', 'json', 'native']);
    assert.deepEqual([...new Set(inBase.results.map((r) => r.codec))].sort(), ['builtin', 'js', 'json']);
    for (const r of [...inHead.results, ...inBase.results]) {
      assert.ok(positive(r.rate) && positive(r.cpuMicros), JSON.stringify(r));
    }
  });

  it('replays a trace of codec requests without the harness', function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-bench-test-'));
    const trace = path.join(dir, 'trace.jsonl');
    const frame = '000000045f0249010a';  // not a valid frame: a rejection counts as a call
    const requests = [
      // Drawn one time in ten: it stands for ten.
      { w: 10, op: 'serialize', codec: 'js',
        input: { recipe: { k: 'object', props: [['a', { k: 'number', v: 1 }]] } } },
      { op: 'serialize', codec: 'native', input: { recipe: { k: 'view', type: 'Buffer', bytes: '0102' } } },
      { op: 'deserialize', codec: 'native', bytes: 'ff0f4922' },
      // Given again word for word: timed once, standing for both.
      { op: 'deserialize', codec: 'native', bytes: 'ff0f4922' },
      { op: 'roundtrip', codec: 'js', bytes: 'ff0f4922' },
      { op: 'stream', codec: 'native', bytes: frame, chunks: [1, 3] },
      { op: 'info', codec: 'js' },
    ];
    fs.writeFileSync(trace, requests.map((r) => JSON.stringify(r)).join('\n'));
    try {
      const r = nodeJson(head, ['--expose-internals', '--no-warnings', path.join(benchDir, 'bare-cost.js'), trace]);
      assert.equal(r.requests, 7);
      assert.equal(r.standsFor, 16);
      assert.equal(r.calls, 5);
      assert.ok(positive(r.seconds), JSON.stringify(r));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replays the codec requests of whole checks a batch ran, found by running each check once', function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-bench-test-'));
    const trace = path.join(dir, 'trace.jsonl');
    const codecs = { a: 'js', b: 'native' };
    const lines = [
      // Both serialize, to the same frame: each decodes it once.
      { check: 'value', input: { recipe: { k: 'number', v: 1 } }, codecs },
      // Each codec's framer reads the frame; a's serialization of the pool
      // recipe is left out, as a batch worker makes it once and keeps it.
      { check: 'recipeFrame', input: { recipe: { k: 'number', v: 1 }, corruption: { k: 'truncate', at: 3 } }, codecs },
      // A Jazzer.js input that made no codec call in its process: a number alone.
      { n: 7 },
      // A Jazzer.js input shaped like the known native crash: its native
      // serialization ran in a worker, the rest (a's, and both decoding a's frame) here.
      { n: 8, screened: true, check: 'value', input: { recipe: { k: 'port', props: [['0', { k: 'number', v: 1 }]] } },
        codecs },
    ];
    fs.writeFileSync(trace, lines.map((r) => JSON.stringify(r)).join('\n'));
    try {
      const r = nodeJson(head, ['--expose-internals', '--no-warnings', path.join(benchDir, 'bare-cost.js'), trace]);
      assert.equal(r.requests, 4);
      assert.equal(r.calls, 4 + 2 + 3);
      assert.ok(positive(r.seconds), JSON.stringify(r));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // The trace lines of a Jazzer.js value target given `count` times a seed of the known native crash.
  function screenedSeedTrace(count, env) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-bench-test-'));
    const trace = path.join(dir, 'trace.jsonl');
    const root = path.join(__dirname, '..', '..');
    const script = `
      const fs = require('node:fs');
      const path = require('node:path');
      const { targetOfThisProcess } = require(${JSON.stringify(path.join(root, 'fuzzers', 'jazzer', 'target'))});
      const inputs = require(${JSON.stringify(path.join(root, 'fuzzers', 'jazzer', 'inputs'))});
      const { screen } = require(${JSON.stringify(path.join(root, 'harness', 'recipes', 'crash-shapes'))});
      const seeds = ${JSON.stringify(path.join(root, 'corpus', 'jazzer', 'value'))};
      const screened = fs.readdirSync(seeds).sort().map((f) => fs.readFileSync(path.join(seeds, f)))
        .find((bytes) => screen(inputs.value(bytes)));
      for (let i = 0; i < ${count}; i++) targetOfThisProcess().fuzzOne('value', screened);`;
    try {
      execFileSync(head, ['--expose-internals', '--no-warnings', '-e', script],
        { env: { ...process.env, IPCFUZZ_TRACE: trace, ...env } });
      return fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it('has a Jazzer.js target trace a tenth of its inputs, numbered, one not checked as a number alone', function () {
    // With IPCFUZZ_SKIP_SCREENED=1 the target checks none of the seed.
    const lines = screenedSeedTrace(300, { IPCFUZZ_SKIP_SCREENED: '1' });
    assert.ok(lines.length > 0 && lines.length < 100, `${lines.length} lines for 300 inputs`);
    const numbers = lines.map((l) => l.n);
    assert.deepEqual(numbers, [...numbers].sort((x, y) => x - y));
    assert.ok(numbers.every((n) => Number.isInteger(n) && n >= 1 && n <= 300));
    assert.deepEqual(lines.filter((l) => Object.keys(l).join() !== 'n,w' || l.w !== 10), []);
  });

  it('has a Jazzer.js target trace a screened input with its check, marked', function () {
    const lines = screenedSeedTrace(200, {});
    assert.ok(lines.length > 0, 'no line for 200 inputs');
    for (const line of lines) assert.deepEqual(Object.keys(line), ['n', 'w', 'screened', 'check', 'input', 'codecs']);
  });

  it('has a trace keep every heavy value, and draw the others one in ten, weighted so', function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-bench-test-'));
    const file = path.join(dir, 'trace.jsonl');
    const light = { recipe: { k: 'number', v: 1 } };
    const heavy = { recipe: { k: 'array', items: [{ k: 'string', v: 'a', repeat: 4096 }] } };
    const codecs = { a: 'js', b: 'native' };
    try {
      const trace = new Trace(file, { every: 10 });
      for (let i = 0; i < 2000; i++) trace.writeCheck('value', light, codecs);
      for (let i = 0; i < 50; i++) trace.writeCheck('value', heavy, codecs);
      // A frame check's recipe comes from a pool: drawn like any other.
      const corruption = { k: 'truncate', at: 3 };
      for (let i = 0; i < 50; i++) trace.writeCheck('recipeFrame', { ...heavy, corruption }, codecs);
      trace.write({ op: 'serialize', codec: 'native', input: heavy });
      trace.close();
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      const of = (check, { recipe }) =>
        lines.filter((l) => l.check === check && JSON.stringify(l.input.recipe) === JSON.stringify(recipe));
      const drawn = of('value', light);
      assert.ok(drawn.length > 100 && drawn.length < 320, `${drawn.length} of 2000 drawn`);
      assert.deepEqual([...new Set(drawn.map((l) => l.w))], [10]);
      assert.equal(of('value', heavy).length, 50);
      assert.deepEqual([...new Set(of('value', heavy).map((l) => l.w))], [1]);
      assert.ok(of('recipeFrame', heavy).length < 50 && of('recipeFrame', heavy).every((l) => l.w === 10));
      assert.deepEqual(lines.filter((l) => l.op === 'serialize').map((l) => l.w), [1]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('summarizes with medians, and a hunt not found as longer than any found', function () {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.deepEqual(summarize([5, Infinity, 1]), { median: 5, min: 1, max: Infinity, n: 3 });
    const rows = ttf.summarizeTimes([
      { name: 'any-host-tag', engine: 'fast-check', seed: 1, seconds: 0.5, signature: 'x' },
      { name: 'any-host-tag', engine: 'jazzer', seed: 1, seconds: Infinity, signature: null },
    ]);
    assert.equal(rows[0].jazzer.found, 0);
    assert.match(ttf.markdown(rows, 60), /\| any-host-tag \| acceptance \| 0\.5 s \(1\/1\) \| > 60 s \(0\/1\) \|/);
  });

  it('puts each throughput figure beside its goal and the figure before, and the crash tax apart', function () {
    const run = (engine, target, execsPerSecond, screened) => ({
      engine, target, screened, execsPerSecond, rep: 0, barePerExec: 50e-6, overhead: 1 / execsPerSecond / 50e-6,
      workerCrashes: 0, execs: 1, peakRssMb: {},
      warmUp: engine === 'fast-check' ? { execs: 3000, seconds: 1 } : undefined,
      // The first run of the first rep, on an empty findings folder: reductions and confirmations in its rate.
      firstRunExecsPerSecond: screened ? undefined : execsPerSecond / 4,
    });
    const rows = throughput.summarizeThroughput([run('fast-check', 'value', 5000),
      run('fast-check', 'value', 6250, 'skip'), run('jazzer', 'frame', 12000)]);
    const before = [{ engine: 'fast-check', target: 'value', execsPerSecond: summarize([200]) }];
    const table = throughput.markdown(rows, { before });
    // A first run's rate and that of a fast-check run's warm-up, before it is timed, stand beside the timed one.
    assert.match(table,
      /\| fast-check \| value \| 5\.0k ✓ \(≥ 4\.0k\) \| 200 \| 1\.3k \| 3\.0k \| 50\.0 \| 4\.0× ✓ \(≤ 5\.0×\) \|/);
    assert.match(table, /\| value without screened inputs \| 6\.3k \| — \| — \| 3\.0k \|/);
    assert.match(table, /\| jazzer \| frame \| 12k ✗ \(≥ 15k\) \| — \| 3\.0k \| — \|/);
    assert.match(throughput.crashTaxMarkdown(rows), /\| fast-check \| 5\.0k \| 6\.3k \| 20% of the rate \|/);
    const overlapping = throughput.summarizeThroughput([5000, 6000, 5800, 6200].map((rate, i) =>
      run('fast-check', 'value', rate, i < 2 ? undefined : 'skip')));
    assert.match(throughput.crashTaxMarkdown(overlapping), /\| 8% of the rate, within the runs' spread \|/);
  });

  it('flags a slowdown only beyond the spread of the runs', function () {
    const cell = (median, min, max) => ({ median, min, max, n: 3 });
    const row = (ratio, spreadOf) => ({
      base: cell(100, 100 - spreadOf / 2, 100 + spreadOf / 2), head: cell(100, 99, 101), ratio,
    });
    assert.equal(isSlowdown(row(cell(0.7, 0.6, 0.8), 10)), true);
    assert.equal(isSlowdown(row(cell(0.7, 0.6, 0.8), 40)), false);  // within the noise
    assert.equal(isSlowdown(row(cell(0.7, 0.6, 1.1), 10)), false);  // faster in one repetition
  });

  it('draws one line per series in the chart', function () {
    const points = [64, 1024].map((len) => ({ x: len, median: len, min: len / 2, max: len * 2 }));
    const svg = chartSvg({
      title: 't', note: 'n',
      rows: [[{ title: 'p', yLabel: 'y', xLabel: payloadLabel, x: payloadAxis([64, 1024]), series: [
        { label: 'a', color: '#000', points },
        { label: 'b', color: '#f00', dash: '4 2', points },
      ] }]],
    });
    assert.equal(svg.match(/<polyline/g).length, 2);
    assert.match(svg, />1 KiB</);
    assert.doesNotMatch(svg, /NaN|undefined|Infinity/);
  });

  it('breaks a line between groups of ticks, and draws a row of panels under another', function () {
    const x = ['1x1', '1x4'].flatMap((group) => [64, 1024].map((len) => ({ key: `${group} ${len}`, label: String(len), group })));
    const points = x.map((t, i) => ({ x: t.key, median: 10 + i, min: 9, max: 20 }));
    const one = { title: 'p', yLabel: 'y', xLabel: 'x', x: payloadAxis([64]),
      series: [{ label: 'a', color: '#000', points: [{ x: 64, median: 5, min: 4, max: 6 }] }] };
    const grid = { title: 'g', yLabel: 'y', xLabel: 'x', x, width: 900,
      series: [{ label: 'unix', color: '#00f', marker: 'square', thin: true, points }] };
    const svg = chartSvg({ title: 't', note: 'n', rows: [[one], [grid]] });
    // One line for the first panel, one per group for the grid's series.
    assert.equal(svg.match(/<polyline/g).length, 3);
    assert.equal(svg.match(/stroke-width="1\.3"/g).length, 2);
    // Four hollow squares and the legend's.
    assert.equal(svg.match(/<rect x="[\d.]+" y="[\d.]+" width="6\.8"/g).length, 5);
    assert.match(svg, /font-weight="bold" text-anchor="middle">1x4</);
    assert.equal(Number(/width="(\d+)"/.exec(svg)[1]), 920);
    assert.doesNotMatch(svg, /NaN|undefined|Infinity/);
  });

  it('draws the PNG with the pinned font, the same bytes every time', function () {
    const svg = chartSvg({
      title: 'round trips per second', note: 'n',
      rows: [[{ title: 'p', yLabel: 'y', xLabel: payloadLabel, x: payloadAxis([64]),
        series: [{ label: 'a', color: '#000', points: [{ x: 64, median: 9, min: 8, max: 10 }] }] }]],
    });
    assert.match(svg, new RegExp(`font-family="${fontFamily}"`));
    const first = renderPng(svg);
    assert.equal(first.png.subarray(1, 4).toString(), 'PNG');
    assert.equal(first.width, Math.round(Number(/width="(\d+)"/.exec(svg)[1]) * 1.5));
    assert.ok(first.png.equals(renderPng(svg).png));
    // The title's glyphs are drawn: with no font found, text is left out and the strip stays white.
    const inked = (image, y0, y1) => {
      let n = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = 0; x < image.width; x++) if (image.pixels[(y * image.width + x) * 4] < 128) n++;
      }
      return n;
    };
    assert.ok(inked(first, 15, 40) > 200);
    assert.equal(inked(renderPng(svg.replace(/<text[^>]*>[^<]*<\/text>/g, '')), 15, 40), 0);
  });

  it('reads the peak memory of a process tree by class', async function () {
    const child = spawn(process.execPath, ['-e', 'const a = Buffer.alloc(64 << 20, 1); setTimeout(() => {}, 600)']);
    const rss = sampleTree(child.pid, (cmdline) => (cmdline.includes('Buffer.alloc') ? 'test' : null), 50);
    await new Promise((resolve) => child.on('exit', resolve));
    const peaks = rss.stop();
    assert.ok(peaks.test > 64, JSON.stringify(peaks));
  });

  it('classifies a process below an unclassified shell as its parent\'s', async function () {
    const grandchild = `${process.execPath} -e "Buffer.alloc(64 << 20, 1); setTimeout(() => {}, 600)"; true`;
    const child = spawn(process.execPath, ['-e', `require('node:child_process').spawnSync('/bin/sh', ['-c', ${
      JSON.stringify(grandchild)}])`, 'parent-marker']);
    const classify = (cmdline, parent) => {
      if (cmdline.includes('parent-marker')) return 'parent';
      return cmdline.startsWith('/bin/sh') || !parent ? null : `${parent} child`;
    };
    const rss = sampleTree(child.pid, classify, 50);
    await new Promise((resolve) => child.on('exit', resolve));
    const peaks = rss.stop();
    assert.ok(peaks['parent child'] > 64, JSON.stringify(peaks));
  });
  it('times each check in-process over samples and seed corpora, and says where the time went', function () {
    this.timeout(120_000);
    // Its profiles go to a folder of the temp folder, which it names: this test's own.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-test-'));
    let out;
    try {
      out = execFileSync(process.execPath, [path.join(benchDir, 'check-cost.js'), '--seconds', '0.2',
        '--samples', '40', '--cpu-prof'], { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } });
      const [, named] = /^ {2}\((.+\.cpuprofile)\)$/m.exec(out) ?? assert.fail(`no profile named:\n${out}`);
      assert.ok(named.startsWith(tmp) && fs.statSync(named).size > 0, named);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    assert.match(out, new RegExp(`v${defaultVersion.replaceAll('.', '\\.')}, js against native in-process`));
    for (const target of ['value', 'frame', 'stream']) {
      for (const source of ['fast-check', 'corpus']) {
        const line = new RegExp(`target=${target} source=${source} inputs=(\\d+) checks=(\\d+): ([\\d,]+)/s mean .* ` +
          'cpu [\\d,]+ µs$', 'm');
        const [, inputs, checks, rate] = line.exec(out) ?? assert.fail(`no row for ${target} ${source}:\n${out}`);
        assert.ok(Number(inputs) > 0 && Number(checks) >= Number(inputs), line.exec(out)[0]);
        assert.ok(positive(Number(rate.replaceAll(',', ''))), line.exec(out)[0]);
      }
    }
    // The profile summary names the harness's own functions by file and line.
    assert.match(out, /^ +\d+\.\d% {2}\S+ harness\/[\w/]+\.js:\d+$/m);
  });

  it('refuses a bad flag of the check-cost bench in one line, exit 2', function () {
    const r = spawnSync(process.execPath, [path.join(benchDir, 'check-cost.js'), '--only', 'values'],
      { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /--only/);
  });
});
