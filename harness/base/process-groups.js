'use strict';
// Child processes started as leaders of their own process group (spawn's
// `detached`), so that one signal ends them with all they started: the codec
// workers of a Jazzer.js target, libFuzzer's fork-mode children. A group is
// killed when its leader exits (what is left is orphaned workers, possibly
// stuck in a codec), and every group when this process exits or is told to
// stop. A leader told its starter's pid ends its group itself once that
// process has gone without ending it (orphanCheck).
const fs = require('node:fs');

const groups = new Map();  // leader's pid -> what to remove once the group is gone
const kStopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function killGroup(pid, signal = 'SIGKILL') {
  try {
    process.kill(-pid, signal);
  } catch { /* the group is gone */ }
}

// Kills a tracked group and removes what it left behind.
function endGroup(pid) {
  killGroup(pid);
  groups.get(pid)();
}

function killAll() {
  for (const pid of groups.keys()) endGroup(pid);
}

function onStopSignal(signal) {
  killAll();
  // Then end as the signal would have ended this process.
  for (const s of kStopSignals) process.removeListener(s, onStopSignal);
  process.kill(process.pid, signal);
}

// child: spawned with { detached: true }. cleanup(): removes what its group
// leaves behind (its temporary folder), once the group is killed: when its
// leader exits, or when this process exits or is stopped first (a terminal's
// Ctrl-C), which leaves no time to wait for the leader's exit.
function trackGroup(child, cleanup) {
  if (!groups.size) {
    process.on('exit', killAll);
    for (const s of kStopSignals) process.on(s, onStopSignal);
  }
  groups.set(child.pid, cleanup);
  child.once('exit', () => {
    endGroup(child.pid);
    groups.delete(child.pid);
    if (!groups.size) {
      process.removeListener('exit', killAll);
      for (const s of kStopSignals) process.removeListener(s, onStopSignal);
    }
  });
}

// The leader's side: a function that, called often, removes `tmpdir` and
// kills this process's group once this process's parent is no longer
// `starter` (a starter killed by SIGKILL ends none of its groups, which would
// run on, unseen, until their own time is up). A loop that never frees the
// thread for a timer (libFuzzer's, --sync) calls it between inputs; it looks
// at most once a second. Without a starter it does nothing.
function orphanCheck(starter, tmpdir) {
  if (!starter) return () => {};
  let next = 0;
  return () => {
    if (Date.now() < next) return;
    next = Date.now() + 1000;
    if (process.ppid === starter) return;
    if (tmpdir) fs.rmSync(tmpdir, { recursive: true, force: true });
    killGroup(process.pid);
  };
}

module.exports = { trackGroup, killGroup, orphanCheck };
