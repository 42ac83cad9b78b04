'use strict';
// ipcfuzz fuzz: runs the engines against two codecs for a wall-clock budget,
// with live progress, and saves each distinct new finding to the findings
// folder. `--engine all` (what `make fuzz` runs) runs both engines at once.

const fs = require('node:fs');
const path = require('node:path');
const { parse, sideFlags, sessionOptions, positiveInteger } = require('../cli');
const { Session } = require('../session');
const { loadKnown } = require('../known');
const { FindingStore } = require('../findings');
const { UsageError } = require('../errors');
const { root } = require('../nodes');
const coverage = require('../coverage');

const engineNames = ['fast-check', 'jazzer', 'all'];

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
      `known differences seen: ${Object.entries(summary.known).map(([id, n]) => `${id} ×${n}`).join(', ') || 'none'}`],
    findings: summary.findings.map((f) => ({ signature: f.difference.signature, folder: f.folder })),
  };
}

async function jazzer({ flags, options, session, known, store, seconds, parallel, progress }) {
  const { runJazzer, targets, defaultWorkDir } = require('../../fuzzers/jazzer/run');
  const { statuses } = await runJazzer({
    sides: session.sides, session, known, store, seconds, parallel,
    knownFile: options.knownFile, only: list(flags.target, targets, 'target'),
    workDir: path.resolve(flags.work ?? defaultWorkDir()), seed: integer(flags.seed, 'seed') ?? 1,
    onProgress: (all) => progress('jazzer', all.map((s) =>
      `${s.target} #${s.totalExecs ?? s.execs} ${s.execsPerSecond}/s cov ${s.cov} corp ${s.corpus} findings ${s.findings.size}`).join(' | ')),
  });
  return {
    engine: 'jazzer',
    lines: statuses.map((s) => `${s.target.padEnd(7)} ${s.stats.number_of_executed_units ?? s.totalExecs} execs, ` +
      `${s.stats.average_exec_per_sec ?? s.execsPerSecond} execs/s, cov ${s.cov}, ft ${s.ft}, corpus ${s.corpus}, ` +
      `${s.restarts} restarts after crashes`),
    findings: statuses.flatMap((s) => [...s.findings.values()]),
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

function printSummary(results, session, store) {
  const { a, b } = session.sides;
  const lines = ['', `a: ${a.codec} in node ${a.info.node}`, `b: ${b.codec} in node ${b.info.node}`];
  for (const r of results) lines.push(`${r.engine}:`, ...r.lines.map((l) => `  ${l}`));
  const stats = session.stats();
  lines.push(`worker replays: ${stats.requests} calls, ${stats.crashes} crashes, ${stats.hangs} hangs`);
  const findings = new Map(results.flatMap((r) => r.findings.map((f) => [f.signature, { ...f, engine: r.engine }])));
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
  const context = { flags, options, session, known, store, seconds, progress };
  coverage.collectInto(path.join(path.resolve(flags.work ?? require('../../fuzzers/jazzer/run').defaultWorkDir()), 'coverage'));
  try {
    const runs = [];
    if (flags.engine !== 'jazzer') runs.push(fastCheck(context));
    if (flags.engine !== 'fast-check') {
      runs.push(jazzer({ ...context, parallel: flags.engine === 'all' ? Math.max(1, cores - 1) : cores }));
    }
    const results = await Promise.all(runs);
    progress.done();
    const found = printSummary(results, session, store);
    console.log(coverage.renderCoverage());
    return found ? 1 : 0;
  } finally {
    session.close();
  }
}

module.exports = { run };
