'use strict';
// What goes through a real child_process channel, for the conformance fork
// cases and the reachability check of findings (reach/): outcomes shaped for
// storage and comparison, and raw bytes written into a channel. Long strings
// (the bytes of a MiB-sized view) become digests, so expectations stay small
// and comparisons still see every byte. Trees of messages that came through a
// real channel lose what depends on where the read landed in memory.

const crypto = require('node:crypto');
const fs = require('node:fs');
const { canonicalize } = require('./canonical');
const { Outcome } = require('../base/vocabulary');

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
// every own key of a view, indices included, which is slow for MiBs;
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

// Sent after raw bytes: whether it still arrives says if the channel reads on.
const SENTINEL = 'ipcfuzz:next';

// The writes of raw bytes ({ bytes, chunks? }): the reads the input asks for,
// the rest as a last one, empty ones left out (a write of nothing reaches no one).
function pieces(input) {
  const data = Buffer.from(input.bytes, 'hex');
  const out = [];
  let at = 0;
  for (const size of input.chunks ?? []) {
    if (at >= data.length) break;
    out.push(data.subarray(at, at + size));
    at += size;
  }
  if (at < data.length) out.push(data.subarray(at));
  return out.filter((p) => p.length).map((p) => p.toString('hex'));
}

// A receiver's record of raw bytes and the sentinel after them, from the
// reference framer's reads of the same writes or from a real process.
function channelRecord(messages, errors) {
  const last = messages.at(-1);
  const next = last?.t === 'string' && last.v === SENTINEL;
  return { kind: Outcome.ok, messages: next ? messages.slice(0, -1) : messages, errors, next };
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

module.exports = { digest, forChannel, channelTree, SENTINEL, pieces, channelRecord, writeAll };
