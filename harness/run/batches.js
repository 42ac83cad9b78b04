'use strict';
// Many checks at a time. When both codecs are built in and live in one binary,
// whole checks run in one worker of that binary, a batch of inputs per
// request, with no process hop per operation; an input shaped like a known
// native crash (crash-screen.js) runs instead on the per-operation path of
// session.js, where a crash is that input's outcome (the known crash judged
// there once a worker has shown it, crash-judge.js). An input whose recipe
// changes a built-in prototype for its codec call is batched in workers of
// its own, where the code that every check runs is not thrown away for it
// (recipes/steps.js); one that would leave its worker slower for good runs on
// the per-operation path. A batch whose worker dies or hangs anyway has its
// unanswered inputs run one by one on that path up to the one at fault,
// which gets its crash or hang; the others after it go on in a new batch.
// A worker is sent two batches at a time, so that it never waits for the
// next; the others wait in this process, where an urgent check (a shrink
// step, a replay) goes ahead of the turns drawn ahead, and where those turns
// wait while a finding is shrunk and confirmed (pause, resume).
// Other sessions keep the per-operation path: with several checks in flight
// at once for a side in another binary, one at a time for an adapter file.

const os = require('node:os');
const { sameProcess } = require('./placement');
const { Answer } = require('./protocol');
const { capabilitiesOf } = require('../codecs');
const { onRecipes, mapRecipes } = require('../oracle/from-recipes');
const { stepsMark } = require('../recipes/steps');
const { satisfies } = require('../base/node-support');
const { Place, Tier } = require('../base/vocabulary');

// Per-operation checks in flight: their operations for one worker go together
// (async-driver.js), a turn of fast-check's inputs at a time.
const kInFlight = 64;
const kIdleEndMs = 1000;
// A worker per core: the checks cost far more than drawing their inputs, so
// the process that draws them needs little of a core of its own.
const kBatchWorkers = Math.max(1, os.availableParallelism());
// Workers for the inputs that change shared state, a few of the inputs but a
// large share of the checking time; the other inputs of a batch that came
// with such inputs share the cores left with them (docs/benchmarks.md).
const kApartWorkers = Math.ceil(kBatchWorkers / 3);
const kSharingWorkers = Math.max(1, kBatchWorkers - kApartWorkers);
// Node flags of the workers apart. Their checks change built-in prototypes,
// and at each change V8 throws away the optimized code that relied on them:
// its optimizing compilers (Maglev, TurboFan) work for nothing there, on the
// cores the other workers share. Baseline code (Sparkplug) reads through
// inline caches and stays. A node without the flag (before 20) starts as it is.
const apartFlags = (info) => (satisfies(info.node, '>=20.0.0') ? ['--max-opt=1'] : []);
// Batch requests a worker is sent at a time: one running, one waiting in its pipe.
const kSentPerWorker = 2;

// A promise with its resolve and reject; its rejection is for whoever awaits
// it: an input whose result is no longer wanted may be dropped.
function slot() {
  const handle = {};
  handle.promise = new Promise((resolve, reject) => Object.assign(handle, { resolve, reject }));
  handle.promise.catch(() => {});
  return handle;
}

// Runs tasks (functions returning promises that never reject) at most `width`
// at a time, in order, starting none once cancelled(). The first runs alone,
// and the others start only once what came of it has been looked at: a codec
// that crashes on every input costs one crash, not `width`, before its finding.
function pooled(tasks, width, cancelled) {
  let next = 0;
  const lane = async () => {
    while (next < tasks.length && !cancelled()) await tasks[next++]();
  };
  if (!tasks.length) return;
  tasks[next++]().then(() => setImmediate(() => {
    for (let i = 0; i < width; i++) lane();
  }));
}

class Batches {
  // session: a Session, whose placement (placement.js) says which inputs go
  // in a batch; inProcess: false keeps every check on the per-operation path.
  constructor(session, { inProcess = true } = {}) {
    this.session = session;
    this.inProcess = inProcess && sameProcess(session.sides);
    // An adapter file runs one check at a time, as before: with several in
    // flight, its time to find a mutant's difference measured longer.
    const shared = [session.sides.a, session.sides.b].every((side) => capabilitiesOf(side.codec).sharesProcess);
    this.width = shared ? kInFlight : 1;
    this.maxWorkers = kBatchWorkers;
    this.workers = [];
    this.apart = new Set();  // those of this.workers that check the inputs that change shared state
    this.retired = [];   // workers let go by endIdle(), still counted in the session's stats
    this.checked = 0;    // inputs checked whole in a batch
    this.gates = new WeakMap();          // worker -> { sent, urgent, waiting }: its batch requests (see #request)
    this.paused = false;
  }

  // Starts one check per input. results: a promise per input, in order, of its
  // result: null when the check had nothing to check, undefined for an input
  // left out; of an input checked in a batch, what `answer` asks
  // (protocol.js Answer), its differences alone by default. urgent: checked ahead of the batches waiting for a worker.
  // cancel(): start no more checks (those not started never settle).
  each(type, inputs, { answer = Answer.differences, urgent = false } = {}) {
    const slots = inputs.map(slot);
    let cancelled = false;
    const isCancelled = () => cancelled;
    const perOp = (i, keptOut = null) => () => this.session.check(type, inputs[i], { keptOut }).then((result) => {
      slots[i].resolve(result);
      return result;
    }, slots[i].reject);
    const placed = { 'batch': [], [Place.batchApart]: [], 'requests': [] };
    const keptOut = [];
    for (const [i, input] of inputs.entries()) {
      const { where, keptOut: away } = this.session.placement(type, input);
      if (where === Place.leftOut) slots[i].resolve(undefined);
      else placed[where].push(i);
      keptOut[i] = away;
    }
    // The screened inputs first, as they were drawn.
    const byRequests = placed.requests.filter((i) => keptOut[i]).concat(placed.requests.filter((i) => !keptOut[i]));
    pooled(byRequests.map((i) => perOp(i, keptOut[i])), this.width, isCancelled);
    const sharing = placed[Place.batchApart].length > 0;
    for (const [indices, isApart] of [[placed.batch, false], [placed[Place.batchApart], true]]) {
      if (!indices.length) continue;
      const batch = { type, inputs, answer, urgent, slots, perOp, cancelled: isCancelled, apart: isApart, sharing };
      this.#batch(batch, indices).catch((err) => { for (const i of indices) slots[i].reject(err); });
    }
    return { results: slots.map((s) => s.promise), cancel: () => { cancelled = true; } };
  }

  // All results of each(), at once.
  run(type, inputs, options) {
    return Promise.all(this.each(type, inputs, options).results);
  }

  // Each answer settles its input's slot as it comes. A batch whose worker
  // died or hung has the inputs it did not answer run on the per-operation
  // path, one by one, until one crashes or hangs there too: the input at
  // fault. Those after it go on in a new batch.
  async #batch(batch, indices) {
    const { type, inputs, answer, urgent, slots, perOp, cancelled, apart, sharing } = batch;
    const { sides } = this.session;
    let answered = 0;
    const sent = indices.map((i) => inputs[i]);
    const message = { op: 'checks', type, codecs: { a: sides.a.codec, b: sides.b.codec }, answer };
    const worker = this.#worker(apart, sharing);
    // The recipes of a frame or stream check go by number (protocol.js).
    const wire = onRecipes(type) ? (child) => {
      const { number, recipes } = worker.recipes.forMessage(child);
      return { inputs: sent.map((input) => mapRecipes(type, input, number)), recipes };
    } : undefined;
    // With what this process found of each recipe's steps (recipes/steps.js markSteps).
    const request = onRecipes(type) ? message :
      { ...message, inputs: sent, steps: sent.map((input) => stepsMark(input.recipe)) };
    await this.#request(worker, urgent, cancelled, request, {
      wire,
      onPart: (part) => {
        const i = indices[answered++];
        this.checked++;
        slots[i].resolve(part === 0 ? { differences: [] } : part);
        this.session.onChecked?.(type, inputs[i], false);
      },
    });
    const rest = indices.slice(answered);
    while (rest.length && !cancelled()) {
      const result = await perOp(rest.shift())();
      if (result?.differences.some((d) => d.tier === Tier.crash)) break;  // a crash or a hang
    }
    if (rest.length && !cancelled()) await this.#batch(batch, rest);
  }

  // Sends a batch request once the worker has fewer than kSentPerWorker,
  // urgent ones first, and others only while not paused; a batch whose turn
  // was cancelled meanwhile is not sent.
  async #request(worker, urgent, cancelled, message, options) {
    const gate = this.#gate(worker);
    await new Promise((go) => {
      (urgent ? gate.urgent : gate.waiting).push(go);
      this.#pump(worker);
    });
    try {
      if (!cancelled()) await worker.request(message, options);
    } finally {
      gate.sent--;
      this.#pump(worker);
    }
  }

  #pump(worker) {
    const gate = this.#gate(worker);
    while (gate.sent < kSentPerWorker) {
      const go = gate.urgent.shift() ?? (this.paused ? undefined : gate.waiting.shift());
      if (!go) return;
      gate.sent++;
      go();
    }
  }

  #gate(worker) {
    if (!this.gates.has(worker)) this.gates.set(worker, { sent: 0, urgent: [], waiting: [] });
    return this.gates.get(worker);
  }

  // Batch requests a worker has, sent or waiting.
  #load(worker) {
    const gate = this.#gate(worker);
    return gate.sent + gate.urgent.length + gate.waiting.length;
  }

  // While a finding is shrunk and confirmed, only urgent checks are sent:
  // the turns drawn ahead wait rather than take the cores from it.
  pause() {
    this.paused = true;
  }

  resume() {
    this.paused = false;
    for (const worker of this.workers) this.#pump(worker);
  }

  // The least busy worker of its kind (apart or not) among the first of them
  // it may use, a new one while there are fewer: kApartWorkers, kBatchWorkers,
  // or kSharingWorkers when the batch shares the cores with inputs apart.
  #worker(apart, sharing) {
    const limit = apart ? kApartWorkers : sharing ? kSharingWorkers : kBatchWorkers;
    const own = this.workers.filter((w) => this.apart.has(w) === apart).slice(0, limit);
    const idle = own.find((w) => this.#load(w) === 0);
    if (idle) return idle;
    if (own.length < limit) {
      const { node, info } = this.session.sides.a;
      const worker = this.session.startWorker(node, this.session.workerOptions(apart ? apartFlags(info) : []));
      if (this.session.closed) worker.close();
      this.workers.push(worker);
      if (apart) this.apart.add(worker);
      return worker;
    }
    return own.reduce((x, y) => (this.#load(y) < this.#load(x) ? y : x));
  }

  // Lets the batch workers end as processes do, once idle (within a second),
  // so that the coverage counts they keep are written before a run reports
  // them; later batches start new workers.
  async endIdle() {
    const workers = this.workers.splice(0);
    this.apart.clear();
    this.retired.push(...workers);
    await Promise.all(workers.map((w) => w.end(kIdleEndMs)));
  }

  close() {
    for (const w of [...this.workers, ...this.retired]) w.close();
  }
}

module.exports = { Batches };
