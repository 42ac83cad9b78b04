'use strict';
// The frame and stream checks as the fuzzing properties run them, from
// recipes: codec a serializes each recipe first, and its frames, corrupted as
// told, are what the frame or stream check gets; the result is that check's.
// Apart from checks.js so that a repro script, which bundles checks.js, does
// not need the frame corruptions of the properties.

const { checks } = require('./checks');
const { applyCorruption, Layout } = require('../wire/corrupt');
const { frameOf, bytesInput } = require('./ops');
const { Outcome } = require('../base/vocabulary');
const { chunkSizes } = require('../wire/chunks');

// The frame of a serialize outcome and its layout, made once per outcome: a
// process that checks many inputs gets the same outcome for a recipe each
// time (FramesOnA, below) and corrupts it many ways.
const laidOut = new WeakMap();

function laidOutFrame(outcome) {
  if (!laidOut.has(outcome)) {
    const frame = frameOf(outcome);
    laidOut.set(outcome, { frame, layout: new Layout(frame) });
  }
  return laidOut.get(outcome);
}

// The frame codec a writes for a recipe, with a corruption applied when one
// is given; null when it cannot serialize the recipe.
function* frameOnA(recipe, corruption) {
  const [outcome] = yield [['a', { op: 'serialize', input: { recipe } }]];
  if (outcome.kind !== Outcome.ok) return null;  // rejected, unbuildable, crashed
  if (!corruption) return frameOf(outcome);
  const { frame, layout } = laidOutFrame(outcome);
  return applyCorruption(frame, corruption, layout);
}

// input: { recipe, corruption }: null when a cannot serialize the recipe.
function* recipeFrame({ recipe, corruption }) {
  const bytes = yield* frameOnA(recipe, corruption);
  return bytes && (yield* checks.frame(bytesInput(bytes)));
}

// input: { items: [{ recipe, corruption? }], plan }: the frames in a row, cut
// into reads by the plan; null when a serializes none of the recipes.
function* recipeStream({ items, plan }) {
  const frames = [];
  for (const { recipe, corruption } of items) {
    const frame = yield* frameOnA(recipe, corruption);
    if (frame) frames.push(frame);
  }
  if (!frames.length) return null;
  const chunks = chunkSizes(plan, frames.map((f) => f.length));
  return yield* checks.stream(bytesInput(Buffer.concat(frames), { chunks }));
}

// Every check by name, these two included.
const allChecks = { ...checks, recipeFrame, recipeStream };

// Whether a check's inputs hold recipes that only codec a serializes.
const onRecipes = (type) => type === 'recipeFrame' || type === 'recipeStream';

// The recipe whose value an input's check serializes each time, if any; none
// for the frame and stream checks, whose recipes (a pool of small ones) are
// serialized once.
const serializedRecipe = (type, input) => (onRecipes(type) ? undefined : input?.recipe);

// An input of these two checks with each recipe replaced by what fn gives
// for it (a batch's inputs travel with their recipes as numbers, see batches.js).
function mapRecipes(type, input, fn) {
  if (type === 'recipeFrame') return { ...input, recipe: fn(input.recipe) };
  return { ...input, items: input.items.map((item) => ({ ...item, recipe: fn(item.recipe) })) };
}

// What codec a wrote for each recipe, for a process that checks many inputs
// of these two checks: their recipes come from a small fixed pool, so
// serializing each one again (building its value first) would cost more than
// the check of its corrupted frame. Recipes are told apart by identity: the
// process keeps one object per recipe it was sent.
class FramesOnA {
  constructor() {
    this.outcomes = new Map();  // codec -> WeakMap(recipe -> outcome)
  }

  // run(side, request) of runCheck, with side a's serializations (of `codec`) remembered.
  wrap(run, codec) {
    if (!this.outcomes.has(codec)) this.outcomes.set(codec, new WeakMap());
    const outcomes = this.outcomes.get(codec);
    return (side, request) => {
      if (side !== 'a' || request.op !== 'serialize') return run(side, request);
      let outcome = outcomes.get(request.input.recipe);
      if (!outcome) {
        outcome = run(side, request);
        outcomes.set(request.input.recipe, outcome);
      }
      return outcome;
    };
  }
}

module.exports = { allChecks, onRecipes, serializedRecipe, mapRecipes, FramesOnA };
