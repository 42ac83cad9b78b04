'use strict';
// Problems with the tool's inputs or environment: reported in one line, exit 2.
class EnvironmentError extends Error {}
class UsageError extends Error {}
// A request to a worker after its session was stopped (the time is up): the
// check it belongs to ends without an outcome.
class StoppedError extends Error {}

module.exports = { EnvironmentError, UsageError, StoppedError };
