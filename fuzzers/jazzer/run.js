'use strict';
// The Jazzer.js engine: runs the value, frame and stream targets in the node
// binary under test, as many at a time as there are cores to spare, each
// growing its own working corpus from the seed corpus. Progress lines of
// libFuzzer and the targets' finding lines are read as they come. The codec
// under test runs in a worker of each target, so its crashes do not end the
// run; should the target process itself end early (a hang of the reference,
// an out-of-memory), libFuzzer's saved input is replayed in an isolated
// worker, recorded as a finding, and the target starts again.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const inputs = require('./inputs');
const { Session } = require('../../harness/session');
const { classify } = require('../../harness/known');
const { root } = require('../../harness/nodes');
const { onLines } = require('../../harness/lines');

const targets = ['value', 'frame', 'stream'];
const launcher = path.join(__dirname, 'launch.js');
const kMaxRestarts = 25;
const progressLine = /^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)\/(\S+).*?exec\/s: (\d+)/;

function dirs(target, workDir) {
  return {
    work: path.join(workDir, 'corpus', target),
    seeds: path.join(root, 'corpus', 'jazzer', target),
    dict: path.join(root, 'corpus', 'dict', `${target}.dict`),
  };
}

// The target reads its configuration from the environment: Jazzer.js owns argv.
function targetEnv({ sides, outDir, knownFile }) {
  const env = {
    ...process.env, IPCFUZZ_A: sides.a.codec, IPCFUZZ_A_NODE: sides.a.node, IPCFUZZ_B: sides.b.codec, IPCFUZZ_OUT: outDir,
  };
  delete env.IPCFUZZ_KNOWN;
  if (knownFile === null) env.IPCFUZZ_KNOWN = '';  // --no-known
  else if (knownFile !== undefined) env.IPCFUZZ_KNOWN = path.resolve(knownFile);
  return env;
}

// Starts one libFuzzer process of a target in `node`: its working corpus in
// workDir, the seed corpus and dictionary of the repo, crash inputs in
// `artifacts`. (The bench starts targets this way too, to time them.)
function spawnTarget({ target, node, seconds, seed, workDir, artifacts, env, stdio }) {
  const d = dirs(target, workDir);
  fs.mkdirSync(d.work, { recursive: true });
  const libFuzzerFlags = [`-max_total_time=${seconds}`, `-artifact_prefix=${artifacts}/`, '-print_final_stats=1',
    '-timeout=20', '-rss_limit_mb=4096', `-seed=${seed}`];
  if (fs.existsSync(d.dict)) libFuzzerFlags.push(`-dict=${d.dict}`);
  const corpora = [d.work, ...(fs.existsSync(d.seeds) ? [d.seeds] : [])];
  return spawn(node, ['--expose-internals', '--no-warnings', launcher,
    path.join(__dirname, `${target}.js`), ...corpora, '--sync', '--', ...libFuzzerFlags], { env, stdio });
}

// One libFuzzer process of one target; resolves with how it ended.
function runOnce({ target, seconds, sides, workDir, knownFile, outDir, status, seed, stop }) {
  fs.mkdirSync(workDir, { recursive: true });
  const artifacts = fs.mkdtempSync(path.join(workDir, `${target}-artifacts-`));
  const child = spawnTarget({
    target, node: sides.b.node, seconds, seed, workDir, artifacts,
    env: targetEnv({ sides, outDir, knownFile }), stdio: ['ignore', 'pipe', 'pipe'],
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
    const stat = /^stat::(\w+):\s+(\d+)/.exec(line);
    if (stat) status.stats[stat[1]] = +stat[2];
  };
  for (const stream of [child.stdout, child.stderr]) onLines(stream, onLine);
  stop.children.add(child);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      stop.children.delete(child);
      if (stop.stopped) return resolve({ code: 0, artifacts: [], tail });
      const saved = fs.readdirSync(artifacts).map((f) => path.join(artifacts, f));
      resolve({ code, signal, artifacts: saved, tail });
    });
  });
}

// Maps a libFuzzer artifact back to a check and replays it in a worker, so a
// crash or hang is recorded like any other finding.
async function recordArtifact(file, { target, session, known, store, status }) {
  const bytes = fs.readFileSync(file);
  const result = await session.check(inputs.checkType[target], inputs[target](bytes));
  classify(result.differences, known);
  const fresh = result.differences.filter((d) => !d.known);
  const chosen = fresh.find((d) => d.tier === 'crash') ?? fresh[0];
  if (!chosen) {
    // It did not reproduce in isolation: keep the input and libFuzzer's words.
    const folder = path.join(store.dir, `unreproduced-${target}-${path.basename(file)}`);
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(file, path.join(folder, 'input.bin'));
    status.findings.set(`unreproduced:${path.basename(file)}`, { signature: `unreproduced ${path.basename(file)}`, folder, target });
    return;
  }
  const stored = store.record(result, chosen, {
    sides: session.sides, origin: { engine: 'jazzer', target, artifact: path.basename(file), input: bytes.toString('hex') },
  });
  status.findings.set(chosen.signature, { signature: chosen.signature, folder: stored.folder, target });
}

// Runs one target for its budget, restarting it after each crash.
async function runTarget(target, options) {
  const status = { target, execs: 0, cov: 0, ft: 0, corpus: 0, execsPerSecond: 0, findings: new Map(), stats: {}, restarts: 0, runs: 0 };
  options.statuses.push(status);
  const deadline = Date.now() + options.seconds * 1000;
  let execsBefore = 0;
  while (Date.now() < deadline - 1000 && status.restarts <= kMaxRestarts && !options.stop.stopped) {
    const seconds = Math.max(1, Math.floor((deadline - Date.now()) / 1000));
    const ended = await runOnce({ ...options, target, seconds, status, seed: options.seed + status.runs });
    status.runs++;
    execsBefore += status.execs;
    status.totalExecs = execsBefore;
    if (ended.code === 0) break;
    if (!ended.artifacts.length) {
      throw new Error(`jazzer ${target} exited with ${ended.signal ?? ended.code} and saved no input:\n${ended.tail.slice(-1500)}`);
    }
    for (const file of ended.artifacts) await recordArtifact(file, { ...options, target, status });
    status.restarts++;
  }
  status.totalExecs = Math.max(execsBefore, status.execs);
  return status;
}

// options: { sides, seconds (wall clock for all targets), parallel, knownFile,
//            known, store, session, workDir, seed, onProgress,
//            stopWhen(signature): end every target once it returns true }
async function runJazzer(options) {
  const stop = {
    when: options.stopWhen, stopped: false, children: new Set(),
    now() {
      this.stopped = true;
      for (const child of this.children) child.kill('SIGKILL');  // libFuzzer ignores SIGTERM
    },
  };
  const slots = Math.max(1, Math.min(options.parallel, targets.length));
  const rounds = Math.ceil(targets.length / slots);
  const perTarget = Math.max(5, Math.floor(options.seconds / rounds));
  const statuses = [];
  const queue = [...(options.only ?? targets)];
  const timer = setInterval(() => options.onProgress?.(statuses), 2000);
  const started = Date.now();
  try {
    await Promise.all(Array.from({ length: slots }, async () => {
      while (queue.length && !stop.stopped) {
        await runTarget(queue.shift(), { ...options, statuses, stop, seconds: perTarget, outDir: options.store.dir });
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

module.exports = { runJazzer, spawnTarget, targets, defaultWorkDir, availableCores: () => os.availableParallelism?.() ?? os.cpus().length };
