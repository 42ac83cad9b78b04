'use strict';
// A worker process (harness/run/worker-main.js) driven synchronously, for fuzz targets
// whose entry point must return before the next input: requests go down one
// FIFO and answers come up another, read without the event loop. A worker
// that dies yields a `crash` outcome (with its signal) and one that does not
// answer in time a `hang`; either way a fresh worker takes the next request.
// After the first such loss spare workers are kept booting, so a codec that
// crashes often costs a switch, not a node start, per crash.
//
// Workers are started by a shell of this process (the spawner), not by this
// process: a spawn from here blocks it for the fork and exec of node, most of
// a crash's cost to a fuzz target; a line to the spawner does not. The shell
// that waits for a worker writes how it ended on its answer FIFO, which this
// process holds open for reading and writing: so no open blocks and no read
// ends early, and a worker's death is its last line.
// Where the fork server is built (harness/run/forkserver), the spawner starts one
// node of it instead (fork-server-main.js), which forks each worker ready to run, and
// the fork's monitor writes that last line: a crash then costs a fork, not a
// node start. It starts at the first loss of a worker, in the background, the
// workers started meanwhile nodes: a run that loses none pays nothing for it,
// and no check waits for it. The workers that confirm a finding are always started afresh.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { StringDecoder } = require('node:string_decoder');
const { unfinishedBuild } = require('../oracle/ops');
const { crashOutcome, hangOutcome, faultError, kStderrTail, RecipeNumbers } = require('./protocol');
const { kCallTimeoutMs } = require('../base/defaults');
const {
  forkServerBuilt, forkServerLibrary, forkServerMain, makeFifos, waitReadable, exitOf, forkServerOff, endedWith,
} = require('./fork-server');

const workerMain = path.join(__dirname, 'worker-main.js');
const freshWorkerMain = path.join(__dirname, 'fresh-worker-main.js');
const pause = new Int32Array(new SharedArrayBuffer(4));
// Workers kept booting once one was lost: a native crash every few inputs
// outpaces one boot at a time on a busy machine.
const kSpares = 4;
// How long a worker's shell may take to open its FIFOs and start it.
const kStartMs = 5000;
// FIFO pairs made by one mkfifo, which is a process start of its own: twice
// as many each time, up to this many, so a worker started once makes few.
const kFifoBatch = 256;
const { O_RDWR, O_NONBLOCK } = fs.constants;

// Reads `requests<TAB>answers<TAB>stderr<TAB>main<TAB>observers<TAB>node[<TAB>library]`
// lines (paths may hold spaces; observers, the JSON of protocol.js observersArgs);
// each starts a worker (worker-main.js) of that node on those FIFOs, its stderr
// written to that file, and answers on the answer FIFO with the worker's pid and then its
// wait status. A fork server (fork-server-main.js) comes with its library to preload,
// given as its argument too, and runs with V8's --single-threaded (see
// forkserver.c). The node reads its requests on fd 4 moved to stdin (an
// asynchronous command's own stdin would be /dev/null). `jobs` reaps the
// shells that have ended. Ends when this process closes its end.
const spawnerScript = `
while IFS='	' read -r requests answers stderr main observers node library; do
  (
    exec 4<"$requests" 3>"$answers"
    rm -f "$requests" "$answers"
    set --
    if [ -n "$library" ]; then
      export LD_PRELOAD="$library\${LD_PRELOAD:+:$LD_PRELOAD}"
      set -- --single-threaded
    fi
    "$node" "$@" --expose-internals --no-warnings "$main" \${library:+"$library"} "--observers=$observers" <&4 4<&- >/dev/null 2>"$stderr" &
    exec 4<&-
    echo '{"pid":'$!'}' >&3
    wait $!
    echo '{"exit":'$?'}' >&3
  ) &
  jobs >/dev/null
done`;

let spawner = null;
let fifoFolder = null;
let workersMade = 0;

// The folder of this process's FIFOs, made on first use. The spawner, which
// outlives this process, removes it once this process has gone (its commands
// end), whether or not this process ran its exit handlers: a Jazzer.js target
// ends in libFuzzer's exit(), which runs none.
function fifos() {
  fifoFolder ??= fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-sync-'));
  return fifoFolder;
}

// This process's end of the spawner's command FIFO, the spawner started on first use.
function spawnerInput() {
  if (spawner) return spawner.input;
  const commands = path.join(fifos(), 'spawner');
  execFileSync('mkfifo', [commands]);
  // The shell opens the FIFO itself: a non-blocking descriptor passed as its stdin would end its reads.
  const child = spawn('/bin/sh', ['-c', `exec 0<"$1"; rm -f "$1"; ${spawnerScript}\nrm -rf "$2"`, 'sh', commands,
    fifos()], { stdio: 'ignore' });
  child.unref();
  spawner = { child, input: fs.openSync(commands, 'w') };
  return spawner.input;
}

// A process's exit is told by its shell (or the fork server's monitor) once
// the kernel has torn it down, well after it began to exit (after a crash,
// most of the crash's cost to a fuzz target). /proc shows it from the start:
// the PF_EXITING flag, and the status a wait will give. Read when an answer
// is slow in coming, as $? is: 128 + the signal, or the exit code.
const kExitCheckMs = 0.4;
const kExiting = 0x4;
function exitStatus(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;  // reaped: its monitor or shell has written its status
  }
  // Fields from the third (state) on, after the command name in parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const flags = Number(fields[9 - 3]);
  const code = Number(fields[52 - 3]);
  // A worker exits only by a signal or with a non-zero code while it has a
  // request; a zero code may be one not written yet.
  if (!(flags & kExiting) || !code) return null;
  return code & 0x7f ? 128 + (code & 0x7f) : (code >> 8) & 0xff;
}

const sizeOf = (file) => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;  // not made yet: the worker's shell makes it
  }
};

// What a worker wrote on stderr since its first request, its last kStderrTail bytes.
function stderrTail(worker) {
  let fd;
  try {
    fd = fs.openSync(worker.stderr, 'r');
    const end = fs.fstatSync(fd).size;
    const from = Math.max(worker.stderrFrom ?? 0, end - kStderrTail);
    const bytes = Buffer.alloc(Math.max(0, end - from));
    fs.readSync(fd, bytes, 0, bytes.length, from);
    return bytes.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

class BlockingWorker {
  // forkServer: false starts every worker afresh; fresh: workers that confirm
  // a finding (fresh-worker-main.js), started afresh; observers: what observes the
  // checks its workers run (protocol.js observersArgs).
  constructor(nodePath, { timeoutMs = kCallTimeoutMs, fresh = false, forkServer = !fresh && forkServerBuilt(),
    observers = [] } = {}) {
    this.nodePath = nodePath;
    this.observers = JSON.stringify(observers);
    this.main = fresh ? freshWorkerMain : workerMain;
    this.timeoutMs = timeoutMs;
    this.zygote = forkServer ? undefined : null;  // undefined: not started yet
    this.fifoPrefix = null;  // made with its first FIFOs
    this.nextId = 1;
    this.named = 0;
    this.fifos = [];
    this.spares = [];
    this.current = null;
    this.buffer = Buffer.alloc(65536);
    // forkServerOff: why its workers start as nodes, once its fork server failed
    this.stats = { requests: 0, crashes: 0, hangs: 0, restarts: 0, forkServerOff: null };
    this.recipes = new RecipeNumbers();  // its requests carry their recipes: the numbers stay unused
    this.onExit = () => this.close();
    process.on('exit', this.onExit);
  }

  // A booting worker: this process's ends of its two FIFOs (its pid comes as its first line).
  #spawn() {
    const [requests, answers, worker] = this.#channel();
    const zygote = this.#zygote();
    if (zygote) this.#fork(zygote, requests, answers, worker);
    else fs.writeSync(spawnerInput(), `${requests}\t${answers}\t${worker.stderr}\t${this.main}\t${this.observers}\t${this.nodePath}\n`);
    return worker;
  }

  #fork(zygote, requests, answers, worker) {
    fs.writeSync(zygote.toWorker, `${requests}\t${answers}\n`);
    worker.forked = true;
    // A fork writes on its fork server's stderr: its own from its first request on.
    worker.stderr = zygote.stderr;
    worker.stderrFrom = undefined;
  }

  // A pair of FIFOs, and a worker with this process's ends of them.
  #channel() {
    if (!this.fifos.length) {
      this.fifoPrefix ??= path.join(fifos(), `${++workersMade}-`);
      for (let i = Math.min(kFifoBatch, Math.max(2, this.named)); i > 0; i--) {
        const n = ++this.named;
        this.fifos.push([`${this.fifoPrefix}requests-${n}`, `${this.fifoPrefix}answers-${n}`]);
      }
      makeFifos(this.fifos.flat());
    }
    const [requests, answers] = this.fifos.shift();
    return [requests, answers, {
      stderr: `${answers}.stderr`, stderrFrom: 0,
      toWorker: fs.openSync(requests, O_RDWR | O_NONBLOCK),
      fromWorker: fs.openSync(answers, O_RDWR | O_NONBLOCK),
      pid: null, pending: '', decoder: new StringDecoder('utf8'), forked: false,
    }];
  }

  // The fork server of this node once it is ready, or null: none asked for, or
  // no worker was lost yet, or it is still starting (started at the first loss),
  // or it did not start (a binary it cannot load in) or its first fork failed
  // (stats.forkServerOff says which), or it ended (its shell's exit line), and
  // workers are started afresh.
  #zygote() {
    if (this.zygote === undefined) {
      if (!this.stats.restarts) return null;
      this.#startZygote();
    }
    if (this.zygote && !this.zygote.ready) {
      this.#advanceZygote();
    } else if (this.zygote && this.#nextMessage(this.zygote)?.exit !== undefined) {
      this.#stop(this.zygote);
      this.zygote = null;
    }
    return this.zygote?.ready ? this.zygote : null;
  }

  #startZygote() {
    const [requests, answers, zygote] = this.#channel();
    fs.writeSync(spawnerInput(),
      `${requests}\t${answers}\t${zygote.stderr}\t${forkServerMain}\t${this.observers}\t${this.nodePath}\t${forkServerLibrary}\n`);
    Object.assign(zygote, { ready: false, probe: null, deadline: Date.now() + kStartMs });
    this.zygote = zygote;
  }

  // Takes the fork server's start on, without waiting: its ready line, then
  // the end of its first fork (see #probe), each within kStartMs. Where
  // either fails, says why once.
  #advanceZygote() {
    const zygote = this.zygote;
    const pending = (message) => message === undefined && Date.now() <= zygote.deadline;
    if (!zygote.probe) {
      const first = this.#receive(zygote, 0);
      if (pending(first)) return;
      if (!first?.ready) {
        const how = first?.exit === undefined ? `was not ready within ${kStartMs} ms` : endedWith(...exitOf(first.exit));
        this.#noZygote(`it ${how}`);
        return;
      }
      this.#probe(zygote);
    }
    let end;
    try {
      end = this.#receive(zygote.probe, 0);
    } catch {
      end = null;  // a line cut short
    }
    if (pending(end)) return;
    this.#stop(zygote.probe);
    zygote.probe = null;
    if (end?.exit === 0) {
      zygote.ready = true;
      return;
    }
    this.#noZygote(`its first fork ${end?.exit == null ? `did not end within ${kStartMs} ms` : endedWith(...exitOf(end.exit))}`);
  }

  #noZygote(why) {
    this.stats.forkServerOff = forkServerOff(this.nodePath, why);
    this.#stop(this.zygote);
    this.zygote = null;
  }

  // Starts a first fork of the fork server, its requests ended at once: it
  // must say its pid, warm up and exit with code 0, and its monitor say so: a
  // fork that dies in the fork server's library (a monitor that aborts writes
  // no exit line) would otherwise cost each request given to a fork its whole time limit.
  #probe(zygote) {
    const [requests, answers, probe] = this.#channel();
    this.#fork(zygote, requests, answers, probe);
    fs.closeSync(probe.toWorker);
    probe.toWorker = null;
    zygote.probe = probe;
    zygote.deadline = Date.now() + kStartMs;
  }

  // Starts a worker booting, if none is, without waiting for it; returns this.
  boot() {
    this.current ??= this.spares.shift() ?? this.#spawn();
    return this;
  }

  // onPart(part): told of each part of the answer (a `checks` request's), in order.
  request(message, { onPart } = {}) {
    this.closed = false;
    if (this.zygote && !this.zygote.ready) this.#advanceZygote();
    this.stats.requests++;
    this.boot();
    this.current.stderrFrom ??= sizeOf(this.current.stderr);
    const deadline = Date.now() + this.timeoutMs;
    const id = this.nextId++;
    if (!this.#send(Buffer.from(`${JSON.stringify({ ...message, id })}\n`), deadline)) return this.#hung(null);
    let built = false;  // a value module's note comes before the answer
    for (;;) {
      const answer = this.#receive(this.current, deadline);
      // A fork that ended or ran out of time before it said its pid ran
      // nothing: its fork server is at fault, not the request.
      if ((answer === undefined || answer.exit !== undefined) && this.current.forked && this.current.pid === null) {
        this.#forkServerFailed(answer ? `a fork ${endedWith(...exitOf(answer.exit))} before it started`
          : `a fork did not start within ${this.timeoutMs} ms`);
        this.stats.requests--;
        return this.request(message, { onPart });
      }
      if (answer === undefined) return this.#hung(unfinishedBuild(message, built, this.timeoutMs));
      if (answer.exit !== undefined) return this.#crashed(answer.exit);
      if (answer.built) {
        built = true;
        continue;
      }
      const { outcome, fault, parts } = answer;
      for (const part of parts ?? []) onPart?.(part);
      if (outcome === undefined && fault === undefined) continue;
      if (fault) throw faultError(fault);
      return outcome;
    }
  }

  // Writes all of `bytes` (a booting worker does not read yet); false when out of time.
  #send(bytes, deadline) {
    for (let at = 0; at < bytes.length;) {
      try {
        at += fs.writeSync(this.current.toWorker, bytes, at);
      } catch (err) {
        if (err.code !== 'EAGAIN') throw err;
        if (Date.now() > deadline) return false;
        Atomics.wait(pause, 0, 0, 0.05);
      }
    }
    return true;
  }

  // The next message of a worker or of its shell ({ exit }), past its pid,
  // or { exit } as soon as the kernel shows it ending; undefined when out of time.
  #receive(worker, deadline) {
    for (let checkAt = performance.now() + kExitCheckMs; ;) {
      const message = this.#nextMessage(worker);
      if (message !== null) return message;
      if (performance.now() >= checkAt && worker.pid !== null) {
        const status = exitStatus(worker.pid);
        if (status !== null) return { exit: status };
        checkAt = performance.now() + kExitCheckMs;
      }
      if (Date.now() > deadline) return undefined;
      waitReadable(worker.fromWorker, kExitCheckMs);
    }
  }

  // A message that has come in whole from `worker`, or null; notes its pid on the way.
  #nextMessage(worker) {
    for (;;) {
      const newline = worker.pending.indexOf('\n');
      if (newline === -1) {
        let n;
        try {
          n = fs.readSync(worker.fromWorker, this.buffer);
        } catch (err) {
          if (err.code !== 'EAGAIN') throw err;
          return null;
        }
        // A read may end inside a character: the decoder keeps its first bytes for the next.
        worker.pending += worker.decoder.write(this.buffer.subarray(0, n));
        continue;
      }
      const message = JSON.parse(worker.pending.slice(0, newline));
      worker.pending = worker.pending.slice(newline + 1);
      if (message.pid === undefined) return message;
      worker.pid = message.pid;
    }
  }

  // status: the shell's $? for the worker, 128 + the signal that ended it
  // (a worker exiting with a code above 128 by itself reads as a signal).
  #crashed(status) {
    this.stats.crashes++;
    const [code, signal] = exitOf(status);
    const outcome = crashOutcome(code, signal, stderrTail(this.current));
    this.#reset();
    return outcome;
  }

  // unbuilt: the outcome to give when a value module, not the codec, ran out of time.
  #hung(unbuilt) {
    if (!unbuilt) this.stats.hangs++;
    this.#reset();
    return unbuilt ?? hangOutcome(this.timeoutMs);
  }

  // Ends the fork server and its forks: workers start as nodes from now on.
  #forkServerFailed(why) {
    this.stats.forkServerOff = forkServerOff(this.nodePath, why);
    this.#stopAll();
  }

  // Ends its workers, the fork server and its first fork among them.
  #stopAll() {
    for (const worker of [this.current, ...this.spares, this.zygote?.probe, this.zygote]) {
      if (worker) this.#stop(worker);
    }
    this.current = null;
    this.spares = [];
    this.zygote = null;
  }

  #reset() {
    this.stats.restarts++;
    this.#stop(this.current);
    this.current = this.spares.shift() ?? this.#spawn();
    // Spares wait for a fork server that is starting: nodes booting beside it would slow it and the checks.
    if (this.zygote?.ready === false) return;
    while (this.spares.length < kSpares) this.spares.push(this.#spawn());
  }

  // A worker's shell opens its FIFOs before it says its pid; closing ours
  // before that would leave it waiting in open() for good, so stop waits for
  // it. A fork's monitor opens them without blocking: it ends if they are gone.
  #stop(worker) {
    const until = Date.now() + kStartMs;
    try {
      while (!worker.forked && worker.pid === null && Date.now() < until) {
        if (this.#nextMessage(worker) === null) waitReadable(worker.fromWorker, 1);
      }
    } catch { /* a line cut short: the worker is going anyway */ }
    try {
      if (worker.pid !== null) process.kill(worker.pid, 'SIGKILL');
    } catch { /* already gone */ }
    if (!worker.forked) fs.rmSync(worker.stderr, { force: true });
    for (const fd of [worker.toWorker, worker.fromWorker]) {
      if (fd === null) continue;  // a probe's requests, ended
      try {
        fs.closeSync(fd);
      } catch (err) {
        // Jazzer.js closes the file of its merged -dict early and the tmp
        // module closes that fd number again at exit, which may by then be ours.
        if (err.code !== 'EBADF') throw err;
      }
    }
  }

  // Nothing of a blocking worker runs between requests: it ends at once.
  end() {
    this.close();
    return Promise.resolve();
  }

  close() {
    this.closed = true;  // until its next request
    this.#stopAll();
    process.removeListener('exit', this.onExit);
    // FIFOs made and never used (a worker's shell or the fork server removes its own).
    for (const fifo of this.fifos.flat()) fs.rmSync(fifo, { force: true });
    this.fifos = [];
  }
}

module.exports = { BlockingWorker, forkServerLibrary };
