'use strict';
// The list a build's user code and a codec's replaced built-ins record into (`effects`).

// Entries are defined, not assigned: a world step may put a setter for an index
// on Object.prototype, which an assignment runs (and a setter that records would
// run again, without end).
function effectsLog() {
  const log = [];
  const push = (entry) => Object.defineProperty(log, log.length,
    { value: entry, writable: true, enumerable: true, configurable: true }).length;
  return Object.defineProperty(log, 'push', { value: push });
}

module.exports = { effectsLog };
