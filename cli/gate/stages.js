'use strict';
// ipcfuzz gate: one command that says whether a build's codec still behaves
// like the reference, within a time budget. Stages, in order: conformance
// vectors, the properties with a fixed seed and number of runs, replay of the
// seed corpora and of saved findings, the known-differences ratchet (all
// deterministic), then both fuzzing engines for what is left of the budget but a
// tenth, which checks the run's findings through child_process (cli/reach.js).
// Every distinct new difference becomes one finding (saved under
// <out>/findings), one JUnit failure and one SARIF result.

const fs = require('node:fs');
const path = require('node:path');
const { classify, scopeText } = require('../../harness/oracle/known');
const { isSharedDefect } = require('../../harness/oracle/roundtrip');
const { FindingStore, FindingRecorder, byTierAndCount, metOf } = require('../../harness/findings/recorder');
const { runProperties, runExhaustive } = require('../../properties/engine');
const { properties } = require('../../properties/definitions');
const inputs = require('../../fuzzers/jazzer/inputs');
const { runJazzer, targets, availableCores } = require('../../fuzzers/jazzer/engine');
const { gateVectors, gateRuntimes } = require('../../conformance/gate');
const { root } = require('../../harness/base/binaries');
const { StoppedError } = require('../../harness/base/errors');
const { checkRun, reachSeconds } = require('../reach');
const { kGraceSeconds } = require('../../harness/base/defaults');

// The deterministic stages: the same build gives the same verdict on them.
const kFixedSeed = 20261121;
const kRunsPerProperty = 300;
// Fuzzing needs this much of the budget to be worth starting; the rest is
// left for writing the reports. At the budget plus the grace every worker
// and target still running is killed.
const kMinFuzzSeconds = 5;
const kReportSeconds = 5;
const kOutOfTime = 'out of time';
const kSkippedListed = 3;

// What every stage shares: the session, the known differences in scope and
// one FindingRecorder, so that a difference met by several stages is
// confirmed and saved once.
class Collector {
  constructor({ session, known, store, deadline }) {
    Object.assign(this, { session, known, store });
    this.recorder = new FindingRecorder({
      known, store, sides: session.sides, reduction: { deadline },
      check: (type, input) => session.check(type, input),
      confirm: (type, input, d) => session.confirm(type, input, d),
    });
  }

  // Returns the differences of one check result that are findings.
  add(result, stage, origin) {
    return this.recorder.add(result, { stage, ...origin }, { stage });
  }

  // A finding an engine saved itself (it already wrote the folder).
  adopt(folder, stage) {
    this.recorder.adopt(folder, { stage });
  }
}

// A stage fills `cases`; once the budget is spent (a stage checks
// collector.timeLeft() between cases) or its session stopped, the rest is
// one case skipped for lack of time.
async function timed(name, collector, fn) {
  const started = Date.now();
  const cases = [];
  try {
    if (collector.timeLeft() > 0) await fn(cases);
    else cases.push({ name, skipped: kOutOfTime });
  } catch (err) {
    if (!(err instanceof StoppedError)) throw err;
    cases.push({ name: `rest of ${name}`, skipped: kOutOfTime });
  }
  return { name, cases, seconds: (Date.now() - started) / 1000 };
}

const failureOf = (all) => failureOfDifferences(all.filter((d) => !isSharedDefect(d.signature)));
const failureOfDifferences = (fresh) => (fresh.length ? {
  message: fresh.map((d) => d.signature).join('; '),
  body: fresh.map((d) => `${d.signature}\n${d.where}: ${d.detail}`).join('\n\n'),
} : undefined);

async function conformanceStage(collector, cases) {
  cases.push(...await gateVectors(collector));
}

async function propertiesStage(collector, cases) {
  for (const name of Object.keys(properties)) {
    if (collector.timeLeft() <= 0) {
      cases.push({ name: `property ${name}`, skipped: kOutOfTime });
      continue;
    }
    const started = Date.now();
    const summary = await runExhaustive({
      session: collector.session, known: collector.known, store: collector.store, seed: kFixedSeed,
      runs: kRunsPerProperty, only: [name],
    });
    for (const f of summary.findings) collector.adopt(f.folder, 'properties');
    for (const signature of summary.historyDependent) collector.recorder.historyDependent.add(signature);
    cases.push({ name: `property ${name} (seed ${kFixedSeed}, ${summary.runs} runs)`, seconds: (Date.now() - started) / 1000,
      failure: failureOf(summary.findings.map((f) => f.difference)) });
  }
}

async function replayStage(collector, cases) {
  for (const target of targets) {
    const dir = path.join(root, 'corpus', 'jazzer', target);
    const files = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    if (collector.timeLeft() <= 0) {
      cases.push({ name: `seed corpus of ${target} (${files.length} inputs)`, skipped: kOutOfTime });
      continue;
    }
    const started = Date.now();
    const fresh = [];
    for (const file of files) {
      const input = inputs[target](fs.readFileSync(path.join(dir, file)));
      const result = await collector.session.check(target, input);
      fresh.push(...await collector.add(result, 'corpus replay', { target, seed: file }));
    }
    cases.push({ name: `seed corpus of ${target} (${files.length} inputs)`, seconds: (Date.now() - started) / 1000, failure: failureOf(fresh) });
  }
  for (const folder of collector.store.list()) {
    if (collector.timeLeft() <= 0) {
      cases.push({ name: `saved finding ${path.basename(folder)}`, skipped: kOutOfTime });
      continue;
    }
    const meta = collector.store.read(folder);
    const started = Date.now();
    const result = await collector.session.check(meta.type, meta.input);
    const fresh = await collector.add(result, 'findings replay', { replayOf: path.basename(folder) });
    cases.push({ name: `saved finding ${path.basename(folder)}`, seconds: (Date.now() - started) / 1000, failure: failureOf(fresh) });
  }
}

// An entry with a reproducer must still produce a difference it matches.
// Entries recorded for another codec pair or build are not judged here.
async function ratchetStage(collector, stale, outside, cases) {
  cases.push(...outside.map((entry) => ({
    name: `known ${entry.id}`, skipped: `out of scope: recorded for ${scopeText(entry)}`,
  })));
  for (const entry of collector.known) {
    if (!entry.reproducer || collector.timeLeft() <= 0) {
      cases.push({ name: `known ${entry.id}`, skipped: entry.reproducer ? kOutOfTime : 'no reproducer' });
      continue;
    }
    const result = await collector.session.check(entry.reproducer.type, entry.reproducer.input);
    const still = classify(result.differences, collector.known).some((d) => d.known === entry.id);
    if (!still) stale.push(entry);
    cases.push({ name: `known ${entry.id} still reproduces`,
      failure: still ? undefined : { message: `stale: ${entry.id} no longer reproduces`, type: 'stale-known-difference' } });
  }
}

async function fuzzStage(collector, cases, { seconds, knownFile, signal }) {
  const fastCheck = runProperties({
    session: collector.session, known: collector.known, store: collector.store, seconds, seed: kFixedSeed + 1,
  });
  const jazzer = runJazzer({
    sides: collector.session.sides, session: collector.session, known: collector.known, knownFile,
    store: collector.store, seconds, parallel: Math.max(1, availableCores() - 1), seed: 1,
    workDir: path.join(collector.store.dir, '..', 'work'), signal,
  });
  const [fastCheckRun, jazzerRun] = await Promise.all([fastCheck, jazzer]);
  for (const f of fastCheckRun.findings) collector.adopt(f.folder, 'fuzz: fast-check');
  const jazzerHistory = jazzerRun.statuses.flatMap((s) => [...s.historyDependent]);
  for (const signature of [...fastCheckRun.historyDependent, ...jazzerHistory]) {
    collector.recorder.historyDependent.add(signature);
  }
  cases.push({ name: `fast-check, random inputs (${fastCheckRun.runs} runs)`, seconds: fastCheckRun.seconds,
    failure: failureOf(fastCheckRun.findings.map((f) => f.difference)) });
  for (const status of jazzerRun.statuses) {
    for (const f of status.findings.values()) if (f.folder) collector.adopt(f.folder, `fuzz: jazzer ${status.target}`);
    const signatures = [...status.findings.keys()].filter((signature) => !isSharedDefect(signature));
    const failure = status.gaveUp ? { message: `stopped early: ${status.gaveUp}`, type: 'target-stopped' } :
      signatures.length ? { message: signatures.join('; ') } : undefined;
    cases.push({ name: `jazzer ${status.target} (${status.totalExecs ?? status.execs} execs)`, seconds, failure });
  }
}

// The run's findings through child_process, in `seconds` at most: one case
// each, skipped when it was not checked. A verdict fails no case: the
// finding's own case did. Run however little time is left: a finding not
// checked still gets its repro-fork.js and issue.md, which say so.
async function reachabilityStage(collector, seconds) {
  const started = Date.now();
  const cases = [];
  const findings = [...collector.recorder.findings.values()].filter((f) => f.folder);
  const deadline = Date.now() + Math.max(0, Math.min(seconds, collector.timeLeft())) * 1000;
  const checked = await checkRun(findings.map((f) => f.folder), {
    build: collector.session.sides.b.node, timeoutMs: collector.session.timeoutMs, deadline,
  });
  for (const { difference, folder } of findings) {
    const r = checked.get(folder);
    if (!r) continue;
    const name = `${difference.signature} through child_process`;
    if (r.checked) cases.push({ name: `${name}: ${r.reachable ? 'reachable' : 'not reachable'}` });
    else cases.push({ name, skipped: r.outOfTime ? `${kOutOfTime}: ${r.verdict}` : r.verdict });
  }
  return { name: 'reachability through child_process', cases, seconds: (Date.now() - started) / 1000 };
}

// options: { session, known (the entries in scope), outside (those not), knownFile, out, budget (seconds),
//            runtimes: [deno, bun, NAME@VERSION], fuzz (false: the deterministic stages only) }
async function runGate(options) {
  const started = Date.now();
  const store = new FindingStore(path.join(options.out, 'findings'));
  // A difference met as the stages end is still reduced, in the time the reports would take.
  const collector = new Collector({ session: options.session, known: options.known, store,
    deadline: started + options.budget * 1000 });
  // The deterministic stages may use the budget but for the time reports take.
  collector.timeLeft = () => options.budget - kReportSeconds - (Date.now() - started) / 1000;
  const stopper = new AbortController();
  const hardStop = setTimeout(() => {
    stopper.abort();
    options.session.close();
  }, (options.budget + kGraceSeconds) * 1000);
  const stale = [];
  const stages = [];
  try {
    stages.push(await timed('conformance vectors', collector, (cases) => conformanceStage(collector, cases)));
    if (options.runtimes?.length) {
      stages.push(await timed('runtimes', collector, async (cases) => {
        cases.push(...await gateRuntimes(collector, options.runtimes));
      }));
    }
    stages.push(await timed('properties (fixed seed)', collector, (cases) => propertiesStage(collector, cases)));
    stages.push(await timed('replay', collector, (cases) => replayStage(collector, cases)));
    stages.push(await timed('known-differences ratchet', collector, (cases) =>
      ratchetStage(collector, stale, options.outside ?? [], cases)));
    const reach = reachSeconds(options.budget);
    const fuzzSeconds = Math.floor(collector.timeLeft() - reach);
    if (!options.fuzz) {
      stages.push({ name: 'fuzzing', seconds: 0, cases: [{ name: 'fuzzing', skipped: 'not asked for (--no-fuzz)' }] });
    } else if (fuzzSeconds >= kMinFuzzSeconds) {
      stages.push(await timed('fuzzing', collector, (cases) =>
        fuzzStage(collector, cases, { seconds: fuzzSeconds, knownFile: options.knownFile, signal: stopper.signal })));
    } else {
      stages.push({ name: 'fuzzing', seconds: 0, cases: [{ name: 'fuzzing', skipped: `${kOutOfTime}: ` +
        `${Math.max(0, fuzzSeconds)} s left of the budget, ${kMinFuzzSeconds} s needed` }] });
    }
    stages.push(await reachabilityStage(collector, reach));
  } finally {
    clearTimeout(hardStop);
  }
  // Crashes first, then by how far the difference reaches (the order of the tiers), the most met first.
  const { recorder } = collector;
  const found = [...recorder.findings.values()]
    .map(({ difference, folder, stage, reduction }) => ({ difference, folder, stage, reduction,
      met: metOf(recorder, difference.signature, folder) }))
    .sort(byTierAndCount);
  const shared = found.filter((f) => isSharedDefect(f.difference.signature));
  const findings = found.filter((f) => !shared.includes(f));
  // A stage with many checks left out is one item, so that every stage stays named in a line of its size.
  const skipped = stages.flatMap((s) => {
    const left = s.cases.filter((c) => c.skipped?.startsWith(kOutOfTime));
    return left.length > kSkippedListed ? [`${s.name}: ${left.length} checks (${kOutOfTime})`] :
      left.map((c) => `${c.name} (${c.skipped})`);
  });
  const silent = stages.find((s) => s.name === 'runtimes')?.cases.filter((c) => c.failure) ?? [];
  return {
    verdict: findings.length || stale.length || silent.length ? 'fail' : 'pass',
    findings, shared, stages, stale, skipped, known: recorder.knownSeen(), seconds: (Date.now() - started) / 1000,
    historyDependent: [...recorder.historyDependent].filter((signature) => !recorder.findings.has(signature)),
  };
}

module.exports = { runGate };
