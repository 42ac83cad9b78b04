'use strict';
// Child processes started as leaders of their own process group (spawn's
// `detached`), so that one signal ends them with all they started: the codec
// workers of a Jazzer.js target, libFuzzer's fork-mode children. A group is
// killed when its leader exits (what is left is orphaned workers, possibly
// stuck in a codec), and every group when this process exits or is told to stop.

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

module.exports = { trackGroup, killGroup };
