'use strict';
// The differential properties: each draws an input with fast-check and runs
// one check of the harness on side a and side b. A property holds when the
// check finds no difference (the runner decides which differences count).
// `input` turns what fast-check drew into the input of the check, which is
// also what a finding keeps as its origin.

const fc = require('fast-check');
const { Answer } = require('../harness/run/protocol');
const { recipe, valueRecipe, smallRecipe } = require('../harness/arbitraries/recipes');
const { corruption, chunkPlan, goodThenBad } = require('../harness/arbitraries/frames');

// The frame and stream properties corrupt and cut valid frames; which value
// a frame holds matters less than how it breaks. They draw their recipes
// from a fixed pool, simplest first, that every worker soon has compiled
// (harness/recipes/build.js keeps the last 1000), so that a check costs a
// serialization, not a compilation of new code.
const kPool = 768;
const pool = fc.sample(smallRecipe, { seed: 20261123, numRuns: kPool })
  .sort((x, y) => JSON.stringify(x).length - JSON.stringify(y).length);
const pooledRecipe = fc.nat({ max: kPool - 1 }).map((i) => pool[i]);

const properties = {
  // Both serializers give the same frame (or both reject), and each codec
  // decodes each codec's frame to the same tree.
  value: {
    arbitrary: valueRecipe,
    check: 'value',
    input: (r) => ({ recipe: r }),
  },

  // Decoding a frame and serializing the result again agrees between codecs.
  roundtrip: {
    arbitrary: recipe,
    check: 'roundtrip',
    input: (r) => ({ recipe: r }),
  },

  // A valid frame (codec a's, of a recipe) with one structured corruption:
  // both accept with the same result or both reject.
  frame: {
    arbitrary: fc.tuple(pooledRecipe, corruption),
    check: 'recipeFrame',
    input: ([r, c]) => ({ recipe: r, corruption: c }),
    // A turn is a batch request and its answer: at 40 inputs a turn (a frame
    // check is cheap) those messages took the cores from the checks. Its
    // turns come round a tenth as often (engine.js turnCycle), so that it
    // draws as many inputs as the others. The stream check, costlier, gained nothing.
    runsPerTurn: 400,
  },

  // Valid and corrupted frames in a row, cut into reads: the same messages,
  // errors and buffering state after every read. One input in four has a
  // read that holds a frame that decodes and then one that cannot.
  stream: {
    arbitrary: fc.oneof(
      { weight: 3, arbitrary: fc.tuple(
        fc.array(fc.tuple(pooledRecipe, fc.option(corruption, { freq: 3 })), { minLength: 1, maxLength: 4 }),
        chunkPlan) },
      { weight: 1, arbitrary: goodThenBad(pooledRecipe) }),
    check: 'recipeStream',
    input: ([items, plan]) => ({ items: items.map(([r, c]) => ({ recipe: r, corruption: c })), plan }),
  },
};

// The whole result of one property's check on one drawn value, run as a
// batch's would be (in the batch worker unless screened), ahead of the turns
// drawn ahead: a shrink step waits for nothing else. null when it had
// nothing to check, undefined when left out.
async function runProperty(property, session, drawn) {
  const [result] = await session.checkMany(property.check, [property.input(drawn)],
    { answer: Answer.differing, urgent: true });
  return result;
}

module.exports = { properties, runProperty };
