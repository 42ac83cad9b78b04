'use strict';
// A worker process (harness/worker.js) driven synchronously, for fuzz targets
// whose entry point must return before the next input: requests go down one
// FIFO and answers come up another, read without the event loop. A worker
// that dies yields a `crash` outcome (with its signal, read from /proc before
// node reaps it) and one that does not answer in time a `hang`; either way a
// fresh worker takes the next request. After the first such loss spare
// workers are kept booting, so a codec that crashes often costs a switch, not
// a node start, per crash.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { StringDecoder } = require('node:string_decoder');
const { EnvironmentError, UsageError } = require('./errors');
const { unfinishedBuild } = require('./ops');

const workerMain = path.join(__dirname, 'worker.js');
const pause = new Int32Array(new SharedArrayBuffer(4));
// Workers kept booting once one was lost: two cover a crash that comes before the last spare is up.
const kSpares = 2;
// FIFO pairs made by one mkfifo, which is a process start of its own.
const kFifoBatch = 16;
// The first name of each signal number (SIGABRT rather than its alias SIGIOT), as child 'exit' events give.
const signalNames = {};
for (const [name, n] of Object.entries(os.constants.signals)) signalNames[n] ??= name;

class SyncWorker {
  constructor(nodePath, { timeoutMs = 10_000 } = {}) {
    this.nodePath = nodePath;
    this.timeoutMs = timeoutMs;
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-sync-'));
    this.nextId = 1;
    this.named = 0;
    this.fifos = [];
    this.spares = [];
    this.buffer = Buffer.alloc(65536);
    this.stats = { requests: 0, crashes: 0, hangs: 0, restarts: 0 };
    this.onExit = () => this.close();
    process.on('exit', this.onExit);
  }

  // A booting worker and the ends of its two FIFOs that this process keeps.
  #spawn() {
    if (!this.fifos.length) {
      for (let i = 0; i < kFifoBatch; i++) {
        const n = ++this.named;
        this.fifos.push([path.join(this.dir, `requests-${n}`), path.join(this.dir, `answers-${n}`)]);
      }
      execFileSync('mkfifo', this.fifos.flat());
    }
    const [requests, answers] = this.fifos.shift();
    // Opening read ends without blocking first lets both ends open at once.
    const childIn = fs.openSync(requests, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const toWorker = fs.openSync(requests, 'w');
    const fromWorker = fs.openSync(answers, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const childOut = fs.openSync(answers, 'w');
    const child = spawn(this.nodePath, ['--expose-internals', '--no-warnings', workerMain],
      { stdio: [childIn, 'ignore', 'ignore', childOut] });
    child.unref();
    fs.closeSync(childIn);
    fs.closeSync(childOut);
    fs.rmSync(requests);
    fs.rmSync(answers);
    return { child, toWorker, fromWorker };
  }

  #start() {
    Object.assign(this, this.spares.shift() ?? this.#spawn(), { pending: '', decoder: new StringDecoder('utf8') });
  }

  request(message) {
    this.stats.requests++;
    if (!this.child) this.#start();
    const id = this.nextId++;
    fs.writeSync(this.toWorker, `${JSON.stringify({ ...message, id })}\n`);
    const deadline = Date.now() + this.timeoutMs;
    let built = false;  // a value module's note comes before the answer
    let answer;
    do {
      const line = this.#readLine(deadline);
      if (line === null) return this.#crashed();
      if (line === undefined) return this.#hung(unfinishedBuild(message, built, this.timeoutMs));
      answer = JSON.parse(line);
      built ||= Boolean(answer.built);
    } while (answer.built);
    const { outcome, fault } = answer;
    if (fault) throw new (fault.kind === 'usage' ? UsageError : EnvironmentError)(fault.message);
    return outcome;
  }

  // A line, null when the worker died, undefined when it ran out of time.
  #readLine(deadline) {
    const { buffer } = this;
    for (;;) {
      const newline = this.pending.indexOf('\n');
      if (newline !== -1) {
        const line = this.pending.slice(0, newline);
        this.pending = this.pending.slice(newline + 1);
        return line;
      }
      let n;
      try {
        n = fs.readSync(this.fromWorker, buffer);
      } catch (err) {
        if (err.code !== 'EAGAIN') throw err;
        if (Date.now() > deadline) return undefined;
        Atomics.wait(pause, 0, 0, 0.05);
        continue;
      }
      if (n === 0) return null;
      // A read may end inside a character: the decoder keeps its first bytes for the next.
      this.pending += this.decoder.write(buffer.subarray(0, n));
    }
  }

  #crashed() {
    this.stats.crashes++;
    const { signal, code } = exitStatus(this.child.pid);
    this.#reset();
    return { kind: 'crash', signal, code, stderr: '' };
  }

  // unbuilt: the outcome to give when a value module, not the codec, ran out of time.
  #hung(unbuilt) {
    if (!unbuilt) this.stats.hangs++;
    this.#reset();
    return unbuilt ?? { kind: 'hang', ms: this.timeoutMs };
  }

  #reset() {
    this.stats.restarts++;
    this.#stop(this);
    this.child = null;
    this.#start();
    while (this.spares.length < kSpares) this.spares.push(this.#spawn());
  }

  #stop({ child, toWorker, fromWorker }) {
    try {
      child.kill('SIGKILL');
    } catch { /* already gone */ }
    fs.closeSync(toWorker);
    fs.closeSync(fromWorker);
  }

  close() {
    if (this.child) this.#stop(this);
    for (const spare of this.spares) this.#stop(spare);
    this.child = null;
    this.spares = [];
    process.removeListener('exit', this.onExit);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

// How a dead child ended, from the exit_code field of /proc/<pid>/stat (a
// waitpid status), readable until node reaps the zombie.
function exitStatus(pid) {
  for (let i = 0; i < 200; i++) {
    let fields;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    } catch {
      break;
    }
    if (fields[0] === 'Z') {
      const status = Number(fields.at(-1));
      const signal = status & 0x7f;
      return signal ? { signal: signalNames[signal] ?? `signal ${signal}`, code: null } : { signal: null, code: status >> 8 };
    }
    Atomics.wait(pause, 0, 0, 1);
  }
  return { signal: null, code: null };
}

module.exports = { SyncWorker };
