'use strict';
// make fuzz, make properties and make gate end in one line that says
// ipcfuzz's status and what it means, not in make's "Error 1". GNU make
// itself exits 0 or 2 for a goal, whatever the status of its recipes.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { fixture } = require('../fixtures/helpers');

const root = path.join(__dirname, '..', '..');
const statusDir = path.join(root, '.ipcfuzz', 'make');

// Runs make in the repository; resolves { code, stdout, stderr, lines, pid }.
function make(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn('make', ['-s', '--no-print-directory', ...args],
      { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({
      code, stdout, stderr, lines: `${stdout}${stderr}`.trim().split('\n'), pid: child.pid,
    }));
  });
}

describe('make fuzz, properties and gate', function () {
  this.timeout(60_000);
  // The recipes with bin/ipcfuzz.js replaced, and install not remade.
  const fake = (goal, status) => make(['-o', 'install', goal, `IPCFUZZ=${process.execPath} ${fixture('fake-ipcfuzz.js')}`,
    'NATIVE_FUZZ_SECONDS=0'], { FAKE_IPCFUZZ_STATUS: String(status) });

  const meaning = {
    0: 'no new differences', 2: 'a usage or environment error, named above', 3: 'an internal error of ipcfuzz, above',
  };
  const failed = {
    fuzz: 'new differences or a crash of the C model, listed above', properties: 'new differences, listed above',
    gate: 'the gate fails: new differences or stale known entries, in gate-out/summary.md',
  };

  for (const goal of ['fuzz', 'properties', 'gate']) {
    it(`${goal}: runs ipcfuzz ${goal === 'gate' ? 'gate' : 'fuzz'} and ends in one line with its status, 0 to 3`,
      async function () {
        for (const status of [0, 1, 2, 3]) {
          const run = await fake(goal, status);
          assert.match(run.lines[0], new RegExp(`^fake ipcfuzz ${goal === 'gate' ? 'gate' : 'fuzz'} `), run.stderr);
          assert.equal(run.lines.length, 2, `${status}: ${run.lines.join('\n')}`);
          const said = `ipcfuzz ${goal}: ${status === 1 ? failed[goal] : meaning[status]}: exit ${status}`;
          if (status === 0) {
            assert.equal(run.code, 0);
            assert.equal(run.lines[1], said);
          } else {
            // make's $(error): its own exit 2, the only one GNU make has for a failed goal.
            assert.equal(run.code, 2);
            const escaped = said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            assert.match(run.lines[1], new RegExp(`^Makefile:\\d+: \\*\\*\\* ${escaped}\\. {2}Stop\\.$`));
          }
          assert.doesNotMatch(`${run.stdout}${run.stderr}`, /Error \d/);
          const left = (fs.existsSync(statusDir) ? fs.readdirSync(statusDir) : []).filter((f) => f.endsWith(`.${run.pid}`));
          assert.deepEqual(left, [], 'a status file left');
        }
      });
  }

  it('properties on a binary with differences: exit 2, the last line saying ipcfuzz exited 1', async function () {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-make-'));
    try {
      const run = await make(['-o', 'install', 'properties', 'PROPERTY_SECONDS=10', `FUZZ_OUT=${out}`]);
      assert.equal(run.code, 2, run.lines.slice(-5).join('\n'));
      assert.match(run.stdout, /\d+ new findings? in /);
      assert.match(run.lines.at(-1),
        /^Makefile:\d+: \*\*\* ipcfuzz properties: new differences, listed above: exit 1\. {2}Stop\.$/);
      assert.doesNotMatch(run.stderr, /Error 1/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
