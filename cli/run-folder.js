'use strict';
// Each ipcfuzz command keeps its temporary files (its workers' FIFOs, its
// Jazzer.js targets' folders and theirs) in a folder of its own,
// <tmp>/ipcfuzz-run-<pid>, made TMPDIR for it and for every process it
// starts, and removed when it exits or a signal stops it. A command killed by
// SIGKILL removes nothing: each command first removes the folders of those
// whose process is gone.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const runFolder = /^ipcfuzz-run-(\d+)$/;
const kStopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'];

// A zombie is gone too: killed with its parent, it waits for an init that
// may never reap it.
function alive(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ESRCH') return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return error.code === 'EPERM';
    }
  }
  return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
}

// The run folders in `base` whose process is gone, removed.
function sweep(base) {
  let names;
  try {
    names = fs.readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(runFolder.exec(name)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) fs.rmSync(path.join(base, name), { recursive: true, force: true });
  }
}

function useRunFolder() {
  const base = os.tmpdir();
  sweep(base);
  const folder = path.join(base, `ipcfuzz-run-${process.pid}`);
  // One of the same number, left by a process gone before this one had it.
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(folder, { mode: 0o700 });
  process.env.TMPDIR = folder;
  const remove = () => fs.rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  process.on('exit', remove);
  // Removed, then the signal ends this process as it would have; one who
  // listens too (harness/base/process-groups.js, which ends the process groups first)
  // raises it again itself.
  for (const signal of kStopSignals) {
    process.on(signal, function stop() {
      remove();
      if (process.listenerCount(signal) > 1) return;
      process.removeListener(signal, stop);
      process.kill(process.pid, signal);
    });
  }
  return folder;
}

module.exports = { useRunFolder, sweep };
