'use strict';
// How each target reads the fuzzer's bytes. Plain functions without codecs,
// so the orchestrator can map a saved crash input back to what it meant.
// Each target is named after the check it runs (harness/oracle/checks.js).
const { decodeRecipe } = require('../../harness/recipes/bytes');

// value: the bytes are a recipe in the byte grammar.
const value = (bytes) => ({ recipe: decodeRecipe(bytes) });

// frame: bit 0 of the first byte asks for the length prefix to be made
// consistent with the rest; the rest is the frame.
function frame(bytes) {
  const out = Buffer.from(bytes.subarray(1));
  if ((bytes[0] & 1) && out.length >= 4) out.writeUInt32BE(out.length - 4, 0);
  return { bytes: out.toString('hex') };
}

// The frame target's input for a frame kept as it is (seeds, exports).
const frameSeed = (frameBytes) => Buffer.concat([Buffer.from([0]), frameBytes]);

// stream: the first byte gives how many read sizes follow (0..7, one byte
// each, 0..31 bytes); the rest is the byte stream.
function stream(bytes) {
  const count = (bytes[0] ?? 0) % 8;
  const chunks = [...bytes.subarray(1, 1 + count)].map((b) => b % 32);
  return { bytes: Buffer.from(bytes.subarray(1 + count)).toString('hex'), chunks };
}

// The stream target's input for bytes read in `chunks` (at most 7, each 0..31).
const streamSeed = (streamBytes, chunks) => Buffer.concat([Buffer.from([chunks.length, ...chunks]), streamBytes]);

module.exports = { value, frame, stream, frameSeed, streamSeed };
