'use strict';
// Runs a finding's short script in a node binary to learn what it sees
// there (IPCFUZZ_RECORD=1: the script prints that alone, as JSON): the
// reference's observation is recorded into the script as `expected`, the
// build's tells whether the script shows the difference. Bounded: each run
// ends by its timeout or the deadline and takes its process group along.

const { spawn } = require('node:child_process');
const path = require('node:path');
const { kCallTimeoutMs } = require('../../base/defaults');

// The limit a short script keeps to itself for a send or a read (printed.js),
// and what it gets beyond that to start its processes and print.
const kScriptMs = kCallTimeoutMs;
const kGraceMs = 5000;
const groups = new Set();
process.on('exit', () => { for (const pid of groups) killGroup(pid); });

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

// { seen } (what the script printed), or { ended } (a signal or exit code
// with nothing printed: the process that ran the codec crashed), or
// { fault } (it could not run: exit 2, or no JSON), or { outOfTime }.
function observe(node, file, { nodeArgs = [], scriptArgs = [], timeoutMs = kCallTimeoutMs, deadline = Infinity } = {}) {
  return new Promise((resolve) => {
    const run = spawn(node, [...nodeArgs, file, ...scriptArgs], { detached: true, cwd: path.dirname(file),
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, IPCFUZZ_RECORD: '1' } });
    groups.add(run.pid);
    let out = '';
    let err = '';
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      killGroup(run.pid);
    }, Math.max(0, Math.min(Math.max(timeoutMs, kScriptMs) + kGraceMs, deadline - Date.now())));
    run.stdout.setEncoding('utf8').on('data', (text) => { out += text; });
    run.stderr.setEncoding('utf8').on('data', (text) => { err = (err + text).slice(-2048); });
    run.on('error', (e) => {
      clearTimeout(timer);
      resolve({ fault: `cannot start ${node}: ${e.code ?? e.message}` });
    });
    run.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(run.pid);
      groups.delete(run.pid);
      if (late) return resolve(Date.now() >= deadline - 50 ? { outOfTime: true } : { fault: 'it did not end in time' });
      const line = out.trim().split('\n').at(-1);
      try {
        if (line) return resolve({ seen: JSON.parse(line) });
      } catch { /* not what the script prints: below */ }
      if (signal || (code !== 0 && code !== 2 && !err.includes('cannot run:'))) {
        return resolve({ ended: signal ?? `exit ${code}`, stderr: err.trim() });
      }
      resolve({ fault: err.trim().split('\n').find((l) => l.startsWith('cannot run:')) ?? `exit ${code}, nothing printed` });
    });
  });
}

module.exports = { observe, kGraceMs };
