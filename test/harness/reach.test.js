'use strict';
// What a finding comes to once a run has checked it (harness/findings/reach):
// its short repro scripts, recorded in the build under test and in 26.3.1,
// whether its difference shows through child_process.fork(..., {
// serialization: 'advanced' }), and its issue.md.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { FindingStore } = require('../../harness/findings/recorder');
const { resolveNode, probeNode } = require('../../harness/base/binaries');
const { checkFinding, checkFindings, referenceVersion, reachabilityOf } = require('../../harness/findings/reach');
const { modulePath } = require('../../harness/findings/repro/codec');
const { fixture, frame } = require('../fixtures/helpers');
const { saveFinding } = require('../fixtures/findings');

const build = resolveNode();
const reference = resolveNode(referenceVersion);
const portWithIndexKey = { k: 'port', props: [['0', { k: 'number', v: 5 }]] };
const twoProps = { k: 'object', props: [['a', { k: 'number', v: 1 }], ['b', { k: 'number', v: 2 }]] };

const read = (folder, file) => fs.readFileSync(path.join(folder, file), 'utf8');
const run = (node, folder, file, args = []) => spawnSync(node, [...args, path.join(folder, file)],
  { encoding: 'utf8', timeout: 60_000, cwd: os.tmpdir() });
const runFork = (node, folder) => run(node, folder, 'repro-fork.js');
const nonBlank = (text) => text.split('\n').filter((l) => l.trim()).length;

// The text under a `### name` heading of issue.md.
function field(issue, name) {
  const at = issue.indexOf(`### ${name}\n`);
  assert.notEqual(at, -1, `no field ${name}`);
  const rest = issue.slice(at + name.length + 5);
  const end = rest.search(/^### /m);
  return (end === -1 ? rest : rest.slice(0, end)).trim();
}

// Processes still running a script of a folder, or of the check's scratch folder.
function leftOver(folder) {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((pid) => {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmdline.includes(folder) || cmdline.includes('ipcfuzz-check-');
    } catch {
      return false;
    }
  });
}

// A node binary that stands for a build whose child_process misbehaves (fixtures/channel-fault.js).
function faultyBuild(dir, fault) {
  const file = path.join(dir, `node-${fault}`);
  fs.writeFileSync(file, `#!/bin/sh\nTEST_IPCFUZZ_CHANNEL_FAULT=${fault} NODE_OPTIONS="--require ${fixture('channel-fault.js')}" ` +
    `exec ${build} "$@"\n`, { mode: 0o755 });
  return file;
}

describe('the check of findings through child_process', function () {
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

    it('is reachable: child.send() crashes the build\'s sender and returns in 26.3.1', function () {
      assert.equal(reach.checked, true, reach.verdict);
      assert.equal(reach.reachable, true, reach.verdict);
      assert.equal(reach.observe, 'sent');
      assert.deepEqual([reach.build.seen, reach.reference.seen], ['crashed (SIGSEGV)', 'returned']);
      assert.deepEqual([reach.build.version, reach.reference.version], [probeNode(build).node, 'v26.3.1']);
      // The sending process crashes on its own value: a bug for the public tracker.
      assert.equal(reach.peerCrash, false);
      assert.match(reach.verdict, /^reachable: yes: what child\.send\(value\) did: node v26\.12\.1: crashed \(SIGSEGV\)/);
      assert.deepEqual(reachabilityOf(folder), { ...reach });
    });

    it('writes each file once, and leaves finding.json and report.txt as the run saved them', function () {
      assert.deepEqual(fs.readdirSync(folder).sort(), ['finding.json', 'input.json', 'issue.md', 'reachability.json',
        'report.txt', 'repro-fork.js', 'repro.js']);
      assert.equal(FindingStore.read(folder).reachability, undefined);
      assert.doesNotMatch(read(folder, 'report.txt'), /reachab/);
      assert.deepEqual(leftOver(folder), []);
    });

    it('has a short repro-fork.js that fails with the build and passes with 26.3.1', function () {
      const script = read(folder, 'repro-fork.js');
      assert.ok(nonBlank(script) <= 60, `${nonBlank(script)} lines`);
      assert.doesNotMatch(script, /harness\(|canonical/, 'no bundled harness');
      assert.match(script, /^\/\/ `child\.send\(\)` of a MessagePort/, 'the title leads');
      assert.match(script, /fork\(__filename, \['receive'\], \{ serialization: 'advanced' \}\)/);
      assert.match(script, /^const expected = "returned"; \/\/ what child\.send\(value\) did, in Node\.js 26\.3\.1$/m);
      const withBuild = runFork(build, folder);
      assert.equal(withBuild.status, 1, withBuild.stdout + withBuild.stderr);
      assert.match(withBuild.stdout, /^ {2}node v26\.12\.1: crashed \(SIGSEGV\)$/m);
      const withReference = runFork(reference, folder);
      assert.equal(withReference.status, 0, withReference.stdout + withReference.stderr);
      assert.match(withReference.stdout, /^ {2}node v26\.3\.1: returned$/m);
    });

    it('has a short repro.js that crashes with the native codec and passes with the JavaScript one', function () {
      const script = read(folder, 'repro.js');
      assert.ok(nonBlank(script) <= 60, `${nonBlank(script)} lines`);
      assert.match(script, /internalBinding\('ipc_serdes'\)/);
      assert.match(script, /^const expected = "0000000bff0f5c016f4900490a7b01";/m, 'what the JavaScript codec wrote');
      // A crash is shown by the process that crashes.
      assert.equal(run(build, folder, 'repro.js', ['--expose-internals']).signal, 'SIGSEGV');
      const js = spawnSync(build, ['--expose-internals', path.join(folder, 'repro.js'), `--codec=${modulePath('js')}`],
        { encoding: 'utf8' });
      assert.equal(js.status, 0, js.stdout + js.stderr);
      const internals = run(build, folder, 'repro.js');
      assert.equal(internals.status, 2);
      assert.match(internals.stderr, /^cannot run: Error: Cannot find module 'internal\/test\/binding'/m);
    });

    it('writes issue.md in the fields of nodejs/node\'s bug report form, under 8 KB', function () {
      const issue = read(folder, 'issue.md');
      assert.ok(issue.length <= 8192, `${issue.length} bytes`);
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
      assert.match(expected, /what child\.send\(value\) did: returned/);
      assert.match(field(issue, 'What do you see instead?'), /what child\.send\(value\) did: crashed \(SIGSEGV\)/);
      assert.equal(issue.match(/^\*\*Title:\*\* (.*)$/m)[1], reach.title);
      assert.doesNotMatch(issue, /HackerOne|SECURITY\.md/);
    });
  });

  it('finds not reachable what the real send path does not show: an adapter that drops a property', async function () {
    const folder = await saveFinding(path.join(dir, 'adapter'),
      { b: fixture('drop-last-prop.js'), type: 'value', input: { recipe: twoProps }, tier: 'value' });
    const reach = await checkFinding(folder, { build, reference });
    assert.equal(reach.checked, true, reach.verdict);
    assert.equal(reach.reachable, false, reach.verdict);
    assert.match(reach.verdict, /^reachable: no: .*saw the same: what the child received \(Object \{"a": 1, "b": 2\}\)/);
    assert.match(reach.verdict, /drop-last-prop\.js, is an adapter/);
    // The short repro-fork.js says the same: it passes with both.
    assert.equal(runFork(build, folder).status, 0);
    assert.equal(runFork(reference, folder).status, 0);
    // repro.js calls the adapter: it reads the JavaScript codec's frame without the last property.
    const repro = run(build, folder, 'repro.js', ['--expose-internals']);
    assert.equal(repro.status, 1, repro.stdout + repro.stderr);
    assert.match(repro.stdout, /what it reads from the frame\n {2}node v26\.12\.1: Object \{"a": 1\}\n {2}Node\.js 26\.3\.1: Object \{"a": 1, "b": 2\}/);
    const issue = read(folder, 'issue.md');
    assert.match(field(issue, 'What steps will reproduce the bug?'),
      /^> \*\*Note:\*\* ipcfuzz sent this input through [\s\S]*These steps call the codec directly[\s\S]*\$ node --expose-internals repro\.js/);
    assert.match(field(issue, 'What is the expected behavior? Why is that the expected behavior?'), /Object \{"a": 1, "b": 2\}/);
    assert.match(field(issue, 'What do you see instead?'), /what it reads from the frame: Object \{"a": 1\}$/m);
  });

  it('shows a frame finding\'s difference in what the receiver of a peer\'s bytes raises', async function () {
    // A host-object tag of 2: both codecs refuse it, with different errors.
    const folder = await saveFinding(path.join(dir, 'frame'),
      { type: 'frame', input: { bytes: frame('ff0f5c0249') }, tier: 'error-identity' });
    const reach = await checkFinding(folder, { build, reference });
    assert.equal(reach.reachable, true, reach.verdict);
    assert.deepEqual([reach.build.seen, reach.reference.seen], ['threw Error [ERR_INVALID_STATE]',
      'threw Error [ERR_INTERNAL_ASSERTION]']);
    const withBuild = runFork(build, folder);
    assert.equal(withBuild.status, 1, withBuild.stdout + withBuild.stderr);
    assert.match(read(folder, 'repro-fork.js'), /for \(const piece of \["00000005ff0f5c0249"\]\)/);
    assert.equal(runFork(reference, folder).status, 0);
    const repro = run(build, folder, 'repro.js', ['--expose-internals']);
    assert.equal(repro.status, 1, repro.stdout + repro.stderr);
    assert.match(repro.stdout, /^ {2}node v26\.12\.1: throws Error \[ERR_INVALID_STATE\]$/m);
  });

  it('sets up a recipe\'s receiving world in the child, whose recorders show what its codec calls', async function () {
    // A recorder on the public v8.Deserializer, which 26.3.1's JavaScript codec inherits from.
    const recipe = { k: 'view', type: 'Uint8Array', bytes: '0102',
      tamper: [{ op: 'patch', of: 'v8.Deserializer', key: 'readUint32', side: 'receive' }] };
    const folder = await saveFinding(path.join(dir, 'world'), { type: 'value', input: { recipe }, tier: 'effects' });
    const reach = await checkFinding(folder, { build, reference });
    assert.equal(reach.reachable, true, reach.verdict);
    assert.equal(reach.observe, 'receivedEffects');
    assert.equal(reach.build.seen, 'none');
    assert.match(reach.reference.seen, /^call v8\.Deserializer\.prototype\.readUint32(, call v8\.Deserializer\.prototype\.readUint32)*$/);
    assert.match(read(folder, 'repro-fork.js'), /const world = build\(makeWorld, effects\);\n\s*world\.setup\(\);/);
  });

  // The JavaScript codec takes the frame's length prefix from Buffer's pool; the native codec takes nothing.
  for (const side of ['send', 'receive']) {
    it(`finds the pool's moves reachable, seen from the ${side === 'send' ? 'sending' : 'receiving'} process`,
      async function () {
        const recipe = side === 'send' ? { k: 'object', tamper: [{ op: 'pool', side }] } :
          { k: 'view', type: 'Float64Array', bytes: '000000000000f03f', tamper: [{ op: 'pool', side }] };
        const folder = await saveFinding(path.join(dir, `pool-${side}`), { type: 'value', input: { recipe }, tier: 'effects' });
        const reach = await checkFinding(folder, { build, reference });
        assert.equal(reach.reachable, true, reach.verdict);
        assert.equal(reach.observe, side === 'send' ? 'effects' : 'receivedEffects');
        assert.deepEqual([reach.build.seen, reach.reference.seen], ['pool +0', 'pool +8']);
      });
  }

  // Two worlds a step makes: a getter-only accessor on the receiving process's Object.prototype, which
  // the JS decoder's own `buffer` cannot be set past, and a hook on the sending process's, which the
  // JS serializer calls to write a SharedArrayBuffer as a transfer no receiver can read.
  const worlds = {
    'a getter-only `buffer` on Object.prototype in the receiving process': {
      recipe: { k: 'view', type: 'Uint8Array', bytes: '0102',
        tamper: [{ op: 'proto', of: 'Object', key: 'buffer', get: {}, side: 'receive' }] },
      tier: 'acceptance', observe: 'received', seen: ['Uint8Array <0102>', 'threw TypeError'],
    },
    'an Object.prototype._getSharedArrayBufferId in the sending process': {
      recipe: { k: 'object', props: [['a', { k: 'arraybuffer', bytes: '01', shared: true }]], tamper: [{
        op: 'proto', of: 'Object', key: '_getSharedArrayBufferId',
        value: { k: 'function', name: '_getSharedArrayBufferId', returns: { k: 'number', v: 0 } }, side: 'send' }] },
      tier: 'acceptance', observe: 'sent', seen: ['threw Error', 'returned'],
    },
  };
  for (const [name, { recipe, tier, observe: observed, seen }] of Object.entries(worlds)) {
    it(`shows a world of ${name} through child.send()`, async function () {
      const folder = await saveFinding(path.join(dir, observed), { type: 'value', input: { recipe }, tier });
      const reach = await checkFinding(folder, { build, reference });
      assert.equal(reach.reachable, true, reach.verdict);
      assert.deepEqual([reach.observe, reach.build.seen, reach.reference.seen], [observed, ...seen]);
      assert.equal(runFork(build, folder).status, 1);
      assert.equal(runFork(reference, folder).status, 0);
    });
  }

  it('sends a receiver that a peer\'s message crashes to Node\'s security policy', async function () {
    const folder = await saveFinding(path.join(dir, 'receiver'),
      { b: fixture('drop-last-prop.js'), type: 'value', input: { recipe: twoProps }, tier: 'value' });
    const reach = await checkFinding(folder, { build: faultyBuild(dir, 'receiver-crash'), reference });
    assert.equal(reach.reachable, true, reach.verdict);
    assert.deepEqual([reach.observe, reach.build.seen], ['received', 'crashed (SIGSEGV)']);
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
    assert.deepEqual([reach.observe, reach.build.seen], ['sent', 'hung (10 s)']);
    assert.equal(reach.peerCrash, false);
    assert.deepEqual(leftOver(folder), []);
  });

  it('says so of a finding the deadline leaves unchecked, still with its scripts and issue.md', async function () {
    const folder = await saveFinding(path.join(dir, 'late'),
      { type: 'value', input: { recipe: portWithIndexKey }, tier: 'crash' });
    const checked = await checkFindings([folder], { build, deadline: Date.now() });
    assert.equal(checked.get(folder).verdict, 'reachability not checked: the time for it ran out');
    assert.match(field(read(folder, 'issue.md'), 'What steps will reproduce the bug?'),
      /has not been checked through child_process .*ipcfuzz report/);
    const script = runFork(build, folder);
    assert.equal(script.status, 2);
    assert.match(script.stdout, /crashed \(SIGSEGV\)\n {2}Node\.js 26\.3\.1: \(not recorded\)/);
  });
});
