'use strict';
// What this binary offers: versions, and which codecs and framer it has.
const { internalBinding } = require('./binding');

function has(fn) {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

function probe() {
  let serdes;
  const ipcSerdes = has(() => { serdes = internalBinding('ipc_serdes'); });
  return {
    node: process.version,
    v8: process.versions.v8,
    ipcSerdes,
    ipcSerdesExports: ipcSerdes ? Object.keys(serdes) : [],
    framer: ipcSerdes && typeof serdes.IPCChannelFramer === 'function',
    builtin: has(() => require('internal/child_process/serialization').advanced),
    builtinUsesNative: ipcSerdes && /internalBinding\('ipc_serdes'\)/.test(
      internalBinding('builtins').natives['internal/child_process/serialization'] ?? ''),
    float16Array: typeof globalThis.Float16Array === 'function',
  };
}

module.exports = { probe };
