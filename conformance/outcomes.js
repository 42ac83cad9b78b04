'use strict';
// The operations a vector is put through in one codec, in process. `request`
// runs one operation (harness/oracle/ops.js) in a worker of the binary with the
// codec filled in, and resolves with its outcome.
//
// Without an expectation this is the reference run that writes one; with
// one, the codec decodes the expected frame (not its own), so a decoder is
// judged even when its serializer fails.
//   recipe: serialize; decode the frame; decode and re-encode it when canonical
//   frame:  read the bytes with a fresh framer; re-encode the payload when canonical
//   stream: read the bytes in the given chunks

const { digest } = require('../harness/oracle/channel');
const { Outcome } = require('../harness/base/vocabulary');

// A frame vector holding exactly one frame: its payload, else null.
function singlePayload(hex) {
  if (hex.length < 8) return null;
  const length = parseInt(hex.slice(0, 8), 16);
  return hex.length === 8 + 2 * length ? hex.slice(8) : null;
}

async function runVector(request, vector, expected = null) {
  const out = {};
  let frame;
  if (vector.kind === 'recipe') {
    out.serialize = await request({ op: 'serialize', input: vector.input });
    const source = expected ? expected.serialize : out.serialize;
    if (source?.kind !== 'ok') return out;
    frame = source.bytes;
    out.decode = await request({ op: 'deserialize', bytes: frame.slice(8) });
  } else {
    out.stream = await request({ op: 'stream', bytes: vector.input.bytes, chunks: vector.input.chunks });
    frame = vector.kind === 'frame' && singlePayload(vector.input.bytes) !== null ? vector.input.bytes : null;
  }
  const canonicalWanted = expected ? expected.canonical : frame !== null;
  if (canonicalWanted) {
    const roundtrip = await request({ op: 'roundtrip', bytes: frame.slice(8) });
    if (expected) out.roundtrip = roundtrip;
    else out.canonical = roundtrip.kind === Outcome.ok && roundtrip.bytes === frame;
  } else if (!expected) {
    out.canonical = false;
  }
  // Frames stay whole (they are decoded again); decoded trees may hold MiB of bytes.
  for (const key of ['decode', 'stream']) if (out[key]) out[key] = digest(out[key]);
  return out;
}

// What the reference's re-encoding must give, for comparison with a codec's.
function expectedRoundtrip(vector, expected) {
  const bytes = vector.kind === 'recipe' ? expected.serialize.bytes : vector.input.bytes;
  return { kind: Outcome.ok, bytes };
}

module.exports = { runVector, expectedRoundtrip };
