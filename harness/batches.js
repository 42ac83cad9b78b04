'use strict';
// Many checks at a time. When both codecs are built in and live in one binary,
// whole checks run in one worker of that binary, a batch of inputs per
// request, with no process hop per operation; an input shaped like a known
// native crash (crash-screen.js) runs instead on the per-operation path of
// session.js, where a crash is that input's outcome. A batch whose worker dies
// or hangs anyway has its unanswered inputs run one by one on that path, so
// that the one at fault gets its crash or hang and the others their results.
// Other sessions (a side in another binary, an adapter file, which may abort
// or loop) keep the per-operation path, with several checks in flight at once.

const os = require('node:os');
const { WorkerProcess } = require('./worker-process');
const { screen } = require('./crash-screen');
const { builtinCodecs } = require('./codecs');

const kInFlight = 8;
const kSettleMs = 1000;
// A worker per core: the checks cost far more than drawing their inputs, so
// the process that draws them needs little of a core of its own.
const kBatchWorkers = Math.max(1, os.availableParallelism());
// The checks whose recipes only side a serializes.
const serializedOnA = new Set(['recipeFrame', 'recipeStream']);

// Whether the checks of these sides can run whole in one process.
function sameProcess(sides) {
  return sides.a.node === sides.b.node && [sides.a, sides.b].every((side) => builtinCodecs.includes(side.codec));
}

// The known crash shape of an input, when a native codec is to serialize its
// recipes; null when it can run in the batch. The reference codec (js) is
// plain JavaScript over v8.Serializer and has no such crash.
function crashShape(type, input, sides) {
  const serializers = serializedOnA.has(type) ? [sides.a] : [sides.a, sides.b];
  if (serializers.every((side) => side.codec === 'js')) return null;
  for (const item of input.items ?? [input]) {
    const shape = screen(item);
    if (shape) return shape;
  }
  return null;
}

// Runs tasks (functions returning promises) at most `width` at a time; resolves their results in order.
async function pooled(tasks, width) {
  const results = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, lane));
  return results;
}

class Batches {
  // session: a Session; inProcess: false keeps every check on the per-operation path;
  // screen(type, input, sides): the crash shape that keeps an input out of the batch, or null.
  constructor(session, { inProcess = true, screen = crashShape } = {}) {
    this.session = session;
    this.screen = screen;
    this.inProcess = inProcess && sameProcess(session.sides);
    this.workers = [];
    this.retired = [];   // workers let go by settle(), still counted in the session's stats
    // Bench only (docs/benchmarks.md): leaves the screened inputs out, to measure what they cost.
    this.skipScreened = Boolean(process.env.IPCFUZZ_BENCH_SKIP_SCREENED);
    // Told of each input a batch checked, with the check's type (the bench's trace of codec calls).
    this.onChecked = null;
  }

  // The result of one check per input, in order: null when the check had
  // nothing to check, undefined for an input left out; of an input checked in
  // a batch, only { differences } unless `full`.
  run(type, inputs, { full = false } = {}) {
    const perOp = (input) => () => this.session.check(type, input);
    if (!this.inProcess) return pooled(inputs.map(perOp), kInFlight);
    const batched = [];
    const screened = [];
    inputs.forEach((input, i) => (this.screen(type, input, this.session.sides) ? screened : batched).push(i));
    const results = new Array(inputs.length);
    const aside = this.skipScreened ? [] : screened.map((i) => perOp(inputs[i]));
    return Promise.all([
      pooled(aside, kInFlight).then((out) => out.forEach((r, k) => { results[screened[k]] = r; })),
      this.#batch(type, inputs, batched, results, full),
    ]).then(() => results);
  }

  async #batch(type, inputs, indices, results, full) {
    if (!indices.length) return;
    const { sides } = this.session;
    const answers = [];
    await this.#worker().request({
      op: 'checks', type, inputs: indices.map((i) => inputs[i]), codecs: { a: sides.a.codec, b: sides.b.codec }, full,
    }, { onPart: (part) => answers.push(part) });
    answers.forEach((answer, k) => {
      const input = inputs[indices[k]];
      results[indices[k]] = answer === 0 ? { differences: [] } : answer;
      this.onChecked?.(type, input);
    });
    for (const i of indices.slice(answers.length)) results[i] = await this.session.check(type, inputs[i]);
  }

  // The least busy worker, a new one while there are fewer than kBatchWorkers.
  #worker() {
    const idle = this.workers.find((w) => w.queue.length === 0);
    if (idle) return idle;
    if (this.workers.length < kBatchWorkers) {
      const worker = new WorkerProcess(this.session.sides.a.node, { timeoutMs: this.session.timeoutMs });
      if (this.session.closed) worker.close();
      this.workers.push(worker);
      return worker;
    }
    return this.workers.reduce((x, y) => (y.queue.length < x.queue.length ? y : x));
  }

  // Lets the batch workers end as processes do, once idle (within a second),
  // so that the coverage counts they keep are written before a run reports
  // them; later batches start new workers.
  async settle() {
    const workers = this.workers.splice(0);
    this.retired.push(...workers);
    await Promise.all(workers.map((w) => w.end(kSettleMs)));
  }

  close() {
    for (const w of [...this.workers, ...this.retired]) w.close();
  }
}

module.exports = { Batches, crashShape, sameProcess };
