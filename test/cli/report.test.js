'use strict';
// ipcfuzz report FINDING_DIR: a saved finding checked through child_process
// again, its issue.md printed; a folder that holds no finding is a one-line
// error and exit 2.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { cli } = require('../fixtures/helpers');
const { saveFinding } = require('../fixtures/findings');

describe('ipcfuzz report', function () {
  this.timeout(120_000);
  let dir;
  let folder;
  before(async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-report-'));
    folder = await saveFinding(path.join(dir, 'findings'),
      { type: 'value', input: { recipe: { k: 'port', props: [['0', { k: 'number', v: 5 }]] } }, tier: 'crash' });
  });
  after(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('checks the finding again, prints its issue.md, exits 1 while it shows through child_process', async function () {
    const run = await cli(['report', folder]);
    assert.equal(run.code, 1, run.stderr);
    const issue = fs.readFileSync(path.join(folder, 'issue.md'), 'utf8');
    assert.equal(run.stdout, issue);
    assert.match(issue, /^### Subsystem\n\nchild_process$/m);
    assert.match(run.stderr, /^ipcfuzz report: reachable: yes: what child\.send\(value\) did: node v26\.12\.1: crashed \(SIGSEGV\)/m);
    assert.equal(JSON.parse(fs.readFileSync(path.join(folder, 'reachability.json'), 'utf8')).reachable, true);
  });

  it('prints the full round trip with --full: what each side received, as a canonical tree', async function () {
    const run = await cli(['report', folder, '--full']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^the full round trip through child_process: DIFF$/m);
    assert.match(run.stdout, /^ {2}parent: child\.send\(value\) crashed the parent process: killed by SIGSEGV$/m);
    assert.match(run.stdout, /^ {2}child: process\.on\('message'\) got \{ '0': 5 \}$/m);
  });

  it('checks it on the binary --node names, and keeps an issue.md edited by hand', async function () {
    fs.appendFileSync(path.join(folder, 'issue.md'), '\nA note of mine.\n');
    // The reference itself as the build: nothing to tell them apart.
    const run = await cli(['report', folder, '--node', '26.3.1']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /reachable: no: through child_process, node v26\.3\.1 and node v26\.3\.1 .*saw the same/);
    assert.match(fs.readFileSync(path.join(folder, 'issue.edited.md'), 'utf8'), /A note of mine\.\n$/);
    assert.doesNotMatch(run.stdout, /A note of mine/);
    // What ipcfuzz wrote itself is not kept again.
    const again = await cli(['report', folder, '--node', '26.3.1']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(fs.readdirSync(folder).filter((f) => f.startsWith('issue')), ['issue.edited.md', 'issue.md']);
  });

  it('ends with one line and exit 2 on a folder that holds no finding', async function () {
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'x');
    const empty = fs.mkdtempSync(path.join(dir, 'empty-'));
    const broken = fs.mkdtempSync(path.join(dir, 'broken-'));
    fs.writeFileSync(path.join(broken, 'finding.json'), '{ not json');
    const foreign = fs.mkdtempSync(path.join(dir, 'foreign-'));
    fs.writeFileSync(path.join(foreign, 'finding.json'), '{"name": "something else"}');
    const cases = [
      [[], /give one finding folder/],
      [[path.join(dir, 'nope')], /nope does not exist/],
      [[file], /a-file is not a folder/],
      [[empty], /is not a finding folder: it has no finding\.json/],
      [[broken], /finding\.json cannot be read/],
      [[foreign], /finding\.json is not a finding ipcfuzz saved/],
      [[folder, '--node', path.join(dir, 'no-node')], /node binary .*no-node does not exist/],
      [[folder, '--timeout', '0'], /--timeout must be a whole number/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(['report', ...args]);
      assert.equal(run.code, 2, `${args}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /^ipcfuzz report: [^\n]+\n$/);
      assert.match(run.stderr, message);
    }
  });
});
