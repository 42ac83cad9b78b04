'use strict';
// Hands a decoded Buffer to the user as a plain Uint8Array.
const { catalogEntry } = require('./catalog');
const native = require('../codecs/native');
const { createReferenceFramer } = require('../codecs/framing');

function deserialize(payload) {
  const value = native.deserialize(payload);
  return Buffer.isBuffer(value) ? new Uint8Array(value.buffer, value.byteOffset, value.length) : value;
}

module.exports = {
  ...native,
  ...catalogEntry(__filename),
  deserialize,
  createFramer: () => createReferenceFramer(deserialize),
};
