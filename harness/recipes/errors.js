'use strict';
const { UsageError } = require('../base/errors');

// A malformed recipe: names the JSON path of the offending node.
class RecipeError extends UsageError {
  constructor(path, message) {
    super(`recipe ${path}: ${message}`);
  }
}

module.exports = { RecipeError };
