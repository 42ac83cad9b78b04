'use strict';
// The synchronous sibling of session.js, for the Jazzer.js targets, whose
// fuzz function must return before the next input. The sides come resolved
// (the orchestrator checked them). A side whose codec is a builtin one in
// this very binary runs in this process, with no hop per operation; there
// Jazzer.js also instruments the reference codec, so coverage follows the
// tags and views it decodes. Any other side (an adapter file, which may abort
// or loop; another binary) runs in a SyncWorker of its binary, started when
// first needed. An input the crash screen (crash-screen.js) knows the shape
// of builds its value for the native side in that worker too, unless the
// crash judge (crash-judge.js) finds, in this process, that the native codec
// reaches that crash on it; one that crashed this process before runs its
// whole native side there, so its crash is an outcome. An input that changes
// a built-in prototype is checked whole in a worker of its own (checkApart),
// so that the code compiled here stays. A request that took a
// worker down (crashed it, or hung) and comes again, word for word, gets the
// same outcome without another worker: libFuzzer's mutations of a crashing
// input often leave its recipe as it was, and each node start costs more
// than a check. It is the same codec given the same value, so the outcome is
// that request's; a crash that only process history causes does not stand
// in the fresh processes that confirm every finding. A whole input checked
// before gets its result again likewise (checked-before.js).

const fs = require('node:fs');
const { createHash } = require('node:crypto');
const { SyncWorker } = require('./sync-worker');
const { runCheck } = require('../oracle/checks');
const { confirm } = require('./confirm');
const { createOps } = require('../oracle/ops');
const { buildInput, buildWorld } = require('../recipes/build');
const { builtinCodecs, loadCodec } = require('../codecs');
const { screen, mayCrash } = require('../recipes/crash-shapes');
const { CheckedBefore } = require('./checked-before');
const { KnownCrash, judgeKnownCrash } = require('./crash-judge');
const { changesSharedState, spoilsProcess, stepsMark } = require('../recipes/steps');

// Whether a node path is this process's binary (process.execPath is a real path).
function sameBinary(nodePath) {
  try {
    return fs.realpathSync(nodePath) === process.execPath;
  } catch {
    return false;
  }
}

// Requests remembered with the outcome that took a worker down.
const kLostRequests = 4096;

class SyncSession {
  // sides: { a, b } each { codec, node, info }; onLoss(kind): a worker crashed or hung, the known crash
  // was judged without one, or a worker disagreed with such a judgment (crash-judge.js).
  // inProcess: false runs every side in a worker. useScreen: false lets every input run in-process
  // (to test what an input the screen misses does). observers: as Session's.
  constructor({ sides, timeoutMs, onLoss = () => {}, inProcess = true, useScreen = true, observers = [] }) {
    Object.assign(this, { sides, timeoutMs, onLoss, useScreen, observers });
    this.ops = createOps(buildInput, { buildWorld });
    const codecs = { a: sides.a.codec, b: sides.b.codec };
    this.codecs = codecs;
    this.both = (request) => this.ops.both(request, codecs);
    this.workers = new Map();
    this.apart = null;  // the worker of the inputs that change shared state (checkApart)
    this.lost = new Map();  // the hash of a request's text -> the crash or hang it got
    this.checked = new CheckedBefore();
    this.knownCrash = new KnownCrash(onLoss);
    // Told of each input checked in this process (its native side in a
    // worker when screened) or in the worker apart, or given the result of
    // such a check again, with the check's type and whether it was screened
    // (the bench's trace of codec calls, fuzzers/jazzer/target.js).
    this.onChecked = null;
    this.local = {};
    for (const name of ['a', 'b']) {
      const { codec, node } = sides[name];
      this.local[name] = inProcess && builtinCodecs.includes(codec) && sameBinary(node);
    }
  }

  worker(nodePath) {
    if (!this.workers.has(nodePath)) {
      this.workers.set(nodePath, new SyncWorker(nodePath, { timeoutMs: this.timeoutMs, observers: this.observers }));
    }
    return this.workers.get(nodePath);
  }

  // The name of the crash shape an input has (it then keeps its native sides out of this process), or null.
  screened(input) {
    return this.useScreen ? screen(input) : null;
  }

  // isolated: 'input' when the requests that build the input must not run a codec
  // that may crash here, 'all' when no request of it may, or null. A value
  // that changes shared state is never built here (see checkApart): when
  // its input is isolated, or its worker apart crashed, the requests that
  // build it run in the worker, which judges its known crash too.
  run(sideName, request, isolated) {
    const { codec, node } = this.sides[sideName];
    const withCodec = { ...request, codec };
    const away = isolated === 'all' || (isolated === 'input' && request.input !== undefined);
    const shared = request.input !== undefined && changesSharedState(request.input.recipe);
    // A screened input keeps a codec that cannot crash here (and its coverage).
    if (this.local[sideName] && !shared && !(away && mayCrash(codec))) return this.ops[request.op](withCodec);
    const key = createHash('sha1').update(JSON.stringify(withCodec)).digest('base64');
    if (this.lost.has(key)) return { ...this.lost.get(key) };
    const inWorker = () => this.#inWorker(node, withCodec, key);
    const judged = this.local[sideName] && isolated === 'input' && request.op === 'serialize' && mayCrash(codec);
    if (!judged) return inWorker();
    // The value of an input that changes shared state is judged in the worker, as it is built there.
    if (shared) {
      const reached = () => this.worker(node).request({ op: 'judge', codec, input: request.input }).reaches === true;
      return this.knownCrash.serialize(reached, inWorker);
    }
    // One judged clear of the crash is serialized here after all.
    const verdict = judgeKnownCrash(withCodec.input, loadCodec(codec), buildInput);
    if (verdict === 'clear') return this.ops.serialize(withCodec);
    return this.knownCrash.serialize(() => verdict === 'crash', inWorker);
  }

  #inWorker(node, withCodec, key) {
    return this.#noteLoss(key, this.worker(node).request(withCodec));
  }

  // An outcome of a request that took its worker down is remembered by the request's key.
  #noteLoss(key, outcome) {
    if (outcome.kind === 'crash' || outcome.kind === 'hang') {
      this.onLoss(outcome.kind);
      if (this.lost.size >= kLostRequests) this.lost.delete(this.lost.keys().next().value);
      this.lost.set(key, outcome);
    }
    return outcome;
  }

  // isolate: the input is known to crash this process (it ended an earlier one),
  // so none of its requests run here. The screen judges the value an input
  // builds: only the requests that build it (serialize) leave this process.
  // The others carry bytes (a frame to decode), as the frame and stream
  // targets do in-process, so they stay here, and a crash does not make the
  // rest of the check wait for the next worker to boot.
  // A result given again (checked-before.js), or of an input checked apart,
  // holds its differences alone.
  check(type, input, isolate = false) {
    return this.#check(type, input, { isolate, full: false });
  }

  // As check, with every outcome in the result: for a finding to be saved from it.
  checkInFull(type, input) {
    return this.#check(type, input, { isolate: false, full: 'all' });
  }

  #check(type, input, { isolate, full }) {
    const isolated = this.#isolation(input, isolate);
    const here = this.local.a && this.local.b && !isolated;
    const run = this.#checksApart(input, isolated) ? () => this.#checkApart(type, input, full) :
      () => runCheck(type, (side, request) => this.run(side, request, isolated), input, here ? this.both : undefined);
    const result = isolate || full ? run() : this.checked.get(type, input, run);
    if (result === undefined) return this.check(type, input, true);  // the worker apart crashed or hung
    if (here || isolated === 'input') this.onChecked?.(type, input, isolated === 'input');
    return result;
  }

  // The `isolated` of run() for an input's requests (see check).
  #isolation(input, isolate = false) {
    return isolate ? 'all' : this.screened(input) !== null ? 'input' : null;
  }

  // Whether an input is checked whole in the worker apart: both codecs are
  // this process's, the screen let it through, and it changes shared state.
  #checksApart(input, isolated = this.#isolation(input)) {
    return this.local.a && this.local.b && !isolated && changesSharedState(input?.recipe);
  }

  // An input whose steps change what every object shares (a built-in
  // prototype, recipes/steps.js) is checked whole in a worker of its own, as
  // fast-check's batch runner does (batches.js): here, V8 would throw away
  // the compiled code that relied on that prototype, and a key like an index
  // set on Object.prototype, even once, slows every read of an array's hole
  // in the process from then on. Checked with those inputs (1.9% of a
  // Jazzer.js value run's), the others cost 241 µs a check in one process of
  // 26.10.0, 127 without them. The result holds the differences alone unless
  // `full` is 'all' (every outcome, as JSON: 7 ms a check more, mostly for
  // the trees of known differences). Undefined when the worker crashed or
  // hung (this time, or before: it is not sent again): the input is then
  // checked isolated, request by request. One that would leave its worker
  // slower for good (recipes/steps.js spoilsProcess) is checked in the worker
  // of the screened inputs, which their crashes renew often.
  #checkApart(type, input, full) {
    const request = { op: 'checks', type, inputs: [input], codecs: this.codecs, full,
      steps: [stepsMark(input.recipe)] };
    const key = createHash('sha1').update(JSON.stringify({ ...request, full: undefined })).digest('base64');
    if (this.lost.has(key)) return undefined;
    const worker = spoilsProcess(input.recipe) ? this.worker(this.sides.b.node) :
      (this.apart ??= new SyncWorker(process.execPath, { timeoutMs: this.timeoutMs, observers: this.observers }));
    let result;
    const outcome = this.#noteLoss(key, worker.request(request, {
      // 0: checked, no difference; null: nothing to check.
      onPart: (part) => {
        result = part === null ? null : { ...part, type, input, differences: part.differences ?? [] };
      },
    }));
    return outcome.kind === 'ok' ? result : undefined;
  }

  // As Session.confirm, in fresh synchronous workers.
  confirm(type, input, difference) {
    return confirm({
      type, input, difference, sides: this.sides,
      startWorker: (nodePath) => new SyncWorker(nodePath, { timeoutMs: this.timeoutMs, fresh: true }).start(),
    });
  }

  close() {
    for (const worker of [...this.workers.values(), this.apart]) worker?.close();
    this.workers.clear();
    this.apart = null;
  }
}

module.exports = { SyncSession };
