'use strict';
// Checks a built $OUT by the rules of OSS-Fuzz and ClusterFuzzLite instead of
// assuming them (scripts/oss-fuzz-check.sh builds it first):
// 1. the runner image each project.yaml asks for, and Dockerfiles on the
//    matching builder tag; each workflow that runs the ClusterFuzzLite
//    actions checks the repository out where they read project.yaml
//    (cflite-workflow.js);
// 2. discovery as ClusterFuzz does it, over everything in $OUT: every target
//    the build wrote is found, and nothing else;
// 3. every ELF object in $OUT needs no newer GLIBC/GLIBCXX than the runner has;
// 4. each target run as the platform runs it: start-up (bad_build_check's
//    -runs=4), fuzzing with -max_total_time, -runs=0 over its seed corpus, a
//    saved testcase reproduced with -runs=100, and for the Jazzer.js targets a
//    difference raised as a crash (IPCFUZZ_ON_DIFFERENCE=throw, a mutant
//    adapter as codec b) reproduced, then minimized with -minimize_crash=1 to an
//    input that still raises the same first line.
// Prints what it checked; exits 1 on any failure, 2 on bad usage.
//   node scripts/oss-fuzz-check.js --out DIR --work DIR --project DIR... [--workflow FILE...] [--seconds N]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { discoverTargets, whyNotTarget, walk } = require('./clusterfuzz-discovery');
const { elfMachine, versionNeeds, highestNeed, compareVersions } = require('./elf-version-needs');
const { catalog } = require('../harness/mutants/catalog');
const { headlineIn } = require('../fuzzers/jazzer/crash-line');
const { trackGroup, killGroup } = require('../harness/base/process-groups');
const { checkWorkflow } = require('./cflite-workflow');

// What the runner images have (Ubuntu's libc6 and libstdc++6 of each release);
// a project.yaml without base_os_version runs on the legacy image, 20.04.
const runners = {
  legacy: { glibc: '2.31', glibcxx: '3.4.28', ubuntu: '20.04' },
  'ubuntu-20-04': { glibc: '2.31', glibcxx: '3.4.28', ubuntu: '20.04' },
  'ubuntu-24-04': { glibc: '2.39', glibcxx: '3.4.33', ubuntu: '24.04' },
};

const failures = [];
const say = (line) => console.log(`oss-fuzz-check: ${line}`);
function check(ok, line) {
  say(`${ok ? 'ok  ' : 'FAIL'} ${line}`);
  if (!ok) failures.push(line);
  return ok;
}

// OSS-Fuzz reads base_os_version with this regex (infra/common_utils.py), as does ClusterFuzzLite.
function baseOsVersion(projectDir) {
  const yaml = fs.readFileSync(path.join(projectDir, 'project.yaml'), 'utf8');
  return /^\s*base_os_version\s*:\s*(\S+)/m.exec(yaml)?.[1] ?? 'legacy';
}

function runnerOf(projectDir) {
  const version = baseOsVersion(projectDir);
  const runner = runners[version];
  check(Boolean(runner), `${projectDir}/project.yaml: base_os_version ${version}`);
  const dockerfile = fs.readFileSync(path.join(projectDir, 'Dockerfile'), 'utf8');
  for (const [, image, tag] of dockerfile.matchAll(/^FROM\s+(gcr\.io\/oss-fuzz-base\/[\w-]+)(?::(\S+))?/gm)) {
    const wanted = version === 'legacy' ? undefined : version;
    check(tag === wanted, `${projectDir}/Dockerfile: FROM ${image}${tag ? `:${tag}` : ''} ` +
      `(${wanted ? `the ${wanted} builder` : 'the legacy builder'} matches the runner)`);
  }
  return { version, ...(runner ?? runners.legacy) };
}

// A workflow of the repository (.github/workflows/) against its .clusterfuzzlite/project.yaml.
function checkWorkflowFile(file) {
  const project = path.join(path.dirname(file), '..', '..', '.clusterfuzzlite');
  const results = checkWorkflow(fs.readFileSync(file, 'utf8'), baseOsVersion(project));
  for (const { ok, line } of results) check(ok, `${path.basename(file)}: ${line}`);
  return results.length;
}

// The targets the build meant: executable files at the top of $OUT with no extension.
function builtTargets(out) {
  return fs.readdirSync(out).filter((name) => !path.extname(name))
    .map((name) => path.join(out, name))
    .filter((file) => fs.statSync(file).isFile() && fs.statSync(file).mode & 0o111).sort();
}

function checkGlibc(out, runner) {
  for (const file of [...walk(out)]) {
    const machine = fs.statSync(file).isFile() ? elfMachine(file) : null;
    if (machine !== 'x86-64') {
      if (machine) say(`     ${path.relative(out, file)}: ${machine}, never loaded on the x86-64 runners`);
      continue;
    }
    const needs = versionNeeds(file);
    const glibc = highestNeed(needs, 'GLIBC_');
    const glibcxx = highestNeed(needs, 'GLIBCXX_');
    const within = (need, has) => !need || compareVersions(need, has) <= 0;
    const ok = within(glibc, runner.glibc) && within(glibcxx, runner.glibcxx);
    const weak = needs.filter((n) => n.weak).map((n) => n.version);
    check(ok, `${path.relative(out, file)}: needs GLIBC ${glibc ?? '-'}, GLIBCXX ${glibcxx ?? '-'}` +
      `${weak.length ? ` (weak, optional: ${weak.join(', ')})` : ''}; runner has ${runner.glibc}, ${runner.glibcxx}`);
  }
}

// Runs a target in its own process group, killed whole after `seconds` or
// once it has exited (harness/base/process-groups.js), with a temp folder of its own,
// removed after that kill: the kill leaves what the group made there (the
// synchronous workers' FIFO folders) to this process.
function runTarget(target, args, { env = {}, seconds = 120 } = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-oss-run-'));
  return new Promise((resolve) => {
    const child = spawn(target, args,
      { env: { ...process.env, TMPDIR: tmp, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    trackGroup(child, () => fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 }));
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const timer = setTimeout(() => killGroup(child.pid), seconds * 1000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, output, firstLine: headlineIn(output)?.text ?? null });
    });
  });
}

function describe(run) {
  if (run.firstLine) return `raised "${run.firstLine}"`;
  const done = /Done \d+ runs/.exec(run.output);
  return `exit ${run.status ?? run.signal}${done ? `, ${done[0]}` : ''}`;
}
const tail = (run) => run.output.trim().split('\n').slice(-12).map((l) => `    ${l}`).join('\n');

// libFuzzer flags from NAME.options, as run_fuzzer passes them.
function optionFlags(out, name) {
  const file = path.join(out, `${name}.options`);
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').map((l) => /^\s*(\w+)\s*=\s*(\S+)/.exec(l)).filter(Boolean)
    .map(([, key, value]) => `-${key}=${key === 'dict' ? path.join(out, value) : value}`);
}

function unzipSeeds(out, work, name) {
  const dir = path.join(work, `seeds-${name}`);
  fs.mkdirSync(dir, { recursive: true });
  const zip = path.join(out, `${name}_seed_corpus.zip`);
  if (check(fs.existsSync(zip), `${name}: has ${path.basename(zip)}`)) {
    spawnSync('unzip', ['-q', '-o', zip, '-d', dir], { stdio: 'inherit' });
  }
  return dir;
}

// A finding of the codec under test is what a target is there to raise: a run
// passes when it ends cleanly or on an ipcfuzz difference, fails on anything else.
const ranOrFound = (run) => run.status === 0 || run.firstLine !== null;

async function checkTarget(out, work, target, seconds) {
  const name = path.basename(target);
  const flags = optionFlags(out, name);
  const seeds = unzipSeeds(out, work, name);
  const empty = fs.mkdtempSync(path.join(work, `empty-${name}-`));
  const startup = await runTarget(target, ['-seed=1337', '-runs=4', ...flags, empty]);
  check(/Done 4 runs/.test(startup.output) || startup.firstLine !== null,
    `${name}: starts (-runs=4): ${describe(startup)}`) || console.log(tail(startup));

  const corpus = fs.mkdtempSync(path.join(work, `corpus-${name}-`));
  const fuzz = await runTarget(target,
    [`-max_total_time=${seconds}`, '-timeout=25', '-rss_limit_mb=2560', ...flags, corpus, seeds],
    { seconds: seconds + 120 });
  check(ranOrFound(fuzz), `${name}: fuzzes (-max_total_time=${seconds}): ${describe(fuzz)}`) || console.log(tail(fuzz));

  const replay = await runTarget(target, ['-runs=0', ...flags, seeds], { seconds: 600 });
  check(ranOrFound(replay), `${name}: runs its seed corpus (-runs=0): ${describe(replay)}`) ||
    console.log(tail(replay));

  const testcase = fs.readdirSync(seeds).sort().map((f) => path.join(seeds, f)).find((f) => fs.statSync(f).isFile());
  if (testcase) {
    const again = await runTarget(target, ['-runs=100', testcase]);
    check(ranOrFound(again),
      `${name}: reproduces a saved testcase (-runs=100 ${path.basename(testcase)}): ${describe(again)}`) ||
      console.log(tail(again));
  }
  if (fs.existsSync(path.join(out, 'ipcfuzz', 'fuzzers', 'jazzer', `${name.replace(/^ipcfuzz_/, '')}.js`))) {
    await checkDifferenceCrash(out, work, target, seeds, flags);
  }
}

// A difference raised as a crash: found on the seed corpus with a mutant
// adapter derived from the js codec as codec b, reproduced from the saved
// testcase, minimized, and the minimized input raises the same first line.
async function checkDifferenceCrash(out, work, target, seeds, flags) {
  const name = path.basename(target);
  const mutants = Object.entries(catalog).filter(([, m]) => m.base === 'js').map(([mutant]) => mutant);
  for (const mutant of mutants) {
    const env = { IPCFUZZ_B: path.join(out, 'ipcfuzz', 'harness', 'mutants', `${mutant}.js`) };
    const prefix = path.join(work, `${name}-${mutant}-`);
    const found = await runTarget(target, ['-runs=0', `-artifact_prefix=${prefix}`, ...flags, seeds],
      { env, seconds: 600 });
    const saved = fs.readdirSync(work).map((f) => path.join(work, f)).find((f) => f.startsWith(prefix));
    if (!found.firstLine || !saved) continue;
    say(`${name}: with the mutant ${mutant} as codec b the seed corpus raises "${found.firstLine}"`);
    const again = await runTarget(target, ['-runs=100', saved], { env });
    check(again.status !== 0 && again.firstLine === found.firstLine,
      `${name}: the saved crash reproduces: ${describe(again)}`) || console.log(tail(again));
    await checkMinimized(target, saved, found.firstLine, { env, work, flags });
    return;
  }
  check(false, `${name}: no mutant adapter raised a difference on the seed corpus`);
}

// Minimizes a saved crash with -minimize_crash=1 and runs the result: it
// must raise the same first line. libFuzzer's minimizer keeps what a step's
// process wrote last as the crashing unit. A Jazzer.js process in such a
// step goes on after an exception, writing the unit of each, then dies of a
// V8 check failure (node->IsInUse()) in Jazzer.js's native loop, and
// libFuzzer's signal handler writes the unit of that moment: now and then an
// empty one, which raises nothing (twice in two runs of the checks, for
// different targets). A platform keeps a minimized input only when it still
// reproduces; so does this check, minimizing again from the saved crash, up
// to kMinimizeTries times, and saying each time it did.
const kMinimizeTries = 3;
async function checkMinimized(target, saved, firstLine, { env, work, flags }) {
  const name = path.basename(target);
  const minimized = path.join(work, `${name}-minimized`);
  for (let attempt = 1; ; attempt++) {
    fs.rmSync(minimized, { force: true });
    const minimize = await runTarget(target, ['-minimize_crash=1', '-runs=1000', '-max_total_time=120',
      `-exact_artifact_path=${minimized}`, ...flags, saved], { env, seconds: 300 });
    const ended = minimize.status === 0 && fs.existsSync(minimized);
    if (!check(ended, `${name}: -minimize_crash=1 ends: ${describe(minimize)}`)) {
      console.log(tail(minimize));
      return;
    }
    const small = await runTarget(target, ['-runs=100', minimized], { env });
    const sizes = `minimized from ${fs.statSync(saved).size} to ${fs.statSync(minimized).size} bytes`;
    if (small.firstLine !== firstLine && attempt < kMinimizeTries) {
      say(`     ${name}: ${sizes}, which does not raise it (${describe(small)}): minimizing again`);
      continue;
    }
    check(small.firstLine === firstLine, `${name}: ${sizes}, still raises the same first line: ${describe(small)}`) ||
      console.log(tail(small));
    return;
  }
}

async function main() {
  let values;
  try {
    ({ values } = parseArgs({ options: { out: { type: 'string' }, work: { type: 'string' },
      project: { type: 'string', multiple: true }, workflow: { type: 'string', multiple: true, default: [] },
      seconds: { type: 'string', default: '20' } } }));
    const build = [values.out, values.work, values.project].filter(Boolean).length;
    // The workflows alone, before a build (oss-fuzz-check.sh), or a build and its projects.
    if (build < 3 && (build > 0 || !values.workflow.length)) throw new Error('missing flags');
    if (!/^\d+$/.test(values.seconds)) throw new Error(`--seconds ${values.seconds} is not a whole number`);
  } catch (err) {
    console.error(`oss-fuzz-check: ${err.message.split('\n')[0]}; usage: --workflow FILE... | ` +
      '--out DIR --work DIR --project DIR... [--workflow FILE...] [--seconds N]');
    return 2;
  }
  const steps = values.workflow.reduce((sum, file) => sum + checkWorkflowFile(file), 0);
  if (values.workflow.length) say(`workflows: ${steps} ClusterFuzzLite step(s) in ${values.workflow.length} file(s)`);
  if (!values.out) return report();
  const out = path.resolve(values.out);
  const work = path.resolve(values.work);

  // The strictest runner any of the projects asks for.
  const runner = values.project.map(runnerOf).sort((a, b) => compareVersions(a.glibc, b.glibc))[0];
  say(`runner: Ubuntu ${runner.ubuntu}, glibc ${runner.glibc}, GLIBCXX ${runner.glibcxx}`);

  const built = builtTargets(out);
  const discovered = discoverTargets(out);
  for (const file of built) {
    check(discovered.includes(file), `${path.basename(file)}: ${discovered.includes(file) ? 'discovered' :
      `not discovered: ${whyNotTarget(file)}`}`);
  }
  for (const file of discovered.filter((f) => !built.includes(f))) {
    check(false, `${path.relative(out, file)}: discovered, but not a target`);
  }
  say(`targets ClusterFuzz finds in $OUT: ${discovered.map((f) => path.relative(out, f)).join(', ') || 'none'}`);

  checkGlibc(out, runner);

  for (const target of discovered) await checkTarget(out, work, target, Number(values.seconds));
  return report();
}

function report() {
  say(failures.length ? `${failures.length} failure(s):\n${failures.map((f) => `  ${f}`).join('\n')}` :
    'all checks passed');
  return failures.length ? 1 : 0;
}

main().then((code) => { process.exitCode = code; });
