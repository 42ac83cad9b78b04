'use strict';
// Access to the binary's internals; the harness always starts node with
// --expose-internals, and says so in one line when that is missing.
const { EnvironmentError } = require('../base/errors');

function internals() {
  try {
    return require('internal/test/binding');
  } catch {
    throw new EnvironmentError(`node ${process.version} was not started with --expose-internals`);
  }
}

function internalBinding(name) {
  try {
    return internals().internalBinding(name);
  } catch (err) {
    if (err instanceof EnvironmentError) throw err;
    throw new EnvironmentError(`node ${process.version} has no internalBinding('${name}')`);
  }
}

function builtinSource(id) {
  return internalBinding('builtins').natives[id] ?? '';
}

module.exports = { internalBinding, builtinSource };
