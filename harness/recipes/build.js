'use strict';
// Builds the value a request names: a recipe, or a value module (a CommonJS
// file exporting a function that returns the value, given the effects array).
const { compileRecipe } = require('./codegen');
const { UsageError } = require('../errors');

const compiled = new Map();

function buildInput(input, effects) {
  if (input.recipe !== undefined) {
    const key = JSON.stringify(input.recipe);
    if (!compiled.has(key)) {
      if (compiled.size > 1000) compiled.clear();
      compiled.set(key, new Function('require', 'effects', compileRecipe(input.recipe)));
    }
    return compiled.get(key)(require, effects);
  }
  const make = require(input.module);
  if (typeof make !== 'function') {
    throw new UsageError(`value module ${input.module} must export a function returning the value`);
  }
  return { value: make(effects), setup() {}, teardown() {} };
}

module.exports = { buildInput };
