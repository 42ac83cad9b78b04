'use strict';
// Throughput of every engine and target (execs/s), one at a time so they do
// not share the cores, with the peak memory of the fuzzing process and of the
// codec worker it drives, and beside it the bare cost of the codec calls the
// target makes (bench/bare-cost.js), so that harness overhead is a ratio:
// (1 / execs per second) / (bare codec seconds per exec). Each target runs
// once untimed first (three times the seconds of a timed run), on the
// findings folder its timed runs then share, as a later `make fuzz` would: a
// first run spends its first seconds shrinking and confirming the
// differences it finds, not fuzzing. A fast-check run is timed after its
// first kWarmUpSeconds (engine-run.js), as a Jazzer.js run from the end of its
// seed corpus; the rate of those seconds is reported beside.
//   node bench/throughput.js [--reps 3] [--seconds 10] [--json FILE]
//     [--only fast-check:value,jazzer:frame,jazzer:value-unscreened]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { resolveNode } = require('../harness/base/binaries');
const { sampleTree } = require('./rss');
const { summarize } = require('./stats');
const { checkTime } = require('./deadline');
const fmt = require('./format');

// The runs of a measurement; `screened: 'skip'` runs the value targets without
// the inputs the crash screen sends to a worker (harness/recipes/crash-shapes.js),
// so that the pair of value rows shows what the known native crash costs.
const targets = [
  ...['value', 'roundtrip', 'frame', 'stream'].map((target) => ({ engine: 'fast-check', target })),
  { engine: 'fast-check', target: 'value', screened: 'skip' },
  ...['value', 'frame', 'stream'].map((target) => ({ engine: 'jazzer', target })),
  { engine: 'jazzer', target: 'value', screened: 'skip' },
];
const runName = (t) => `${t.engine}:${t.target}${t.screened ? '-unscreened' : ''}`;
const sameRun = (x) => (y) => runName(x) === runName(y);

// The seconds a fast-check run fuzzes before it is timed: V8 has optimized
// the new processes' code by then, and the rate holds steady after.
const kWarmUpSeconds = 5;

// What the fuzzing engines should reach here (2 cores, js against native).
const goals = {
  'fast-check:value': { execsPerSecond: 4000, overhead: 5 },
  'fast-check:frame': { execsPerSecond: 20000, overhead: 3 },
  'fast-check:stream': { execsPerSecond: 10000, overhead: 3 },
  'jazzer:value': { execsPerSecond: 3000, overhead: 5 },
  'jazzer:frame': { execsPerSecond: 15000, overhead: 3 },
  'jazzer:stream': { execsPerSecond: 8000, overhead: 3 },
};

// Which process of an engine's tree a command line is: the harness process
// (where fast-check runs), a Jazzer.js target process, or the codec worker of either.
function processClass(cmdline, parent) {
  if (cmdline.includes('bench/engine-run.js')) return 'harness';
  if (cmdline.includes('fuzzers/jazzer/launch.js')) return 'jazzer';
  if (cmdline.includes('harness/run/worker-main.js') && parent) return `${parent} worker`;
  return null;
}

// The line of a failed engine run's error that says why (engine-run.js writes it last).
const whyFailed = (err) => err.message.split('\n').find((line) => line.startsWith('engine-run:')) ?? err.message;

async function engineRun({ engine, target, screened, seconds, seed, trace, findings, timed = true }) {
  const env = { ...process.env };
  if (screened === 'skip') env.IPCFUZZ_SKIP_SCREENED = '1';  // a knob of the bench alone
  else delete env.IPCFUZZ_SKIP_SCREENED;
  const warmUp = engine === 'fast-check' && timed ? ['--warm-up', String(kWarmUpSeconds)] : [];
  const child = spawn(process.execPath, [path.join(__dirname, 'engine-run.js'), '--engine', engine, '--target', target,
    '--seconds', String(seconds), '--seed', String(seed), '--trace', trace, '--findings', findings, ...warmUp],
  { stdio: ['ignore', 'pipe', 'pipe'], env });
  const rss = sampleTree(child.pid, processClass);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const peaks = rss.stop();
  if (code !== 0) throw new Error(`engine-run ${engine} ${target} failed:\n${stderr}`);
  const run = JSON.parse(stdout);
  // Under Jazzer.js the target process fuzzes and engine-run only waits (and
  // then replays the corpus for the trace, in a worker of its own).
  const fuzzer = engine === 'jazzer' ? 'jazzer' : 'harness';
  return { ...run, screened, peakRssMb: { engine: peaks[fuzzer], worker: peaks[`${fuzzer} worker`] } };
}

async function bareCost(trace, node) {
  const args = ['--expose-internals', '--no-warnings', path.join(__dirname, 'bare-cost.js'), trace];
  const { stdout } = await promisify(execFile)(node, args, { maxBuffer: 1 << 20, timeout: 300_000 });
  return JSON.parse(stdout);
}

// What a timed run takes beyond its seconds, about: start-up, the trace's bare cost.
const kOverheadSeconds = 20;

// None starts that would end past `until` (bench/deadline.js).
async function measureThroughput({ reps, seconds, only, until, onRun = () => {} }) {
  const node = resolveNode();
  const chosen = only ? targets.filter((t) => only.includes(runName(t))) : targets;
  const runs = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-bench-throughput-'));
  const trace = path.join(scratch, 'trace.jsonl');
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const { engine, target, screened } of chosen) {
        const findings = path.join(scratch, runName({ engine, target, screened }).replace(':', '-'));
        checkTime(until, (rep === 0 ? 4 : 1) * seconds + kOverheadSeconds, `a run of ${runName({ engine, target, screened })}`);
        // Untimed, three times as long: the differences early runs find are
        // shrunk and confirmed there. A run that ended early (a Jazzer.js
        // target stopped by libFuzzer, which `make fuzz` would start again)
        // has saved what it found; the timed runs go on from there.
        // Its rate is a first `make fuzz`'s: reducing and confirming what it finds included.
        let first = null;
        if (rep === 0) {
          first = await engineRun({ engine, target, screened, seconds: 3 * seconds, seed: 0, trace: os.devNull,
            findings, timed: false })
            .catch((err) => console.error(`bench: the untimed run of ${runName({ engine, target, screened })} ` +
              `ended early, going on: ${whyFailed(err)}`)) ?? null;
        }
        const r = await engineRun({ engine, target, screened, seconds, seed: rep + 1, trace, findings });
        if (first) r.firstRunExecsPerSecond = first.execsPerSecond;
        const bare = await bareCost(trace, node);
        const barePerExec = bare.seconds / r.traceExecs;
        const run = { ...r, rep, bare, barePerExec, overhead: 1 / r.execsPerSecond / barePerExec };
        runs.push(run);
        onRun(run);
      }
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return runs;
}

function summarizeThroughput(runs) {
  const ran = targets.filter((t) => runs.some(sameRun(t)));
  return ran.map(({ engine, target, screened }) => {
    const of = runs.filter(sameRun({ engine, target, screened }));
    return {
      engine, target, screened,
      execsPerSecond: summarize(of.map((r) => r.execsPerSecond)),
      firstRunExecsPerSecond: summarize(of.map((r) => r.firstRunExecsPerSecond).filter(Number.isFinite)),
      warmUpExecsPerSecond: engine === 'fast-check' ?
        summarize(of.map((r) => r.warmUp.execs / r.warmUp.seconds)) : null,
      bareMicrosPerExec: summarize(of.map((r) => r.barePerExec * 1e6)),
      overhead: summarize(of.map((r) => r.overhead)),
      crashesPerThousand: engine === 'fast-check' ? summarize(of.map((r) => (1000 * r.workerCrashes) / r.execs)) : null,
      peakRssMb: {
        engine: summarize(of.map((r) => r.peakRssMb.engine).filter(Number.isFinite)),
        worker: summarize(of.map((r) => r.peakRssMb.worker).filter(Number.isFinite)),
      },
    };
  });
}

const micros = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const mb = (x) => x.toFixed(0);

const times = (x) => `${x.toFixed(x >= 10 ? 0 : 1)}×`;

// A figure beside its goal: "4.2k ✓ (≥ 4.0k)" or "1.1k ✗ (≥ 4.0k)".
function againstGoal(summary, goal, format, atLeast) {
  const text = fmt.range(summary, format);
  if (goal === undefined || !summary) return text;
  const met = atLeast ? summary.median >= goal : summary.median <= goal;
  return `${text} ${met ? '✓' : '✗'} (${atLeast ? '≥' : '≤'} ${format(goal)})`;
}

// before: the rows of an earlier measurement (its JSON), shown beside the new figures.
function markdown(rows, { before = [] } = {}) {
  const earlier = (r) => before.find((b) => runName(b) === runName(r))?.execsPerSecond;
  const label = (r) => (r.screened ? `${r.target} without screened inputs` : r.target);
  return fmt.table(
    ['engine', 'target', 'execs/s (goal)', 'execs/s before', 'execs/s of a first run (reductions in it)',
      `execs/s in the first ${kWarmUpSeconds} s`,
      'bare codec µs/exec', 'harness overhead (goal)', 'worker crashes per 1000 execs'],
    rows.map((r) => {
      const goal = r.screened ? {} : goals[runName(r)] ?? {};
      return [r.engine, label(r), againstGoal(r.execsPerSecond, goal.execsPerSecond, fmt.rate, true),
        fmt.range(earlier(r)), fmt.range(r.firstRunExecsPerSecond, fmt.rate),
        fmt.range(r.warmUpExecsPerSecond, fmt.rate), fmt.range(r.bareMicrosPerExec, micros),
        againstGoal(r.overhead, goal.overhead, times, false),
        fmt.range(r.crashesPerThousand, (x) => x.toFixed(1))];
    }));
}

// The share of the rate the screened inputs cost; said to be within the
// spread of the runs when their ranges with and without them overlap (the
// fast-check value target's, one input in 350, often do).
function crashTax(w, wo) {
  const tax = `${((1 - w.median / wo.median) * 100).toFixed(0)}% of the rate`;
  return w.max >= wo.min && wo.max >= w.min ? `${tax}, within the runs' spread` : tax;
}

// What the known native crash costs each engine: value execs/s with the
// inputs the crash screen sends to a worker, and without them.
function crashTaxMarkdown(rows) {
  const pairs = ['fast-check', 'jazzer'].map((engine) => [engine,
    rows.find((r) => r.engine === engine && r.target === 'value' && !r.screened),
    rows.find((r) => r.engine === engine && r.target === 'value' && r.screened)]).filter(([, w, wo]) => w && wo);
  return fmt.table(['engine', 'value execs/s', 'without screened inputs', 'crash tax'],
    pairs.map(([engine, w, wo]) => [engine, fmt.range(w.execsPerSecond), fmt.range(wo.execsPerSecond),
      crashTax(w.execsPerSecond, wo.execsPerSecond)]));
}

function memoryMarkdown(rows) {
  return fmt.table(['engine', 'target', 'fuzzing process peak RSS (MiB)', 'codec worker peak RSS (MiB)'],
    rows.filter((r) => !r.screened)
      .map((r) => [r.engine, r.target, fmt.range(r.peakRssMb.engine, mb), fmt.range(r.peakRssMb.worker, mb)]));
}

module.exports = { measureThroughput, summarizeThroughput, markdown, crashTaxMarkdown, memoryMarkdown, kWarmUpSeconds };

if (require.main === module) {
  const { parseFlags } = require('./flags');
  const { values } = parseFlags('throughput', { options: {
    reps: { type: 'string', default: '3' }, seconds: { type: 'string', default: '10' },
    only: { type: 'string' }, json: { type: 'string' },
  } });
  measureThroughput({
    reps: Number(values.reps), seconds: Number(values.seconds), only: values.only?.split(','),
    onRun: (r) => console.error(`${r.engine} ${r.target}: ${r.execsPerSecond.toFixed(0)} execs/s, bare ${(r.barePerExec * 1e6).toFixed(1)} µs/exec`),
  }).then((runs) => {
    const rows = summarizeThroughput(runs);
    console.log(`${markdown(rows)}\n\n${crashTaxMarkdown(rows)}\n\n${memoryMarkdown(rows)}`);
    if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(runs, null, 2)}\n`);
  });
}
