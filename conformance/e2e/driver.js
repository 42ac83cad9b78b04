'use strict';
// Runs fork cases in a parent process of one binary (parent.cjs), which forks
// children of another (child.cjs). Bounded and tidy: the parent leads a process
// group of its own that is killed when the job ends, when the parent stops
// answering, and when this process exits; a parent that crashes or hangs
// costs the case it was on, and a fresh parent takes the rest.

const { spawn } = require('node:child_process');
const path = require('node:path');
const { EnvironmentError } = require('../../harness/base/errors');
const { channelTree } = require('../../harness/oracle/channel');
const { partsOf, programs } = require('./plan');
const { onJsonLines } = require('../../harness/base/json-lines');
const { Outcome } = require('../../harness/base/vocabulary');

const parentMain = path.join(__dirname, 'parent.cjs');
// The parent times out its own children; this is the time it gets on top.
const kGraceMs = 5000;
const kStderrTail = 2048;

const groups = new Set();
// Bumped by stopAll(): fork columns started before it start no parent again.
let generation = 0;
process.on('exit', () => { for (const pid of groups) killGroup(pid); });

// Out of time: every parent and its children go, and their columns start none again.
function stopAll() {
  generation++;
  for (const pid of groups) killGroup(pid);
}

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

// One parent process working through `cases`. Resolves with the parts it
// answered, the ids it finished, and how it failed if it did not finish.
function runParent({ parent, child, serialization, cases, timeoutMs, parentScript }) {
  return new Promise((resolve, reject) => {
    const [command, ...args] = parent.command;
    const internals = parent.name === 'node' ? ['--expose-internals', '--no-warnings'] : [];
    const proc = spawn(command, [...args, ...internals, parentScript],
      { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const parts = [];
    const done = new Set();
    let ready = false;
    let failure = null;
    let stderr = '';
    let timer;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        failure = { kind: Outcome.hang, ms: timeoutMs + kGraceMs };
        killGroup(proc.pid);
      }, timeoutMs + kGraceMs);
    };
    proc.on('spawn', () => groups.add(proc.pid));
    proc.on('error', (err) => reject(new EnvironmentError(`cannot start ${command}: ${err.code ?? err.message}`)));
    proc.stdin.on('error', () => {});
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (t) => { stderr = (stderr + t).slice(-kStderrTail); });
    onJsonLines(proc.stdout, (line) => {
      if (line.ready) ready = true;
      else if (line.done) done.add(line.id);
      else parts.push(line);
      arm();
    });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(proc.pid);
      groups.delete(proc.pid);
      if (!ready) {
        const last = stderr.trim().split('\n').at(-1) || `exit ${code}`;
        reject(new EnvironmentError(`the fork parent in ${command} did not start: ${last}`));
        return;
      }
      if (!failure && done.size < cases.length) {
        failure = { kind: Outcome.crash, code, signal, stderr: stderr.trim().split('\n').slice(-8).join('\n') };
      }
      resolve({ parts, done, failure });
    });
    // stdin stays open: the parent takes its end as the sign this process is gone.
    proc.stdin.write(`${JSON.stringify({ child: child.command, serialization, timeoutMs, cases })}\n`);
    arm();
  });
}

// parent, child: { name, command } of a runtime (harness/base/runtimes.js), or node
// binary paths. Map of case id -> { type, record } (raw) or { type, toChild, toParent }.
async function runForkColumn({
  parent, child, serialization = 'advanced', cases, timeoutMs, parentScript = parentMain,
}) {
  const outcomes = new Map(cases.map((c) => [c.id, { type: c.type }]));
  let remaining = cases;
  const started = generation;
  while (remaining.length && generation === started) {
    const { parts, done, failure } = await runParent({
      parent: runtimeOf(parent), child: runtimeOf(child), serialization, cases: remaining, timeoutMs, parentScript,
    });
    for (const { id, part, outcome } of parts) outcomes.get(id)[part] = outcome;
    remaining = remaining.filter((c) => !done.has(c.id));
    if (!remaining.length) break;
    // The parent died or stopped on this case: the part it was on failed, and
    // a fresh parent takes the case's other parts and the cases after it.
    const [current, ...rest] = remaining;
    const unanswered = partsOf(current).filter((part) => !(part in outcomes.get(current.id)));
    outcomes.get(current.id)[unanswered[0]] = failure;
    remaining = unanswered.length > 1 ? [{ ...current, parts: unanswered.slice(1) }, ...rest] : rest;
  }
  return outcomes;
}

const runtimeOf = (r) => (typeof r === 'string' ? { name: 'node', command: [r] } : r);

const programTrees = new Map();

// What a program's values look like after any channel: themselves.
function programExpectation(name) {
  if (!programTrees.has(name)) {
    programTrees.set(name, programs[name].values().map((v) => channelTree(v)));
  }
  return { kind: Outcome.ok, messages: programTrees.get(name), effects: [] };
}

module.exports = { runForkColumn, programExpectation, stopAll };
