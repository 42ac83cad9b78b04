'use strict';
// The Jazzer.js engine: runs the value, frame and stream targets in the node
// binary under test, as many at a time as there are cores to spare, each
// growing its own working corpus from the seed corpus. Cores the targets
// leave spare run more libFuzzer processes of a target (jobs), each with a
// seed of its own, sharing that corpus: libFuzzer reads the units the others
// add to it every second (-reload). Progress lines of
// libFuzzer and the targets' finding lines are read as they come. Each target
// runs the builtin codecs in its own process and the rest in a worker, and
// inputs shaped like a known native crash in a worker too, so those crashes
// do not end the run. Should the target process itself end early (a crash
// the screen did not foresee, a hang, an out-of-memory), libFuzzer's saved
// input is replayed in an isolated worker, recorded as a finding, and the
// target starts again, told to run that input isolated when met again.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const inputs = require('./inputs');
const { FindingRecorder } = require('../../harness/findings/recorder');
const { root } = require('../../harness/base/binaries');
const { onLines, afterOutput } = require('../../harness/base/json-lines');
const { trackGroup, killGroup } = require('../../harness/base/process-groups');
const { StoppedError } = require('../../harness/base/errors');
const { Settled, Tier, explainedBy } = require('../../harness/base/vocabulary');
// What a target tells besides a finding (target.js): a settled status, or what its worker did.
const kAnnouncedLine = new RegExp(`^ipcfuzz-(${[Settled.seenAgain, Settled.history, ...explainedBy, 'worker'].join('|')})` +
  '\t(.*)$');

const targets = ['value', 'frame', 'stream'];
const launcher = path.join(__dirname, 'launch.js');
const kMaxRestarts = 25;
// Ends in a row that saved no input before a target is given up.
const kMaxUnsaved = 3;
// Node and Jazzer.js start before libFuzzer's clock does; a target still
// running a grace after its time is killed with its whole process group.
const kStartSeconds = 2;
const kGraceMs = 2000;
const progressLine = /^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)\/(\S+).*?exec\/s: (\d+)/;

function dirs(target, workDir) {
  return {
    work: path.join(workDir, 'corpus', target),
    seeds: path.join(root, 'corpus', 'jazzer', target),
    dict: path.join(root, 'corpus', 'dict', `${target}.dict`),
  };
}

// The target reads its configuration from the environment: Jazzer.js owns argv.
function targetEnv({ sides, outDir, knownFile, timeoutMs }) {
  const env = {
    ...process.env,
    IPCFUZZ_A: sides.a.codec, IPCFUZZ_A_NODE: sides.a.node, IPCFUZZ_B: sides.b.codec, IPCFUZZ_OUT: outDir,
  };
  // --timeout: one codec call's limit, as the fast-check engine's workers have it.
  if (timeoutMs !== undefined) env.IPCFUZZ_TIMEOUT = String(timeoutMs);
  else delete env.IPCFUZZ_TIMEOUT;
  delete env.IPCFUZZ_KNOWN;
  if (knownFile === null) env.IPCFUZZ_KNOWN = '';  // --no-known
  else if (knownFile !== undefined) env.IPCFUZZ_KNOWN = path.resolve(knownFile);
  return env;
}

// Starts one libFuzzer process of a target in `node`: its working corpus in
// workDir, the seed corpus and dictionary of the repo, crash inputs in
// `artifacts`, fuzzing for `seconds` once started. It leads a process group
// of its own, killed whole once the target has ended or has run `limitMs`.
// Its temporary files (its workers' FIFOs, the launcher's scripts) go to a
// folder of its own (TMPDIR), removed then: a process killed by SIGKILL
// cleans up nothing, and libFuzzer ends a target in exit(), which runs no
// exit handlers. Should this process be killed by SIGKILL, the target ends
// its group and removes that folder itself (IPCFUZZ_STARTER, target.js).
// (The bench starts targets this way too, to time them.)
function spawnTarget({ target, node, seconds, limitMs = (seconds + kStartSeconds) * 1000 + kGraceMs, seed, workDir,
  artifacts, env, stdio }) {
  const d = dirs(target, workDir);
  fs.mkdirSync(d.work, { recursive: true });
  const libFuzzerFlags = [`-max_total_time=${seconds}`, `-artifact_prefix=${artifacts}/`, '-print_final_stats=1',
    '-timeout=20', '-rss_limit_mb=4096', `-seed=${seed}`];
  if (fs.existsSync(d.dict)) libFuzzerFlags.push(`-dict=${d.dict}`);
  // A value input that builds a MiB view, a long string or a deep nest costs
  // far more than a small one: libFuzzer keeps it in the corpus but mutates
  // it less, by how long it runs.
  if (target === 'value') libFuzzerFlags.push('-entropic_scale_per_exec_time=1');
  const corpora = [d.work, ...(fs.existsSync(d.seeds) ? [d.seeds] : [])];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `ipcfuzz-${target}-`));
  const child = spawn(node, ['--expose-internals', '--no-warnings', launcher,
    path.join(__dirname, `${target}.js`), ...corpora, '--sync', '--', ...libFuzzerFlags],
  { env: { ...env, TMPDIR: tmp, IPCFUZZ_STARTER: String(process.pid) }, stdio, detached: true });
  trackGroup(child, () => fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 }));
  const overrun = setTimeout(() => {
    child.overran = true;
    killGroup(child.pid);
  }, limitMs).unref();
  child.once('exit', () => clearTimeout(overrun));
  return child;
}

// One libFuzzer process of one target; resolves with how it ended.
function runOnce({ target, seconds, limitMs, sides, workDir, knownFile, timeoutMs, outDir, status, seed, stop }) {
  fs.mkdirSync(workDir, { recursive: true });
  const artifacts = fs.mkdtempSync(path.join(workDir, `${target}-artifacts-`));
  const env = targetEnv({ sides, outDir, knownFile, timeoutMs });
  env.IPCFUZZ_CRASHED = [env.IPCFUZZ_CRASHED, ...status.crashed].filter(Boolean).join(',');
  const child = spawnTarget({
    target, node: sides.b.node, seconds, limitMs, seed, workDir, artifacts, env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const onLine = (line) => {
    tail = `${tail}\n${line}`.slice(-4000);
    const m = progressLine.exec(line);
    if (m) Object.assign(status, { execs: +m[1], cov: +m[3], ft: +m[4], corpus: +m[5], execsPerSecond: +m[7] });
    const finding = /^ipcfuzz-finding\t([^\t]+)\t(.*)$/.exec(line);
    if (finding) {
      status.findings.set(finding[1], { signature: finding[1], folder: finding[2], target });
      if (stop.when?.(finding[1])) stop.now();
    }
    const other = kAnnouncedLine.exec(line);
    if (other) count(status, other[1], other[2]);
    const stat = /^stat::(\w+):\s+(\d+)/.exec(line);
    if (stat) status.stats[stat[1]] = +stat[2];
  };
  for (const stream of [child.stdout, child.stderr]) onLines(stream, onLine);
  stop.children.add(child);
  return new Promise((resolve) => {
    afterOutput(child, (code, signal) => {
      stop.children.delete(child);
      const saved = fs.readdirSync(artifacts).map((f) => path.join(artifacts, f));
      if (!saved.length) fs.rmdirSync(artifacts);
      // Killed for time: what it did is in its progress lines.
      if (stop.stopped || child.overran) return resolve({ code: 0, artifacts: [], tail });
      resolve({ code, signal, artifacts: saved, tail });
    });
  });
}

// What a target announced besides findings: a difference saved by an earlier
// run, one that did not stand in fresh processes, a crash or hang of its
// worker, a known crash judged without one.
function count(status, what, detail) {
  if (what === Settled.seenAgain) status.seenAgain.add(detail);
  else if (what === 'history') status.historyDependent.add(detail);
  else if ([Settled.pairing, Settled.consequence, Settled.combination].includes(what)) status.pairings.add(detail);
  else status.worker[detail] = (status.worker[detail] ?? 0) + 1;
}

// Maps a libFuzzer artifact back to a check and replays it in a worker, so a
// crash or hang is recorded like any other finding.
async function recordArtifact(file, { target, session, known, store, status }) {
  const bytes = fs.readFileSync(file);
  const result = await session.check(target, inputs[target](bytes));
  const recorder = new FindingRecorder({
    known, store, sides: session.sides, skipSaved: true,
    check: (type, input) => session.check(type, input),
    confirm: (type, input, d) => session.confirm(type, input, d),
  });
  const { fresh, seenAgain } = recorder.sort(result);
  const again = new Set(seenAgain.map((d) => d.signature));
  const open = new Set([...fresh.map((d) => d.signature), ...again]);
  const unknown = result.differences.filter((d) => open.has(d.signature));
  const chosen = unknown.find((d) => d.tier === Tier.crash) ?? unknown[0];
  if (chosen && again.has(chosen.signature)) {
    recorder.countAgain(result, chosen);
    status.seenAgain.add(chosen.signature);
    return;
  }
  if (!chosen) {
    // It did not reproduce in isolation: keep the input and libFuzzer's words.
    const folder = path.join(store.dir, `unreproduced-${target}-${path.basename(file)}`);
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(file, path.join(folder, 'input.bin'));
    status.findings.set(`unreproduced:${path.basename(file)}`, { signature: `unreproduced ${path.basename(file)}`, folder, target });
    return;
  }
  const origin = { engine: 'jazzer', target, artifact: path.basename(file), input: bytes.toString('hex') };
  for (const { status: settled, difference: d, finding } of await recorder.settle(result, chosen, origin)) {
    const found = settled === Settled.finding && { signature: d.signature, folder: finding.folder, target };
    if (found) status.findings.set(d.signature, found);
    else if (settled === Settled.history) status.historyDependent.add(d.signature);
    else if (settled === Settled.seenAgain) status.seenAgain.add(d.signature);
    else if (explainedBy.includes(settled)) status.pairings.add(d.signature);
  }
}

// libFuzzer processes per target, when `parallel` of them may run at once.
const jobsPerTarget = (parallel, targetCount) => Math.max(1, Math.floor(parallel / targetCount));
// Seeds of one job's runs; a job runs at most kMaxRestarts + 1 times.
const kSeedsPerJob = kMaxRestarts + 1;

// Runs one libFuzzer process of a target (job `job` of `jobs`) for its
// budget, restarting it after each crash. The inputs that ended a process
// (`crashed`) are shared by the jobs of the target.
async function runTarget(target, { job = 0, jobs = 1, crashed = [], ...options }) {
  const status = {
    target, job, label: jobs > 1 ? `${target}/${job + 1}` : target, seeds: [],
    execs: 0, cov: 0, ft: 0, corpus: 0, execsPerSecond: 0, findings: new Map(), stats: {}, restarts: 0, runs: 0,
    seenAgain: new Set(), historyDependent: new Set(), pairings: new Set(), worker: {}, crashed, unsaved: [],
    gaveUp: undefined,
  };
  options.statuses.push(status);
  const { deadline } = options;
  let execsBefore = 0;
  let unsavedInARow = 0;
  while (Date.now() < deadline - 1000 && status.restarts <= kMaxRestarts && !options.stop.stopped) {
    const left = deadline - Date.now();
    const seconds = Math.max(1, Math.floor(left / 1000) - kStartSeconds);
    const seed = options.seed + job * kSeedsPerJob + status.runs;
    status.seeds.push(seed);
    const ended = await runOnce({ ...options, target, seconds, limitMs: left + kGraceMs, status, seed });
    status.runs++;
    execsBefore += status.execs;
    status.totalExecs = execsBefore;
    if (ended.code === 0) break;
    if (!ended.artifacts.length) {
      // A codec that corrupts memory can end the target where libFuzzer saves
      // nothing: a second fault inside its crash handler, or a fault between
      // inputs. The next start runs the same corpus first, so a crash that
      // comes back is usually saved then.
      const how = String(ended.signal ?? ended.code);
      status.unsaved.push(how);
      if (++unsavedInARow >= kMaxUnsaved) {
        const last = ended.tail.trim().split('\n').slice(-3).join(' | ');
        status.gaveUp = `ended ${kMaxUnsaved} times in a row without saving its input (last: ${how}; ${last})`;
        break;
      }
      status.restarts++;
      continue;
    }
    unsavedInARow = 0;
    try {
      for (const file of ended.artifacts) {
        await recordArtifact(file, { ...options, target, status });
        const sha1 = /^[a-z-]+-([0-9a-f]{40})$/.exec(path.basename(file))?.[1];
        if (sha1) status.crashed.push(sha1);
      }
    } catch (err) {
      if (err instanceof StoppedError) break;  // the time is up
      throw err;
    }
    status.restarts++;
  }
  status.totalExecs = Math.max(execsBefore, status.execs);
  return status;
}

// options: { sides, seconds (wall clock for all targets), parallel (libFuzzer
//            processes at once: more targets than that run in rounds, fewer
//            run as many jobs each as it allows), knownFile,
//            known, store, session, workDir, seed, onProgress,
//            stopWhen(signature): end every target once it returns true,
//            signal: an AbortSignal that ends every target at once }
async function runJazzer(options) {
  const stop = {
    when: options.stopWhen, stopped: false, children: new Set(),
    now() {
      this.stopped = true;
      for (const child of this.children) killGroup(child.pid);  // libFuzzer ignores SIGTERM
    },
  };
  options.signal?.addEventListener('abort', () => stop.now(), { once: true });
  const chosen = options.only ?? targets;
  const slots = Math.max(1, Math.min(options.parallel, chosen.length));
  const jobs = jobsPerTarget(options.parallel, chosen.length);
  const rounds = Math.ceil(chosen.length / slots);
  const statuses = [];
  const queue = chosen.map((target, i) => ({ target, round: Math.floor(i / slots) }));
  const timer = setInterval(() => options.onProgress?.(statuses), 2000);
  const started = Date.now();
  // Each round of targets ends at its share of the budget, however long start-up took.
  const roundEnd = (round) => started + (options.seconds * 1000 * (round + 1)) / rounds;
  try {
    await Promise.all(Array.from({ length: slots }, async () => {
      while (queue.length && !stop.stopped) {
        const { target, round } = queue.shift();
        const crashed = [];
        await Promise.all(Array.from({ length: jobs }, (_, job) => runTarget(target,
          { ...options, job, jobs, crashed, statuses, stop, deadline: roundEnd(round), outDir: options.store.dir })));
      }
    }));
  } finally {
    clearInterval(timer);
  }
  return { statuses, seconds: (Date.now() - started) / 1000 };
}

function defaultWorkDir() {
  return path.join(root, '.ipcfuzz', 'work');
}

const availableCores = () => os.availableParallelism?.() ?? os.cpus().length;

module.exports = { runJazzer, spawnTarget, targetEnv, jobsPerTarget, targets, defaultWorkDir, availableCores };
