'use strict';
// Problems with the tool's inputs or environment: reported in one line, exit 2.
class EnvironmentError extends Error {}
class UsageError extends Error {}

module.exports = { EnvironmentError, UsageError };
