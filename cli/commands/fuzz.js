'use strict';
// ipcfuzz fuzz: runs the engines against two codecs for a wall-clock budget,
// with live progress, and saves each distinct new finding to the findings
// folder. `--engine all` (what `make fuzz` runs) runs both engines at once.
// A difference already in the folder is seen again, not new; one that does
// not stand in fresh processes is history-dependent; neither sets exit 1.
// The engines end a share of the budget early: after them, that share checks
// the run's findings through child_process (cli/reach.js). At the engines'
// end plus a grace every worker and target is killed.

const path = require('node:path');
const { parse, sideFlags, sessionOptions, positiveInteger, checkFolder } = require('..');
const { Session } = require('../../harness/run/session');
const { loadKnown, splitByScope } = require('../../harness/oracle/known');
const { FindingStore, byTierAndCount, reductionText } = require('../../harness/findings/recorder');
const { UsageError } = require('../../harness/base/errors');
const { root } = require('../../harness/base/binaries');
const coverage = require('../../harness/observe/coverage');
const { isSharedDefect } = require('../../harness/oracle/roundtrip');
const { checkRun, reachLine, reachSeconds, reviewRun, titleLine } = require('../reach');
const { kGraceSeconds } = require('../../harness/base/defaults');

const engineNames = ['fast-check', 'jazzer', 'all'];
const propertyNames = ['value', 'roundtrip', 'frame', 'stream'];
const targetNames = ['value', 'frame', 'stream'];

const about = 'run the fuzzing engines against two codecs for a time budget; save each new finding';
const flags = {
  engine: { type: 'string', default: 'fast-check', value: engineNames.join('|'), help: 'the engine, or both at once' },
  seconds: { type: 'string', default: '60', value: 'N', help: 'wall-clock budget' },
  seed: { type: 'string', value: 'N', shown: 'random for fast-check, 1 for jazzer', help: 'random seed' },
  property: { type: 'string', value: 'P,...', shown: propertyNames.join(','), help: 'fast-check properties to run' },
  target: { type: 'string', value: 'T,...', shown: targetNames.join(','), help: 'Jazzer.js targets to run' },
  path: { type: 'string', value: 'P', help: 'replay one fast-check finding: with its --seed and one --property' },
  work: { type: 'string', value: 'DIR', shown: '<ipcfuzz>/.ipcfuzz/work', help: 'Jazzer.js corpora and logs' },
  out: { type: 'string', default: path.join(root, 'findings'), shown: '<ipcfuzz>/findings', value: 'DIR',
    help: 'findings folder' },
  ...sideFlags,
};

async function fastCheck({ flags, session, known, store, seconds, progress }) {
  const { runProperties } = require('../../properties/engine');
  const summary = await runProperties({
    session, known, store, only: flags.properties, seconds, seed: flags.seedNumber, path: flags.path,
    onProgress: (p) => progress('fast-check', `${p.property.padEnd(9)} runs ${p.runs} (${p.runsPerSecond.toFixed(0)}/s)  ` +
      `findings ${p.findings.length}  known ${Object.values(p.known).reduce((a, b) => a + b, 0)}`),
  });
  return {
    engine: 'fast-check',
    lines: [`${summary.runs} runs in ${summary.seconds.toFixed(1)}s (${summary.runsPerSecond.toFixed(0)} runs/s), seed ${summary.seed}`,
      ...Object.entries(summary.properties).map(([name, p]) => `${name.padEnd(9)} ${p.runs} runs, ` +
        `${p.findings} new finding${p.findings === 1 ? '' : 's'}, ${p.seenAgain} seen again, ${p.known} known hits` +
        (p.shared ? `, ${p.shared} shared defect${p.shared === 1 ? '' : 's'}` : '')),
      `known differences seen: ${Object.entries(summary.known).map(([id, n]) => `${id} ×${n}`).join(', ') || 'none'}`],
    findings: summary.findings.map((f) => ({ signature: f.difference.signature, folder: f.folder, met: f.met })),
    seenAgain: Object.keys(summary.seenAgain),
    historyDependent: summary.historyDependent,
  };
}

// A target's codec crashes: in its worker, and those of the known crash
// judged without one (harness/run/crash-judge.js).
function codecCrashes({ crash = 0, judged = 0 }) {
  return judged ? `${crash + judged} (${judged} judged)` : `${crash}`;
}

const judgeOff = (off) => (off ? ', crash judge turned off (a worker disagreed with it)' : '');

async function jazzer({ flags, options, session, known, store, seconds, parallel, progress, signal }) {
  const { runJazzer } = require('../../fuzzers/jazzer/engine');
  const { statuses } = await runJazzer({
    sides: session.sides, session, known, store, seconds, parallel, signal,
    knownFile: options.knownFile, timeoutMs: options.timeoutMs, only: flags.targets, workDir: flags.workDir,
    seed: flags.seedNumber ?? 1,
    onProgress: (all) => progress('jazzer', all.map((s) =>
      `${s.label} #${s.totalExecs ?? s.execs} ${s.execsPerSecond}/s cov ${s.cov} corp ${s.corpus} findings ${s.findings.size}`).join(' | ')),
  });
  return {
    engine: 'jazzer',
    // The codec's crashes and hangs happen in each target's own worker; the
    // target process itself restarts only when it ends early.
    lines: statuses.flatMap((s) => [`${s.label.padEnd(7)} ${s.stats.number_of_executed_units ?? s.totalExecs} execs, ` +
      `${s.stats.average_exec_per_sec ?? s.execsPerSecond} execs/s, cov ${s.cov}, ft ${s.ft}, corpus ${s.corpus}, ` +
      `codec crashes ${codecCrashes(s.worker)}, hangs ${s.worker.hang ?? 0}, target restarts ${s.restarts}` +
      (s.unsaved.length ? `, ends with no input saved ${s.unsaved.length} (${s.unsaved.join(', ')})` : '') +
      judgeOff(s.worker.misjudged),
    ...(s.gaveUp ? [`${s.label.padEnd(7)} stopped early: ${s.gaveUp}`] : [])]),
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

// What a listing says of a finding, read from its folder.
function listed(f) {
  let meta = {};
  try {
    meta = FindingStore.read(f.folder);
  } catch { /* a folder an engine could not finish: the signature says it */ }
  return { ...f, difference: { tier: meta.tier ?? f.signature.split('/')[0], signature: f.signature },
    detail: meta.where ? `${meta.where}: ${meta.detail}` : 'see the folder', reduction: meta.reduction,
    met: f.met ?? meta.count ?? 1 };
}

function printSummary(results, session, store, stopped) {
  const { a, b } = session.sides;
  const lines = ['', `a: ${a.codec} in node ${a.info.node}`, `b: ${b.codec} in node ${b.info.node}`];
  for (const r of results) lines.push(`${r.engine}:`, ...r.lines.map((l) => `  ${l}`));
  const stats = session.stats();
  if (stats.requests) {
    const who = results.some((r) => r.engine === 'fast-check') ? 'fast-check and replays' : 'replays of saved inputs';
    lines.push(`workers (${who}): ${stats.requests} calls, ` +
      `codec crashes ${codecCrashes({ crash: stats.crashes, judged: stats.judged })}, hangs ${stats.hangs}` +
      judgeOff(session.knownCrash.disagreed));
  }
  const found = new Map(results.flatMap((r) =>
    r.findings.map((f) => [f.signature, listed({ ...f, engine: r.engine })])));
  const shared = [...found.values()].filter((f) => isSharedDefect(f.signature)).sort(byTierAndCount);
  const findings = new Map([...found].filter(([signature]) => !isSharedDefect(signature)));
  const seenAgain = new Set(results.flatMap((r) => r.seenAgain).filter((sig) => !findings.has(sig)));
  if (seenAgain.size) lines.push(`${seenAgain.size} seen again, already in ${store.dir}: ${[...seenAgain].join(', ')}`);
  const history = new Set(results.flatMap((r) => r.historyDependent).filter((sig) => !findings.has(sig)));
  if (history.size) {
    lines.push(`${history.size} history-dependent, not findings (gone with both sides in fresh processes): ` +
      `${[...history].join(', ')}`);
  }
  if (stopped.length) lines.push(`stopped at the time limit: ${stopped.join(', ')}`);
  const listing = (f) => [`  ${titleLine(f.folder) ?? f.signature}`,
    `    ${f.signature}  [${f.engine}, met ${f.met}×, ${reductionText(f.reduction)}]`,
    `    ${reachLine(f.folder)}`, `    ${path.relative(process.cwd(), f.folder)}`];
  if (shared.length) {
    lines.push(`${shared.length} defect${shared.length > 1 ? 's' : ''} both codecs share (no difference between them; ` +
      'the exit code does not count it):', ...shared.flatMap(listing));
  }
  if (!findings.size) {
    lines.push('no new findings');
  } else {
    lines.push(`${findings.size} new finding${findings.size > 1 ? 's' : ''} in ${store.dir}:`);
    for (const f of [...findings.values()].sort(byTierAndCount)) lines.push(...listing(f));
  }
  // The run's causes, new or met again, as a reviewer would post them.
  const causes = [...findings.values()].map((f) => f.folder)
    .concat([...seenAgain].filter((signature) => !isSharedDefect(signature))
      .map((signature) => store.folderFor(session.sides, signature)));
  lines.push(reviewRun(store.dir, causes, session.sides));
  console.log(lines.join('\n'));
  return findings.size;
}

// Every flag checked before anything is created or started.
function checkFlags(values) {
  if (!engineNames.includes(values.engine)) {
    throw new UsageError(`unknown engine ${JSON.stringify(values.engine)}; one of ${engineNames.join(', ')}`);
  }
  const checked = {
    ...values,
    seconds: positiveInteger(values.seconds, 'seconds', 86_400),
    seedNumber: integer(values.seed, 'seed'),
    properties: list(values.property, propertyNames, 'property'),
    targets: list(values.target, targetNames, 'target'),
    out: checkFolder(values.out, 'out'),
    workDir: checkFolder(values.work ?? require('../../fuzzers/jazzer/engine').defaultWorkDir(), 'work'),
  };
  if (values.path !== undefined && (values.seed === undefined || checked.properties?.length !== 1)) {
    throw new UsageError('--path replays one finding: give it with its --seed and a single --property');
  }
  return checked;
}

async function run(args) {
  const values = checkFlags(parse(args, flags));
  const started = Date.now();
  const seconds = values.seconds - reachSeconds(values.seconds);
  const options = sessionOptions(values);
  const listed = loadKnown(options.knownFile);
  // The engine's packages load before anything is made: one npm ci has not installed is named first.
  if (values.engine !== 'jazzer') require('../../properties/engine');
  // The session checks the binaries (its workers start on first use): then the folder is made.
  const session = new Session(options);
  const known = splitByScope(listed, session.sides).applies;
  const store = new FindingStore(values.out);
  const progress = progressPrinter();
  const { availableCores } = require('../../fuzzers/jazzer/engine');
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
  const context = { flags: values, options, session, known, store, seconds, progress, signal: stopper.signal };
  const coverageDir = path.join(path.resolve(values.work ?? require('../../fuzzers/jazzer/engine').defaultWorkDir()),
    'coverage');
  session.observe(coverage.collectInto(coverageDir));
  process.env.IPCFUZZ_COVERAGE_DIR = coverageDir;  // for the Jazzer.js targets (fuzzers/jazzer/target.js)
  try {
    const runs = [];
    if (values.engine !== 'jazzer') runs.push(fastCheck(context));
    if (values.engine !== 'fast-check') {
      runs.push(jazzer({ ...context, parallel: values.engine === 'all' ? Math.max(1, cores - 1) : cores }));
    }
    const results = await Promise.all(runs);
    await checkRun(results.flatMap((r) => r.findings.map((f) => f.folder)), {
      build: session.sides.b.node, timeoutMs: options.timeoutMs, deadline: started + values.seconds * 1000,
      progress: (text) => progress('reachability', text),
    });
    progress.done();
    const found = printSummary(results, session, store, stopped);
    console.log(coverage.renderCoverage());
    return found ? 1 : 0;
  } finally {
    clearTimeout(hardStop);
    session.close();
  }
}

module.exports = { run, about, flags };
