'use strict';
// ipcfuzz gate end to end, without the fuzzing stage, so only the
// deterministic stages run and two runs agree: its verdicts and exit codes,
// and its JUnit and SARIF files against their schemas.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const Ajv = require('ajv-draft-04');
const addFormats = require('ajv-formats');

const root = path.join(__dirname, '..');
const cli = path.join(root, 'bin', 'ipcfuzz.js');

function gate(out, ...args) {
  const run = spawnSync(process.execPath, [cli, 'gate', '--budget', '600', '--no-fuzz', '--out', out, ...args],
    { encoding: 'utf8', timeout: 300_000 });
  const read = (f) => fs.readFileSync(path.join(out, f), 'utf8');
  return { ...run, read };
}

function validateSarif(text) {
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  addFormats(ajv);
  const validate = ajv.compile(require('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'));
  return validate(JSON.parse(text)) ? [] : validate.errors;
}

function validateJunit(file) {
  const run = spawnSync('xmllint', ['--noout', '--schema', path.join(__dirname, 'schemas', 'junit.xsd'), file], { encoding: 'utf8' });
  if (run.error?.code === 'ENOENT') throw new Error('xmllint is missing: apt-get install libxml2-utils');
  return run.status === 0 ? [] : run.stderr.trim().split('\n');
}

describe('ipcfuzz gate', function () {
  this.timeout(600_000);
  let dir;
  let first;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-gate-'));
    first = gate(path.join(dir, 'first'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fails on the pinned 26.10.0 and lists its real differences, each with a repro', function () {
    assert.equal(first.status, 1, first.stderr);
    assert.match(first.stdout, /FAIL: \d+ new difference/);
    const summary = first.read('summary.md');
    assert.match(summary, /^## ❌ ipcfuzz gate/);
    assert.match(summary, /crash\/serialize\/b:crash SIGSEGV/);
    assert.match(summary, /bytes\/serialize\/host\.byteLength/);
    const sections = summary.split(/^### \d+\. /m).slice(1);
    assert.ok(sections.length >= 3);
    for (const s of sections) {
      assert.match(s, /outcomes \(a │ b\)/);
      assert.match(s, /Standalone repro/);
    }
  });

  it('writes JUnit XML and SARIF that validate against their schemas', function () {
    assert.deepEqual(validateJunit(path.join(dir, 'first', 'junit.xml')), []);
    assert.deepEqual(validateSarif(first.read('results.sarif')), []);
    const sarif = JSON.parse(first.read('results.sarif'));
    const junit = first.read('junit.xml');
    assert.equal(sarif.runs[0].results.length, (first.stdout.match(/^ {2}\S/gm) ?? []).length);
    assert.match(junit, /<failure message="[^"]*crash\/serialize\/b:crash SIGSEGV/);
    // A broken file does not validate: the checks can fail.
    const broken = path.join(dir, 'broken.xml');
    fs.writeFileSync(broken, junit.replace(/tests="\d+"/, 'tests="many"'));
    assert.notDeepEqual(validateJunit(broken), []);
    assert.notDeepEqual(validateSarif(first.read('results.sarif').replace('"level": "error"', '"level": "fatal"')), []);
  });

  it('passes once every difference it found is in the known-differences file', function () {
    const known = path.join(dir, 'known.json');
    const emitted = gate(path.join(dir, 'emit'), '--emit-known', known);
    assert.equal(emitted.status, 1);
    const second = gate(path.join(dir, 'second'), '--known', known);
    assert.equal(second.status, 0, second.stdout);
    assert.match(second.read('summary.md'), /^## ✅ ipcfuzz gate: no new difference/);
  });

  it('reports an entry that no longer reproduces as stale', function () {
    const known = path.join(dir, 'stale.json');
    fs.writeFileSync(known, JSON.stringify({ entries: [{
      id: 'fixed-long-ago', tier: 'bytes', match: { signature: 'bytes/serialize/tag.null' }, reason: 'no longer true',
      reproducer: { type: 'value', input: { recipe: { k: 'null' } } },
    }] }));
    const run = gate(path.join(dir, 'stale'), '--known', known);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /stale known entry: fixed-long-ago/);
    assert.match(run.read('summary.md'), /### Stale known differences[\s\S]*fixed-long-ago/);
  });

  it('fails against a mutant adapter, naming its bug', function () {
    const mutant = path.join(root, 'harness', 'mutants', 'wrong-view-index.js');
    const run = gate(path.join(dir, 'mutant'), '--b', mutant);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /bytes\/serialize\/host\.index/);
    assert.match(run.read('summary.md'), /wrong-view-index/);
  });

  it('runs codec a in the base binary and codec b in the head binary', function () {
    const run = gate(path.join(dir, 'base'), '--base-node', '26.3.1', '--node', '26.10.0', '--a', 'builtin', '--b', 'builtin');
    assert.equal(run.status, 1, run.stderr);
    const summary = run.read('summary.md');
    assert.match(summary, /Codec \*\*a\*\*: `builtin` in node v26\.3\.1/);
    assert.match(summary, /Codec \*\*b\*\*: `builtin` in node v26\.10\.0/);
    assert.match(summary, /crash\/serialize\/b:crash SIGSEGV/);
  });
});
