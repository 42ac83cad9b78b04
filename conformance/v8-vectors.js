'use strict';
// V8's own serializer tests as conformance vectors: the byte vectors that
// scripts/extract-v8-vectors.js took from V8's value-serializer-unittest.cc
// (conformance/sources/v8-value-serializer.json), each as an IPC frame, with
// the verdict V8's test asserts as the IPC layer of Node sees it:
// - a frame is the 4-byte big-endian length and the bytes as V8's test decodes them;
// - V8's test decodes with the legacy wire format enabled, Node does not: a
//   header version below 13 (or none) is rejected before any value is read;
// - a vector the test decodes at every version from its own up (the
//   DecodeTestFutureVersions and DecodeTestUpToVersion helpers) is also taken
//   at the first and the last of those versions that Node reads (13 to 15;
//   of the versions between, only views are read apart: 14 added their flags);
// - host objects are read by the IPC host-object layer, which takes a uint32
//   tag, 0 (a view with Node's type index) or 1 (a copy), where V8's test
//   delegate writes a tag byte of its own;
// - an encoding test (what V8 writes for a value) is a recipe vector, whose
//   frame must hold what V8's test asserts after the header.
// Vectors are named after their test: <test>-<n>[-v<version>], the n-th byte
// vector of the test, at another header version when the suffix says so.

const path = require('node:path');
const { Outcome } = require('../harness/base/vocabulary');

const sourceFile = path.join(__dirname, 'sources', 'v8-value-serializer.json');
const group = 'v8';
// The header versions Node's ValueDeserializer reads (it writes the last).
const nodeReads = [13, 15];
const hostObjectFixtures = new Set(['ValueSerializerTestWithHostObject', 'ValueSerializerTestWithHostArrayBufferView']);

// The values of V8's encoding tests, as recipes (docs/recipes.md).
const encodingRecipes = {
  EncodeTwoByteStringUsesPadding: { k: 'string', v: `${' '.repeat(200)}\u{1F44A}` },
};

function loadSource() {
  return require(sourceFile);
}

const firstBytes = (record) => Buffer.from(record.bytes ?? record.parts[0], 'hex');

// The header version of a V8 vector (0: no header, the legacy format).
function headerVersion(bytes) {
  return bytes[0] === 0xff ? (bytes.length > 1 ? bytes[1] : null) : 0;
}

function withVersion(record, version) {
  const parts = record.bytes ? [record.bytes] : record.parts.slice();
  parts[0] = `${parts[0].slice(0, 2)}${version.toString(16).padStart(2, '0')}${parts[0].slice(4)}`;
  return parts;
}

// Node's verdict on a record's bytes at `version`, and why.
function judge(record, version) {
  if (record.v8 === 'rejects') return { verdict: Outcome.reject, why: 'V8 must fail to decode it' };
  if (version === null) return { verdict: Outcome.reject, why: 'a version tag with no version' };
  if (version < nodeReads[0]) {
    return {
      verdict: Outcome.reject,
      why: 'V8 decodes it with the legacy wire format enabled; Node does not enable it and reads ' +
        `header versions ${nodeReads[0]} to ${nodeReads[1]} only, so version ${version || 'none (no header)'} is refused`,
    };
  }
  if (hostObjectFixtures.has(record.fixture)) {
    const bytes = firstBytes(record);
    const tag = bytes[bytes.indexOf(0x5c) + 1];
    if (tag > 1) {
      return {
        verdict: Outcome.reject,
        why: 'V8 decodes it through its test\'s host-object delegate; the IPC host-object layer reads ' +
          `a uint32 tag, 0 (a view) or 1 (a copy), and this one is ${tag}`,
      };
    }
  }
  return { verdict: 'accept', why: `V8 decodes it at version ${version}` };
}

// Every V8 vector as Node's conformance vectors: { name, verdict, kind,
// parts (hex parts of the frame's payload) | recipe, test, line, url, why }.
function v8Vectors(source = loadSource()) {
  const url = (line) => `${source.source.url}#L${line}`;
  const out = [];
  for (const record of source.vectors) {
    const own = headerVersion(firstBytes(record));
    const versions = [own];
    if (record.versions) {
      const [from, upTo] = record.versions;
      const to = upTo === 'current' ? source.source.currentVersion : upTo;
      // The first and the last version Node reads that the test decodes it at.
      const [low, high] = [Math.max(from, nodeReads[0]), Math.min(to, nodeReads[1])];
      for (const v of low <= high ? [low, high] : []) if (!versions.includes(v)) versions.push(v);
    }
    for (const version of versions) {
      const parts = version === own ? (record.bytes ? [record.bytes] : record.parts) : withVersion(record, version);
      out.push({
        name: version === own ? record.id : `${record.id}-v${version}`,
        kind: 'frame', parts, test: record.test, line: record.line, url: url(record.line),
        ...judge(record, version),
      });
    }
  }
  for (const encoding of source.encodings) {
    const recipe = encodingRecipes[encoding.test];
    if (!recipe) throw new Error(`no recipe for V8's encoding test ${encoding.test} (conformance/v8-vectors.js)`);
    out.push({
      name: encoding.test, kind: 'recipe', recipe, test: encoding.test, line: encoding.line, url: url(encoding.line),
      afterHeader: encoding.afterHeader, verdict: 'accept',
      why: `V8 must write ${encoding.afterHeader} after the header for this value`,
    });
  }
  return out;
}

// The V8 vector a conformance vector id names, or null.
let byId = null;
function v8VectorOf(id) {
  byId ??= new Map(v8Vectors().map((v) => [`${v.verdict}/${group}/${v.name}`, v]));
  return byId.get(id) ?? null;
}

module.exports = { v8Vectors, v8VectorOf, loadSource, group, nodeReads, sourceFile };
