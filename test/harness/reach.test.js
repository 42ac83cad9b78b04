'use strict';
// The reachability check of findings (harness/findings/reach): each finding's round
// trip through child_process.fork(..., { serialization: 'advanced' }) in the
// build under test and in 26.3.1, its verdict, repro-fork.js and issue.md.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { FindingStore } = require('../../harness/findings/recorder');
const { resolveNode, probeNode } = require('../../harness/base/binaries');
const { checkFinding, checkFindings, referenceVersion } = require('../../harness/findings/reach');
const { fixture, frame } = require('../fixtures/helpers');
const { saveFinding } = require('../fixtures/findings');

const build = resolveNode();
const reference = resolveNode(referenceVersion);
const portWithIndexKey = { k: 'port', props: [['0', { k: 'number', v: 5 }]] };
const twoProps = { k: 'object', props: [['a', { k: 'number', v: 1 }], ['b', { k: 'number', v: 2 }]] };

const read = (folder, file) => fs.readFileSync(path.join(folder, file), 'utf8');
const runScript = (node, folder) => spawnSync(node, [path.join(folder, 'repro-fork.js')],
  { encoding: 'utf8', timeout: 60_000, cwd: os.tmpdir() });

// The text under a `### name` heading of issue.md.
function field(issue, name) {
  const at = issue.indexOf(`### ${name}\n`);
  assert.notEqual(at, -1, `no field ${name}`);
  const rest = issue.slice(at + name.length + 5);
  const end = rest.search(/^### /m);
  return (end === -1 ? rest : rest.slice(0, end)).trim();
}

// Processes still running a round trip of a folder's repro-fork.js.
function roundTripsOf(folder) {
  const script = path.join(folder, 'repro-fork.js');
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(script);
    } catch {
      return false;
    }
  });
}

// A node binary that stands for a build whose child_process misbehaves (fixtures/channel-fault.js).
function faultyBuild(dir, fault) {
  const file = path.join(dir, `node-${fault}`);
  fs.writeFileSync(file, `#!/bin/sh\nIPCFUZZ_CHANNEL_FAULT=${fault} NODE_OPTIONS="--require ${fixture('channel-fault.js')}" ` +
    `exec ${build} "$@"\n`, { mode: 0o755 });
  return file;
}

describe('reachability of findings through child_process', function () {
  this.timeout(120_000);
  let dir;
  before(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-reach-'));
  });
  after(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('the native SIGSEGV on a MessagePort with an integer key', function () {
    let folder;
    let reach;
    before(async function () {
      folder = await saveFinding(path.join(dir, 'port'),
        { type: 'value', input: { recipe: portWithIndexKey }, tier: 'crash' });
      reach = await checkFinding(folder, { build, reference });
    });

    it('is reachable: child.send() crashes the build\'s sender, 26.3.1\'s child receives the copy', function () {
      assert.equal(reach.checked, true, reach.verdict);
      assert.equal(reach.reachable, true, reach.verdict);
      assert.equal(reach.differences[0].tier, 'crash');
      const { kind, at, signal } = reach.build.record;
      assert.deepEqual({ kind, at, signal }, { kind: 'crash', at: 'sender', signal: 'SIGSEGV' });
      assert.equal(reach.reference.record.kind, 'ok');
      assert.deepEqual(reach.reference.record.messages[0].props, [['0', { t: 'number', v: '5' }]]);
      // The sending process crashes on its own value: a bug for the public tracker.
      assert.equal(reach.peerCrash, false);
      assert.equal(FindingStore.read(folder).reachability.verdict, reach.verdict);
      assert.match(read(folder, 'report.txt'), /\nreachability through child_process\n {2}reachable: yes \(crash\)/);
      assert.deepEqual(fs.readdirSync(folder).sort(),
        ['finding.json', 'input.json', 'issue.md', 'report.txt', 'repro-fork.js', 'repro.js']);
      assert.deepEqual(roundTripsOf(folder), []);
    });

    it('has a repro-fork.js that shows the crash with the build and not with 26.3.1', function () {
      const withBuild = runScript(build, folder);
      assert.equal(withBuild.status, 1, withBuild.stdout + withBuild.stderr);
      assert.match(withBuild.stdout, /^parent: child\.send\(value\) crashed the parent process: killed by SIGSEGV$/m);
      assert.match(withBuild.stdout, /^DIFF: node v26\.3\.1/m);
      const withReference = runScript(reference, folder);
      assert.equal(withReference.status, 0, withReference.stdout + withReference.stderr);
      assert.match(withReference.stdout, /^child: process\.on\('message'\) got \{ '0': 5 \}$/m);
      assert.match(withReference.stdout, /^SAME: node v26\.3\.1/m);
      // Public APIs: it runs without --expose-internals, forking with the advanced serialization.
      assert.match(read(folder, 'repro-fork.js'), /fork\(file, \['--role=child'\],\s+\{ serialization: 'advanced'/);
    });

    it('writes issue.md in the fields of nodejs/node\'s bug report form', function () {
      const issue = read(folder, 'issue.md');
      assert.deepEqual([...issue.matchAll(/^### (.+)$/gm)].map((m) => m[1]), [
        'Version', 'Platform', 'Subsystem', 'What steps will reproduce the bug?',
        'How often does it reproduce? Is there a required condition?',
        'What is the expected behavior? Why is that the expected behavior?', 'What do you see instead?',
        'Additional information',
      ]);
      assert.equal(field(issue, 'Version'), probeNode(build).node);
      assert.equal(field(issue, 'Platform'), `${os.type()} ${os.release()} ${os.version()} ${os.machine()}`);
      assert.equal(field(issue, 'Subsystem'), 'child_process');
      const steps = field(issue, 'What steps will reproduce the bug?');
      assert.match(steps, /\$ node repro-fork\.js/);
      assert.ok(steps.includes(read(folder, 'repro-fork.js').trim()), 'the script is pasted whole');
      assert.match(field(issue, 'How often does it reproduce? Is there a required condition?'), /^Every time/);
      const expected = field(issue, 'What is the expected behavior? Why is that the expected behavior?');
      assert.match(expected, /^What Node\.js v26\.3\.1 does: its child_process still runs the JavaScript codec/);
      assert.match(expected, /child: process\.on\('message'\) got \{ '0': 5 \}/);
      assert.match(field(issue, 'What do you see instead?'), /crashed the parent process: killed by SIGSEGV/);
      assert.match(issue, /^\*\*Title:\*\* child_process \(serialization 'advanced'\): parent: child\.send\(value\) crash/m);
      assert.doesNotMatch(issue, /HackerOne|SECURITY\.md/);
    });
  });

  it('finds not reachable what the real send path does not show: an adapter that drops a property', async function () {
    const folder = await saveFinding(path.join(dir, 'adapter'),
      { b: fixture('drop-last-prop.js'), type: 'value', input: { recipe: twoProps }, tier: 'value' });
    const reach = await checkFinding(folder, { build, reference });
    assert.equal(reach.checked, true, reach.verdict);
    assert.equal(reach.reachable, false, reach.verdict);
    assert.deepEqual(reach.differences, []);
    assert.match(reach.verdict, /^reachable: no: .*drop-last-prop\.js, is an adapter/);
    // Both children got both properties.
    for (const side of [reach.build, reach.reference]) {
      assert.deepEqual(side.record.messages[0].props.map(([k]) => k), ['a', 'b']);
    }
    assert.equal(runScript(build, folder).status, 0);
    const issue = read(folder, 'issue.md');
    assert.match(field(issue, 'What steps will reproduce the bug?'),
      /^> \*\*Note:\*\* ipcfuzz sent this input through .* both behaved alike \(parent: child\.send\(value\) returned; .*got \{ a: 1, b: 2 \}\)\. These steps call the codec directly[\s\S]*\$ node --expose-internals repro\.js/);
    assert.match(field(issue, 'What is the expected behavior? Why is that the expected behavior?'), /Object \{a: 1, b: 2\}/);
    assert.match(field(issue, 'What do you see instead?'), /decode a's frame: ok: Object \{a: 1\}$/m);
  });

  it('shows a frame finding\'s difference in what the receiver of a peer\'s bytes does', async function () {
    // A host-object tag of 2: both codecs refuse it, with different errors.
    const folder = await saveFinding(path.join(dir, 'frame'),
      { type: 'frame', input: { bytes: frame('ff0f5c0249') }, tier: 'error-identity' });
    const reach = await checkFinding(folder, { build, reference });
    assert.equal(reach.reachable, true, reach.verdict);
    assert.equal(reach.differences[0].tier, 'error-identity');
    assert.equal(reach.differences[0].where, 'child writes, parent reads');
    const codes = (side) => side.record.errors.map((e) => e.code);
    assert.deepEqual([codes(reach.build), codes(reach.reference)], [['ERR_INVALID_STATE'], ['ERR_INTERNAL_ASSERTION']]);
    // Each reader goes on reading: the message after the bytes arrives.
    assert.deepEqual([reach.build.record.next, reach.reference.record.next], [true, true]);
    const withBuild = runScript(build, folder);
    assert.equal(withBuild.status, 1, withBuild.stdout + withBuild.stderr);
    assert.match(withBuild.stdout, /^child: wrote the bytes into its end of the channel \(fd 3\) in 1 write/m);
    assert.match(withBuild.stdout, /^parent: uncaught Error \[ERR_INVALID_STATE\]: Invalid host object tag$/m);
    assert.match(read(folder, 'issue.md'), /The bytes, length prefix included: `00000005ff0f5c0249`/);
  });

  it('sets up a recipe\'s receiving world in the child, whose recorders show what its codec calls', async function () {
    // A recorder on the public v8.Deserializer, which 26.3.1's JavaScript codec inherits from.
    const recipe = { k: 'view', type: 'Uint8Array', bytes: '0102',
      tamper: [{ op: 'patch', of: 'v8.Deserializer', key: 'readUint32', side: 'receive' }] };
    const folder = await saveFinding(path.join(dir, 'world'), { type: 'value', input: { recipe }, tier: 'effects' });
    const reach = await checkFinding(folder, { build, reference });
    assert.equal(reach.reachable, true, reach.verdict);
    assert.equal(reach.differences[0].tier, 'effects');
    assert.deepEqual(reach.build.record.effects, []);
    assert.ok(reach.reference.record.effects.length > 0);
    for (const effect of reach.reference.record.effects) {
      assert.equal(effect, 'receiving: call v8.Deserializer.prototype.readUint32');
    }
    assert.match(reach.reference.saw.join('\n'), /^child: user code run while receiving: call v8\.Deserializer/m);
  });

  it('sends a receiver that a peer\'s message crashes to Node\'s security policy', async function () {
    const folder = await saveFinding(path.join(dir, 'receiver'),
      { b: fixture('drop-last-prop.js'), type: 'value', input: { recipe: twoProps }, tier: 'value' });
    const reach = await checkFinding(folder, { build: faultyBuild(dir, 'receiver-crash'), reference });
    assert.equal(reach.reachable, true, reach.verdict);
    const { kind, at, signal } = reach.build.record;
    assert.deepEqual({ kind, at, signal }, { kind: 'crash', at: 'receiver', signal: 'SIGSEGV' });
    assert.equal(reach.peerCrash, true);
    const issue = read(folder, 'issue.md');
    assert.match(issue, /^> \*\*Do not file this on the public issue tracker\.\*\* A peer process can crash the receiving/m);
    assert.match(issue, /SECURITY\.md/);
    assert.match(issue, /https:\/\/hackerone\.com\/nodejs/);
  });

  it('takes a sender that hangs for a verdict, and leaves no process behind', async function () {
    const folder = await saveFinding(path.join(dir, 'hang'),
      { b: fixture('drop-last-prop.js'), type: 'value', input: { recipe: twoProps }, tier: 'value' });
    const reach = await checkFinding(folder, { build: faultyBuild(dir, 'sender-hang'), reference, timeoutMs: 5000 });
    assert.equal(reach.reachable, true, reach.verdict);
    assert.deepEqual([reach.build.record.kind, reach.build.record.at], ['hang', 'sender']);
    assert.equal(reach.differences[0].tier, 'crash');
    assert.equal(reach.peerCrash, false);
    assert.deepEqual(roundTripsOf(folder), []);
  });

  it('says so of a finding the deadline leaves unchecked, still with repro-fork.js and issue.md', async function () {
    const folder = await saveFinding(path.join(dir, 'late'),
      { type: 'value', input: { recipe: portWithIndexKey }, tier: 'crash' });
    const checked = await checkFindings([folder], { build, deadline: Date.now() });
    assert.equal(checked.get(folder).verdict, 'reachability not checked: the time for it ran out');
    assert.match(read(folder, 'report.txt'), /reachability not checked: the time for it ran out/);
    assert.match(field(read(folder, 'issue.md'), 'What steps will reproduce the bug?'),
      /has not been checked through child_process .*ipcfuzz report/);
    const run = runScript(build, folder);
    assert.equal(run.status, 2);
    assert.match(run.stdout, /killed by SIGSEGV[\s\S]*cannot compare: no reference recorded/);
  });
});
