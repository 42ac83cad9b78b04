'use strict';
// The fork server (harness/run/forkserver, fork-server-main.js) as the harness's workers
// use it. Where it is built, a node of it loads and warms up what a worker
// runs, then forks a worker for each `requests<TAB>answers` line it reads:
// the worker reads its requests from the first FIFO and answers on the
// second, whose last line, written by the fork's monitor, says how it ended
// (forkserver.c). A fork costs far less than a node start (node, the
// harness's modules, the warm-up). blocking-driver.js starts its fork server through its spawner;
// async-driver.js gets its forks from a ForkServer (below), which looks
// to it like a ChildProcess.

const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { EventEmitter } = require('node:events');
const { PassThrough } = require('node:stream');
const { getSystemErrorName } = require('node:util');
const { EnvironmentError } = require('../base/errors');
const { onJsonLines, lineSplitter } = require('../base/json-lines');
const { observersArgs } = require('./protocol');

const forkServerMain = path.join(__dirname, 'fork-server-main.js');
const forkServerLibrary = path.join(__dirname, 'forkserver', 'build', 'forkserver.node');
// How long a fork server may take to start and warm up.
const kStartMs = 5000;
const { O_RDWR, O_NONBLOCK } = fs.constants;

// Whether workers may come from a fork server: it is built, and the user did
// not turn it off (IPCFUZZ_FORK_SERVER=off, docs/commands.md), as on a system
// where forking a preloaded node misbehaves.
const forkServerBuilt = () => process.env.IPCFUZZ_FORK_SERVER !== 'off' && fs.existsSync(forkServerLibrary);

// The first name of each signal number (SIGABRT rather than its alias SIGIOT), as child 'exit' events give.
const signalNames = {};
for (const [name, n] of Object.entries(os.constants.signals)) signalNames[n] ??= name;

// A shell's $? (128 + the signal that ended a process, or its exit code) as
// a child 'exit' event gives it: [code, signal].
const exitOf = (status) => (status > 128 ? [null, signalNames[status - 128] ?? `signal ${status - 128}`] : [status, null]);
// How a process ended, in words: its signal, or its exit code.
const endedWith = (code, signal) => `ended with ${signal ?? `code ${code}`}`;

// Why the workers of a binary start as nodes once its fork server failed, said once in their stats.
const forkServerOff = (nodePath, why) => `fork server of ${nodePath} off (${why}): workers start as nodes`;

// The fork server's library loaded in this process as an addon, or null
// where it is not built or this node cannot load it.
let library;
function loadedLibrary() {
  if (library === undefined) {
    library = null;
    if (fs.existsSync(forkServerLibrary)) {
      const module = { exports: {} };
      try {
        process.dlopen(module, forkServerLibrary);
        library = module.exports;
      } catch { /* a library this node cannot load */ }
    }
  }
  return library;
}

// Makes FIFOs: with the fork server's library where it is built (a mkfifo
// process spawned from a large fuzz target costs it a fork), else with mkfifo.
function makeFifos(paths) {
  const lib = loadedLibrary();
  if (!lib) {
    execFileSync('mkfifo', paths);
    return;
  }
  const error = lib.mkfifos(paths);
  if (error < 0) throw new EnvironmentError(`cannot make a FIFO in ${path.dirname(paths[0])}: ${getSystemErrorName(error)}`);
}

// Waits until a non-blocking descriptor has something to read, or about `ms`
// have passed: in the kernel with the library, which wakes up as the answer
// comes; else asleep for at most kPollMs, after which the caller reads again.
const kPollMs = 0.05;
const pause = new Int32Array(new SharedArrayBuffer(4));
function waitReadable(fd, ms) {
  const lib = loadedLibrary();
  if (lib?.waitReadable) lib.waitReadable(fd, ms * 1000);
  else Atomics.wait(pause, 0, 0, Math.min(ms, kPollMs));
}

// Runs the callbacks this process's event loop has ready, the closing of
// handles among them, for a process that never returns to its loop (see
// forkserver.c); without the library, nothing.
function runEventLoopOnce() {
  loadedLibrary()?.runEventLoopOnce?.();
}

// A worker forked by a ForkServer, as async-driver.js uses a ChildProcess:
// stdin, stdio[3] (its answers), stderr (the fork server's, which its forks
// share: from its first request on, as a spare does not write), pid,
// exitCode and signalCode, kill(), 'exit' then 'close'. A fork that never
// started emits 'unstarted' instead, with how it ended as a shell's $? (it
// could not fork, or died in the fork), or null (its fork server ended first).
class ForkedWorker extends EventEmitter {
  constructor(requests, answers, ended) {
    super();
    this.fifos = [requests, answers];
    this.pid = null;
    this.exitCode = null;
    this.signalCode = null;
    this.killWith = null;  // a signal asked for before the pid came
    this.asked = false;    // sent a request: the fork server's stderr is its own from then on
    this.ended = ended;
    this.stderr = new PassThrough();
    this.answers = new PassThrough();
    this.stdio = [null, null, this.stderr, this.answers];
    // Both FIFOs are held open for reading and writing: no open blocks; the
    // worker's requests end when this end is closed.
    const open = (fifo) => fs.openSync(fifo, O_RDWR | O_NONBLOCK);
    this.toWorker = new net.Socket({ fd: open(requests), readable: false, writable: true });
    this.fromWorker = new net.Socket({ fd: open(answers), readable: true, writable: false });
    this.stdin = {
      write: (text) => {
        this.asked = true;
        return this.toWorker.write(text);
      },
      end: () => this.toWorker.destroy(),
      on: (event, listener) => this.toWorker.on(event, listener),
    };
    this.toWorker.on('error', () => {});  // EPIPE when the worker dies; its exit line tells
    // A request waiting for its answer holds this process up with its time
    // limit's timer, as a child's pipes would; an exit line never read once
    // nothing waits must not.
    this.toWorker.unref();
    this.fromWorker.unref();
    this.fromWorker.setEncoding('utf8');
    this.fromWorker.on('data', lineSplitter((line) => this.#line(line)));
  }

  // The worker answers `{"id":...}` lines; its pid and its end come from fork-server-main.js and the monitor.
  #line(line) {
    if (line.startsWith('{"pid":')) {
      this.pid = JSON.parse(line).pid;
      if (this.killWith) this.kill(this.killWith);
    } else if (line.startsWith('{"exit":')) {
      this.#end(JSON.parse(line).exit);
    } else {
      this.answers.write(`${line}\n`);
    }
  }

  kill(signal = 'SIGTERM') {
    if (this.exitCode !== null || this.signalCode !== null) return false;
    if (this.pid === null) {
      this.killWith = signal;
      return true;
    }
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;  // gone, its exit line on the way
    }
  }

  // status: as the monitor writes it; null when the fork server ended before it forked.
  #end(status) {
    this.#close();
    if (status === null || this.pid === null) {
      for (const fifo of this.fifos) fs.rmSync(fifo, { force: true });  // a started fork's monitor removed them
      this.emit('unstarted', status);
      return;
    }
    [this.exitCode, this.signalCode] = exitOf(status);
    // After the answers written before it have been read.
    setImmediate(() => {
      this.emit('exit', this.exitCode, this.signalCode);
      setImmediate(() => this.emit('close', this.exitCode, this.signalCode));
    });
  }

  #close() {
    this.toWorker.destroy();
    this.fromWorker.destroy();
    this.answers.end();
    this.stderr.end();
    this.ended(this);
  }

  // What its fork server's end means to a fork that has not started.
  serverEnded() {
    if (this.pid === null) this.#end(null);
  }
}

// A fork server of one node binary for a async-driver.js, started at the
// first fork asked of it. Until it is ready, and once it has ended, fork()
// gives null and the caller starts a node. It is ready once its first fork
// has run a worker's life (see #probe); where that fails, `off` says why,
// and the caller goes on starting nodes. Its forks outlive it; it ends with
// this process (its requests end), or at close().
class ForkServer {
  // observers: what observes its forks' checks (protocol.js observersArgs).
  constructor(nodePath, { observers = [] } = {}) {
    this.nodePath = nodePath;
    this.observers = observers;
    this.state = 'idle';  // starting, ready, ended
    this.off = null;      // once its forks have failed, why its workers start as nodes
    this.process = null;
    this.forks = 0;
    this.live = new Set();
  }

  fork() {
    if (this.state === 'idle') this.#start();
    return this.state === 'ready' ? this.#fork() : null;
  }

  #fork() {
    // In the temp folder itself: the fork's monitor removes them once it has opened them.
    const prefix = path.join(os.tmpdir(), `ipcfuzz-fork-${process.pid}-${++this.forks}`);
    const [requests, answers] = [`${prefix}-requests`, `${prefix}-answers`];
    try {
      for (const fifo of [requests, answers]) fs.rmSync(fifo, { force: true });  // of a process gone with this pid
      makeFifos([requests, answers]);
    } catch (err) {
      this.close(err.message);  // the caller starts nodes
      return null;
    }
    const worker = new ForkedWorker(requests, answers, (w) => this.live.delete(w));
    this.live.add(worker);
    // A fork that died before its worker said its pid: forks of this binary do not work.
    worker.once('unstarted', (status) => {
      if (status === null) return;
      this.close(`a fork ${endedWith(...exitOf(status))} before it started`);
    });
    this.process.stdin.write(`${requests}\t${answers}\n`);
    return worker;
  }

  #start() {
    this.state = 'starting';
    const preload = [forkServerLibrary, process.env.LD_PRELOAD].filter(Boolean).join(':');
    const child = spawn(this.nodePath, ['--single-threaded', '--expose-internals', '--no-warnings', forkServerMain,
      forkServerLibrary, ...observersArgs(this.observers)],
    { env: { ...process.env, LD_PRELOAD: preload }, stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
    this.process = child;
    const timer = setTimeout(() => this.#turnOff(`no first fork ended within ${kStartMs} ms of its start`), kStartMs);
    onJsonLines(child.stdio[3], (message) => {
      if (message.ready && this.state === 'starting') this.#probe(timer);
    });
    child.stderr.on('data', (chunk) => { for (const w of this.live) if (w.asked) w.stderr.write(chunk); });
    child.stdin.on('error', () => {});
    child.on('error', (err) => this.close(`cannot start it: ${err.code ?? err.message}`));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      this.#turnOff(`it ${endedWith(code, signal)} before its first fork did`);
      this.#ended();
    });
    // It waits for forks to ask for; it keeps no one waiting for it.
    for (const handle of [child, child.stdin, child.stderr, child.stdio[3]]) handle.unref();
    timer.unref();
  }

  // A first fork, its requests ended at once, must say its pid, warm up and
  // exit with code 0, and its monitor say so, before `timer` (the start's)
  // runs out: a fork that dies in the fork server's library (a monitor that
  // aborts writes no exit line) would otherwise cost each request given to
  // a fork its whole time limit.
  #probe(timer) {
    const probe = this.#fork();
    if (!probe) return;  // closed: the FIFOs could not be made
    probe.stdin.end();
    probe.once('exit', (code, signal) => {
      if (this.state !== 'starting') return;
      clearTimeout(timer);
      if (code === 0) this.state = 'ready';
      else this.#turnOff(`its first fork ${endedWith(code, signal)}`);
    });
  }

  #turnOff(why) {
    if (this.state === 'starting') this.close(why);
  }

  #ended() {
    this.state = 'ended';
    for (const w of this.live) w.serverEnded();
  }

  // Ends the fork server; its forks are their callers' to end. why: what
  // failed, said once in `off`: its workers start as nodes from now on.
  close(why) {
    if (this.state === 'ended') return;
    if (why) this.off = forkServerOff(this.nodePath, why);
    this.process?.kill('SIGKILL');
    this.#ended();
  }
}

module.exports = {
  ForkServer, forkServerBuilt, forkServerLibrary, forkServerMain, makeFifos, waitReadable, runEventLoopOnce, exitOf,
  forkServerOff, endedWith,
};
