'use strict';
// One engine on one target for a fixed time, in a process of its own (so its
// memory peak is its own), js against native in the pinned 26.10.0, with the
// default known-differences list and fresh scratch folders, as `make fuzz`
// on a fresh clone; --findings names a findings folder kept between runs, so
// that a run after a first one on the same folder fuzzes, rather than shrinks
// and confirms the differences every first run finds. Prints one JSON line of
// throughput.
//
// It also writes, to --trace, the codec requests (serialize, deserialize,
// roundtrip, stream) whose bare cost bench/bare-cost.js times, each line
// weighted by the records it stands for (harness/observe/trace.js): for fast-check a
// random tenth of the requests the run made and of the inputs a batch
// checked in its worker (bare-cost.js runs its check to find its requests),
// since writing them all would slow the run it measures, and every
// one of a heavy value; its traceExecs are then the run's execs. For a
// Jazzer.js target a random tenth of the inputs its processes ran after their
// seed corpus (those timed) and every heavy one, each with its check when
// that ran in the target's process (its native side in a worker, when
// screened) or its worker apart, or gave its result again (the codec calls
// it stands for, which a loop without the harness would make), and its
// traceExecs the inputs those lines stand for: one that ended an earlier
// process (every request of it in a worker) made no codec call to time.
// The inputs run, not its corpus: a corpus entry counts once, so a few heavy
// ones would stand for as many inputs as any other.
//   node bench/engine-run.js --engine fast-check|jazzer --target NAME [--seconds 10] [--seed 1] [--trace FILE]
//                            [--findings DIR] [--warm-up SECONDS (fast-check; 0)] [--worker-flags FLAGS]
// To see where the time goes: --worker-flags='--cpu-prof --cpu-prof-dir=DIR' gives every worker
// process of the fast-check engine those flags (a worker profile is written as it ends), and
// `node --cpu-prof` profiles this one.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { performance } = require('node:perf_hooks');
const { Session } = require('../harness/run/session');
const { loadKnown } = require('../harness/oracle/known');
const { FindingStore } = require('../harness/findings/recorder');
const { onLines } = require('../harness/base/json-lines');
const { spawnTarget, jobsPerTarget, availableCores } = require('../fuzzers/jazzer/engine');
const coverage = require('../harness/observe/coverage');
const { Trace } = require('../harness/observe/trace');
const { Outcome } = require('../harness/base/vocabulary');
const { kCallTimeoutMs } = require('../harness/base/defaults');

// fast-check's trace holds one record in this many.
const kTraceEvery = 10;

// Every request that reached a codec and came back is appended to the trace
// as one JSON line; one that crashed or hung the worker cannot be replayed in
// a loop, so what it cost stays on the harness's side.
function recordRequests(session, trace) {
  const run = session.run.bind(session);
  session.run = async (side, request, ...rest) => {
    const outcome = await run(side, request, ...rest);
    if (outcome.kind !== Outcome.crash && outcome.kind !== Outcome.hang) {
      trace.write({ ...request, codec: session.sides[side].codec });
    }
    return outcome;
  };
}

// Every input a batch checked whole in its worker, as one JSON line with its
// check and codecs; inputs that crashed or hung it ran again by request.
function recordChecks(session, trace) {
  const codecs = { a: session.sides.a.codec, b: session.sides.b.codec };
  session.onChecked = (check, input) => trace.writeCheck(check, input, codecs);
}

// IPCFUZZ_SKIP_SCREENED=1 leaves out the inputs the crash screen sends
// to the per-operation path (see harness/run/batches.js): the crash tax is the
// difference it makes. With a warm-up, the run fuzzes that many seconds
// first, in the same processes, and is timed from its first progress after
// them to its last, and traced from there on, as a Jazzer.js target is
// timed from the end of its seed corpus: a new process runs its first
// seconds in code V8 has not optimized yet.
async function fastCheck({ session, known, store, target, seconds, warmUp, seed, trace }) {
  const { runProperties } = require('../properties/engine');
  recordRequests(session, trace);
  recordChecks(session, trace);
  const started = { runs: 0, ms: performance.now() };
  let from = warmUp > 0 ? null : started;
  let last = started;
  trace.paused = from === null;
  const onProgress = ({ runs }) => {
    last = { runs, ms: performance.now() };
    if (from === null && last.ms - started.ms >= warmUp * 1000) {
      from = last;
      trace.paused = false;
    }
  };
  const s = await runProperties({ session, known, store, seconds: warmUp + seconds, seed, only: [target], onProgress });
  if (from === null || last === from) throw new Error(`fast-check ${target} ended before its ${warmUp} s of warm-up`);
  const execs = last.runs - from.runs;
  const timed = (last.ms - from.ms) / 1000;
  return {
    execs, seconds: timed, execsPerSecond: execs / timed, traceExecs: execs,
    warmUp: { execs: from.runs, seconds: (from.ms - started.ms) / 1000 },
    findings: s.findings.length,
    workerCrashes: session.stats().crashes, workerHangs: session.stats().hangs,
  };
}

// A Jazzer.js target started as fuzzers/jazzer/engine.js starts it, but read
// here so that libFuzzer's lines can be timed as they come: it fuzzes for
// `seconds` from the end of the seed corpus (INITED), however long that took
// (a fresh findings folder has every finding shrunk and confirmed first), and
// is then interrupted, which makes libFuzzer print its final stats; execs/s
// are those after INITED, without the start-up of node and Jazzer.js.
const kInitSeconds = 300;
// libFuzzer's exit code when an input runs longer than its -timeout.
const kTimeoutExit = 70;

function runTarget({ target, seconds, seed, node, workDir, outDir, trace }) {
  const traced = trace ? { IPCFUZZ_TRACE: trace } : {};
  const child = spawnTarget({
    target, node, seconds: seconds + kInitSeconds, seed, workDir, artifacts: workDir,
    env: { ...process.env, IPCFUZZ_A: 'js', IPCFUZZ_A_NODE: node, IPCFUZZ_B: 'native', IPCFUZZ_OUT: outDir, ...traced },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const seen = { stats: {} };
  onLines(child.stderr, (line) => {
    const progress = /^#(\d+)\s+(\w+)/.exec(line);
    if (progress?.[2] === 'INITED' && !seen.inited) {
      seen.inited = { execs: Number(progress[1]), ms: performance.now() };
      setTimeout(() => {
        seen.interrupted = performance.now();
        child.kill('SIGINT');
      }, seconds * 1000);
    }
    const stat = /^stat::(\w+):\s+(\d+)/.exec(line);
    if (stat) seen.stats[stat[1]] = Number(stat[2]);
  });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ ...seen, code, signal })));
}

// As many libFuzzer processes of the target as the engine runs for one
// target alone (fuzzers/jazzer/engine.js), each timed from its own INITED;
// their rates add up. Each writes a random tenth of its inputs and every
// heavy one, numbered and weighted (fuzzers/jazzer/target.js): those after
// its INITED make the trace.
async function jazzer({ session, store, target, seconds, seed, trace, scratch }) {
  const workDir = path.join(scratch, 'work');
  const jobs = jobsPerTarget(availableCores(), 1);
  const traces = Array.from({ length: jobs }, (_, job) => (trace.discard ? null : path.join(scratch, `trace-${job}`)));
  const runs = await Promise.all(Array.from({ length: jobs }, (_, job) => runTarget({
    target, seconds, seed: seed + 1000 * job, node: session.sides.b.node, workDir, outDir: store.dir,
    trace: traces[job],
  })));
  const timed = runs.map((run) => {
    const total = run.stats.number_of_executed_units;
    if (!run.inited || !run.interrupted || total === undefined) {
      const why = run.code === kTimeoutExit ? ': libFuzzer\'s timeout, an input ran longer than its -timeout' : '';
      throw new Error(`jazzer ${target} ended (${run.signal ?? run.code}${why}) before fuzzing for ${seconds} s`);
    }
    return { total, execs: total - run.inited.execs, seconds: (run.interrupted - run.inited.ms) / 1000, run };
  });
  const sum = (f) => timed.reduce((n, t) => n + f(t), 0);
  let traceExecs = 0;
  for (const [job, { run }] of timed.entries()) {
    if (!traces[job]) continue;
    for (const line of fs.readFileSync(traces[job], 'utf8').split('\n')) {
      const [, n, w] = /^\{"n":(\d+),"w":(\d+)/.exec(line) ?? [];
      if (!(Number(n) > run.inited.execs)) continue;
      trace.add(`${line}\n`);
      traceExecs += Number(w);
    }
  }
  return {
    execs: sum((t) => t.execs), seconds: sum((t) => t.seconds) / jobs, execsPerSecond: sum((t) => t.execs / t.seconds),
    jobs, exit: timed.map((t) => t.run.signal ?? t.run.code).join(','),
    libFuzzer: {
      execs: sum((t) => t.total), execsPerSecond: sum((t) => t.run.stats.average_exec_per_sec),
      peakRssMb: Math.max(...timed.map((t) => t.run.stats.peak_rss_mb)),
    },
    traceExecs,
  };
}

async function main() {
  const { values } = parseArgs({ options: {
    engine: { type: 'string' }, target: { type: 'string' }, seconds: { type: 'string', default: '10' },
    'warm-up': { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' }, trace: { type: 'string', default: os.devNull },
    findings: { type: 'string' }, 'worker-flags': { type: 'string', default: '' },
  } });
  const engines = { 'fast-check': fastCheck, jazzer };
  if (!engines[values.engine]) throw new Error(`--engine must be one of ${Object.keys(engines).join(', ')}`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-bench-'));
  // IPCFUZZ_SKIP_SCREENED is the bench's own knob (bench/throughput.js), read by the Jazzer.js target too.
  const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: kCallTimeoutMs,
    workerFlags: values['worker-flags'].split(' ').filter(Boolean),
    skipScreened: process.env.IPCFUZZ_SKIP_SCREENED === '1' });
  const trace = new Trace(values.trace, { every: values.engine === 'fast-check' ? kTraceEvery : 1 });
  try {
    session.observe(coverage.collectInto(path.join(scratch, 'coverage')));
    process.env.IPCFUZZ_COVERAGE_DIR = path.join(scratch, 'coverage');  // for the Jazzer.js target
    const result = await engines[values.engine]({
      session, known: loadKnown(), store: new FindingStore(values.findings ?? path.join(scratch, 'findings')),
      scratch, trace,
      target: values.target, seconds: Number(values.seconds), warmUp: Number(values['warm-up']),
      seed: Number(values.seed),
    });
    if (values.target === 'value') result.coverage = Object.fromEntries(coverage.gather());
    process.stdout.write(`${JSON.stringify({ engine: values.engine, target: values.target, ...result })}\n`);
  } finally {
    trace.close();
    session.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`engine-run: ${err.stack}\n`);
  process.exitCode = 1;
});
