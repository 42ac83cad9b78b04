'use strict';
// The Jazzer.js engine works here: the prebuilt loads (after the install-time
// compatibility fix where needed), a planted bug is found, every target
// replays its seed corpus in the node under test (cleanly when a codec is
// compared with itself), and the engine finds mutant adapters on its own.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { resolveNode, root } = require('../../harness/base/binaries');
const { targets } = require('../../fuzzers/jazzer/engine');

const node = resolveNode('26.12.1');
const jazzerDir = path.join(root, 'fuzzers', 'jazzer');
const launcher = path.join(jazzerDir, 'launch.js');

// Runs a target once over its seed corpus (libFuzzer's -runs=0) with codec b.
function replaySeeds(target, codec, out) {
  const seeds = path.join(root, 'corpus', 'jazzer', target);
  const run = spawnSync(node, ['--expose-internals', '--no-warnings', launcher, path.join(jazzerDir, `${target}.js`),
    seeds, '--sync', '--', '-runs=0'],
  { encoding: 'utf8', env: { ...process.env, IPCFUZZ_B: codec, IPCFUZZ_OUT: out }, timeout: 300_000 });
  const findings = [...run.stderr.matchAll(/^ipcfuzz-finding\t([^\t]+)/gm)].map((m) => m[1]);
  return { run, findings, seeds: fs.readdirSync(seeds).length };
}

describe('Jazzer.js engine', function () {
  this.timeout(300_000);
  let out;
  before(() => { out = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-jazzer-')); });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  for (const [label, nodePath] of [[`${process.version}, which runs the harness`, process.execPath], ['26.12.1', node]]) {
    it(`loads its native fuzzer and finds a planted bug in node ${label}`, function () {
      const smokeScript = path.join(root, 'scripts', 'jazzer-smoke.js');
      const smoke = spawnSync(process.execPath, [smokeScript, '--node', nodePath, '--time', '60'],
        { encoding: 'utf8' });
      assert.equal(smoke.status, 0, smoke.stdout + smoke.stderr);
      assert.match(smoke.stdout, /planted crash found/);
    });
  }

  for (const target of targets) {
    it(`${target}: replays its seed corpus with no difference when js is compared with js`, function () {
      const { run, findings, seeds } = replaySeeds(target, 'js', path.join(out, `${target}-self`));
      assert.equal(run.status, 0, run.stderr.slice(-2000));
      assert.ok(seeds > 10, `only ${seeds} seeds`);
      // The round-trip oracle holds a codec to itself: the reference's own
      // unreadable frames (the WebAssembly.Module seed) are found even here.
      assert.deepEqual(findings.filter((s) => !s.startsWith('roundtrip/')), []);
      if (target === 'value') {
        assert.ok(findings.includes('roundtrip/deserialize/a+b:unreadable:Error'), findings.join(', '));
      }
    });

    it(`${target}: replays its seed corpus against the native codec of 26.12.1, surviving its crashes`, function () {
      const { run, findings } = replaySeeds(target, 'native', path.join(out, target));
      assert.equal(run.status, 0, run.stderr.slice(-2000));
      assert.match(run.stderr, /INITED|Done \d+ runs/);
      for (const signature of findings) console.log(`      ${target} finding: ${signature}`);
    });
  }

  // A native crash the crash screen misses ends the target process, which runs
  // the native codec in-process: the engine records libFuzzer's saved input as
  // a finding, and the target starts again and fuzzes on. With the screen off
  // (IPCFUZZ_CRASH_SCREEN=off, for tests alone) and the seeds it screens given as
  // crashed before (so they run in a worker), the crash comes from a 4-byte
  // input in the working corpus, among the smallest and so run early: a
  // MessagePort with an index key.
  it('records a native crash the screen misses, goes on after it, and leaves no temporary files', async function () {
    const { createHash } = require('node:crypto');
    const { runJazzer } = require('../../fuzzers/jazzer/engine');
    const { Session } = require('../../harness/run/session');
    const { FindingStore } = require('../../harness/findings/recorder');
    const { loadKnown } = require('../../harness/oracle/known');
    const { screen } = require('../../harness/recipes/crash-shapes');
    const inputs = require('../../fuzzers/jazzer/inputs');
    const sha1 = (bytes) => createHash('sha1').update(bytes).digest('hex');
    const seeds = path.join(root, 'corpus', 'jazzer', 'value');
    const screenedSeeds = fs.readdirSync(seeds).map((f) => fs.readFileSync(path.join(seeds, f)))
      .filter((bytes) => screen(inputs.value(bytes)));
    assert.ok(screenedSeeds.length > 0);
    const scratch = path.join(out, 'unscreened');
    const crasher = Buffer.from('07000101', 'hex');
    assert.ok(screen(inputs.value(crasher)), 'the crasher is no longer the shape of the known crash');
    fs.mkdirSync(path.join(scratch, 'work', 'corpus', 'value'), { recursive: true });
    fs.writeFileSync(path.join(scratch, 'work', 'corpus', 'value', 'crasher'), crasher);
    const saved = { screen: process.env.IPCFUZZ_CRASH_SCREEN, crashed: process.env.IPCFUZZ_CRASHED };
    Object.assign(process.env, { IPCFUZZ_CRASH_SCREEN: 'off', IPCFUZZ_CRASHED: screenedSeeds.map(sha1).join(',') });
    const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' } });
    const targetTmp = () => fs.readdirSync(os.tmpdir())
      .filter((name) => name.startsWith('ipcfuzz-value-') || name.startsWith('ipcfuzz-sync-'));
    const tmpBefore = new Set(targetTmp());
    let status;
    try {
      ({ statuses: [status] } = await runJazzer({
        sides: session.sides, session, known: loadKnown(), seed: 1, only: ['value'], parallel: 1,
        store: new FindingStore(path.join(scratch, 'findings')), workDir: path.join(scratch, 'work'), seconds: 60,
      }));
    } finally {
      session.close();
      for (const [name, value] of [['IPCFUZZ_CRASH_SCREEN', saved.screen], ['IPCFUZZ_CRASHED', saved.crashed]]) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    assert.ok(status.restarts >= 1, `no restart: ${JSON.stringify(status.stats)}`);
    const finding = status.findings.get('crash/serialize/b:crash SIGSEGV');
    assert.ok(finding, [...status.findings.keys()].join(', '));
    const meta = JSON.parse(fs.readFileSync(path.join(finding.folder, 'finding.json'), 'utf8'));
    assert.equal(meta.origin.artifact, `crash-${sha1(crasher)}`);
    // The target started again and ran the crasher isolated: it did not end on it a second time.
    assert.ok(status.runs >= 2);
    assert.deepEqual(status.crashed.filter((s) => s === sha1(crasher)), [sha1(crasher)]);
    // Checked as a run checks its findings, it has its short repro.js: the codec crashes the process that runs it.
    await require('../../harness/findings/reach').checkFindings([finding.folder], { build: node });
    const repro = spawnSync(node, ['--expose-internals', path.join(finding.folder, 'repro.js')], { encoding: 'utf8' });
    assert.equal(repro.signal, 'SIGSEGV', repro.stdout + repro.stderr);
    // Each target process had a temporary folder of its own (its workers' FIFOs there), gone with it.
    assert.deepEqual(targetTmp().filter((name) => !tmpBefore.has(name)), []);
  });

  // A target that dies where libFuzzer saves nothing (here a stand-in for the
  // node binary that segfaults at once) is started again, and given up after
  // a few such ends in a row; the run goes on and says why.
  it('starts a target again when it dies without saving an input, and gives it up in the end', async function () {
    const { runJazzer } = require('../../fuzzers/jazzer/engine');
    const { FindingStore } = require('../../harness/findings/recorder');
    const { loadKnown } = require('../../harness/oracle/known');
    const dying = path.join(out, 'dying-node');
    fs.writeFileSync(dying, '#!/bin/sh\necho "==$$== Segmentation Fault" >&2\nkill -SEGV $$\n', { mode: 0o755 });
    const sides = { a: { codec: 'js', node }, b: { codec: 'native', node: dying } };
    const started = Date.now();
    const { statuses: [status] } = await runJazzer({
      sides, session: undefined, known: loadKnown(), seed: 1, only: ['value'], parallel: 1,
      store: new FindingStore(path.join(out, 'dying', 'findings')), workDir: path.join(out, 'dying', 'work'),
      seconds: 60,
    });
    assert.ok(Date.now() - started < 30_000, 'it kept starting the target');
    assert.deepEqual(status.unsaved, ['SIGSEGV', 'SIGSEGV', 'SIGSEGV']);
    assert.equal(status.restarts, 2);
    assert.match(status.gaveUp, /3 times in a row without saving its input \(last: SIGSEGV; .*Segmentation Fault/);
    assert.equal(status.findings.size, 0);
  });

  // Cores the targets leave spare run more libFuzzer processes of a target,
  // each with seeds of its own, on the target's one working corpus.
  it('runs one target on two cores as two libFuzzer processes sharing its corpus', async function () {
    const { runJazzer } = require('../../fuzzers/jazzer/engine');
    const { FindingStore } = require('../../harness/findings/recorder');
    const { loadKnown } = require('../../harness/oracle/known');
    const sides = { a: { codec: 'js', node }, b: { codec: 'native', node } };
    const work = path.join(out, 'jobs', 'work');
    const { statuses } = await runJazzer({
      sides, session: undefined, known: loadKnown(), seed: 1, only: ['frame'], parallel: 2,
      store: new FindingStore(path.join(out, 'jobs', 'findings')), workDir: work, seconds: 8,
    });
    assert.deepEqual(statuses.map((s) => s.label), ['frame/1', 'frame/2']);
    assert.deepEqual(statuses[0].seeds.filter((seed) => statuses[1].seeds.includes(seed)), []);
    for (const s of statuses) {
      assert.ok(s.stats.number_of_executed_units > 0, `${s.label} did not fuzz: ${JSON.stringify(s)}`);
      assert.equal(s.restarts, 0);
    }
    assert.deepEqual(fs.readdirSync(path.join(work, 'corpus')), ['frame']);
  });

  // Saved findings are the user's (findings/ is not in git): each must still
  // replay the same way twice, and the output says whether it is fixed.
  it('replays the saved findings, each the same way twice', async function () {
    const dir = path.join(root, 'findings');
    const saved = fs.existsSync(dir) ?
      fs.readdirSync(dir).filter((f) => fs.existsSync(path.join(dir, f, 'finding.json'))) : [];
    if (!saved.length) this.skip();
    const { Session } = require('../../harness/run/session');
    const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' } });
    try {
      for (const folder of saved) {
        const meta = JSON.parse(fs.readFileSync(path.join(dir, folder, 'finding.json'), 'utf8'));
        if (meta.sides.a.codec !== 'js' || meta.sides.b.codec !== 'native') continue;
        if (!meta.input || meta.input.module) continue;
        const signatures = async () =>
          (await session.check(meta.type, meta.input)).differences.map((d) => d.signature).sort();
        const first = await signatures();
        assert.deepEqual(await signatures(), first, folder);
        console.log(`      ${first.includes(meta.signature) ? 'still there' : 'fixed'}: ${meta.signature}`);
      }
    } finally {
      session.close();
    }
  });

  it('finds a mutant adapter with the targets alone', function () {
    const hunt = spawnSync(process.execPath, [path.join(root, 'scripts', 'mutant-hunt.js'), '--seconds', '60',
      '--only', 'drops-messages-on-error,buffer-by-prototype'], { encoding: 'utf8' });
    assert.equal(hunt.status, 0, hunt.stdout + hunt.stderr);
    assert.match(hunt.stdout, /drops-messages-on-error\s+[\d.]+s\s+framing\//);
    assert.match(hunt.stdout, /buffer-by-prototype\s+[\d.]+s\s+(bytes|effects)\//);
  });
});
