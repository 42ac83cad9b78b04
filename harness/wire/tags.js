'use strict';
// The V8 serialization tags and the IPC host-object layout, as named bytes.
// Shared by the annotated hex dump, the frame arbitraries and the dictionaries.

const tags = {
  0xff: 'version',
  0x00: 'padding',
  0x3f: 'verify-object-count',
  0x2d: 'the-hole',
  0x5f: 'undefined',
  0x30: 'null',
  0x54: 'true',
  0x46: 'false',
  0x49: 'int32',
  0x55: 'uint32',
  0x4e: 'double',
  0x5a: 'bigint',
  0x53: 'utf8-string',
  0x22: 'one-byte-string',
  0x63: 'two-byte-string',
  0x5e: 'object-reference',
  0x6f: 'begin-object',
  0x7b: 'end-object',
  0x61: 'begin-sparse-array',
  0x40: 'end-sparse-array',
  0x41: 'begin-dense-array',
  0x24: 'end-dense-array',
  0x44: 'date',
  0x79: 'true-object',
  0x78: 'false-object',
  0x6e: 'number-object',
  0x7a: 'bigint-object',
  0x73: 'string-object',
  0x52: 'regexp',
  0x3b: 'begin-map',
  0x3a: 'end-map',
  0x27: 'begin-set',
  0x2c: 'end-set',
  0x42: 'array-buffer',
  0x43: 'immutable-array-buffer',
  0x7e: 'resizable-array-buffer',
  0x74: 'array-buffer-transfer',
  0x56: 'array-buffer-view',
  0x75: 'shared-array-buffer',
  0x70: 'shared-object',
  0x77: 'wasm-module-transfer',
  0x6d: 'wasm-memory-transfer',
  0x5c: 'host-object',
  0x72: 'error',
};

const errorSubtags = {
  0x45: 'EvalError prototype', 0x52: 'RangeError prototype', 0x46: 'ReferenceError prototype',
  0x53: 'SyntaxError prototype', 0x54: 'TypeError prototype', 0x55: 'URIError prototype',
  0x6d: 'message', 0x63: 'cause', 0x73: 'stack', 0x2e: 'end',
};

// Sub-tags of V8's own 'V' view encoding (not used by the IPC codec, but accepted).
const viewSubtags = {
  0x62: 'Int8Array', 0x42: 'Uint8Array', 0x43: 'Uint8ClampedArray', 0x77: 'Int16Array',
  0x57: 'Uint16Array', 0x64: 'Int32Array', 0x44: 'Uint32Array', 0x68: 'Float16Array',
  0x66: 'Float32Array', 0x46: 'Float64Array', 0x71: 'BigInt64Array', 0x51: 'BigUint64Array',
  0x3f: 'DataView',
};

const latestVersion = 15;
const oldestVersion = 13;

// The highest header version each known reader accepts, as the conformance
// wire check measures it (test/conformance/runtimes.test.js keeps the pinned ones true);
// null for a runtime that does not read V8's format at all.
const knownReaders = [
  { name: 'node 24.22.3', highest: 15 },
  { name: 'node 26.10.0', highest: 15 },
  { name: 'node 26.12.1', highest: 15 },
  { name: 'node 26.3.1', highest: 15 },
  { name: 'deno 2.9.6', highest: 16 },
  { name: 'bun 1.4.5', highest: null },
];

// "read by …; not by …" for a header version.
function readersOf(version) {
  const by = knownReaders.filter((r) => r.highest !== null && version >= oldestVersion && version <= r.highest);
  const not = knownReaders.filter((r) => !by.includes(r));
  const names = (list) => list.map((r) => r.name).join(', ');
  return [by.length && `read by ${names(by)}`, not.length && `not by ${names(not)}`].filter(Boolean).join('; ');
}
// Every ArrayBufferView the IPC codec knows, in the order of its type indices
// (codecs/js.js keeps its own frozen copy, as lib/v8.js has it).
const viewTypes = [
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
  'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'DataView',
  'Buffer', 'BigInt64Array', 'BigUint64Array', 'Float16Array',
];
const bytesPerElement = {
  Int16Array: 2, Uint16Array: 2, Float16Array: 2, Int32Array: 4, Uint32Array: 4,
  Float32Array: 4, Float64Array: 8, BigInt64Array: 8, BigUint64Array: 8,
};

module.exports = {
  tags, errorSubtags, viewSubtags, latestVersion, oldestVersion, knownReaders, readersOf, viewTypes, bytesPerElement,
};
