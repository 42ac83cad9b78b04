'use strict';
// Resolves a codec name or adapter file and checks it keeps the adapter
// contract (docs/adapters.md). Loaded once per process.
const path = require('node:path');
const { createReferenceFramer } = require('./framing');
const { kAdapter } = require('./capabilities');
const { UsageError } = require('../base/errors');

const builtins = {
  js: './js',
  native: './native',
  builtin: './builtin',
};

const loaded = new Map();

function loadCodec(spec) {
  if (!loaded.has(spec)) loaded.set(spec, checkContract(spec, require(modulePath(spec))));
  return loaded.get(spec);
}

function modulePath(spec) {
  if (isNamedCodec(spec)) return builtins[spec];
  if (!path.isAbsolute(spec)) throw new UsageError(`codec ${JSON.stringify(spec)} is not absolute`);
  return spec;
}

// What a codec can do (capabilities.js): a named codec's own word; an adapter file's, the defaults.
function capabilitiesOf(spec) {
  return isNamedCodec(spec) ? require(builtins[spec]).capabilities : kAdapter;
}

const isNamedCodec = (spec) => Object.hasOwn(builtins, spec);

function checkContract(spec, codec) {
  for (const fn of ['serialize', 'deserialize']) {
    if (typeof codec?.[fn] !== 'function') {
      throw new UsageError(`codec ${spec} does not export a ${fn}() function`);
    }
  }
  if (codec.createFramer !== undefined && typeof codec.createFramer !== 'function') {
    throw new UsageError(`codec ${spec}: createFramer must be a function when present`);
  }
  return {
    name: typeof codec.name === 'string' ? codec.name : path.basename(spec, '.js'),
    capabilities: capabilitiesOf(spec),
    serialize: codec.serialize,
    deserialize: codec.deserialize,
    createFramer: codec.createFramer ?? (() => createReferenceFramer(codec.deserialize)),
  };
}

module.exports = { loadCodec, capabilitiesOf, isNamedCodec, codecNames: Object.keys(builtins) };
