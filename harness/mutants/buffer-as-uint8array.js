'use strict';
// Hands a decoded Buffer to the user as a plain Uint8Array.
const native = require('../codecs/native');
const { createReferenceFramer } = require('../codecs/framing');

function deserialize(payload) {
  const value = native.deserialize(payload);
  return Buffer.isBuffer(value) ? new Uint8Array(value.buffer, value.byteOffset, value.length) : value;
}

module.exports = {
  ...native,
  name: 'buffer-as-uint8array',
  base: 'native',
  bug: 'decodes Buffers as plain Uint8Arrays',
  expect: ['classification'],
  deserialize,
  createFramer: () => createReferenceFramer(deserialize),
};
