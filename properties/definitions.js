'use strict';
// The differential properties: each draws an input with fast-check and runs
// one check of the harness on side a and side b. A property holds when the
// check finds no difference (the runner decides which differences count).

const fc = require('fast-check');
const { recipe, smallRecipe } = require('../harness/arbitraries/recipes');
const { corruption, chunkPlan, chunkSizes } = require('../harness/arbitraries/frames');
const { applyCorruption } = require('../harness/corrupt');

// The frame codec a writes for a recipe, or null when it cannot serialize it.
async function frameOf(session, r) {
  const outcome = await session.run('a', { op: 'serialize', input: { recipe: r } });
  return outcome.kind === 'ok' ? Buffer.from(outcome.bytes, 'hex') : null;  // rejected or unbuildable
}

const properties = {
  // Both serializers give the same frame (or both reject), and each codec
  // decodes each codec's frame to the same tree.
  value: {
    arbitrary: recipe,
    run: (session, r) => session.check('value', { recipe: r }),
    origin: (r) => ({ recipe: r }),
  },

  // Decoding a frame and serializing the result again agrees between codecs.
  roundtrip: {
    arbitrary: recipe,
    run: (session, r) => session.check('roundtrip', { recipe: r }),
    origin: (r) => ({ recipe: r }),
  },

  // A valid frame with one structured corruption: both accept with the same
  // result or both reject.
  frame: {
    arbitrary: fc.tuple(smallRecipe, corruption),
    async run(session, [r, c]) {
      const frame = await frameOf(session, r);
      if (!frame) return null;
      return session.check('frame', { bytes: applyCorruption(frame, c).toString('hex') });
    },
    origin: ([r, c]) => ({ recipe: r, corruption: c }),
  },

  // Valid and corrupted frames in a row, cut into reads: the same messages,
  // errors and buffering state after every read.
  stream: {
    arbitrary: fc.tuple(
      fc.array(fc.tuple(smallRecipe, fc.option(corruption, { freq: 3 })), { minLength: 1, maxLength: 4 }),
      chunkPlan),
    async run(session, [items, plan]) {
      const frames = [];
      for (const [r, c] of items) {
        const frame = await frameOf(session, r);
        if (frame) frames.push(c ? applyCorruption(frame, c) : frame);
      }
      if (!frames.length) return null;
      const chunks = chunkSizes(plan, frames.map((f) => f.length));
      return session.check('stream', { bytes: Buffer.concat(frames).toString('hex'), chunks });
    },
    origin: ([items, plan]) => ({ items: items.map(([r, c]) => ({ recipe: r, corruption: c })), plan }),
  },
};

module.exports = { properties };
