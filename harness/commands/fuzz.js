'use strict';
// ipcfuzz fuzz: runs the engines against two codecs for a wall-clock budget,
// with live progress, and saves each distinct new finding to the findings
// folder. `--engine all` (what `make fuzz` runs) runs both engines at once.
// A difference already in the folder is seen again, not new; one that does
// not stand in fresh processes is history-dependent; neither sets exit 1.
// At the budget plus a grace every worker and target is killed.

const fs = require('node:fs');
const path = require('node:path');
const { parse, sideFlags, sessionOptions, positiveInteger } = require('../cli');
const { Session } = require('../session');
const { loadKnown } = require('../known');
const { FindingStore } = require('../findings');
const { UsageError } = require('../errors');
const { root } = require('../nodes');

const engineNames = ['fast-check', 'jazzer', 'all'];
const kGraceSeconds = 3;

async function fastCheck({ flags, session, known, store, seconds, progress }) {
  const { runProperties } = require('../../properties/runner');
  const { properties } = require('../../properties/definitions');
  const only = list(flags.property, Object.keys(properties), 'property');
  if (flags.path !== undefined && (flags.seed === undefined || only?.length !== 1)) {
    throw new UsageError('--path replays one finding: give it with its --seed and a single --property');
  }
  const summary = await runProperties({
    session, known, store, only, seconds, seed: integer(flags.seed, 'seed'), path: flags.path,
    onProgress: (p) => progress('fast-check', `${p.property.padEnd(9)} runs ${p.runs} (${p.runsPerSecond.toFixed(0)}/s)  ` +
      `findings ${p.findings.length}  known ${Object.values(p.known).reduce((a, b) => a + b, 0)}`),
  });
  return {
    engine: 'fast-check',
    lines: [`${summary.runs} runs in ${summary.seconds.toFixed(1)}s (${summary.runsPerSecond.toFixed(0)} runs/s), seed ${summary.seed}`,
      ...Object.entries(summary.properties).map(([name, p]) => `${name.padEnd(9)} ${p.runs} runs, ` +
        `${p.findings} new finding${p.findings === 1 ? '' : 's'}, ${p.seenAgain} seen again, ${p.known} known hits`),
      `known differences seen: ${Object.entries(summary.known).map(([id, n]) => `${id} ×${n}`).join(', ') || 'none'}`],
    findings: summary.findings.map((f) => ({ signature: f.difference.signature, folder: f.folder })),
    seenAgain: Object.keys(summary.seenAgain),
    historyDependent: summary.historyDependent,
  };
}

async function jazzer(context) {
  const { flags, options, session, known, store, seconds, parallel, progress } = context;
  const { runJazzer, targets, defaultWorkDir } = require('../../fuzzers/jazzer/run');
  const { statuses } = await runJazzer({
    sides: session.sides, session, known, store, seconds, parallel,
    knownFile: options.knownFile, only: list(flags.target, targets, 'target'),
    workDir: path.resolve(flags.work ?? defaultWorkDir()), seed: integer(flags.seed, 'seed') ?? 1,
    signal: context.signal,
    onProgress: (all) => progress('jazzer', all.map((s) =>
      `${s.target} #${s.totalExecs ?? s.execs} ${s.execsPerSecond}/s cov ${s.cov} corp ${s.corpus} findings ${s.findings.size}`).join(' | ')),
  });
  return {
    engine: 'jazzer',
    // The codec's crashes and hangs happen in each target's own worker; the
    // target process itself restarts only when it ends early.
    lines: statuses.map((s) => `${s.target.padEnd(7)} ${s.stats.number_of_executed_units ?? s.totalExecs} execs, ` +
      `${s.stats.average_exec_per_sec ?? s.execsPerSecond} execs/s, cov ${s.cov}, ft ${s.ft}, corpus ${s.corpus}, ` +
      `codec crashes ${s.worker.crash ?? 0}, hangs ${s.worker.hang ?? 0}, target restarts ${s.restarts}`),
    findings: statuses.flatMap((s) => [...s.findings.values()]),
    seenAgain: statuses.flatMap((s) => [...s.seenAgain]),
    historyDependent: statuses.flatMap((s) => [...s.historyDependent]),
  };
}

function list(text, allowed, flag) {
  if (text === undefined) return undefined;
  const names = text.split(',');
  for (const name of names) {
    if (!allowed.includes(name)) throw new UsageError(`unknown ${flag} ${JSON.stringify(name)}; one of ${allowed.join(', ')}`);
  }
  return names;
}

function integer(text, flag) {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n)) throw new UsageError(`--${flag} must be an integer, got ${JSON.stringify(text)}`);
  return n;
}

function progressPrinter() {
  const live = process.stderr.isTTY;
  const latest = new Map();
  let last = 0;
  const print = (engine, text) => {
    latest.set(engine, text);
    const now = Date.now();
    if (now - last < (live ? 500 : 10_000)) return;
    last = now;
    const line = [...latest].map(([e, t]) => `${e}: ${t}`).join('  ‖  ');
    process.stderr.write(live ? `\r${line.slice(0, process.stderr.columns - 1)}\x1b[K` : `${line}\n`);
  };
  print.done = () => { if (live) process.stderr.write('\n'); };
  return print;
}

function detailOf(folder) {
  try {
    const meta = JSON.parse(fs.readFileSync(path.join(folder, 'finding.json'), 'utf8'));
    return `${meta.where}: ${meta.detail}`;
  } catch {
    return 'see the folder';
  }
}

function printSummary(results, session, store, stopped) {
  const { a, b } = session.sides;
  const lines = ['', `a: ${a.codec} in node ${a.info.node}`, `b: ${b.codec} in node ${b.info.node}`];
  for (const r of results) lines.push(`${r.engine}:`, ...r.lines.map((l) => `  ${l}`));
  const stats = session.stats();
  if (stats.requests) {
    const who = results.some((r) => r.engine === 'fast-check') ? 'fast-check and replays' : 'replays of saved inputs';
    lines.push(`workers (${who}): ${stats.requests} calls, ${stats.crashes} crashes, ${stats.hangs} hangs`);
  }
  const findings = new Map(results.flatMap((r) => r.findings.map((f) => [f.signature, { ...f, engine: r.engine }])));
  const seenAgain = new Set(results.flatMap((r) => r.seenAgain).filter((sig) => !findings.has(sig)));
  if (seenAgain.size) lines.push(`${seenAgain.size} seen again, already in ${store.dir}: ${[...seenAgain].join(', ')}`);
  const history = new Set(results.flatMap((r) => r.historyDependent).filter((sig) => !findings.has(sig)));
  if (history.size) {
    lines.push(`${history.size} history-dependent, not findings (gone with both sides in fresh processes): ` +
      `${[...history].join(', ')}`);
  }
  if (stopped.length) lines.push(`stopped at the time limit: ${stopped.join(', ')}`);
  if (!findings.size) {
    lines.push('no new findings');
  } else {
    lines.push(`${findings.size} new finding${findings.size > 1 ? 's' : ''} in ${store.dir}:`);
    for (const f of findings.values()) {
      lines.push(`  ${f.signature}  [${f.engine}]`, `    ${detailOf(f.folder)}`, `    ${path.relative(process.cwd(), f.folder)}`);
    }
  }
  console.log(lines.join('\n'));
  return findings.size;
}

async function run(args) {
  const flags = parse(args, {
    ...sideFlags,
    engine: { type: 'string', default: 'fast-check' },
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string' },
    property: { type: 'string' },
    target: { type: 'string' },
    path: { type: 'string' },
    work: { type: 'string' },
    out: { type: 'string', default: path.join(root, 'findings') },
  });
  if (!engineNames.includes(flags.engine)) {
    throw new UsageError(`unknown engine ${JSON.stringify(flags.engine)}; one of ${engineNames.join(', ')}`);
  }
  const seconds = positiveInteger(flags.seconds, 'seconds', 86_400);
  const options = sessionOptions(flags);
  const known = loadKnown(options.knownFile);
  const store = new FindingStore(flags.out);
  const session = new Session(options);
  const progress = progressPrinter();
  const { availableCores } = require('../../fuzzers/jazzer/run');
  const cores = availableCores();
  // The engines end on time by themselves; whatever still runs a grace after
  // the budget (a codec stuck in a loop, a target slow to start) is killed.
  const stopper = new AbortController();
  const stopped = [];
  const hardStop = setTimeout(() => {
    stopped.push(`workers and targets still running ${kGraceSeconds} s after the budget`);
    stopper.abort();
    session.close();
  }, (seconds + kGraceSeconds) * 1000);
  const context = { flags, options, session, known, store, seconds, progress, signal: stopper.signal };
  try {
    const runs = [];
    if (flags.engine !== 'jazzer') runs.push(fastCheck(context));
    if (flags.engine !== 'fast-check') {
      runs.push(jazzer({ ...context, parallel: flags.engine === 'all' ? Math.max(1, cores - 1) : cores }));
    }
    const results = await Promise.all(runs);
    progress.done();
    return printSummary(results, session, store, stopped) ? 1 : 0;
  } finally {
    clearTimeout(hardStop);
    session.close();
  }
}

module.exports = { run };
