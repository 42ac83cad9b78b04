'use strict';
// The platform rules `make oss-fuzz-check` applies: ClusterFuzz's discovery
// of fuzz targets, the GLIBC/GLIBCXX needs of ELF objects, the first line of
// the crash a difference raises, and where ClusterFuzzLite's actions read
// project.yaml in a workflow.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { whyNotTarget, discoverTargets } = require('../../scripts/clusterfuzz-discovery');
const { elfMachine, versionNeeds, highestNeed, compareVersions } = require('../../scripts/elf-version-needs');
const { headline, headlineIn } = require('../../fuzzers/jazzer/crash-line');
const { spawnSync } = require('node:child_process');
const yaml = require('js-yaml');
const { checkWorkflow } = require('../../scripts/cflite-workflow');

const root = path.join(__dirname, '..', '..');

describe('OSS-Fuzz rules', function () {
  let dir;
  const write = (name, text, mode = 0o755) => {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { mode });
    return file;
  };
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-oss-fuzz-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('discovery as ClusterFuzz does it', function () {
    const marked = '#!/bin/sh\n# LLVMFuzzerTestOneInput for fuzzer detection.\nexec true\n';
    it('takes an executable with a valid name, no extension and the marker bytes', function () {
      assert.equal(whyNotTarget(write('ipcfuzz_value', marked)), null);
      assert.equal(whyNotTarget(write('driver', 'int LLVMFuzzerRunDriver;')), null);
      assert.equal(whyNotTarget(write('grpc@v1.2', marked)), null);  // with @, dots are no extension
    });
    it('takes *_fuzzer by its name alone', function () {
      assert.equal(whyNotTarget(write('codec_fuzzer', '#!/bin/sh\n')), null);
    });
    it('leaves out unmarked wrappers, other extensions, bad names, the blocklist, non-executables', function () {
      const unmarked = '#!/bin/sh\nexec node launch.js\n';
      assert.match(whyNotTarget(write('ipcfuzz_frame', unmarked)), /neither LLVMFuzzerTestOneInput/);
      assert.match(whyNotTarget(write('ipcfuzz_value.options', marked)), /extension \.options/);
      assert.match(whyNotTarget(write('fuzz.sh', marked)), /extension \.sh/);
      assert.match(whyNotTarget(write('bad name', marked)), /does not match/);
      assert.match(whyNotTarget(write('jazzer_driver', marked)), /blocklisted/);
      assert.match(whyNotTarget(write('plain', marked, 0o644)), /not executable/);
      assert.match(whyNotTarget(dir), /not a regular file/);
    });
    it('walks every folder below, except __extra_build', function () {
      write('deep/er/inner_target', marked);
      write('__extra_build/hidden_target', marked);
      const found = discoverTargets(dir).map((f) => path.relative(dir, f));
      assert.ok(found.includes(path.join('deep', 'er', 'inner_target')), found.join());
      assert.ok(!found.some((f) => f.includes('__extra_build')), found.join());
      assert.ok(!found.includes('ipcfuzz_frame'));
    });
  });

  describe('GLIBC needs of ELF objects', function () {
    it('reads the version needs of the running node, none newer than this system has', function () {
      if (os.arch() === 'x64') assert.equal(elfMachine(process.execPath), 'x86-64');
      const needs = versionNeeds(process.execPath);
      assert.ok(needs.some((n) => n.library === 'libc.so.6' && n.version.startsWith('GLIBC_')), JSON.stringify(needs));
      const glibc = highestNeed(needs, 'GLIBC_');
      assert.ok(compareVersions(glibc, process.report.getReport().header.glibcVersionRuntime) <= 0, glibc);
    });
    it('compares versions by number and leaves weak needs out', function () {
      assert.ok(compareVersions('2.9', '2.10') < 0);
      assert.ok(compareVersions('3.4.30', '3.4.4') > 0);
      const needs = [{ version: 'GLIBC_2.34', weak: false }, { version: 'GLIBC_2.38', weak: true },
        { version: 'GLIBC_PRIVATE', weak: false }, { version: 'GLIBCXX_3.4.30', weak: false }];
      assert.equal(highestNeed(needs, 'GLIBC_'), '2.34');
      assert.equal(highestNeed(needs, 'GLIBCXX_'), '3.4.30');
      assert.equal(highestNeed([], 'GLIBC_'), null);
    });
    it('tells ELF files from others', function () {
      assert.equal(elfMachine(write('script', '#!/bin/sh\n')), null);
    });
  });

  it('finds the first line a difference raises in a Jazzer.js report', function () {
    const difference = { tier: 'crash', signature: 'crash/serialize/b:crash SIGSEGV' };
    const report = `INFO: Seed: 1\n==42== Uncaught Exception: Error: ${headline(difference)}\n` +
      `  ${difference.signature}: serialize: x\n    at Object.crash/serialize/b:crash SIGSEGV (target.js:80:46)\n`;
    assert.deepEqual(headlineIn(report), { text: headline(difference), ...difference });
    assert.equal(headlineIn('==42== Uncaught Exception: Error: something else\n'), null);
  });

  describe('ClusterFuzzLite workflows', function () {
    const workflowFile = path.join(root, '.github', 'workflows', 'cflite_pr.yml');
    const current = fs.readFileSync(workflowFile, 'utf8');
    const projectYaml = fs.readFileSync(path.join(root, '.clusterfuzzlite', 'project.yaml'), 'utf8');
    const baseOs = /^\s*base_os_version\s*:\s*(\S+)/m.exec(projectYaml)[1];
    const isCheckout = (step) => /^actions\/checkout@/.test(step.uses ?? '');
    // The workflow with its job's steps changed by `edit`, as YAML text.
    const edited = (edit) => {
      const workflow = yaml.load(current);
      for (const job of Object.values(workflow.jobs)) job.steps = edit(job.steps);
      return yaml.dump(workflow);
    };
    const withoutCheckout = edited((steps) => steps.filter((step) => !isCheckout(step)));
    const verdicts = (text, os = baseOs) => checkWorkflow(text, os).map((r) => r.ok);

    it('passes the workflow: it checks the repository out before build_fuzzers and run_fuzzers', function () {
      assert.equal(baseOs, 'ubuntu-24-04');
      const results = checkWorkflow(current, baseOs);
      assert.deepEqual(results.map((r) => r.line.match(/(build|run)_fuzzers/)[0]), ['build_fuzzers', 'run_fuzzers']);
      assert.deepEqual(results.map((r) => r.ok), [true, true], results.map((r) => r.line).join('\n'));
    });

    it('fails the workflow without its checkout, as it was, naming where project.yaml is read', function () {
      const results = checkWorkflow(withoutCheckout, baseOs);
      assert.deepEqual(results.map((r) => r.ok), [false, false]);
      assert.match(results[0].line, new RegExp('^jobs\\.pr: build_fuzzers reads base_os_version from ' +
        '\\$GITHUB_WORKSPACE/\\.clusterfuzzlite/project\\.yaml, and no actions/checkout step before it ' +
        '.*legacy Ubuntu 20\\.04'));
    });

    it('counts only a checkout of this repository, before the step, at its project-src-path', function () {
      const checkoutAt = (checkout, i) => edited((steps) => {
        const rest = steps.filter((step) => !isCheckout(step));
        return [...rest.slice(0, i), checkout, ...rest.slice(i)];
      });
      const plain = { uses: 'actions/checkout@v4' };
      assert.deepEqual(verdicts(checkoutAt(plain, 1)), [false, true], 'after build_fuzzers');
      assert.deepEqual(verdicts(checkoutAt({ ...plain, with: { repository: 'google/oss-fuzz' } }, 0)), [false, false]);
      assert.deepEqual(verdicts(checkoutAt({ ...plain, with: { path: 'src' } }, 0)), [false, false], 'elsewhere');
      const inSrc = (step) => ({ ...step, with: { ...step.with, 'project-src-path': 'src' } });
      const srcPath = edited((steps) => [{ ...plain, with: { path: './src/' } },
        ...steps.filter((step) => !isCheckout(step)).map(inSrc)]);
      assert.deepEqual(verdicts(srcPath), [true, true]);
    });

    it('needs no checkout for the legacy images', function () {
      assert.deepEqual(verdicts(withoutCheckout, 'legacy'), [true, true]);
    });

    it('oss-fuzz-check.js --workflow: exit 1 on the workflow without its checkout, 0 on it', function () {
      const repo = fs.mkdtempSync(path.join(dir, 'repo-'));
      fs.mkdirSync(path.join(repo, '.github', 'workflows'), { recursive: true });
      fs.cpSync(path.join(root, '.clusterfuzzlite'), path.join(repo, '.clusterfuzzlite'), { recursive: true });
      const run = (text) => {
        const file = path.join(repo, '.github', 'workflows', 'cflite_pr.yml');
        fs.writeFileSync(file, text);
        return spawnSync(process.execPath, [path.join(root, 'scripts', 'oss-fuzz-check.js'), '--workflow', file],
          { encoding: 'utf8' });
      };
      const before = run(withoutCheckout);
      assert.equal(before.status, 1, before.stdout + before.stderr);
      assert.match(before.stdout, /^oss-fuzz-check: FAIL cflite_pr\.yml: jobs\.pr: build_fuzzers /m);
      const after = run(current);
      assert.equal(after.status, 0, after.stdout + after.stderr);
      assert.match(after.stdout, /^oss-fuzz-check: all checks passed$/m);
    });
  });
});
