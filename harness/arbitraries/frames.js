'use strict';
// fast-check arbitraries of frame corruptions (harness/wire/corrupt.js) and of
// streams: frames cut into reads in the ways that matter to a framer.

const fc = require('fast-check');

// Tag and index values around the varint and uint32 edges.
const edgeValue = fc.constantFrom(0, 1, 2, 3, 127, 128, 255, 16383, 16384, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1);
const viewIndex = fc.oneof(fc.integer({ min: 0, max: 13 }), fc.constantFrom(14, 99, 2 ** 32 - 1));
const nth = fc.nat(7);
const overlong = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) },
);

const corruption = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('host-tag'), nth, value: edgeValue, overlong }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('view-index'), nth, value: viewIndex, overlong }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('view-length'), nth, delta: fc.integer({ min: -3, max: 9 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('host-nonobject'), nth,
    value: fc.constantFrom([0x49, 0x02], [0x30], [0x5f], [0x22, 0x01, 0x61], [0x54]) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('padding'), nth, count: fc.integer({ min: 1, max: 7 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('truncate'), at: fc.nat(64), keepPrefix: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('prefix'),
    value: fc.constantFrom('shorter', 'longer', 0, 2 ** 31, 2 ** 31 + 5, 0xffffffff) }) },
  { weight: 1, arbitrary: fc.record({
    k: fc.constant('version'), value: fc.constantFrom(null, 0, 12, 13, 14, 16, 255),
  }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('trailing'),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }).map((b) => Buffer.from(b).toString('hex')) }) },
  { weight: 2, arbitrary: fc.record({
    k: fc.constant('flip'), at: fc.nat(255), mask: fc.integer({ min: 1, max: 255 }),
  }) },
);

// A corruption no reader accepts, whatever the frame: a header version no
// Node reads (below 13, above 15, none) or a payload cut inside its header.
const badFrame = fc.oneof(
  fc.record({ k: fc.constant('version'), value: fc.constantFrom(null, 12, 16, 255) }),
  fc.record({ k: fc.constant('truncate'), at: fc.integer({ min: 0, max: 2 }), keepPrefix: fc.constant(false) }),
);

// A value every codec writes, for a frame whose contents do not matter.
const plainRecipe = fc.oneof(
  fc.integer().map((v) => ({ k: 'number', v })),
  fc.string({ maxLength: 8 }).map((v) => ({ k: 'string', v })),
  fc.constant({ k: 'null' }),
);

// Streams of which one read holds a frame that decodes followed by one that
// cannot, as [items, plan] of the stream property ([[recipe, corruption], ...]):
// a framer must hand out the first before it fails on the second, as
// parseChannelMessages does, where one that decodes a whole read before it
// delivers any of it loses the first. The good frame may begin in a read of
// its own (`lead` bytes of it), so that a framer finishes a held frame first;
// the frames after the bad one come in reads of their own. The bad frame holds
// a plain value: a recipe codec a cannot write would leave no frame, and the
// read would join the good frame to the next one.
function goodThenBad(recipe) {
  return fc.record({
    good: recipe, bad: plainRecipe, corruption: badFrame, after: fc.array(recipe, { maxLength: 2 }),
    lead: fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) }),
  }).map(({ good, bad, corruption, after, lead }) => [
    [[good, null], [bad, corruption], ...after.map((r) => [r, null])],
    { k: 'frames', joins: [true], lead },
  ]);
}

// A chunk plan: how a stream of `total` bytes is cut into reads (wire/chunks.js).
const chunkPlan = fc.oneof(
  fc.constant({ k: 'whole' }),
  fc.constant({ k: 'bytewise' }),
  fc.constant({ k: 'split-length' }),
  fc.record({
    k: fc.constant('sizes'), sizes: fc.array(fc.integer({ min: 0, max: 24 }), { minLength: 1, maxLength: 8 }),
  }),
);

module.exports = { corruption, goodThenBad, chunkPlan };
