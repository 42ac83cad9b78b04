'use strict';
// Shapes outcomes for storage and comparison. Long strings (the bytes of a
// MiB-sized view) become digests, so expectations stay small and comparisons
// still see every byte. Trees of messages that came through a real channel
// lose what depends on where the read landed in memory.

const crypto = require('node:crypto');
const { canonicalize } = require('../harness/canonical');

const kLongString = 2048;

function digest(value) {
  if (typeof value === 'string') {
    if (value.length <= kLongString) return value;
    const hash = crypto.createHash('sha256').update(value).digest('hex').slice(0, 32);
    return `sha256:${hash} (${value.length} chars)`;
  }
  if (Array.isArray(value)) return value.map(digest);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, digest(v)]));
  }
  return value;
}

// A view's backing and offset say where the bytes of a read were placed,
// which a process cannot choose; everything else must arrive intact.
function forChannel(tree) {
  if (Array.isArray(tree)) return tree.map(forChannel);
  if (!tree || typeof tree !== 'object') return digest(tree);
  const out = {};
  for (const [k, v] of Object.entries(tree)) {
    if (tree.t === 'view' && (k === 'backing' || k === 'byteOffset')) continue;
    out[k] = forChannel(v);
  }
  return out;
}

const kLargeView = 1 << 16;

// The tree of a message that arrived through a channel. canonicalize() lists
// every own key of a view, indices included, which takes seconds for 8 MiB;
// a view fresh from a decoder has no other own keys, so a large one is
// described from an empty view of its kind and its bytes.
function channelTree(value) {
  if (!ArrayBuffer.isView(value) || value.byteLength <= kLargeView || typeof value.subarray !== 'function') {
    return forChannel(canonicalize(value));
  }
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  return {
    ...forChannel(canonicalize(value.subarray(0, 0))),
    length: value.length, byteLength: value.byteLength, bytes: digest(bytes),
  };
}

module.exports = { digest, forChannel, channelTree };
