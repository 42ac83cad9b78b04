'use strict';
// Peak resident memory of a process tree, from /proc/<pid>/status VmHWM (the
// kernel's own high-water mark), read every `intervalMs` while the processes
// live. Each process is put in a class by its command line, so the fuzzing
// process and the codec worker it drives are reported apart.

const fs = require('node:fs');

function readProc(pid, file) {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;  // gone between the listing and the read
  }
}

function childrenOf() {
  const parents = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProc(name, 'stat');
    if (!stat) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!parents.has(ppid)) parents.set(ppid, []);
    parents.get(ppid).push(Number(name));
  }
  return parents;
}

// [{ pid, parent }] of the tree under root, parents before their children.
function descendants(root) {
  const children = childrenOf();
  const found = [];
  const queue = [{ pid: root, parent: null }];
  while (queue.length) {
    const entry = queue.shift();
    found.push(entry);
    queue.push(...(children.get(entry.pid) ?? []).map((pid) => ({ pid, parent: entry.pid })));
  }
  return found;
}

// classify(cmdline, class of the parent) -> a class name, or null to leave
// the process out (its children are then classified as its parent's: a shell
// between a process and what it starts does not hide them). A process is classified again when its command line
// changes: between fork and exec it still shows its parent's (and memory).
// Returns { stop() -> { class: peak MiB } }.
function sampleTree(rootPid, classify, intervalMs = 200) {
  const seen = new Map();  // pid -> { cmdline, cls, kib }
  const sample = () => {
    for (const { pid, parent } of descendants(rootPid)) {
      const cmdline = readProc(pid, 'cmdline');
      if (!cmdline) continue;  // a zombie or gone; its peak was read before, if ever
      let entry = seen.get(pid);
      if (entry?.cmdline !== cmdline) {
        const above = seen.get(parent)?.passes ?? null;
        const cls = classify(cmdline.split('\0').join(' '), above);
        entry = { cmdline, cls, passes: cls ?? above, kib: 0 };
        seen.set(pid, entry);
      }
      const kib = Number(/VmHWM:\s+(\d+)/.exec(readProc(pid, 'status') ?? '')?.[1]);
      if (kib) entry.kib = Math.max(entry.kib, kib);
    }
  };
  const timer = setInterval(sample, intervalMs);
  sample();
  return {
    stop() {
      clearInterval(timer);
      const byClass = {};
      for (const { cls, kib } of seen.values()) if (cls && kib) byClass[cls] = Math.max(byClass[cls] ?? 0, kib / 1024);
      return byClass;
    },
  };
}

module.exports = { sampleTree, descendants };
