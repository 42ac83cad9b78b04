'use strict';
// The defaults the rooms and the commands share, each written once: what a
// user can change has its flag (cli/index.js), whose default is this.

// A codec call, or a script's send or read, taking longer is a hang.
const kCallTimeoutMs = 10_000;
// The time one reduction of a difference may take (findings/recorder.js):
// in a Jazzer.js target each candidate of a crash costs a worker, and
// libFuzzer ends a target whose input runs longer than its -timeout.
const kReduceMs = 5000;
// What the engines of a run get past their budget before they are killed with their processes.
const kGraceSeconds = 3;

module.exports = { kCallTimeoutMs, kReduceMs, kGraceSeconds };
