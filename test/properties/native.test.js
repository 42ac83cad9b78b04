'use strict';
// The properties against the real native codec of 26.12.1 (and against what
// child_process runs there, `builtin`). What they find is printed, not failed
// on: the tests hold the tool to its word instead: the native codec was
// really exercised, and every finding replays from its folder, through
// `ipcfuzz diff` and, once checked as a run checks it, through its short repro.js.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { runPair, describeFindings } = require('../../properties/helpers');
const { FindingStore } = require('../../harness/findings/recorder');
const { resolveNode } = require('../../harness/base/binaries');
const { isSharedDefect } = require('../../harness/oracle/roundtrip');
const { checkFindings } = require('../../harness/findings/reach');

const cli = path.join(__dirname, '..', '..', 'bin', 'ipcfuzz.js');

describe('properties: js against the native codec of 26.12.1', function () {
  this.timeout(240_000);
  let summary;
  let dir;

  before(async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-findings-'));
    summary = await runPair({ a: { codec: 'js' }, b: { codec: 'native' }, runs: 4000, store: new FindingStore(dir) });
    console.log(`      ${summary.runs} runs, known differences seen: ${JSON.stringify(summary.known)}`);
    for (const line of describeFindings(summary)) console.log(`      finding: ${line}`);
    await checkFindings(summary.findings.map((f) => f.folder), { build: resolveNode('26.12.1') });
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ran in a binary whose native codec is the one compared', function () {
    assert.equal(summary.sides.b.codec, 'native');
    assert.equal(summary.sides.b.info.ipcSerdes, true);
    // A run is at least two codec calls: in requests of its own, or in a batch.
    assert.ok(summary.stats.batched > 0, 'checks ran in batches');
    const calls = summary.stats.requests + 2 * summary.stats.batched;
    assert.ok(calls > summary.runs, 'every run is at least two codec calls');
  });

  it('fed malformed frames to the native decoder (known rejections were seen)', function () {
    assert.ok(summary.known['host-tag-error-code'] > 0, JSON.stringify(summary.known));
    assert.ok(summary.known['bad-view-index-error-code'] > 0, JSON.stringify(summary.known));
  });

  it('saves every finding with an input, a report and a repro that replay it', function () {
    for (const finding of summary.findings) {
      const meta = JSON.parse(fs.readFileSync(path.join(finding.folder, 'finding.json'), 'utf8'));
      assert.equal(meta.signature, finding.difference.signature);
      assert.match(fs.readFileSync(path.join(finding.folder, 'report.txt'), 'utf8'), /verdict/);
      if (finding.difference.tier === 'crash') continue;  // a crash replays below, through diff
      const repro = spawnSync(resolveNode('26.12.1'), ['--expose-internals', '--no-warnings',
        path.join(finding.folder, 'repro.js')], { encoding: 'utf8', timeout: 60_000 });
      // A defect both codecs share is no difference between them: the same as the reference, as fuzz and gate count it.
      const shared = isSharedDefect(finding.difference.signature);
      assert.equal(repro.status, shared ? 0 : 1,
        `${finding.difference.signature}: repro exited ${repro.status}\n${repro.stdout}${repro.stderr}`);
      assert.match(repro.stdout, /^ {2}Node\.js 26\.3\.1: (?!\(not recorded\))/m);
    }
  });

  it('replays every finding through ipcfuzz diff with the same signature', function () {
    for (const finding of summary.findings) {
      const meta = JSON.parse(fs.readFileSync(path.join(finding.folder, 'finding.json'), 'utf8'));
      if (meta.type === 'roundtrip') continue;  // diff runs the value check, which differs in its own way
      const args = meta.replay.replace(/^npx ipcfuzz /, '').split(' ');
      const replay = spawnSync(process.execPath, [cli, ...args, '--json'], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(replay.status, isSharedDefect(meta.signature) ? 0 : 1, `${meta.replay}\n${replay.stderr}`);
      const signatures = JSON.parse(replay.stdout).differences.map((d) => d.signature);
      assert.ok(signatures.includes(meta.signature), `${meta.signature} not in ${signatures}`);
    }
  });
});

describe('properties: js against builtin in 26.12.1', function () {
  this.timeout(120_000);

  it('runs every property and reports what it finds', async function () {
    const summary = await runPair({ a: { codec: 'js' }, b: { codec: 'builtin' }, runs: 600 });
    for (const line of describeFindings(summary)) console.log(`      finding: ${line}`);
    assert.equal(summary.runs, 600);
    assert.equal(summary.sides.b.info.builtinUsesNative, true);
  });
});
