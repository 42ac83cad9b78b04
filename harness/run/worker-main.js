'use strict';
// Runs inside the node binary under test (started with --expose-internals).
// Reads one JSON request a line on stdin and answers one JSON line each on
// fd 3, in order; stdout and stderr stay free for whatever codecs print.
// A request that crashes or hangs this process is answered by the parent,
// which is told when a value module has been built, so that a module that
// never returns is blamed on itself, not on the codec. A `checks` request
// runs whole checks with both codecs in this process (see batches.js); a
// `many` request, operations gathered for this process (see async-driver.js);
// a `judge` request, whether a codec reaches the known native crash on a
// value, found without the crash (see crash-judge.js).
// A fork server (fork-server-main.js) forks workers that run the same requests.

const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const { createOps, payloadRequest } = require('../oracle/ops');
const { onJsonLines, stringifyDeep } = require('../base/json-lines');
const { buildInput, inputBuilder, buildWorld } = require('../recipes/build');
const { codecNames, loadCodec } = require('../codecs');
const { judgeKnownCrash } = require('./crash-judge');
const { hostTypes } = require('../recipes/hosts');
const { Answer, faultOf, RecipeTable, kObserversFlag } = require('./protocol');
const { Outcome } = require('../base/vocabulary');

const kReply = 3;
// An answer JSON.stringify cannot write, one that holds a BigInt (somewhere a
// value's own fields reach a description) or the tree of a value nested past
// its recursion, is written by stringifyDeep, rather than the request failing
// inside this process.
function toJson(message) {
  try {
    return JSON.stringify(message);
  } catch (err) {
    if (!(err instanceof TypeError || err instanceof RangeError)) throw err;
    return stringifyDeep(message);
  }
}
const reply = (message) => fs.writeSync(kReply, `${toJson(message)}\n`);
const ops = {
  ...createOps(buildInput, {
    buildWorld,
    built: (request) => { if (request.input.module !== undefined) reply({ id: request.id, built: true }); },
  }),
  // For the parent's KnownCrash (session.js).
  judge: ({ input, codec }) =>
    ({ kind: Outcome.ok, reaches: judgeKnownCrash(input, loadCodec(codec), buildInput) === Outcome.crash }),
};
// Whole checks get their recipes from fast-check, each new, or by number.
const checkOps = createOps(inputBuilder({ byText: false }), { buildWorld });

// What observes the checks of this process ([{ module, options }], the
// session's `observers`), given as `--observers=JSON` after the main module:
// each module's observe(options) starts it at the first `checks` request.
const observerArg = process.argv.find((arg) => arg.startsWith(kObserversFlag));
const observersToLoad = observerArg ? JSON.parse(observerArg.slice(kObserversFlag.length)) : [];

// Kept between the requests of this process: the recipes it was sent, by
// number (protocol.js), and side a's frames of them (see from-recipes.js).
const recipes = new RecipeTable();
let frames = null;
// How long checked inputs wait for their parts to be sent together: one
// write per input cost more than a frame check.
const kPartsMs = 2;

// One part per input, sent in bundles (`parts`) at least every kPartsMs while
// checking, so that the parent knows how far a batch got if a codec takes
// this process down (it checks the inputs of a bundle not sent again): null
// when the check had nothing to check, 0 when it found no difference, else
// its differences, or what `answer` asks (protocol.js Answer). The last bundle goes with
// the answer ({ outcome, parts }): a write to the parent costs more than a
// frame check.
function checks({ id, type, inputs, recipes: added = [], codecs, answer = Answer.differences, steps = [] }) {
  // Here, not above: a worker that runs one operation at a time starts
  // without the checks and fast-check, as fast as before.
  const { runCheck } = require('../oracle/checks');
  const { allChecks, onRecipes, mapRecipes, FramesOnA } = require('../oracle/from-recipes');
  const { markSteps } = require('../recipes/steps');
  for (const { module, options } of observersToLoad.splice(0)) require(module).observe(options);
  steps.forEach((mark, i) => markSteps(inputs[i].recipe, mark));
  const op = (side, request) => checkOps[request.op]({ ...request, codec: codecs[side] });
  const both = (request) => checkOps.both(request, codecs);
  let run = op;
  if (onRecipes(type)) {
    recipes.learn(added);
    inputs = inputs.map((input) => mapRecipes(type, input, (number) => recipes.recipe(number)));
    frames ??= new FramesOnA();
    run = frames.wrap(op, codecs.a);
  }
  let parts = [];
  let sent = performance.now();
  for (const input of inputs) {
    const result = runCheck(allChecks[type], run, input, both);
    const clean = !result || !result.differences.length;
    parts.push(clean && answer !== Answer.whole ? result && 0 :
      answer === Answer.differences ? { differences: result.differences } : result);
    if (performance.now() - sent >= kPartsMs) {
      reply({ id, parts });
      parts = [];
      sent = performance.now();
    }
  }
  return { outcome: { kind: Outcome.ok, checked: inputs.length }, parts };
}

// The operations of a `many` request, in order, each answered as it would be
// alone ({ outcome } or { fault }) in a part of its own as soon as it is done:
// if one takes this process down, the parent knows which.
function many({ id, requests, recipes: added = [] }) {
  recipes.learn(added);
  for (const request of requests) {
    const { outcome, fault } = handle(recipes.request(request));
    reply({ id, parts: [fault ? { fault } : { outcome }] });
  }
  return { kind: Outcome.ok };
}

function handle(request) {
  try {
    if (request.op === 'checks') return { id: request.id, ...checks(request) };
    const run = request.op === 'many' ? many : ops[request.op];
    return { id: request.id, outcome: run(request) };
  } catch (err) {
    return { id: request.id, fault: faultOf(err) };
  }
}

// A worker started in place of one that crashed answers its first request
// sooner once the code every request runs (reading it, building a value and
// its tree, the codecs' first calls, an answer's JSON) is compiled: done here,
// while it waits for that request. Its first host objects of each type cost
// more (the crypto module, OpenSSL's first key and certificate): one of each
// is built too. The value is plain
// and its keys are no recipe's, so it leaves no hidden class or field
// representation that a checked value could meet.
function warmUp() {
  const key = 'ipcfuzzWarmUp';
  const hosts = Object.keys(hostTypes).map((type) => ({ k: 'host', type, props: [[key, { k: 'null' }]] }));
  const recipe = { k: 'object', props: [[key, { k: 'array', items: [{ k: 'string', v: 'é' }, { k: 'number', v: 1.5 },
    { k: 'view', type: 'Uint8Array', bytes: '0102' }, { k: 'map', entries: [[{ k: 'bigint', v: '1' }, { k: 'null' }]] },
    { k: 'port', props: [[key, { k: 'bool', v: true }]] }, ...hosts] }]] };
  for (const codec of codecNames) {
    // As a request comes and its answer goes; a codec this binary lacks is a fault.
    const { outcome } = handle(JSON.parse(toJson({ id: 0, op: 'serialize', codec, input: { recipe }, tree: true })));
    if (outcome?.kind === Outcome.ok) toJson(handle({ id: 0, ...payloadRequest('deserialize', outcome), codec }));
  }
}

// Answers the requests read on stdin, warmed up while it waits for the first
// unless `warm` is false (fresh-worker-main.js).
function serveStdin({ warm = true } = {}) {
  onJsonLines(process.stdin, (request) => reply(handle(request)));
  if (warm) setImmediate(warmUp);
}

module.exports = { handle, reply, warmUp, serveStdin };

if (require.main === module) serveStdin();
