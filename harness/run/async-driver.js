'use strict';
// A long-lived worker process of one node binary, fed requests in a pipeline.
// A request that kills the process (abort, CHECK failure, segfault) resolves
// as a `crash` outcome and one that exceeds the time limit as `hang`; the
// process is replaced and the queued requests go on in the new one. After
// the first such loss a spare process is kept booted, so that a codec that
// crashes often costs a switch, not a node start, per crash; given a fork
// server (fork-server.js), the processes that take over are its forks. A request may
// be answered in parts (a batch of checks, one part per input, sent a few
// at a time): each message of parts restarts its time limit. Requests made
// together may go as one (`gather`), each answered as soon as it is done:
// when that one loses its process, the first not answered was running, and
// a crash is blamed on it as it would have been had it gone alone; the ones
// after it, and all not answered after a hang, are sent again, each alone.

const { spawn } = require('node:child_process');
const path = require('node:path');
const { EnvironmentError, StoppedError } = require('../base/errors');
const { onJsonLines, afterOutput } = require('../base/json-lines');
const { unfinishedBuild } = require('../oracle/ops');
const { crashOutcome, hangOutcome, faultError, RecipeNumbers, kStderrTail, observersArgs } = require('./protocol');
const { kCallTimeoutMs } = require('../base/defaults');

const workerMain = path.join(__dirname, 'worker-main.js');
const freshWorkerMain = path.join(__dirname, 'fresh-worker-main.js');

// Resolves a request with its outcome, or rejects it with the worker's fault.
function answerRequest(entry, { outcome, fault }) {
  if (!fault) entry.resolve(outcome);
  else entry.reject(faultError(fault));
}

class AsyncWorker {
  // gather: requests made in one turn of the event loop go as one (see #sendGathered);
  // fresh: a worker for one check that confirms a finding (fresh-worker-main.js);
  // flags: node flags of its processes; forkServer: a ForkServer of nodePath
  // (fork-server.js) whose forks take over once a process was lost, closed with this;
  // observers: what observes the checks its processes run (protocol.js observersArgs).
  constructor(nodePath, { timeoutMs = kCallTimeoutMs, gather = false, fresh = false, flags = [], forkServer = null,
    observers = [] } = {}) {
    this.nodePath = nodePath;
    this.flags = flags;
    this.observers = observers;
    this.forkServer = forkServer;
    this.main = fresh ? freshWorkerMain : workerMain;
    this.timeoutMs = timeoutMs;
    this.gather = gather;
    this.gathered = [];  // requests of this turn of the event loop, not sent yet
    this.recipes = new RecipeNumbers();  // for every process of this worker (protocol.js)
    this.queue = [];     // requests sent and not answered, oldest first
    this.nextId = 1;
    // gathered: `many` requests, each of several requests (counted in `requests`);
    // forkServerOff: why the processes that take over start as nodes, once its fork server failed
    this.stats = {
      requests: 0, crashes: 0, hangs: 0, restarts: 0, gathered: 0,
      get forkServerOff() { return forkServer?.off ?? null; },
    };
    this.child = null;
    this.spare = null;
  }

  // onPart(part): told of each part of the answer, in order, before it resolves;
  // wire(child): more of the message, as it is to be sent to that process
  // (each time it is sent: a request is sent again to a process that took over).
  request(message, { onPart, wire } = {}) {
    // A check still running when the time was up (fast-check does not wait
    // for the property it interrupts) must not start a new process.
    if (this.closed) return Promise.reject(new StoppedError(`worker of ${this.nodePath} stopped`));
    this.stats.requests++;
    return new Promise((resolve, reject) => {
      if (this.gather && !onPart && !wire) {
        this.gathered.push({ message, resolve, reject });
        if (this.gathered.length === 1) setImmediate(() => this.#sendGathered());
        return;
      }
      this.#enqueue({ message, resolve, reject, onPart, wire });
    });
  }

  #enqueue(entry) {
    entry.message = { ...entry.message, id: this.nextId++ };
    const wasIdle = this.queue.length === 0;
    this.queue.push(entry);
    this.#ensureStarted();
    this.#send(entry);
    if (wasIdle) this.#armTimer();  // the new request is the one being worked on
  }

  // The operations asked for in one turn of the event loop, as one `many`
  // request: the checks in flight each ask for their next operation when the
  // answer before comes, so they ask together.
  #sendGathered() {
    const subs = this.gathered.splice(0);
    if (this.closed) {
      for (const sub of subs) sub.reject(new StoppedError(`worker of ${this.nodePath} stopped`));
      return;
    }
    if (subs.length === 1) {
      this.#enqueue(subs[0]);
      return;
    }
    this.stats.gathered++;
    const entry = {
      message: { op: 'many' }, subs, answered: 0,
      onPart: (answer) => answerRequest(subs[entry.answered++], answer),
      resolve: () => {}, reject: (err) => { for (const sub of subs.slice(entry.answered)) sub.reject(err); },
      wire: (child) => this.recipes.many(subs.map((sub) => sub.message), child),
    };
    this.#enqueue(entry);
  }

  // The operations of a `many` request that lost its process and were not
  // answered, each a request of its own in its place; how many.
  #split(entry) {
    const alone = entry.subs.slice(entry.answered)
      .map((sub) => ({ ...sub, message: { ...sub.message, id: this.nextId++ } }));
    this.queue.splice(this.queue.indexOf(entry), 1, ...alone);
    return alone.length;
  }

  // Ends the process and every request still waiting for it, for good. An
  // idle process is let go by closing its input, so that it ends as a process
  // does (writing its coverage counts); a busy one, and the spare, are killed.
  close() {
    this.closed = true;
    const child = this.child;
    this.child = null;
    clearTimeout(this.timer);
    for (const c of [child, this.spare]) c?.removeAllListeners('exit');
    if (child && this.queue.length === 0) child.stdin.end();
    else child?.kill('SIGKILL');
    this.spare?.kill('SIGKILL');
    this.spare = null;
    this.forkServer?.close();
    for (const entry of [...this.queue.splice(0), ...this.gathered.splice(0)]) {
      entry.reject(new StoppedError(`worker of ${this.nodePath} stopped`));
    }
  }

  // Ends the process as close() does, after waiting up to `ms` for it to be
  // idle; resolves once it has ended (killed if it has not within `ms` more).
  async end(ms) {
    const until = Date.now() + ms;
    while (this.queue.length && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const child = this.child;
    this.close();
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  // A process whose answers and exit count only while it is this.child: a
  // fork once one was lost (a codec that crashes once mostly crashes again),
  // else a node started.
  #spawn() {
    const child = (this.lost && this.forkServer?.fork()) || this.#start();
    child.stderrTail = '';
    // A fork that never started: its requests go to a process that does.
    child.on('unstarted', () => {
      if (child === this.spare) this.spare = null;
      else if (child === this.child) this.#restart();
    });
    onJsonLines(child.stdio[3], (answer) => { if (child === this.child) this.#answer(answer); });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => { child.stderrTail = (child.stderrTail + text).slice(-kStderrTail); });
    child.stdin.on('error', () => {});  // EPIPE when the worker dies; 'exit' handles it
    child.on('error', (err) => {
      if (child === this.spare) this.spare = null;
      this.#failAll(new EnvironmentError(`cannot start ${this.nodePath}: ${err.code ?? err.message}`));
    });
    afterOutput(child, (code, signal) => {
      if (child === this.spare) this.spare = null;
      this.#exited(child, code, signal);
    });
    return child;
  }

  #start() {
    const flags = ['--expose-internals', '--no-warnings', ...this.flags];
    return spawn(this.nodePath, [...flags, this.main, ...observersArgs(this.observers)],
      { stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
  }

  // Starts the process now, not at the first request.
  boot() {
    if (!this.closed) this.#ensureStarted();
    return this;
  }

  #ensureStarted() {
    if (this.child) return;
    this.child = this.spare ?? this.#spawn();
    this.spare = null;
    this.#armTimer();
  }

  #send(entry) {
    const message = entry.wire ? { ...entry.message, ...entry.wire(this.child) } : entry.message;
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  #armTimer() {
    clearTimeout(this.timer);
    if (this.queue.length === 0) return;
    const head = this.queue[0];
    this.timer = setTimeout(() => {
      // A fork that never said its pid ran nothing: its fork server is at
      // fault, not the request. Closed, it tells its forks ('unstarted').
      const child = this.child;
      if (child?.pid === null) {
        this.forkServer?.close(`a fork did not start within ${this.timeoutMs} ms`);
        if (child === this.child) this.#restart();
        return;
      }
      if (head.subs) {
        this.#split(head);
        this.#restart();
        return;
      }
      this.queue.shift();
      const unbuilt = unfinishedBuild(head.message, head.built, this.timeoutMs);
      if (!unbuilt) this.stats.hangs++;
      head.resolve(unbuilt ?? hangOutcome(this.timeoutMs));
      this.#restart();
    }, this.timeoutMs);
  }

  #answer({ id, outcome, fault, built, parts }) {
    const head = this.queue[0];
    if (!head || head.message.id !== id) return;  // answer to a request already timed out
    if (built) {
      head.built = true;
      return;
    }
    for (const part of parts ?? []) head.onPart?.(part);
    if (outcome === undefined && fault === undefined) {
      this.#armTimer();
      this.#keepSpare();
      return;
    }
    this.queue.shift();
    answerRequest(head, { outcome, fault });
    this.#armTimer();
    this.#keepSpare();
  }

  #exited(child, code, signal) {
    if (child !== this.child) return;
    this.child = null;
    clearTimeout(this.timer);
    // Of a `many` request, the first operation not answered is at fault.
    if (this.queue[0]?.subs && !this.#split(this.queue[0])) {
      this.#resendQueue();
      return;
    }
    const head = this.queue.shift();
    if (!head) return;
    this.stats.crashes++;
    head.resolve(crashOutcome(code, signal, child.stderrTail));
    this.#resendQueue();
  }

  #restart() {
    const child = this.child;
    this.child = null;
    child?.removeAllListeners('exit');
    child?.kill('SIGKILL');
    this.#resendQueue();
  }

  #resendQueue() {
    if (this.queue.length > 0) {
      this.stats.restarts++;
      this.#ensureStarted();
      for (const entry of this.queue) this.#send(entry);
    }
    this.lost = true;
  }

  // Booted once the process that took over has answered, not beside it, so
  // that the two starts do not share the time limit of its first request.
  #keepSpare() {
    if (this.lost && !this.closed && !this.spare) this.spare = this.#spawn();
  }

  #failAll(err) {
    clearTimeout(this.timer);
    this.child = null;
    for (const entry of this.queue.splice(0)) entry.reject(err);
  }
}

module.exports = { AsyncWorker };
