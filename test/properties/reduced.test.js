'use strict';
// What a fuzzing run saves is reduced: every finding whose reduction
// finished is 1-minimal (no one-step reduction keeps its difference) and is
// no pairing of causes, as scripts/check-minimal.js checks it by trying each
// one-step reduction again in fresh workers.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { cli, runNode } = require('../fixtures/helpers');
const { FindingStore } = require('../../harness/findings/recorder');

describe('reduced findings', function () {
  this.timeout(180_000);
  let scratch;
  before(function () {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-reduced-'));
  });
  after(function () {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('saves 1-minimal inputs from a fast-check run, js against native', async function () {
    const out = path.join(scratch, 'f');
    const { code, stdout } = await cli(['fuzz', '--engine', 'fast-check', '--property', 'value', '--seconds', '15',
      '--seed', '7', '--out', out, '--work', path.join(scratch, 'w')]);
    assert.equal(code, 1, stdout);
    const metas = FindingStore.list(out).map((folder) => FindingStore.read(folder));
    const reduced = metas.filter((m) => m.reduction?.status === 'reduced');
    assert.ok(reduced.length >= 3, JSON.stringify(metas.map((m) => [m.signature, m.reduction])));
    assert.ok(reduced.some((m) => m.reduction.steps > 0));
    // Listed with how far each was reduced.
    assert.match(stdout, /\[fast-check, met \d+×, reduced, /);
    const check = await runNode(process.execPath, [path.join(__dirname, '../../scripts/check-minimal.js'),
      '--allow-unreduced', out]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.equal((check.stdout.match(/^ok {3}.*1-minimal/mg) ?? []).length, reduced.length, check.stdout);
  });
});
