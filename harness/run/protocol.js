'use strict';
// What the harness and its worker processes (worker-main.js) say to each other,
// whichever driver carries it (async-driver.js, blocking-driver.js).
//
// A request is one JSON line: { id, op, ... }, op one of the operations of
// oracle/ops.js (serialize, deserialize, roundtrip, stream, info), or
//   checks: { type, inputs, codecs: { a, b }, full, steps, recipes }: whole checks, in the worker;
//   many:   { requests, recipes }: operations gathered for one process;
//   judge:  { codec, input }: whether a codec reaches the known crash (crash-judge.js).
// An answer is one JSON line: { id, outcome } or { id, fault }, which `parts`
// (a `checks` request's results, a `many` request's answers) may precede or
// come with, and { id, built: true } may precede (a value module was built).
// A request that takes the worker down is answered by the driver: a crash or a hang.

const { EnvironmentError, UsageError } = require('../base/errors');
const { Outcome } = require('../base/vocabulary');

// How a worker process is told what observes its checks: `${kObserversFlag}JSON`
// after its main module ([{ module, options }], see worker-main.js).
const kObserversFlag = '--observers=';
const observersArgs = (observers) => (observers.length ? [`${kObserversFlag}${JSON.stringify(observers)}`] : []);


// The bytes of a worker's stderr kept, and the lines of them a crash carries.
const kStderrTail = 4096;
const kCrashLines = 8;

// The outcome of a request its worker died on: how it ended and the end of what it wrote on stderr.
const crashOutcome = (code, signal, stderr = '') =>
  ({ kind: Outcome.crash, code, signal, stderr: stderr.trim().split('\n').slice(-kCrashLines).join('\n') });

const hangOutcome = (ms) => ({ kind: Outcome.hang, ms });

// A fault is the harness's or the input's, never the codec's: a worker answers it for a request that threw.
function faultOf(err) {
  if (err instanceof UsageError) return { kind: 'usage', message: err.message };
  if (err instanceof EnvironmentError) return { kind: 'environment', message: err.message };
  return { kind: 'internal', message: err?.stack ?? String(err) };
}

// The error a fault is in this process: the input's or the environment's is
// said in a line (exit 2); an internal one is a bug of ipcfuzz, which keeps the
// worker's stack for its report (exit 3), never an environment's fault.
function faultError(fault) {
  if (fault.kind === 'usage') return new UsageError(fault.message);
  if (fault.kind === 'environment') return new EnvironmentError(fault.message);
  const err = new Error(`in a worker: ${fault.message.split('\n')[0]}`);
  err.stack = `Error: in a worker: ${fault.message}`;
  return err;
}

// Recipes travel once per worker process and then by number: the frame and
// stream pools send the same recipes again and again, and reading one costs
// more than its check. One numbering per driver, one set of numbers sent per process.
class RecipeNumbers {
  constructor() {
    this.numbers = new WeakMap();  // recipe -> its number
    this.next = 0;
    this.sent = new WeakMap();     // process -> the numbers it was sent
  }

  // A numbering for one message to `process`: number(recipe) gives a recipe's
  // number; recipes, the [number, recipe] pairs that process was not sent yet.
  forMessage(process) {
    if (!this.sent.has(process)) this.sent.set(process, new Set());
    const known = this.sent.get(process);
    const recipes = [];
    const number = (recipe) => {
      let n = this.numbers.get(recipe);
      if (n === undefined) this.numbers.set(recipe, n = this.next++);
      if (!known.has(n)) {
        known.add(n);
        recipes.push([n, recipe]);
      }
      return n;
    };
    return { number, recipes };
  }

  // The operations of a `many` request with their recipes as numbers (input.recipeNo).
  many(requests, process) {
    const { number, recipes } = this.forMessage(process);
    const numbered = requests.map((request) => {
      const recipe = request.input?.recipe;
      if (recipe === null || typeof recipe !== 'object') return request;
      const { recipe: _, ...input } = request.input;
      return { ...request, input: { ...input, recipeNo: number(recipe) } };
    });
    return { requests: numbered, recipes };
  }
}

// The worker's side of the numbering: the recipes it was sent, by number.
class RecipeTable {
  constructor() {
    this.recipes = new Map();
  }

  learn(added = []) {
    for (const [number, recipe] of added) this.recipes.set(number, recipe);
  }

  recipe(number) {
    return this.recipes.get(number);
  }

  // A `many` request's operation with its recipe back in place of its number.
  request(request) {
    if (request.input?.recipeNo === undefined) return request;
    const { recipeNo, ...input } = request.input;
    return { ...request, input: { ...input, recipe: this.recipe(recipeNo) } };
  }
}

// What every worker a driver starts offers the session and the batches
// (the blocking and async drivers, and the tests' fake): request(message, {
// onPart, wire }) answers with an outcome, or a promise of one where the
// driver is async, telling onPart each part of a batch's answer as it comes;
// boot() starts its process ahead of need; end(ms) lets it end once idle
// (a promise); close() ends it now; `stats` counts its requests, crashes,
// hangs and restarts; `recipes` numbers the recipes its processes were sent.
// What the check of an input answers with, where only part of it is needed:
// its differences alone (given again, or from a batch or a worker apart),
// the whole result of an input that differs, or the whole result of every
// input (for a finding to be saved from it).
const Answer = Object.freeze({ differences: 'differences', differing: 'differing', whole: 'whole' });

const workerContract = Object.freeze({ methods: ['request', 'boot', 'end', 'close'], fields: ['stats', 'recipes'] });

// What of the contract `worker` lacks, by name.
function contractGaps(worker) {
  return [...workerContract.methods.filter((name) => typeof worker?.[name] !== 'function'),
    ...workerContract.fields.filter((name) => worker?.[name] === undefined)];
}

module.exports = {
  Answer, workerContract, contractGaps,
  crashOutcome, hangOutcome, faultOf, faultError, RecipeNumbers, RecipeTable, kStderrTail,
  kObserversFlag, observersArgs,
};
