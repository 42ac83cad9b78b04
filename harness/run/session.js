'use strict';
// Two sides under comparison, each a codec in a node binary, and the checks
// that run one input through both. Each binary gets one worker process for
// checks run an operation at a time, where the operations the checks in
// flight ask for together go as one request (worker-process.js); checks of
// many inputs at once go through batches.js.

const path = require('node:path');
const { WorkerProcess } = require('./worker-process');
const { ForkServer, forkServerBuilt } = require('./fork-server');
const { resolveNode, probeNode } = require('../base/binaries');
const { runCheck } = require('../oracle/checks');
const { allChecks } = require('../oracle/recipe-checks');
const { Batches } = require('./batches');
const { confirm } = require('./confirm');
const { builtinCodecs } = require('../codecs');
const { mayCrash } = require('../recipes/crash-shapes');
const { KnownCrash } = require('./crash-judge');
const { EnvironmentError, UsageError } = require('../base/errors');
const fs = require('node:fs');

function resolveCodec(spec) {
  if (builtinCodecs.includes(spec)) return spec;
  const file = path.resolve(spec);
  if (!fs.existsSync(file)) {
    throw new UsageError(`codec ${JSON.stringify(spec)} is neither ${builtinCodecs.join(', ')} nor an adapter file`);
  }
  return file;
}

function checkSide(side) {
  const info = probeNode(side.node);
  if (side.codec === 'native' && !info.ipcSerdes) {
    throw new EnvironmentError(`node ${info.node} (${side.node}) has no internalBinding('ipc_serdes'): codec native needs 26.4.0+ or 24.19.0+`);
  }
  if (side.codec === 'builtin' && !info.builtin) {
    throw new EnvironmentError(`node ${info.node} has no internal/child_process/serialization`);
  }
  return { ...side, info };
}

class Session {
  // sides: { a: { codec, node }, b: { codec, node } }, node as a path or version;
  // inProcess: false runs checkMany an operation at a time even when both codecs share a binary;
  // screen: what keeps an input out of a batch (see batches.js);
  // gather: false sends each operation of a check on its own (see worker-process.js);
  // observers: what observes the checks its workers run (protocol.js observersArgs);
  // workerFlags: node flags of every worker (the bench's --cpu-prof);
  // skipScreened: leaves out the inputs the crash screen keeps out of batches
  // (the bench, to measure what they cost): their results are undefined.
  constructor({ a, b, timeoutMs, inProcess = true, screen, gather = true, observers = [], workerFlags = [],
    skipScreened = false }) {
    this.sides = {};
    for (const [name, side] of Object.entries({ a, b })) {
      this.sides[name] = checkSide({ codec: resolveCodec(side.codec), node: resolveNode(side.node) });
    }
    this.timeoutMs = timeoutMs;
    this.gather = gather;
    this.observers = observers;
    this.workerFlags = workerFlags;
    this.workers = new Map();
    this.freshWorkers = new Set();
    this.booted = new Map();  // binary -> fresh workers booted ahead for confirm()
    this.closed = false;
    this.batches = new Batches(this, { inProcess, screen, skipScreened });
    this.knownCrash = new KnownCrash();
  }

  // After a crash, the worker of a binary takes over with a fork of a warm
  // process of it (fork-server.js) where the fork server is built.
  worker(nodePath) {
    if (!this.workers.has(nodePath)) {
      const forkServer = forkServerBuilt() ? new ForkServer(nodePath, { observers: this.observers }) : null;
      const worker = new WorkerProcess(nodePath, { ...this.workerOptions(), gather: this.gather, forkServer });
      if (this.closed) worker.close();
      this.workers.set(nodePath, worker);
    }
    return this.workers.get(nodePath);
  }

  // judge: the input is one the crash screen sent here from a batch, whose
  // known native crash is judged rather than run once a worker has shown it
  // (crash-judge.js): a crash costs a worker process, a judgment a request.
  run(sideName, request, judge = false) {
    const { codec, node } = this.sides[sideName];
    const worker = this.worker(node);
    const withCodec = { ...request, codec };
    if (!judge || request.op !== 'serialize' || !builtinCodecs.includes(codec) || !mayCrash(codec)) {
      return worker.request(withCodec);
    }
    const reached = async () => (await worker.request({ op: 'judge', codec, input: request.input })).reaches === true;
    return this.knownCrash.serialize(reached, () => worker.request(withCodec));
  }

  check(type, input, { judge = false } = {}) {
    return runCheck(allChecks[type], (side, request) => this.run(side, request, judge), input);
  }

  // One check per input, many at a time (see batches.js): the results, all at once.
  checkMany(type, inputs, options) {
    return this.batches.run(type, inputs, options);
  }

  // As checkMany, with a promise per input as it comes, and cancel() (see batches.js).
  checkEach(type, inputs, options) {
    return this.batches.each(type, inputs, options);
  }

  // Whether a difference of this input stands with both sides in fresh
  // processes (see confirm.js); false means it depends on process history.
  // The fresh workers bootFresh() booted are taken first.
  confirm(type, input, difference) {
    return confirm({
      type, input, difference, sides: this.sides,
      startWorker: (nodePath) => this.booted.get(nodePath)?.shift() ?? this.#freshWorker(nodePath),
    });
  }

  // Boots the fresh workers a confirmation takes (three per side), for one
  // about to come: started for it, six node starts on the cores at once cost
  // each new finding 150 to 180 ms before it was reported. A worker booted
  // and sent no request yet is as fresh as one started for the check.
  bootFresh() {
    const wanted = new Map();
    for (const side of [this.sides.a, this.sides.b]) wanted.set(side.node, (wanted.get(side.node) ?? 0) + 3);
    for (const [nodePath, count] of wanted) {
      if (!this.booted.has(nodePath)) this.booted.set(nodePath, []);
      const ready = this.booted.get(nodePath);
      while (!this.closed && ready.length < count) ready.push(this.#freshWorker(nodePath).boot());
    }
  }

  #freshWorker(nodePath) {
    for (const w of this.freshWorkers) if (w.closed) this.freshWorkers.delete(w);
    const worker = new WorkerProcess(nodePath, { ...this.workerOptions(), fresh: true });
    if (this.closed) worker.close();
    this.freshWorkers.add(worker);
    return worker;
  }

  // Adds an observer of the checks for the workers started from now on (protocol.js observersArgs).
  observe(observer) {
    this.observers.push(observer);
  }

  // What every worker of this session is started with; batches.js adds its own flags.
  workerOptions(flags = []) {
    return { timeoutMs: this.timeoutMs, observers: this.observers, flags: [...flags, ...this.workerFlags] };
  }

  stats() {
    const total = { requests: 0, crashes: 0, hangs: 0, restarts: 0, gathered: 0 };
    const workers = [...this.workers.values(), ...this.batches.workers, ...this.batches.retired];
    for (const w of workers) for (const k of Object.keys(total)) total[k] += w.stats[k];
    total.batched = this.batches.checked;  // each at least two codec calls, in one request of a batch
    total.judged = this.knownCrash.judged;  // known crashes given without a worker
    return total;
  }

  // Ends every worker; checks still running end with a StoppedError.
  close() {
    this.closed = true;
    for (const w of [...this.workers.values(), ...this.freshWorkers]) w.close();
    this.batches.close();
  }
}

module.exports = { Session, resolveCodec };
