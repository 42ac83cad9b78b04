'use strict';
// What goes through a real child_process channel, shared by the runner (which
// plans cases and judges them) and the parent and child scripts (which run
// them in the binaries under test).
//
// - value: a recipe's value is sent parent -> child and child -> parent with
//   process.send; what arrives is compared with the reference's decoding.
// - raw: a frame or stream vector's bytes are written straight into the
//   channel by the child (fs.writeSync on process.channel.fd), one write per
//   read the vector asks for, then the child sends SENTINEL with
//   process.send. The parent, the receiver, records the messages delivered,
//   the uncaught errors, and whether SENTINEL still arrived.
// - program: values built by code, for Node's own regression tests, and the
//   wire sample: known values whose frames, as each runtime writes them, the
//   report shows.

const { buildInput } = require('../../harness/recipes/build');
const { SENTINEL, pieces, channelRecord, writeAll } = require('../../harness/oracle/channel');

// The parts of a case, each answered on its own: a parent that dies on one
// leaves the others to a fresh parent.
function partsOf(c) {
  return c.parts ?? (c.type === 'raw' ? ['record'] : ['toChild', 'toParent']);
}

// Node's test-child-process-advanced-serialization-largebuffer.js (#34797):
// four 8 MiB messages in a row, each larger than any pipe read.
const kEightMiB = 8 * 1024 * 1024;
const programs = {
  'large-buffers-34797': {
    about: 'four 8 MiB Uint8Arrays in a row (test-child-process-advanced-serialization-largebuffer)',
    values: () => [0, 1, 2, 3].map((i) => new Uint8Array(kEightMiB).fill(i)),
  },
  'wire-sample': {
    about: 'an object, a string and a Buffer: the frames each runtime writes for them are kept in the report',
    values: () => [{ hello: 'ipcfuzz', n: 1 }, 'x', Buffer.from('hi')],
  },
};
const wireSample = 'wire-sample';

// The values a value or program case sends ({ recipe } or { program }),
// with the set-up and tear-down of the recipe's tampering steps.
function buildValues({ recipe, program }, effects) {
  if (program !== undefined) return { values: programs[program].values(), setup() {}, teardown() {} };
  const { value, setup, teardown } = buildInput({ recipe }, effects);
  return { values: [value], setup, teardown };
}

module.exports = { writeAll, SENTINEL, pieces, partsOf, channelRecord, programs, wireSample, buildValues };
