'use strict';
// Planted-bug target for checking that Jazzer.js works on this machine.
// Jazzer.js reports string comparisons to libFuzzer (CMP tracing), which then
// tries the compared-against string as input, so the crash is found after a
// few hundred executions.

module.exports.fuzz = function (data) {
  if (data.toString('latin1', 0, 4) === 'IPC!') {
    throw new Error('planted bug: input starts with IPC!');
  }
};
