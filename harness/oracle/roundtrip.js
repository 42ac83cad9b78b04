'use strict';
// The round-trip oracle: what a codec writes, that codec must read back, to
// the value it was given, except for what the format loses by design:
//
//   - prototypes and classes (a subclass or an object with another prototype
//     comes back with the built-in one; a view comes back as the type that
//     was read from it, a Buffer as a Uint8Array or the other way round)
//   - non-enumerable and symbol-keyed properties (never written)
//   - accessors (written as the value the getter returned)
//   - host objects (MessagePort, KeyObject, X509Certificate, ...): copied
//     shallowly into plain objects
//   - where a view's bytes live (a slice of a pool, the frame, a copy) and its
//     own properties
//   - an Error's own properties other than message, stack and cause
//   - object identity numbers (shared and circular references must stay so)
//
// The value is compared only when no user code ran while it was serialized
// (a getter may change the value under the serializer), the recipe has no
// tampering steps (they change what the codec reads, by design), and the
// other codec wrote the same frame or none (different frames are a bytes
// difference already); the frame must be readable always. A frame that a codec wrote and cannot read is a
// finding even when both codecs write and reject it alike, and a difference where the other codec wrote
// a frame too, or reads this one: where it wrote none and cannot read this one either, what it would have
// read back is not observed, and the acceptance difference already names the input.

const { treeDiff, errorLabel, outcomeLabel, sideSummary, difference, printed } = require('./compare');
const { tampered } = require('../recipes/steps');
const { Outcome, endedProcess } = require('../base/vocabulary');

const lossyFields = new Set(['proto', 'id', 'backing', 'byteOffset', 'isBuffer']);

// The input's canonical tree with what the format loses taken out; `accessor`
// nodes match whatever the decoded tree holds there.
function lossless(node, decoded) {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((n, i) => lossless(n, Array.isArray(decoded) ? decoded[i] : undefined));
  if (node.t === 'accessor') return dropLossy(decoded);
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (lossyFields.has(key)) continue;
    if (key === 'props' && (node.t === 'view' || node.t === 'error')) continue;
    out[key] = lossless(value, decoded?.[key]);
  }
  return out;
}

const dropLossy = (tree) => lossless(tree, undefined);

// The same comparison as of lossless(input, decoded) with dropLossy(decoded),
// without copying either tree.
const lossy = {
  skip: (node, key) => lossyFields.has(key) || (key === 'props' && (node.t === 'view' || node.t === 'error')),
  matchesAll: (node) => node.t === 'accessor',
};

// Whether the other codec wrote the same frame as `side`, or none.
function alone(serialized, side) {
  const other = serialized[side === 'a' ? 'b' : 'a'];
  return other.kind !== Outcome.ok || other.bytes === serialized[side].bytes;
}

// Whether the other codec's side of an unreadable frame was observed: a frame of its own, or a read of this one.
function comparable(serialized, side, decodeOf) {
  const other = side === 'a' ? 'b' : 'a';
  return serialized[other].kind === Outcome.ok || decodeOf(side, other)?.kind === Outcome.ok;
}

// serialized: { a, b } serialize outcomes (each may carry `inputTree`);
// decodeOf(producer, side): the outcome of `side` decoding `producer`'s frame.
function roundtripDifferences(input, serialized, decodeOf) {
  // A codec that crashed or hung is a finding of the crash tier, alone.
  if (['a', 'b'].some((side) => endedProcess(serialized[side]) || endedProcess(decodeOf(side, side)))) return [];
  const failures = [];
  const untampered = !tampered(input.recipe);
  for (const side of ['a', 'b']) {
    const written = serialized[side];
    const read = decodeOf(side, side);
    if (written.kind !== Outcome.ok || !read) continue;
    if (read.kind === Outcome.reject) {
      if (!comparable(serialized, side, decodeOf)) continue;
      failures.push({ side, read, key: `unreadable:${errorLabel(read.error)}`,
        detail: `${side} wrote a frame it cannot read: ${outcomeLabel(read)}: ${read.error.message}` });
    } else if (read.kind === Outcome.ok && written.inputTree && untampered && alone(serialized, side)) {
      failures.push(...valueFailure(side, read, written.inputTree));
    }
  }
  // One difference for a problem both codecs share, one per side otherwise.
  const bySignature = new Map();
  for (const f of failures) {
    const seen = bySignature.get(f.key);
    if (seen) seen.sides.push(f.side);
    else bySignature.set(f.key, { ...f, sides: [f.side] });
  }
  return [...bySignature.values()].map((f) => {
    const sides = f.sides.join('+');
    const own = (side) => sideSummary(decodeOf(side, side) ?? { kind: 'none' });
    return difference('roundtrip', 'deserialize', `${sides} reading ${f.sides.length > 1 ? 'their' : 'its'} own frame`,
      own('a'), own('b'), `${sides}:${f.key}`, f.detail);
  });
}

function valueFailure(side, read, inputTree) {
  let d;
  try {
    d = treeDiff(inputTree, read.tree, lossy);
  } catch (err) {
    // Trees nested deeper than the harness's own stack are checked for readability only.
    if (err instanceof RangeError) return [];
    throw err;
  }
  if (!d) return [];
  // What differs, as the format keeps it.
  const written = printed(() => lossless(d.a, d.b));
  return [{ side, read, key: `${d.node ?? 'node'}.${d.field}`,
    detail: `${side} read back another value: ${d.path}: ${written} written, ${printed(() => dropLossy(d.b))} read` }];
}

// A frame both codecs write and cannot read back alike is a defect they share:
// reported with its repro, but no difference between them, so it never
// decides an exit code or a gate's verdict.
const isSharedDefect = (signature) => /^roundtrip\/[^/]+\/a\+b:/.test(signature);

module.exports = { roundtripDifferences, lossless, lossy, isSharedDefect };
