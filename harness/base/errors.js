'use strict';
// Errors: the tool's own, and what a thrown value says.
// Problems with the tool's inputs or environment: reported in one line, exit 2.
class EnvironmentError extends Error {}
class UsageError extends Error {}
// A request to a worker after its session was stopped (the time is up): the
// check it belongs to ends without an outcome.
class StoppedError extends Error {}

// What a thrown value says, as outcomes record it: its class, code and message.
function describeError(err) {
  if (err === null || (typeof err !== 'object' && typeof err !== 'function')) {
    return { name: typeof err, message: String(err) };
  }
  let name;
  try {
    name = err.constructor?.name ?? 'Object';
  } catch {
    name = 'Object';
  }
  const code = typeof err.code === 'string' ? err.code : undefined;
  return { name, code, message: String(err.message ?? '').slice(0, 1000) };
}

module.exports = { EnvironmentError, UsageError, StoppedError, describeError };
