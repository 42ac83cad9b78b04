'use strict';
// Two sides under comparison, each a codec in a node binary, and the checks
// that run inputs through both, in one of two ways of waiting: async (the
// CLI and fast-check's runner: promises, many checks at a time, batches.js)
// or blocking (the Jazzer.js --sync targets, whose fuzz function must return
// before the next input). A check is the same generator either way
// (oracle/checks.js); placement.js alone says where an input and each of its
// requests run; the drivers carry the requests to worker processes
// (async-driver.js async, blocking-driver.js blocking; protocol.js).
//
// A blocking session runs a builtin codec of its own binary in this process
// (Jazzer.js instruments the reference codec there, so coverage follows what
// it decodes). A request that took a worker down and comes again word for
// word gets the same outcome without another worker, and a whole input
// checked before gets its result again (checked-before.js): libFuzzer's
// mutations often leave an input as it was, and the same codec given the same
// value in the same process gives the same outcome; a difference that only
// process history causes does not stand in the fresh processes that confirm
// every finding.

const fs = require('node:fs');
const path = require('node:path');
const { createHash } = require('node:crypto');
const { AsyncWorker } = require('./async-driver');
const { BlockingWorker } = require('./blocking-driver');
const { ForkServer, forkServerBuilt } = require('./fork-server');
const { Batches } = require('./batches');
const { confirm } = require('./confirm');
const { CheckedBefore } = require('./checked-before');
const { KnownCrash, judgeKnownCrash } = require('./crash-judge');
const { placeCheck, placeRequest, crashShape } = require('./placement');
const { Answer } = require('./protocol');
const { resolveNode, probeNode } = require('../base/binaries');
const { EnvironmentError, UsageError } = require('../base/errors');
const { runCheck } = require('../oracle/checks');
const { when } = require('../oracle/drive');
const { allChecks } = require('../oracle/from-recipes');
const { createOps } = require('../oracle/ops');
const { codecNames, isNamedCodec, capabilitiesOf, loadCodec } = require('../codecs');
const { buildInput, buildWorld } = require('../recipes/build');
const { stepsMark } = require('../recipes/steps');
const { Outcome, Place, endedProcess } = require('../base/vocabulary');
const { kCallTimeoutMs } = require('../base/defaults');

function resolveCodec(spec) {
  if (isNamedCodec(spec)) return spec;
  const file = path.resolve(spec);
  if (!fs.existsSync(file)) {
    throw new UsageError(`codec ${JSON.stringify(spec)} is neither ${codecNames.join(', ')} nor an adapter file`);
  }
  return file;
}

// What a binary lacks that a codec needs (capabilities.js `needs`), by its probe's name.
const kMissing = {
  ipcSerdes: "has no internalBinding('ipc_serdes'): codec native needs 26.4.0+ or 24.19.0+",
  builtin: 'has no internal/child_process/serialization',
};

function checkSide(side) {
  const info = probeNode(side.node);
  const { needs } = capabilitiesOf(side.codec);
  if (needs && !info[needs]) throw new EnvironmentError(`node ${info.node} (${side.node}) ${kMissing[needs]}`);
  return { ...side, info };
}

// { a, b } as { codec, node, info }, from codecs and nodes as a user names them.
function resolveSides(specs) {
  const sides = {};
  for (const [name, side] of Object.entries(specs)) {
    sides[name] = checkSide({ codec: resolveCodec(side.codec), node: resolveNode(side.node) });
  }
  return sides;
}

// Whether a node path is this process's binary (process.execPath is a real path).
function sameBinary(nodePath) {
  try {
    return fs.realpathSync(nodePath) === process.execPath;
  } catch {
    return false;
  }
}

// The drivers that carry a session's requests to a worker process of a
// binary, by way of waiting; an async worker's processes that take over after
// a crash are forks of a warm process of it (fork-server.js) where the fork
// server is built, and a blocking one starts its own through its spawner.
const drivers = {
  async: (nodePath, { forkServer = false, ...options }) => new AsyncWorker(nodePath, {
    ...options, forkServer: forkServer && forkServerBuilt() ? new ForkServer(nodePath, options) : null,
  }),
  blocking: (nodePath, { forkServer, ...options }) => new BlockingWorker(nodePath, options),
};

// Requests remembered with the outcome that took a worker down.
const kLostRequests = 4096;
const keyOf = (message) => createHash('sha1').update(JSON.stringify(message)).digest('base64');

class Session {
  // a, b: { codec, node } as a user names them (node as a path or version),
  // or sides: { a, b } resolved ({ codec, node, info }, as the orchestrator of
  // the Jazzer.js targets gives them); blocking: the blocking driver, checks
  // that return their results; timeoutMs: a request's time limit;
  // inProcess: false keeps every codec out of this process and out of batches;
  // screen(type, input, sides): the crash shape that keeps an input's value out
  // of this process and of batches, or null (placement.js crashShape);
  // useScreen: false screens nothing (blocking, to test what an input the screen misses does);
  // gather: false sends each operation of an async check on its own (see async-driver.js);
  // observers: what observes the checks its workers run (protocol.js observersArgs);
  // workerFlags: node flags of every worker (the bench's --cpu-prof);
  // skipScreened: leaves out the screened inputs of a batch (the bench, to
  // measure what they cost): their results are undefined;
  // onLoss(kind): a worker crashed or hung, the known crash was judged without
  // one, or a worker disagreed with such a judgment (crash-judge.js);
  // startWorker(nodePath, options): a worker of that binary, keeping the
  // worker contract (protocol.js workerContract: drivers, above; a fake one in the unit tests).
  constructor({ a, b, sides = resolveSides({ a, b }), blocking = false, timeoutMs = kCallTimeoutMs, inProcess = true,
    screen = crashShape, useScreen = true, gather = true, observers = [], workerFlags = [], skipScreened = false,
    onLoss = () => {}, startWorker = drivers[blocking ? 'blocking' : 'async'] }) {
    Object.assign(this, { sides, blocking, timeoutMs, screen, gather, observers, workerFlags, skipScreened, onLoss,
      startWorker });
    this.codecs = { a: sides.a.codec, b: sides.b.codec };
    this.local = {};
    for (const name of ['a', 'b']) {
      const { codec, node } = sides[name];
      this.local[name] = blocking && inProcess && capabilitiesOf(codec).sharesProcess && sameBinary(node);
    }
    if (this.local.a || this.local.b) {
      this.ops = createOps(buildInput, { buildWorld });
      this.both = (request) => this.ops.both(request, this.codecs);
    }
    this.workers = new Map();
    this.freshWorkers = new Set();
    this.booted = new Map();  // binary -> fresh workers booted ahead for confirm()
    this.apart = null;        // blocking: the worker of the inputs that change shared state
    this.closed = false;
    this.knownCrash = new KnownCrash(onLoss);
    this.lost = blocking ? new Map() : null;  // the key of a request -> the crash or hang it got
    this.checked = blocking ? new CheckedBefore() : null;
    this.batches = blocking ? null : new Batches(this, { inProcess });
    this.screening = blocking ? useScreen : this.batches.inProcess;
    // The bench's trace of codec calls: told of each input checked whole (in
    // this process, a worker apart, a batch) or screened, or given the result
    // of such a check again, with the check's type and whether it was screened.
    this.onChecked = null;
  }

  // The worker of a binary for the requests of checks.
  worker(nodePath) {
    if (!this.workers.has(nodePath)) {
      const worker = this.startWorker(nodePath, { ...this.workerOptions(), gather: this.gather, forkServer: true });
      if (this.closed && !this.blocking) worker.close();
      this.workers.set(nodePath, worker);
    }
    return this.workers.get(nodePath);
  }

  // Adds an observer of the checks for the workers started from now on (protocol.js observersArgs).
  observe(observer) {
    this.observers.push(observer);
  }

  // What every worker of this session is started with; batches.js adds its own flags.
  workerOptions(flags = []) {
    return { timeoutMs: this.timeoutMs, observers: this.observers, flags: [...flags, ...this.workerFlags] };
  }

  // The name of the crash shape an input has (it then keeps its value out of this process), or null.
  screened(input, type = 'value') {
    return this.screening ? this.screen(type, input, this.sides) : null;
  }

  // Where the check of an input runs (placement.js placeCheck).
  placement(type, input, awayFromHere = false) {
    return placeCheck(input, {
      type, sides: this.sides, local: this.local, batching: Boolean(this.batches?.inProcess),
      screening: this.screening, shapeOf: this.screen, awayFromHere, skipScreened: this.skipScreened,
    });
  }

  // One request of side `sideName`, where placement.js places it: its
  // outcome, or a promise of it from an async worker. keptOut: of placeCheck.
  run(sideName, request, keptOut = null) {
    const { codec, node } = this.sides[sideName];
    const withCodec = { ...request, codec };
    const where = placeRequest(request, { codec, local: this.local[sideName], keptOut });
    if (where === Place.here) return this.ops[request.op](withCodec);
    const key = this.lost && keyOf(withCodec);
    if (key && this.lost.has(key)) return { ...this.lost.get(key) };
    const inWorker = () => this.#noteLoss(key, this.worker(node).request(withCodec));
    if (where === 'worker') return inWorker();
    if (where === 'judge in worker') {
      const reached = () =>
        when(this.worker(node).request({ op: 'judge', codec, input: request.input }), (a) => a.reaches === true);
      return this.knownCrash.serialize(reached, inWorker);
    }
    // Judged here: one judged clear of the crash is serialized here after all.
    const verdict = judgeKnownCrash(withCodec.input, loadCodec(codec), buildInput);
    if (verdict === 'clear') return this.ops.serialize(withCodec);
    return this.knownCrash.serialize(() => verdict === Outcome.crash, inWorker);
  }

  // An outcome of a request that took its worker down is told, and remembered by the request's key.
  #noteLoss(key, answer) {
    return when(answer, (outcome) => {
      if (endedProcess(outcome)) {
        this.onLoss(outcome.kind);
        if (key) {
          if (this.lost.size >= kLostRequests) this.lost.delete(this.lost.keys().next().value);
          this.lost.set(key, outcome);
        }
      }
      return outcome;
    });
  }

  // The result of one check: of a blocking session, the result; of an async
  // one, a promise of it, its requests run one by one where placement.js
  // puts them (batches.js passes `keptOut`, its placement of the input).
  // awayFromHere (blocking): the input crashed this process before, so none
  // of its requests run here. Of a blocking session, a result given again
  // (checked-before.js), or of an input checked apart, is what `answer` asks
  // (protocol.js Answer: its differences alone unless told otherwise).
  check(type, input, { awayFromHere = false, answer = Answer.differences, keptOut = null } = {}) {
    if (!this.blocking) return (async () => this.#byRequests(type, input, keptOut))();
    const placed = this.placement(type, input, awayFromHere);
    const check = () => {
      switch (placed.where) {
        case Place.here: return runCheck(allChecks[type], (side, request) => this.run(side, request), input, this.both);
        case Place.apart: case Place.screenedWorker: return this.#checkApart(type, input, answer, placed.where);
        default: return this.#byRequests(type, input, placed.keptOut);
      }
    };
    const result = awayFromHere || answer !== Answer.differences ? check() : this.checked.get(type, input, check);
    // Undefined: the worker apart crashed or hung.
    if (result === undefined) return this.check(type, input, { awayFromHere: true });
    const screened = placed.keptOut === 'input';
    if (placed.where !== Place.requests || screened) this.onChecked?.(type, input, screened);
    return result;
  }

  #byRequests(type, input, keptOut) {
    return runCheck(allChecks[type], (side, request) => this.run(side, request, keptOut), input);
  }

  // As check, with every outcome in the result: for a finding to be saved from it.
  checkInFull(type, input) {
    return this.check(type, input, { answer: Answer.whole });
  }

  // One check per input, many at a time (see batches.js): the results, all at once.
  checkMany(type, inputs, options) {
    if (this.blocking) return inputs.map((input) => this.check(type, input, options));
    return this.batches.run(type, inputs, options);
  }

  // As checkMany, with a promise per input as it comes, and cancel() (see batches.js).
  checkEach(type, inputs, options) {
    return this.batches.each(type, inputs, options);
  }

  // A whole check in a worker of its own (placement.js 'apart'): here, V8
  // would throw away the compiled code that relied on the prototype it
  // changes, and a key like an index set on Object.prototype, even once,
  // slows every read of an array's hole in the process from then on. One that
  // would leave its worker slower for good goes to the worker of the screened
  // inputs ('screened worker'), which their crashes renew often. Undefined
  // when the worker crashed or hung (this time, or before: it is not sent
  // again): the input is then checked isolated, request by request.
  #checkApart(type, input, answer, where) {
    const request = { op: 'checks', type, inputs: [input], codecs: this.codecs, answer,
      steps: [stepsMark(input.recipe)] };
    const key = keyOf({ ...request, answer: undefined });
    if (this.lost.has(key)) return undefined;
    const worker = where === Place.screenedWorker ? this.worker(this.sides.b.node) :
      (this.apart ??= this.startWorker(process.execPath, this.workerOptions()));
    let result;
    const outcome = this.#noteLoss(key, worker.request(request, {
      // 0: checked, no difference; null: nothing to check.
      onPart: (part) => {
        result = part === null ? null : { ...part, type, input, differences: part.differences ?? [] };
      },
    }));
    return outcome.kind === Outcome.ok ? result : undefined;
  }

  // Whether a difference of this input stands with both sides in fresh
  // processes (see confirm.js); false means it depends on process history.
  // The fresh workers bootFresh() booted are taken first.
  confirm(type, input, difference) {
    return confirm({
      type, input, difference, sides: this.sides,
      startWorker: (nodePath) => this.booted.get(nodePath)?.shift() ?? this.#freshWorker(nodePath).boot(),
    });
  }

  // Boots the fresh workers a confirmation takes (three per side), for one
  // about to come, so that the node starts do not delay the finding. A worker
  // booted and sent no request yet is as fresh as one started for the check.
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
    const worker = this.startWorker(nodePath, { ...this.workerOptions(), fresh: true });
    if (this.closed) worker.close();
    this.freshWorkers.add(worker);
    return worker;
  }

  stats() {
    const total = { requests: 0, crashes: 0, hangs: 0, restarts: 0, gathered: 0 };
    const workers = [...this.workers.values(), ...this.batches?.workers ?? [], ...this.batches?.retired ?? [],
      ...this.apart ? [this.apart] : []];
    for (const w of workers) for (const k of Object.keys(total)) total[k] += w.stats[k] ?? 0;
    total.batched = this.batches?.checked ?? 0;  // each at least two codec calls, in one request of a batch
    total.judged = this.knownCrash.judged;  // known crashes given without a worker
    return total;
  }

  // Ends every worker; async checks still running end with a StoppedError.
  close() {
    this.closed = true;
    for (const w of [...this.workers.values(), ...this.freshWorkers, this.apart]) w?.close();
    this.batches?.close();
  }
}

module.exports = { Session, resolveCodec, resolveSides };
