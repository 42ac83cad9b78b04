'use strict';
// The words recipes are drawn from where a codec branches on names: keys and
// the values of tampering steps. One list each, shared by the byte grammar
// (bytes.js), the fast-check arbitraries (arbitraries/recipes.js) and the
// coverage view (coverage.js), so all three speak of the same classes.

// Integer-like keys at every boundary V8 draws: Smi indices, heap-number
// indices (2^31 to 2^32-2), 2^32-1 and above (named), and look-alikes. The
// coverage view counts each of these classes.
const integerKeyClasses = ['0', '1', '2147483647', '2147483648', '4294967294', '4294967295', '9007199254740992',
  '-0', '01', '1e3'];
const integerKeys = [...integerKeyClasses, '-1'];
// Whether a key is an array index, which V8 keeps as an element, not a named
// property: a canonical integer from 0 to 2^32-2.
const kMaxIndex = 2 ** 32 - 2;
const isIndex = (key) =>
  typeof key === 'string' && /^(0|[1-9]\d{0,9})$/.test(key) && Number(key) <= kMaxIndex;
// Own keys of a host object (a MessagePort), whose copy runs getters.
const portKeys = ['visible', 'x', 'data', ...integerKeys];
// What a `constructor` step sets on a view: the JS codec classified by it.
const constructorNames = ['Uint8Array', 'Buffer', 'Int8Array', 'Float64Array', 'Object', 'DataView'];
// Own properties that shadow a view's extent: the JS codec read them.
const lengthKeys = ['byteLength', 'byteOffset', 'length', 'buffer'];
// Symbol.toStringTag values given to a view: view names and one no codec knows.
const toStringTags = ['Int8Array', 'Uint8Array', 'Buffer', 'Foo', 'DataView'];
// What Buffer.prototype.constructor becomes for one codec call.
const bufferPrototypeConstructors = ['Uint8Array', 'Object'];

// The built-ins the JS codec's code paths use and the native codec's do not
// (lib/v8.js, lib/internal/child_process/serialization.js, lib/buffer.js):
// what `patch` steps replace with recorders. Writing: Buffer's allocator for
// the length prefix, the v8.Serializer methods the codec extends, the view
// accessors it reads; reading: the v8.Deserializer methods, the allocator and
// TypedArray#set of an unaligned view's copy.
const patchTargets = [
  { of: 'Buffer', static: true, key: 'allocUnsafe' },
  { of: 'v8.Serializer', key: 'writeUint32' },
  { of: 'v8.Serializer', key: 'writeRawBytes' },
  { of: 'v8.Serializer', key: 'writeValue' },
  { of: 'v8.Serializer', key: 'writeHeader' },
  { of: 'v8.Serializer', key: 'releaseBuffer' },
  { of: 'TypedArray', key: 'byteLength' },
  { of: 'TypedArray', key: 'byteOffset' },
  { of: 'TypedArray', key: 'buffer' },
  { of: 'TypedArray', key: { wellKnown: 'toStringTag' } },
  { of: 'DataView', key: 'byteLength' },
  { of: 'v8.Deserializer', key: 'readUint32' },
  { of: 'v8.Deserializer', key: 'readValue' },
  { of: 'v8.Deserializer', key: 'readHeader' },
  { of: 'v8.Deserializer', key: '_readRawBytes' },
  { of: 'Buffer', static: true, key: 'from' },
  { of: 'TypedArray', key: 'set' },
];
// Data properties a receiving process's prototypes may gain, where the JS
// codec's reader looks them up: a DataView constructor has no
// BYTES_PER_ELEMENT of its own, so `ctor.BYTES_PER_ELEMENT || 1` reads it
// from Function.prototype, then Object.prototype.
const receivingProtoKeys = [['Function', 'BYTES_PER_ELEMENT'], ['Object', 'BYTES_PER_ELEMENT']];
// Getter-only accessors a receiving process's prototypes may gain: the JS
// codec's Deserializer sets its own `buffer`, which an inherited getter with
// no setter refuses, for every frame.
const receivingProtoAccessors = [['Object', 'buffer']];
// Methods the JS codec's serializer looks up on itself, and so finds on
// Object.prototype: a hook there that returns an id makes it write a
// SharedArrayBuffer as a transfer that no receiver can read.
const sendingHooks = [['Object', '_getSharedArrayBufferId']];
const worldSides = ['send', 'receive', 'both'];

module.exports = {
  isIndex, integerKeyClasses, integerKeys, portKeys, constructorNames, lengthKeys, toStringTags,
  bufferPrototypeConstructors, patchTargets, receivingProtoKeys, receivingProtoAccessors, sendingHooks, worldSides,
};
