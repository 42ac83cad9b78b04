'use strict';
// Throughput of every engine and target (execs/s), one at a time so they do
// not share the cores, with the peak memory of the fuzzing process and of the
// codec worker it drives, and beside it the bare cost of the codec calls the
// target makes (bench/bare-cost.js), so that harness overhead is a ratio:
// (1 / execs per second) / (bare codec seconds per exec).
//   node bench/throughput.js [--reps 3] [--seconds 10] [--only fast-check:value,jazzer:frame] [--json FILE]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { resolveNode } = require('../harness/binaries');
const { sampleTree } = require('./rss');
const { summarize } = require('./stats');
const fmt = require('./format');

const targets = [
  ...['value', 'roundtrip', 'frame', 'stream'].map((target) => ({ engine: 'fast-check', target })),
  ...['value', 'frame', 'stream'].map((target) => ({ engine: 'jazzer', target })),
];

// Which process of an engine's tree a command line is: the harness process
// (where fast-check runs), a Jazzer.js target process, or the codec worker of either.
function processClass(cmdline, parent) {
  if (cmdline.includes('bench/engine-run.js')) return 'harness';
  if (cmdline.includes('fuzzers/jazzer/launch.js')) return 'jazzer';
  if (cmdline.includes('harness/worker.js') && parent) return `${parent} worker`;
  return null;
}

async function engineRun({ engine, target, seconds, seed, trace }) {
  const child = spawn(process.execPath, [path.join(__dirname, 'engine-run.js'), '--engine', engine, '--target', target,
    '--seconds', String(seconds), '--seed', String(seed), '--trace', trace], { stdio: ['ignore', 'pipe', 'pipe'] });
  const rss = sampleTree(child.pid, processClass);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const peaks = rss.stop();
  if (code !== 0) throw new Error(`engine-run ${engine} ${target} failed:\n${stderr}`);
  // Under Jazzer.js the target process fuzzes and engine-run only waits (and
  // then replays the corpus for the trace, in a worker of its own).
  const fuzzer = engine === 'jazzer' ? 'jazzer' : 'harness';
  return { ...JSON.parse(stdout), peakRssMb: { engine: peaks[fuzzer], worker: peaks[`${fuzzer} worker`] } };
}

async function bareCost(trace, node) {
  const args = ['--expose-internals', '--no-warnings', path.join(__dirname, 'bare-cost.js'), trace];
  const { stdout } = await promisify(execFile)(node, args, { maxBuffer: 1 << 20, timeout: 120_000 });
  return JSON.parse(stdout);
}

async function measureThroughput({ reps, seconds, only, onRun = () => {} }) {
  const node = resolveNode();
  const chosen = only ? targets.filter((t) => only.includes(`${t.engine}:${t.target}`)) : targets;
  const runs = [];
  const trace = path.join(os.tmpdir(), `ipcfuzz-bench-trace-${process.pid}.jsonl`);
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const { engine, target } of chosen) {
        const r = await engineRun({ engine, target, seconds, seed: rep + 1, trace });
        const bare = await bareCost(trace, node);
        const barePerExec = bare.seconds / r.traceExecs;
        const run = { ...r, rep, bare, barePerExec, overhead: 1 / r.execsPerSecond / barePerExec };
        runs.push(run);
        onRun(run);
      }
    }
  } finally {
    fs.rmSync(trace, { force: true });
  }
  return runs;
}

function summarizeThroughput(runs) {
  const ran = targets.filter((t) => runs.some((r) => r.engine === t.engine && r.target === t.target));
  return ran.map(({ engine, target }) => {
    const of = runs.filter((r) => r.engine === engine && r.target === target);
    return {
      engine, target,
      execsPerSecond: summarize(of.map((r) => r.execsPerSecond)),
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

function markdown(rows) {
  return fmt.table(
    ['engine', 'target', 'execs/s', 'bare codec µs/exec', 'harness overhead', 'worker crashes per 1000 execs'],
    rows.map((r) => [r.engine, r.target, fmt.range(r.execsPerSecond), fmt.range(r.bareMicrosPerExec, micros),
      fmt.range(r.overhead, times), fmt.range(r.crashesPerThousand, (x) => x.toFixed(1))]));
}

function memoryMarkdown(rows) {
  return fmt.table(['engine', 'target', 'fuzzing process peak RSS (MiB)', 'codec worker peak RSS (MiB)'],
    rows.map((r) => [r.engine, r.target, fmt.range(r.peakRssMb.engine, mb), fmt.range(r.peakRssMb.worker, mb)]));
}

module.exports = { measureThroughput, summarizeThroughput, markdown, memoryMarkdown };

if (require.main === module) {
  const { parseArgs } = require('node:util');
  const { values } = parseArgs({ options: {
    reps: { type: 'string', default: '3' }, seconds: { type: 'string', default: '10' },
    only: { type: 'string' }, json: { type: 'string' },
  } });
  measureThroughput({
    reps: Number(values.reps), seconds: Number(values.seconds), only: values.only?.split(','),
    onRun: (r) => console.error(`${r.engine} ${r.target}: ${r.execsPerSecond.toFixed(0)} execs/s, bare ${(r.barePerExec * 1e6).toFixed(1)} µs/exec`),
  }).then((runs) => {
    const rows = summarizeThroughput(runs);
    console.log(`${markdown(rows)}\n\n${memoryMarkdown(rows)}`);
    if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(runs, null, 2)}\n`);
  });
}
