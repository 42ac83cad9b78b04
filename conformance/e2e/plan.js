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

const fs = require('node:fs');
const { buildInput } = require('../../harness/recipes/build');

const SENTINEL = 'ipcfuzz:next';

// The writes of a raw case: the vector's reads, empty ones left out (a write
// of nothing reaches no one).
function pieces(input) {
  const data = Buffer.from(input.bytes, 'hex');
  const out = [];
  let at = 0;
  for (const size of input.chunks) {
    if (at >= data.length) break;
    out.push(data.subarray(at, at + size));
    at += size;
  }
  if (at < data.length) out.push(data.subarray(at));
  return out.filter((p) => p.length).map((p) => p.toString('hex'));
}

// The parts of a case, each answered on its own: a parent that dies on one
// leaves the others to a fresh parent.
function partsOf(c) {
  return c.parts ?? (c.type === 'raw' ? ['record'] : ['toChild', 'toParent']);
}

// A receiver's record of a raw case, from the reference framer's reads of the
// same writes (the vector's, then the sentinel's frame) or from a real parent.
function channelRecord(messages, errors) {
  const last = messages.at(-1);
  const next = last?.t === 'string' && last.v === SENTINEL;
  return { kind: 'ok', messages: next ? messages.slice(0, -1) : messages, errors, next };
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

const sleeper = new Int32Array(new SharedArrayBuffer(4));

// Raw writes into a channel, whose descriptor is non-blocking: a large write
// is finished piece by piece.
function writeAll(fd, bytes) {
  for (let at = 0; at < bytes.length;) {
    try {
      at += fs.writeSync(fd, bytes, at);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}

module.exports = { writeAll, SENTINEL, pieces, partsOf, channelRecord, programs, wireSample, buildValues };
