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
const { validateXML } = require('xmllint-wasm');

const root = path.join(__dirname, '..', '..');
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
  const validate = ajv.compile(require('../schemas/sarif-2.1.0-rtm.5.json'));
  return validate(JSON.parse(text)) ? [] : validate.errors;
}

// libxml2's own schema validation, built to WebAssembly: no xmllint binary needed.
async function validateJunit(file) {
  const result = await validateXML({
    xml: { fileName: path.basename(file), contents: fs.readFileSync(file, 'utf8') },
    schema: fs.readFileSync(path.join(__dirname, '..', 'schemas', 'junit.xsd'), 'utf8'),
  });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
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

  it('fails on the pinned 26.12.1 and lists its real differences, each with a repro', function () {
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
      assert.match(s, /^Replay: `npx ipcfuzz diff /m);
      assert.match(s, /repro\.js/);
    }
    assert.ok(summary.length < 60_000);
  });

  it('writes JUnit XML and SARIF that validate against their schemas', async function () {
    assert.deepEqual(await validateJunit(path.join(dir, 'first', 'junit.xml')), []);
    assert.deepEqual(validateSarif(first.read('results.sarif')), []);
    const sarif = JSON.parse(first.read('results.sarif'));
    const junit = first.read('junit.xml');
    assert.equal(sarif.runs[0].results.length, (first.stdout.match(/^ {2}\S/gm) ?? []).length);
    assert.match(junit, /<failure message="[^"]*crash\/serialize\/b:crash SIGSEGV/);
    // A broken file does not validate: the checks can fail.
    const broken = path.join(dir, 'broken.xml');
    fs.writeFileSync(broken, junit.replace(/tests="\d+"/, 'tests="many"'));
    assert.notDeepEqual(await validateJunit(broken), []);
    assert.notDeepEqual(validateSarif(first.read('results.sarif').replace('"level": "error"', '"level": "fatal"')), []);
  });

  it('passes once every difference it found is in the known-differences file', function () {
    const known = path.join(dir, 'known.json');
    const emitted = gate(path.join(dir, 'emit'), '--emit-known', known);
    assert.equal(emitted.status, 1);
    // Each accepted finding is scoped to the codec pair and build it was found on.
    const defaults = require('../../harness/oracle/known').loadKnown().length;
    const added = JSON.parse(fs.readFileSync(known, 'utf8')).entries.slice(defaults);
    assert.ok(added.length >= 3);
    for (const e of added) assert.deepEqual(e.scope, { a: 'js', b: 'native', node: '>=26.12.1' });
    const second = gate(path.join(dir, 'second'), '--known', known);
    assert.equal(second.status, 0, second.stdout);
    assert.match(second.read('summary.md'), /^## ✅ ipcfuzz gate: no new difference/);
  });

  // The baseline of the native codec, widened to a mutant built on it with one defect more: the causes
  // it lists stay known there, and the one it does not still fails the gate.
  it('still fails on a cause the baseline does not list', function () {
    const known = JSON.parse(fs.readFileSync(path.join(dir, 'known.json'), 'utf8'));
    for (const e of known.entries) e.scope = { ...e.scope, b: ['native', 'builtin', 'buffer-as-uint8array.js'] };
    const widened = path.join(dir, 'widened.json');
    fs.writeFileSync(widened, JSON.stringify(known));
    const mutant = path.join(root, 'harness', 'mutants', 'buffer-as-uint8array.js');
    const run = gate(path.join(dir, 'widened'), '--b', mutant, '--known', widened);
    assert.equal(run.status, 1, run.stdout);
    const signatures = [...run.stdout.matchAll(/^ {4}(\S+\/\S+\/.*?) {2}\(/gm)].map((m) => m[1]);
    // Its Buffers decoded as Uint8Arrays, in every check that decodes one: none of the baseline's causes.
    assert.ok(signatures.some((s) => s.startsWith('classification/')), signatures.join('\n'));
    const listed = new Set(known.entries.map((e) => e.match?.signature).filter(Boolean));
    assert.deepEqual(signatures.filter((s) => listed.has(s)), []);
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

  // The default entries are recorded for js against native: a gate of native
  // against an adapter neither applies nor judges them.
  it('reports no stale entry for a codec pair the known entries were not recorded for', function () {
    const adapter = path.join(root, 'test', 'fixtures', 'wrapped-js.js');
    const run = gate(path.join(dir, 'pair'), '--a', 'native', '--b', adapter);
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    assert.match(run.stdout, / 0 stale known entries/);
    assert.doesNotMatch(run.stdout, /stale known entry:/);
    assert.doesNotMatch(run.read('summary.md'), /Stale known differences/);
    const outOfScope = /<skipped message="out of scope: recorded for js ~ native\|builtin[^"]*"/g;
    const skipped = run.read('junit.xml').match(outOfScope) ?? [];
    assert.equal(skipped.length, require('../../harness/oracle/known').loadKnown().length);
  });

  it('fails against a mutant adapter, naming its bug', function () {
    const mutant = path.join(root, 'harness', 'mutants', 'wrong-view-index.js');
    const run = gate(path.join(dir, 'mutant'), '--b', mutant);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /bytes\/serialize\/host\.index/);
    assert.match(run.read('summary.md'), /wrong-view-index/);
  });

  it('runs codec a in the base binary and codec b in the head binary', function () {
    const run = gate(path.join(dir, 'base'), '--base-node', '26.3.1', '--node', '26.12.1',
      '--a', 'builtin', '--b', 'builtin');
    assert.equal(run.status, 1, run.stderr);
    const summary = run.read('summary.md');
    assert.match(summary, /Codec \*\*a\*\*: `builtin` in node v26\.3\.1/);
    assert.match(summary, /Codec \*\*b\*\*: `builtin` in node v26\.12\.1/);
    assert.match(summary, /crash\/serialize\/b:crash SIGSEGV/);
  });
});

// summary.md of many findings, from finding folders written by the real
// FindingStore for real check results: it must fit a PR comment.
describe('gate summary.md', function () {
  this.timeout(120_000);
  const { FindingStore } = require('../../harness/findings/recorder');
  const { summaryMarkdown, kLimit } = require('../../cli/gate/markdown');
  const { useSession, fixture, frame } = require('../fixtures/helpers');
  const session = useSession('native');
  let dir;
  let findings;
  let sides;

  before(async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-summary-'));
    const byteLength = await session.check('value', { module: fixture('u8-bytelength.js') });
    // A long stream: its annotated dump runs to hundreds of lines.
    const longFrame = frame(`ff0f 22 8008 ${'61'.repeat(1024)}`);
    const long = await session.check('stream', { bytes: longFrame.repeat(4), chunks: [] });
    const { Session } = require('../../harness/run/session');
    const probe = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
    sides = probe.sides;
    probe.close();
    const store = new FindingStore(path.join(dir, 'findings'));
    findings = Array.from({ length: 300 }, (_, i) => {
      const difference = { ...byteLength.differences[0], signature: `${byteLength.differences[0].signature}.${i}` };
      const result = { ...(i % 2 ? byteLength : long), differences: [difference] };
      const { folder } = store.record(result, difference, { sides, origin: { stage: 'properties' } });
      return { difference, folder, stage: 'properties' };
    });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const summary = (n) => summaryMarkdown({
    verdict: 'fail', findings: findings.slice(0, n), seconds: 12, known: {}, stale: [],
    sides: { a: { codec: 'js', version: 'v26.12.1' }, b: { codec: 'native', version: 'v26.12.1' } },
    stages: [{
      name: 'properties (fixed seed)', seconds: 10,
      cases: findings.slice(0, n).map(({ difference: { signature } }) =>
        ({ name: signature, failure: { message: signature } })),
    }],
  });

  it('stays under 60,000 characters for 30 findings, each with its tiers, excerpt and replay', function () {
    const text = summary(30);
    assert.ok(text.length < 60_000 && kLimit <= 60_000, `${text.length} characters`);
    const sections = text.split(/^### \d+\. /m).slice(1);
    // Excerpts shrink so that all 30 are shown.
    assert.equal(sections.length, 30);
    for (const s of sections) {
      assert.match(s, /^\*\*bytes\*\* \(found by properties\): serialize: frames differ/m);
      assert.match(s, /bytes\s+DIFF/);
      assert.match(s, /outcomes \(a │ b\)/);
      assert.match(s, /^Replay: `npx ipcfuzz diff --(value|stream) /m);
      assert.match(s, /node --expose-internals findings\/[^/]+\/repro\.js/);
      assert.doesNotMatch(s, /const harness = /, 'the whole repro stays in the artifacts');
    }
    // A findings' long dump is cut, and says where the rest is.
    assert.match(text, /… \d+ more lines in report\.txt/);
  });

  it('stays under 60,000 characters for 300 findings', function () {
    const text = summary(300);
    assert.ok(text.length < 60_000, `${text.length} characters`);
    // Whatever is not shown is counted, never silently dropped.
    const shown = text.split(/^### \d+\. /m).length - 1;
    assert.equal(Number(/^(\d+) more findings not shown here/m.exec(text)?.[1]), 300 - shown);
    assert.match(text, /### What ran/);
  });
});
