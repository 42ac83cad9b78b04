'use strict';
// The bench's deadline. Each stage of `make bench` runs in a process of its
// own (runStage), leader of its own process group, with a temporary folder of
// its own (TMPDIR), and sends each measurement to this process as it is
// taken. A stage starts no measurement that would end past its deadline
// (checkTime throws Cut; the stage ends there, cut); one that runs past it
// anyway is killed a grace period later with every process it started, and
// its folder is removed: what it measured before is kept, and the stage is
// cut. A stage whose starter is gone (killed by SIGKILL) ends itself.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fork } = require('node:child_process');
const { trackGroup, killGroup } = require('../harness/base/process-groups');
const { descendants } = require('./rss');

// How long a stage may run past its deadline before it is killed.
const kGraceMs = 2000;

// A measurement that would end past the deadline.
class Cut extends Error {}

// Throws Cut when `seconds` from now is past `until` (ms since the epoch; none: no deadline).
function checkTime(until, seconds, what) {
  if (until !== undefined && Date.now() + seconds * 1000 > until) {
    throw new Cut(`${what} of ${seconds.toFixed(0)} s would end past the deadline`);
  }
}

// Every process under pid, stopped first so that none starts another meanwhile, then killed.
function killTree(pid) {
  const found = new Set();
  for (let pass = 0; pass < 3; pass++) {
    for (const { pid: p } of descendants(pid)) {
      if (found.has(p)) continue;
      found.add(p);
      try {
        process.kill(p, 'SIGSTOP');
      } catch { /* gone */ }
    }
  }
  for (const p of found) {
    killGroup(p);
    try {
      process.kill(p, 'SIGKILL');
    } catch { /* gone */ }
  }
}

// Runs `script` (which calls serveStage) with `job`; resolves with
// { samples, cut (a reason, or null), error (a message, or null) } once it has
// ended, by itself or killed kGraceMs after `until` (ms since the epoch).
// Its output goes to this process's stderr.
function runStage(script, job, { until, env = process.env }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-bench-stage-'));
  const child = fork(script, [], {
    detached: true, serialization: 'advanced', env: { ...env, TMPDIR: tmp }, stdio: ['ignore', 2, 2, 'ipc'],
  });
  trackGroup(child, () => fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 }));
  const samples = [];
  let cut = null;
  let error = null;
  let done = false;
  child.on('message', (m) => {
    if (m.sample !== undefined) samples.push(m.sample);
    if (m.cut) cut = m.cut;
    if (m.error) error = m.error;
    if (m.done) done = true;
  });
  const timer = setTimeout(() => {
    cut = 'killed at the deadline';
    killTree(child.pid);
  }, Math.max(0, until + kGraceMs - Date.now()));
  child.once('spawn', () => child.send({ ...job, until }));
  // Every message it sent is read by the time its channel is closed.
  const event = (name) => new Promise((resolve) => child.once(name, resolve));
  const ended = Promise.all([event('exit'), event('disconnect')]);
  const failed = event('error').then((err) => { error = err.message; });
  return Promise.race([ended, failed]).then(() => {
    clearTimeout(timer);
    if (!done && !cut && !error) error = `the stage ended without finishing (exit ${child.exitCode ?? child.signalCode})`;
    return { samples, cut, error };
  });
}

// The stage's side: measure(job, onSample) runs the stage; a Cut it throws
// ends it cut, any other error ends it failed. Exits when done. Should its
// channel to the starter close first (the starter killed by SIGKILL), it
// removes its folder and kills its group at once: there is no one to report to.
function serveStage(measure) {
  process.on('disconnect', () => {
    fs.rmSync(process.env.TMPDIR, { recursive: true, force: true });
    killGroup(process.pid);
  });
  const send = (m) => new Promise((resolve) => (process.connected ? process.send(m, () => resolve()) : resolve()));
  process.once('message', async (job) => {
    try {
      await measure(job, (sample) => send({ sample }));
      await send({ done: true });
    } catch (err) {
      await send(err instanceof Cut ? { cut: err.message } : { error: err.stack });
    }
    process.exit(0);
  });
}

module.exports = { Cut, checkTime, killTree, runStage, serveStage, kGraceMs };
