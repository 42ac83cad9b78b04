'use strict';
// Reads a frame (or a stream of frames) the way the V8 deserializer and the IPC
// host-object rules would, and returns what each byte range means and where
// and why reading stops. This is a description for people, not an oracle.
// The Jazzer.js value target instruments this module, so that libFuzzer
// follows the tags of the frames written (coverage.js annotates them).
// Jazzer.js hooks every compare with a literal, and every case of a switch,
// with a call into libFuzzer, and it hooked them on every byte, which made
// annotating a frame far costlier there. So the reading compares bytes with
// named ones and picks what follows a tag from a table, one function per
// kind of value, whose calls libFuzzer tells apart as well as the cases.

const {
  tags, errorSubtags, viewSubtags, latestVersion, oldestVersion, readersOf, viewTypes, bytesPerElement,
} = require('./tags');

// Deeper than a frame that a codec writes within its stack; past the stack, reading stops (see annotateFrame).
const kMaxDepth = 3000;
const kUint32Bits = 32;
// A table of bytes by name, from one of names by byte.
const byName = (table) => Object.fromEntries(Object.entries(table).map(([byte, name]) => [name, Number(byte)]));
const byteOf = byName(tags);
const kVersionTag = byteOf.version;
const kPaddingTag = byteOf.padding;
const kViewTag = byteOf['array-buffer-view'];
const kViewHostTag = 0;
const kCopiedHostTag = 1;
const byteOfErrorSubtag = byName(errorSubtags);
const kErrorEnd = byteOfErrorSubtag.end;
// The sub-tags an error's value follows.
const kErrorValues = new Set(['message', 'stack', 'cause'].map((name) => byteOfErrorSubtag[name]));

class Stop extends Error {
  constructor(reason, offset) {
    super(reason);
    this.offset = offset;
  }
}

class Reader {
  // Without `describe`, only the values are kept: no segments, no labels;
  // with describe 'fields', segments name their fields, and the labels of
  // most (the values read) are left out.
  constructor(bytes, start, end, describe = true) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
    this.until = Infinity;  // reading stops once a field past this offset is marked
    this.keepFrom = -Infinity;  // segments ending before this offset are not kept
    this.segments = describe ? [] : null;
    this.labels = describe === true;
    this.values = [];  // extent of every complete value: { start, end, tag }
    this.objects = null;  // the keys of each object read, where objectKeys() asks for them
  }

  mark(start, label, field) {
    if (this.pos >= this.keepFrom) this.segments?.push({ start, end: this.pos, label, field: field ?? label });
    if (this.pos > this.until) throw new Stop(`read up to offset ${this.until}`, this.pos);
  }

  byte() {
    if (this.pos >= this.end) throw new Stop('truncated-payload: expected a byte', this.pos);
    return this.bytes[this.pos++];
  }

  // As V8 reads a uint32 varint: every continuation byte is consumed, and
  // bits past the 32nd are dropped rather than rejected.
  varint() {
    let value = 0;
    let shift = 0;
    let b;
    do {
      b = this.byte();
      if (shift < kUint32Bits) value += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return value % 2 ** 32;
  }

  raw(length) {
    if (this.end - this.pos < length) {
      throw new Stop(`truncated-payload: ${length} bytes announced, ${this.end - this.pos} left`, this.pos);
    }
    const start = this.pos;
    this.pos += length;
    return this.bytes.subarray(start, this.pos);
  }

  field(label, read, field) {
    const start = this.pos;
    const value = read();
    if (!this.segments) return value;
    this.mark(start, !this.labels ? null : typeof label === 'function' ? label(value) : `${label} ${value}`, field);
    return value;
  }
}

function zigzag(n) {
  return n % 2 ? -(n + 1) / 2 : n / 2;
}

// V8 reads versions 13 to its latest; a frame without a header is rejected.
function readHeader(r) {
  const start = r.pos;
  if (r.pos >= r.end || r.bytes[r.pos] !== 0xff) throw new Stop('bad-header: no version header', start);
  r.pos++;
  const version = r.varint();
  r.mark(start, `header: version ${version}`, 'header');
  if (version > latestVersion || version < oldestVersion) {
    const readers = readersOf(version);
    throw new Stop(`bad-header: version ${version} is outside ${oldestVersion}..${latestVersion} (${readers})`, start);
  }
}

const textOf = (tag, bytes) => (tag === 0x63 ? Buffer.from(bytes).toString('utf16le') :
  Buffer.from(bytes).toString(tag === 0x53 ? 'utf8' : 'latin1'));

function readString(r, tag, field) {
  const length = r.field('byteLength', () => r.varint(), `${field}.length`);
  const bytes = r.field(() => `${field}`, () => r.raw(length), `${field}.bytes`);
  if (r.objects) return textOf(tag, bytes);
  if (!r.labels) return;
  const seg = r.segments.at(-1);
  const text = textOf(tag, bytes);
  seg.label = `${field}: ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`;
}

function readHostObject(r, depth) {
  const tagStart = r.pos;
  const tag = r.field((t) => `IPC host tag ${t} (${t === 0 ? 'ArrayBufferView' : t === 1 ? 'copied object' : 'invalid'})`,
    () => r.varint(), 'host.tag');
  if (tag === kCopiedHostTag) return readValue(r, depth + 1);
  if (tag !== kViewHostTag) throw new Stop(`bad-host-tag: ${tag}`, tagStart);
  const indexStart = r.pos;
  const index = r.field((i) => `view type index ${i} (${viewTypes[i] ?? 'invalid'})`, () => r.varint(), 'host.index');
  const byteLength = r.field('view byteLength', () => r.varint(), 'host.byteLength');
  r.field(() => 'view bytes', () => r.raw(byteLength), 'host.bytes');
  if (viewTypes[index] === undefined) throw new Stop(`bad-view-index: ${index}`, indexStart);
  const width = bytesPerElement[viewTypes[index]] ?? 1;
  if (byteLength % width && r.labels) r.segments.at(-1).label += ` (not a multiple of ${width})`;
}

// `keys`, when given, gets each key read, as a string.
function readProperties(r, depth, endTag, keys) {
  for (;;) {
    const tag = peekTag(r);
    if (tag === endTag) {
      r.pos++;
      return;
    }
    const key = readValue(r, depth + 1);
    keys?.push(String(key));
    readValue(r, depth + 1);  // value
  }
}

function peekTag(r) {
  while (r.pos < r.end && r.bytes[r.pos] === kPaddingTag) {
    r.pos++;
    r.mark(r.pos - 1, 'padding');
  }
  if (r.pos >= r.end) throw new Stop('truncated-payload: expected a tag', r.pos);
  return r.bytes[r.pos];
}

function readValue(r, depth) {
  if (depth > kMaxDepth) throw new Stop('depth', r.pos);
  const tag = peekTag(r);
  const start = r.pos;
  const value = readTagged(r, depth, tag);
  r.values.push({ start, end: r.pos, tag: tags[tag] });
  return value;
}

// What follows a tag, by the tag's name, read by fn(r, field, depth, tag);
// field(key, label, read) reads one operand. A tag not listed carries none
// (oddballs, boxed booleans).
const same = (names, fn) => Object.fromEntries(names.map((name) => [name, fn]));
const operands = Object.assign(Object.create(null), {
  'int32': (r, field) => field('value', (v) => `int32 ${v}`, () => zigzag(r.varint())),
  'uint32': (r, field) => field('value', null, () => r.varint()),
  // Template text would write -0 as 0.
  ...same(['double', 'date', 'number-object'], (r, field) => field('value',
    (v) => `double ${Object.is(v, -0) ? '-0' : v}`, () => Buffer.from(r.raw(8)).readDoubleLE(0))),
  ...same(['bigint', 'bigint-object'], (r, field) => {
    const bits = field('bitfield', null, () => r.varint());
    return field('digits', () => `${bits & 1 ? 'negative ' : ''}digits`, () => r.raw(Math.floor(bits / 2)));
  }),
  ...same(['utf8-string', 'one-byte-string', 'two-byte-string'],
    (r, field, depth, tag) => readString(r, tag, tags[tag])),
  'object-reference': (r, field) => field('id', null, () => r.varint()),
  'begin-object': (r, field, depth) => {
    readProperties(r, depth, byteOf['end-object'], r.objects?.[r.objects.push([]) - 1]);
    r.mark(r.pos - 1, 'end-object', 'tag.end-object');
    return field('properties', null, () => r.varint());
  },
  'begin-dense-array': (r, field, depth) => {
    const length = field('length', null, () => r.varint());
    for (let i = 0; i < length; i++) readValue(r, depth + 1);
    readProperties(r, depth, byteOf['end-dense-array']);
    r.mark(r.pos - 1, 'end-dense-array', 'tag.end-dense-array');
    field('properties', null, () => r.varint());
    return field('length', null, () => r.varint());
  },
  'begin-sparse-array': (r, field, depth) => {
    field('length', null, () => r.varint());
    readProperties(r, depth, byteOf['end-sparse-array']);
    r.mark(r.pos - 1, 'end-sparse-array', 'tag.end-sparse-array');
    field('properties', null, () => r.varint());
    return field('length', null, () => r.varint());
  },
  'begin-map': (r, field, depth) => readCollection(r, field, depth, 'end-map'),
  'begin-set': (r, field, depth) => readCollection(r, field, depth, 'end-set'),
  'string-object': (r, field, depth) => readValue(r, depth + 1),
  'regexp': (r, field, depth) => {
    readValue(r, depth + 1);
    return field('flags', null, () => r.varint());
  },
  ...same(['array-buffer', 'immutable-array-buffer'], (r, field) => readArrayBuffer(r, field, false)),
  'resizable-array-buffer': (r, field) => readArrayBuffer(r, field, true),
  ...same(['array-buffer-transfer', 'shared-array-buffer', 'shared-object', 'wasm-module-transfer',
    'wasm-memory-transfer', 'verify-object-count'], (r, field) => field('id', null, () => r.varint())),
  'error': (r, field, depth) => readError(r, depth),
  'host-object': (r, field, depth) => readHostObject(r, depth),
});

function readTagged(r, depth, tag) {
  const start = r.pos++;
  const name = tags[tag];
  if (!name || tag === kVersionTag) {
    r.pos = start;
    throw new Stop(`bad-tag: 0x${tag.toString(16).padStart(2, '0')}`, start);
  }
  r.mark(start, name, `tag.${name}`);
  const field = (key, label, read) => r.field(label ?? key, read, `${name}.${key}`);
  return operands[name]?.(r, field, depth, tag);
}

// A map's or set's values up to its end tag, then its length.
function readCollection(r, field, depth, endName) {
  const end = byteOf[endName];
  while (peekTag(r) !== end) readValue(r, depth + 1);
  r.pos++;
  r.mark(r.pos - 1, endName, `tag.${endName}`);
  return field('length', null, () => r.varint());
}

function readArrayBuffer(r, field, resizable) {
  const length = field('byteLength', null, () => r.varint());
  if (resizable) field('maxByteLength', null, () => r.varint());
  field('bytes', null, () => r.raw(length));
  if (r.pos < r.end && r.bytes[r.pos] === kViewTag) readView(r);
}

function readView(r) {
  const start = r.pos++;
  r.mark(start, 'array-buffer-view', 'tag.array-buffer-view');
  r.field((t) => `view subtag ${viewSubtags[t] ?? 'invalid'}`, () => r.byte(), 'view.subtag');
  r.field('byteOffset', () => r.varint(), 'view.byteOffset');
  r.field('byteLength', () => r.varint(), 'view.byteLength');
  r.field('flags', () => r.varint(), 'view.flags');
}

function readError(r, depth) {
  for (;;) {
    const sub = r.field((s) => `error ${errorSubtags[s] ?? 'bad sub-tag'}`, () => r.byte(), 'error.subtag');
    if (!errorSubtags[sub]) throw new Stop(`bad-tag: error sub-tag 0x${sub.toString(16)}`, r.pos - 1);
    if (sub === kErrorEnd) return;
    if (kErrorValues.has(sub)) readValue(r, depth + 1);
  }
}

// Annotates one frame at `start`: returns { segments, values, end, stop? };
// with describe: false, segments is null (what counting values needs, cheaper);
// with describe: 'fields', segments name their fields, most without labels;
// with `until`, the segments end with the first that goes past that offset;
// with `keepFrom`, those that end before it are left out.
function annotateFrame(bytes, start = 0, { describe = true, until, keepFrom = -Infinity } = {}) {
  const r = new Reader(bytes, start, bytes.length, describe);
  if (bytes.length - start < 4) {
    r.pos = bytes.length;
    r.mark(start, `partial length prefix (${bytes.length - start} of 4 bytes)`, 'prefix');
    return { segments: r.segments, values: [], end: r.pos, stop: { offset: start, reason: 'truncated-length' } };
  }
  const length = bytes.readUInt32BE(start);
  r.pos += 4;
  r.mark(start, `length prefix ${length} (frame of ${length + 4} bytes)`, 'prefix');
  const end = start + 4 + length;
  r.end = Math.min(end, bytes.length);
  try {
    r.until = until ?? Infinity;
    r.keepFrom = keepFrom;
    readHeader(r);
    readValue(r, 0);
    if (r.pos < r.end) {
      const at = r.pos;
      r.pos = r.end;
      r.mark(at, `trailing: ${r.end - at} bytes after the value (V8 ignores them)`, 'trailing');
    }
    if (end > bytes.length) throw new Stop(`truncated-payload: ${end - bytes.length} bytes missing`, bytes.length);
  } catch (thrown) {
    // A frame nested deeper than this process's stack is read as far as the stack went.
    const err = thrown instanceof RangeError ? new Stop('depth', r.pos) : thrown;
    if (!(err instanceof Stop)) throw err;
    r.until = Infinity;
    r.keepFrom = -Infinity;
    if (r.pos < r.end) {
      const at = r.pos;
      r.pos = r.end;
      r.mark(at, 'not read', 'unread');
    }
    return { segments: r.segments, values: r.values, end: Math.min(end, bytes.length),
      stop: { offset: err.offset, reason: err.message } };
  }
  return { segments: r.segments, values: r.values, end };
}

// The keys of each object a frame holds, in the order the objects begin,
// each a list of strings, as far as the frame can be read: which keys one
// frame holds and another does not, where no codec reads either back.
function objectKeys(bytes) {
  const r = new Reader(bytes, 4, Math.min(bytes.length, 4 + bytes.readUInt32BE(0)), false);
  r.objects = [];
  try {
    readHeader(r);
    readValue(r, 0);
  } catch (err) {
    if (!(err instanceof Stop) && !(err instanceof RangeError)) throw err;
  }
  return r.objects;
}

// Which format a channel's bytes are in: { format: 'v8', version } when the
// first frame has a length prefix and a V8 version header, { format: 'json' }
// for JSON lines, else { format: 'unknown', why } (Bun writes a format of its
// own). version is null for a frame of V8's layout whose header is broken.
function wireFormat(bytes) {
  if (bytes.length >= 6 && bytes[4] === 0xff) {
    const r = new Reader(bytes, 5, bytes.length);
    try {
      return { format: 'v8', version: r.varint() };
    } catch {
      return { format: 'unknown', why: 'the version header is cut short' };
    }
  }
  const text = bytes.toString('utf8');
  if (text.endsWith('\n') && text.split('\n').slice(0, -1).every((line) => {
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  })) return { format: 'json' };
  // A frame with a consistent length but a bad header is V8's format, broken.
  if (bytes.length >= 5 && bytes.readUInt32BE(0) > 0 && bytes.readUInt32BE(0) <= bytes.length - 4) {
    return { format: 'v8', version: null };
  }
  return { format: 'unknown', why: `no 0xff version header after a 4-byte length prefix (starts ${
    [...bytes.subarray(0, 12)].map((b) => b.toString(16).padStart(2, '0')).join(' ')})` };
}

// Annotates consecutive frames until the bytes run out.
function annotateStream(bytes) {
  const frames = [];
  for (let at = 0; at < bytes.length || frames.length === 0;) {
    const frame = annotateFrame(bytes, at);
    frames.push(frame);
    if (frame.end <= at) break;
    at = frame.end;
  }
  return frames;
}

// The fields around a byte offset, for signatures of byte differences: the
// one covering it (`at`) and one ending right before it (`before`). Fields
// are marked in the order of their bytes: none after the one covering the
// offset is read (a large frame may differ near its start), and only the
// fields that end near it are kept.
function fieldsAround(bytes, offset) {
  const { segments } = annotateFrame(bytes, 0, { describe: 'fields', until: offset, keepFrom: offset - kPaddingReach });
  const at = segments.find((s) => offset >= s.start && offset < s.end)?.field ?? 'beyond-value';
  // Looking back through padding, the filler V8 writes before a two-byte
  // string: a view that wrote more bytes than the other reads as padding.
  const ending = segments.filter((s) => s.end <= offset).sort((x, y) => x.end - y.end || x.start - y.start);
  let edge = offset;
  let before;
  for (let i = ending.length - 1; i >= 0 && ending[i].end >= edge - 1; i--) {
    if (ending[i].field !== 'padding') {
      before = ending[i].field;
      break;
    }
    edge = Math.min(edge, ending[i].start);
  }
  return { at, before };
}

// How far back fieldsAround keeps fields, to look through padding.
const kPaddingReach = 8;

const fieldAt = (bytes, offset) => fieldsAround(bytes, offset).at;

module.exports = { annotateFrame, annotateStream, wireFormat, fieldAt, fieldsAround, objectKeys };
