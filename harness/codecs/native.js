'use strict';
// The binary's native codec, internalBinding('ipc_serdes'), called the way that
// binary's own lib/internal/child_process/serialization.js calls it.
const { internalBinding, builtinSource } = require('./binding');
const { createReferenceFramer } = require('./framing');
const { capabilities } = require('./capabilities');

// The binding, and whether this binary's glue passes it the Buffer
// constructor (26.10 does, so the binding can classify Buffers; earlier glue
// called serialize(message) alone), taken at first use: what the module
// says of itself (`capabilities`) is read where internals are not exposed.
let bound = null;
function binding() {
  bound ??= { ipcSerdes: internalBinding('ipc_serdes'), passesBuffer: /\bserialize\(\s*message\s*,\s*Buffer\s*\)/.test(
    builtinSource('internal/child_process/serialization')) };
  return bound;
}

function serialize(value) {
  const { ipcSerdes, passesBuffer } = binding();
  return passesBuffer ? ipcSerdes.serialize(value, Buffer) : ipcSerdes.serialize(value);
}

function deserialize(payload) {
  return binding().ipcSerdes.deserialize(payload);
}

function createFramer() {
  const { ipcSerdes } = binding();
  if (typeof ipcSerdes.IPCChannelFramer !== 'function') return createReferenceFramer(deserialize);
  const framer = new ipcSerdes.IPCChannelFramer();
  return { push: (chunk) => framer.read(chunk), buffering: () => framer.buffering() };
}

module.exports = {
  name: 'native',
  capabilities: capabilities({
    needs: 'ipcSerdes',
    words: { full: 'the native codec', short: 'the native codec' },
    // How a short repro.js calls it: the binding itself, as the glue does.
    script: "require('internal/test/binding').internalBinding('ipc_serdes')",
  }),
  serialize, deserialize, createFramer,
};
