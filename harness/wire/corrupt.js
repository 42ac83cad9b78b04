'use strict';
// Structured corruptions of a valid frame, described as data so that fuzzers
// and properties can generate, shrink and save them. Positions are found with
// the annotator: "the nth host-object tag", "the nth view byteLength", ...
// Unless a corruption is about the length prefix, the prefix is kept
// consistent with the corrupted payload.

const { annotateFrame } = require('./annotate');

function varint(value, { overlong = 0 } = {}) {
  const out = [];
  let v = value;
  do {
    out.push((v % 128) | (v >= 128 || overlong ? 0x80 : 0));
    v = Math.floor(v / 128);
  } while (v > 0);
  for (let i = 0; i < overlong; i++) out.push(i === overlong - 1 ? 0x00 : 0x80);
  return Buffer.from(out);
}

// Where a frame's fields and values are, read with the annotator the first
// time a corruption asks, and the segments of each field listed once: a
// frame corrupted many ways (see from-recipes.js) keeps one layout.
class Layout {
  #frame;
  #annotation = null;
  #byField = new Map();

  constructor(frame) {
    this.#frame = frame;
  }

  #read() {
    this.#annotation ??= annotateFrame(this.#frame);
    return this.#annotation;
  }

  // Every complete value, with its tag.
  values() {
    return this.#read().values;
  }

  // The segments of a field, or of every field under it for a name ending in a dot.
  segments(field) {
    if (!this.#byField.has(field)) {
      const under = field.endsWith('.');
      this.#byField.set(field,
        this.#read().segments.filter((s) => (under ? s.field.startsWith(field) : s.field === field)));
    }
    return this.#byField.get(field);
  }
}

function splice(frame, start, end, bytes) {
  return Buffer.concat([frame.subarray(0, start), bytes, frame.subarray(end)]);
}

function withPrefix(frame) {
  frame.writeUInt32BE(frame.length - 4, 0);
  return frame;
}

// Replaces the nth segment of a field (wrapping around); unchanged when none.
function replaceField(frame, layout, field, nth, bytes) {
  const found = layout.segments(field);
  if (!found.length) return frame;
  const seg = found[nth % found.length];
  return withPrefix(splice(frame, seg.start, seg.end, bytes));
}

const corruptions = {
  'host-tag': (f, c, layout) => replaceField(f, layout, 'host.tag', c.nth, varint(c.value, c)),
  'view-index': (f, c, layout) => replaceField(f, layout, 'host.index', c.nth, varint(c.value, c)),
  'view-length': (f, c, layout) => {
    const found = layout.segments('host.byteLength');
    if (!found.length) return f;
    const seg = found[c.nth % found.length];
    const current = layout.segments('host.bytes').find((s) => s.start === seg.end);
    const length = (current ? current.end - current.start : 0) + c.delta;
    return withPrefix(splice(f, seg.start, seg.end, varint(Math.max(0, length))));
  },
  // A tag 1 host object whose copied value is a primitive.
  'host-nonobject': (f, c, layout) => {
    const hosts = layout.values().filter((v) => v.tag === 'host-object');
    if (!hosts.length) return f;
    const host = hosts[c.nth % hosts.length];
    return withPrefix(splice(f, host.start, host.end, Buffer.from([0x5c, 0x01, ...c.value])));
  },
  // Padding before a value shifts everything after it: views land unaligned.
  padding: (f, c, layout) => {
    const tags = layout.segments('tag.');
    if (!tags.length) return f;
    const at = tags[c.nth % tags.length].start;
    return withPrefix(splice(f, at, at, Buffer.alloc(c.count)));
  },
  truncate: (f, c) => {
    const cut = f.subarray(0, 4 + (c.at % Math.max(1, f.length - 4)));
    return c.keepPrefix ? Buffer.from(cut) : withPrefix(Buffer.from(cut));
  },
  prefix: (f, c) => {
    const out = Buffer.from(f);
    const payload = f.length - 4;
    const value = { shorter: payload - 1, longer: payload + 1 }[c.value] ?? c.value;
    out.writeUInt32BE(Math.max(0, Math.min(0xffffffff, value)), 0);
    return out;
  },
  version: (f, c, layout) => {
    const [header] = layout.segments('header');
    if (!header) return f;
    const bytes = c.value === null ? Buffer.alloc(0) : Buffer.from([0xff, ...varint(c.value)]);
    return withPrefix(splice(f, header.start, header.end, bytes));
  },
  trailing: (f, c) => withPrefix(Buffer.concat([f, Buffer.from(c.bytes, 'hex')])),
  flip: (f, c) => {
    const out = Buffer.from(f);
    if (out.length > 4) out[4 + (c.at % (out.length - 4))] ^= c.mask || 1;
    return out;
  },
};

// A corrupted copy of a frame; `layout` is the frame's own Layout, passed by
// a caller that corrupts one frame many times.
function applyCorruption(frame, corruption, layout = new Layout(frame)) {
  const apply = corruptions[corruption.k];
  if (!apply) throw new Error(`unknown corruption ${corruption.k}`);
  return apply(Buffer.from(frame), corruption, layout);
}

module.exports = { applyCorruption, Layout };
