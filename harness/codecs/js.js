'use strict';
// Reference implementation of the `advanced` codec as Node ran it in JavaScript
// up to 26.3 (ChildProcessSerializer / ChildProcessDeserializer over
// v8.DefaultSerializer / v8.DefaultDeserializer). It is written on the base
// v8.Serializer / v8.Deserializer classes so that it stays frozen even when the
// binary under test changes lib/v8.js. Every property the old codec read from
// user values is read here the same way, because those reads are observable.

const v8 = require('node:v8');
const { inspect, types: { isArrayBufferView } } = require('node:util');
const { createReferenceFramer } = require('./framing');
const { capabilities } = require('./capabilities');

// The binary's own assert (its ERR_INTERNAL_ASSERTION), loaded at first use:
// what the module says of itself (`capabilities`) is read where internals are not exposed.
let assertOfNode = null;
const internalAssert = (ok) => (assertOfNode ??= require('internal/assert'))(ok);

const kArrayBufferViewTag = 0;
const kNotArrayBufferViewTag = 1;
const kBufferIndex = 10;

const objectToString = Function.prototype.call.bind(Object.prototype.toString);

// Index order of arrayBufferViewTypeToIndex() in lib/v8.js; 10 is Buffer.
// A copy of harness/wire/tags.js's list kept here on purpose, so this file stays a
// faithful copy of lib/v8.js; test/harness/vocabulary.test.js holds the two equal.
const viewTypes = Object.freeze([
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
  'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'DataView',
  'Buffer', 'BigInt64Array', 'BigUint64Array', 'Float16Array',
]);

function viewTypeToIndex(view) {
  // Object.prototype.toString honours an own or inherited Symbol.toStringTag.
  const index = viewTypes.indexOf(objectToString(view).slice(8, -1));
  return index === kBufferIndex ? -1 : index;
}

function viewIndexToType(index) {
  if (index === kBufferIndex) return Buffer;
  const name = viewTypes[index];
  return name === undefined ? undefined : globalThis[name];
}

class ChildProcessSerializer extends v8.Serializer {
  constructor() {
    super();
    this._setTreatArrayBufferViewsAsHostObjects(true);
  }

  // The tag first, then the view's classification: the order of the calls
  // and reads a program can see, as in 26.3's serialization.js and lib/v8.js.
  _writeHostObject(object) {
    if (!isArrayBufferView(object)) {
      this.writeUint32(kNotArrayBufferViewTag);
      this.writeValue({ ...object });
      return;
    }
    this.writeUint32(kArrayBufferViewTag);
    let index = kBufferIndex;
    if (object.constructor !== Buffer) {
      index = viewTypeToIndex(object);
      if (index === -1) {
        throw new this._getDataCloneError(`Unserializable host object: ${inspect(object)}`);
      }
    }
    this._writeViewBody(object, index);
  }

  // A view's tag and the rest, for variants that classify a view themselves (harness/mutants).
  _writeView(view, index) {
    this.writeUint32(kArrayBufferViewTag);
    this._writeViewBody(view, index);
  }

  // The view's type index, byteLength and bytes, read from the view's
  // (overridable) properties as lib/v8.js did.
  _writeViewBody(view, index) {
    this.writeUint32(index);
    this.writeUint32(view.byteLength);
    this.writeRawBytes(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  }
}

class ChildProcessDeserializer extends v8.Deserializer {
  _readHostObject() {
    const tag = this.readUint32();
    if (tag === kArrayBufferViewTag) return this._readView();
    internalAssert(tag === kNotArrayBufferViewTag);
    return this.readValue();
  }

  _readView() {
    const ctor = viewIndexToType(this.readUint32());
    const byteLength = this.readUint32();
    const start = this._readRawBytes(byteLength);
    // A bad index leaves ctor undefined: the old codec failed here with a TypeError.
    const bytesPerElement = ctor.BYTES_PER_ELEMENT || 1;
    const offset = this.buffer.byteOffset + start;
    if (offset % bytesPerElement === 0) {
      return newView(ctor, this.buffer.buffer, offset, byteLength / bytesPerElement);
    }
    // Unaligned: copy into a (possibly pooled) Buffer first, as lib/v8.js does
    // (reading this.buffer's buffer and byteOffset again).
    const copy = Buffer.allocUnsafe(byteLength);
    copy.set(new Uint8Array(this.buffer.buffer, this.buffer.byteOffset + start, byteLength));
    return newView(ctor, copy.buffer, copy.byteOffset, byteLength / bytesPerElement);
  }
}

// lib/v8.js constructs FastBuffer directly; Buffer.from() is its public
// twin, taken as this module loads, so that one a program puts in its place
// is not called where the JS codec called nothing.
const bufferFrom = Buffer.from;

function newView(ctor, arrayBuffer, byteOffset, length) {
  return ctor === Buffer ?
    Reflect.apply(bufferFrom, Buffer, [arrayBuffer, byteOffset, length]) :
    new ctor(arrayBuffer, byteOffset, length);
}

// As serialization.js's writeChannelMessage: the prefix is set with
// TypedArray#set from the frame's length, both of which a program can replace.
function frameWith(ser, value) {
  ser.writeRawBytes(Buffer.allocUnsafe(4));
  ser.writeHeader();
  ser.writeValue(value);
  const frame = ser.releaseBuffer();
  const length = frame.length - 4;
  frame.set([length >> 24 & 0xFF, length >> 16 & 0xFF, length >> 8 & 0xFF, length & 0xFF], 0);
  return frame;
}

function readWith(des) {
  des.readHeader();
  return des.readValue();
}

const serialize = (value) => frameWith(new ChildProcessSerializer(), value);
const deserialize = (payload) => readWith(new ChildProcessDeserializer(payload));

module.exports = {
  name: 'js',
  capabilities: capabilities({
    reference: true, mayCrash: false,
    words: { full: "26.3.1's JavaScript codec", short: '26.3.1' },
  }),
  serialize,
  deserialize,
  createFramer: () => createReferenceFramer(deserialize),
  // For variants of the reference (the mutant adapters).
  ChildProcessSerializer,
  ChildProcessDeserializer,
  viewIndexToType,
  viewTypes,  // compared with harness/wire/tags.js by the tests
  serializeWith: (Serializer, value) => frameWith(new Serializer(), value),
  deserializeWith: (Deserializer, payload) => readWith(new Deserializer(payload)),
};
