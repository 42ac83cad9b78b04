'use strict';
// Every fuzz or gate run ends within a few seconds of its budget, whatever its
// workers do, leaves no process behind, and reports as new only what is new:
// not what is already saved, not what depends on a process's history.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawn } = require('node:child_process');
const { setTimeout: sleep } = require('node:timers/promises');
const { fixture } = require('../fixtures/helpers');

const cliMain = path.join(__dirname, '..', '..', 'bin', 'ipcfuzz.js');
// Loose on purpose: a loaded 2-core machine starts node slowly.
const kSlackSeconds = 8;

// Processes still running that descend from a run: all inherit its marker.
function survivors(marker) {
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker)) found.push(pid);
    } catch { /* gone, or not ours */ }
  }
  return found;
}

// Runs the CLI; resolves { code, signal, stdout, seconds, leftovers }.
// env: added to the environment; started(child): told of the process.
function ipcfuzz(args, { env = {}, started: onStart = () => {} } = {}) {
  const marker = `TEST_IPCFUZZ_RUN=${crypto.randomUUID()}`;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...args], {
      env: { ...process.env, ...env, TEST_IPCFUZZ_RUN: marker.split('=')[1] }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    onStart(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    // Only its end is kept, for an assertion's message when a run fails.
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-2000); });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      // A killed group takes a moment to be reaped.
      const output = stderr.trim() ? `${stdout}\nstderr:\n${stderr}` : stdout;
      setTimeout(() => resolve({ code, signal, stdout, output, seconds, marker, leftovers: survivors(marker) }), 500);
    });
  });
}

const fuzz = (args, options) => ipcfuzz(['fuzz', ...args], options);

// Resolves once ready() holds, checked every 100 ms; rejects after ms.
async function until(ready, ms) {
  const end = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`not ready after ${ms} ms`);
    await sleep(100);
  }
}

// A folder's entries; none once it is gone.
const entries = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);

// Whether a Jazzer.js target of a run whose TMPDIR is `tmp` has started its
// workers: its folder in the run's own (cli/run-folder.js) holds their FIFOs.
const targetUnderWay = (tmp) => entries(tmp).filter((r) => r.startsWith('ipcfuzz-run-'))
  .some((r) => entries(path.join(tmp, r)).some((d) => d.startsWith('ipcfuzz-value-') &&
    entries(path.join(tmp, r, d)).some((f) => f.startsWith('ipcfuzz-sync-'))));

function assertOnTime(run, budget) {
  assert.equal(run.signal, null, run.output);
  assert.ok(run.seconds < budget + kSlackSeconds, `took ${run.seconds.toFixed(1)} s for a budget of ${budget} s`);
  assert.deepEqual(run.leftovers, [], 'processes left behind');
}

describe('fuzz run lifecycle', function () {
  let scratch;
  before(function () {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-lifecycle-'));
  });
  after(function () {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('ends each of six short stream runs on time, with nothing left running', async function () {
    this.timeout(6 * 30_000);
    for (let i = 0; i < 6; i++) {
      const run = await fuzz(['--engine', 'fast-check', '--property', 'stream', '--seconds', '2',
        '--out', path.join(scratch, 'stream')]);
      assertOnTime(run, 2);
      assert.ok([0, 1].includes(run.code), run.output);
    }
  });

  it('is not held up by an adapter whose framer never returns, with either engine', async function () {
    this.timeout(90_000);
    const run = await fuzz(['--engine', 'all', '--a', 'js', '--b', fixture('looping-framer.js'), '--seconds', '8',
      '--out', path.join(scratch, 'looping'), '--work', path.join(scratch, 'looping-work')]);
    assertOnTime(run, 8);
    assert.match(run.stdout, /jazzer:/);
    // Libfuzzer's crash folders are removed when they stay empty.
    assert.deepEqual(fs.readdirSync(path.join(scratch, 'looping-work')).filter((f) => f.includes('-artifacts-')), []);
  });

  it('reports a finding saved by an earlier run over the same --out as seen again, and exits 0', async function () {
    this.timeout(90_000);
    // The same seed: the shorter second run meets a part of what the first met.
    const args = ['--engine', 'fast-check', '--a', 'js', '--b', fixture('drop-last-prop.js'), '--seed', '7',
      '--out', path.join(scratch, 'again')];
    const first = await fuzz([...args, '--seconds', '12']);
    assert.equal(first.code, 1, first.stdout);
    const saved = fs.readdirSync(path.join(scratch, 'again'));
    assert.ok(saved.length > 0);
    const second = await fuzz([...args, '--seconds', '3']);
    assertOnTime(second, 3);
    assert.equal(second.code, 0, second.stdout);
    assert.match(second.stdout, /no new findings/);
    assert.match(second.stdout, /\d+ seen again, already in /);
    assert.deepEqual(fs.readdirSync(path.join(scratch, 'again')), saved);
  });

  it('keeps the gate to its budget and says what it skipped for lack of time', async function () {
    this.timeout(90_000);
    const out = path.join(scratch, 'gate');
    const run = await ipcfuzz(['gate', '--budget', '10', '--out', out]);
    assertOnTime(run, 10);
    assert.ok([0, 1].includes(run.code), run.output);
    assert.match(run.stdout, /skipped for lack of time: .*fuzzing \(out of time/);
    assert.match(fs.readFileSync(path.join(out, 'summary.md'), 'utf8'), /Skipped for lack of time: .*fuzzing/);
  });

  it('finds nothing between js and the same codec behind the adapter contract, with both engines', async function () {
    this.timeout(120_000);
    const run = await fuzz(['--no-known', '--engine', 'all', '--a', 'js', '--b', fixture('wrapped-js.js'),
      '--seconds', '25', '--out', path.join(scratch, 'wrapped'), '--work', path.join(scratch, 'wrapped-work')]);
    assertOnTime(run, 25);
    assert.equal(run.code, 0, run.output);
    assert.match(run.stdout, /no new findings/);
    assert.match(run.stdout, /jazzer:\n {2}value/);
  });

  // A 60-second run in a temporary folder of its own, sent `signal` once its
  // Jazzer.js value target has started its workers; resolves { run, tmp }.
  async function signalled(name, signal, engine = ['--engine', 'jazzer', '--target', 'value']) {
    const tmp = fs.mkdtempSync(path.join(scratch, 'tmp-'));
    let sent = null;
    const run = await fuzz([...engine, '--seconds', '60',
      '--out', path.join(scratch, name), '--work', path.join(scratch, `${name}-work`)], {
      env: { TMPDIR: tmp },
      started: (child) => { sent = until(() => targetUnderWay(tmp), 30_000).then(() => child.kill(signal)); },
    });
    await sent;
    assert.equal(run.signal, signal, run.output);
    return { run, tmp };
  }

  it('stopped by a Ctrl-C, leaves no process and no temporary folder behind', async function () {
    this.timeout(90_000);
    const { run, tmp } = await signalled('stopped', 'SIGINT');
    assert.deepEqual(run.leftovers, [], 'processes left behind');
    assert.deepEqual(entries(tmp), []);
  });

  it('killed by SIGKILL, which lets it end nothing, has its Jazzer.js targets end and clean up, and the next ' +
    'command removes what it left', async function () {
    this.timeout(90_000);
    const { run, tmp } = await signalled('killed', 'SIGKILL', ['--engine', 'all']);
    // A target looks for the run between inputs, once a second; it would
    // otherwise fuzz on for the rest of its 60 seconds. It removes its own folder.
    const targets = () => entries(tmp).flatMap((r) => entries(path.join(tmp, r))).filter((d) => /^ipcfuzz-\w+-/.test(d) &&
      !d.startsWith('ipcfuzz-sync-') && !d.startsWith('ipcfuzz-fork-'));
    const end = Date.now() + 10_000;
    while (Date.now() < end && (survivors(run.marker).length || targets().length)) await sleep(200);
    assert.deepEqual(survivors(run.marker), [], 'processes left behind');
    assert.deepEqual(targets(), [], 'target folders left behind');
    // The killed run's own folder, with whatever it had there, is gone after the next command.
    assert.deepEqual(entries(tmp).map((r) => r.replace(/\d+$/, 'PID')), ['ipcfuzz-run-PID']);
    const next = await ipcfuzz(['--version'], { env: { TMPDIR: tmp } });
    assert.equal(next.code, 0, next.output);
    assert.deepEqual(entries(tmp), []);
  });
});
