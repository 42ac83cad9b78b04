'use strict';
// Where an input runs, decided here alone, from the input and what the
// session knows of its sides; no process is started to decide it. An input
// shaped like a known native crash (recipes/crash-shapes.js) keeps the
// requests that build its value out of this process and out of batches, so
// that its crash is its own outcome; one that changes a built-in prototype is
// checked where the code every other check runs is not thrown away for it;
// one that would leave its process slower for good goes where the screened
// inputs' crashes renew the process often (recipes/steps.js).

const { screen } = require('../recipes/crash-shapes');
const { capabilitiesOf } = require('../codecs');
const { serializedRecipe } = require('../oracle/from-recipes');
const { changesSharedState, spoilsProcess } = require('../recipes/steps');
const { Place } = require('../base/vocabulary');

// The checks whose recipes only side a serializes.
const serializedOnA = new Set(['recipeFrame', 'recipeStream']);

// Whether the checks of these sides can run whole in one process (a batch worker's).
function sameProcess(sides) {
  return sides.a.node === sides.b.node && [sides.a, sides.b].every((side) => capabilitiesOf(side.codec).sharesProcess);
}

// The known crash shape of an input, when a codec that may have the crash is
// to serialize its recipes; null when it may run with the others.
function crashShape(type, input, sides) {
  const serializers = serializedOnA.has(type) ? [sides.a] : [sides.a, sides.b];
  if (!serializers.some((side) => capabilitiesOf(side.codec).mayCrash)) return null;
  for (const item of input?.items ?? [input]) {
    const shape = item && screen(item);
    if (shape) return shape;
  }
  return null;
}

// Where the check of one input runs: { where, isolated }.
//   where: 'here'       both sides in this process (blocking, builtin codecs of this binary);
//          'batch'      whole, with others, in a batch worker (async, both codecs in one binary);
//          'batch apart' the same, in the batch workers of the inputs that change shared state;
//          'apart'      whole, in the blocking session's worker of those inputs;
//          'screened worker' whole, in the worker of the screened inputs (it would spoil any other);
//          'requests'   request by request, each placed by placeRequest;
//          'left out'   not checked (the bench's skipScreened).
//   keptOut: for 'requests', which requests must not run a codec that may
//   crash here: 'input' those that build the value, 'all' every one, or null.
// facts: { type, sides, local: { a, b } (a side runs in this process),
//   batching (the session checks many at a time, in batch workers),
//   screening (whether the session screens its inputs: a blocking one unless
//   told not to, an async one where it batches), shapeOf (the screen, crashShape),
//   awayFromHere (the input crashed this process before: none of its requests run here), skipScreened }.
function placeCheck(input, { type, sides, local = { a: false, b: false }, batching = false, screening = batching,
  shapeOf = crashShape, awayFromHere = false, skipScreened = false }) {
  if (awayFromHere) return { where: Place.requests, keptOut: 'all' };
  const screened = screening && shapeOf(type, input, sides) !== null;
  if (screened) return { where: skipScreened ? Place.leftOut : Place.requests, keptOut: 'input' };
  const recipe = serializedRecipe(type, input);
  if (batching) {
    if (spoilsProcess(recipe)) return { where: Place.requests, keptOut: null };
    return { where: changesSharedState(recipe) ? Place.batchApart : Place.batch, keptOut: null };
  }
  if (local.a && local.b) {
    if (!changesSharedState(recipe)) return { where: Place.here, keptOut: null };
    return { where: spoilsProcess(recipe) ? Place.screenedWorker : Place.apart, keptOut: null };
  }
  return { where: Place.requests, keptOut: null };
}

// Where one request of a check placed 'requests' runs: 'here', 'worker', or,
// for the value of a screened input, judged rather than run in a worker once
// a worker has shown the crash (crash-judge.js): 'judge here', or 'judge in
// worker' where its value must not be built here. A value that changes shared
// state is never built here.
// facts: { codec, local (its side runs in this process), keptOut (of placeCheck) }.
function placeRequest(request, { codec, local, keptOut }) {
  const hasInput = request.input !== undefined;
  const shared = hasInput && changesSharedState(request.input.recipe);
  const away = keptOut === 'all' || (keptOut === 'input' && hasInput);
  // A screened input keeps here a codec that cannot crash (and its coverage).
  const { mayCrash, sharesProcess } = capabilitiesOf(codec);
  if (local && !shared && !(away && mayCrash)) return 'here';
  const judged = keptOut === 'input' && request.op === 'serialize' && sharesProcess && mayCrash;
  if (!judged) return 'worker';
  return local && !shared ? 'judge here' : 'judge in worker';
}

module.exports = { placeCheck, placeRequest, crashShape, sameProcess };
