'use strict';
// The binary's native codec, internalBinding('ipc_serdes'), called the way that
// binary's own lib/internal/child_process/serialization.js calls it.
const { internalBinding, builtinSource } = require('./binding');
const { createReferenceFramer } = require('./framing');

const binding = internalBinding('ipc_serdes');
// 26.10 passes the Buffer constructor so the binding can classify Buffers;
// earlier glue called serialize(message) alone.
const passesBuffer = /\bserialize\(\s*message\s*,\s*Buffer\s*\)/.test(
  builtinSource('internal/child_process/serialization'));

function serialize(value) {
  return passesBuffer ? binding.serialize(value, Buffer) : binding.serialize(value);
}

function deserialize(payload) {
  return binding.deserialize(payload);
}

function createFramer() {
  if (typeof binding.IPCChannelFramer !== 'function') return createReferenceFramer(deserialize);
  const framer = new binding.IPCChannelFramer();
  return { push: (chunk) => framer.read(chunk), buffering: () => framer.buffering() };
}

module.exports = { name: 'native', serialize, deserialize, createFramer };
