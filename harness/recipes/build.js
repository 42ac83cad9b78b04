'use strict';
// Builds the value a request names: a recipe, or a value module (a CommonJS
// file exporting a function that returns the value, given the effects array).
const { compileRecipe } = require('./codegen');
const { UsageError } = require('../errors');

const compiled = new Map();  // in the order last used
const kCompiled = 1000;

// The same function as new Function('require', 'effects', body) would make.
// A parenthesized function is compiled as it is parsed, where new Function
// parses the body twice (once to check it, again at the first call): about a
// third less of what a new recipe costs before its value is built.
const compile = (body) => (0, eval)(`(function (require, effects) {\n${body}\n})`);

// The generated code requires built-in modules each time it runs: looked up once.
const modules = new Map();
const requireOnce = (id) => {
  if (!modules.has(id)) modules.set(id, require(id));
  return modules.get(id);
};

// A check builds its value once per codec from the same recipe object: the
// second build skips spelling the recipe out as its key.
const byRecipe = new WeakMap();

function compiledFor(recipe) {
  if (recipe !== null && typeof recipe === 'object' && byRecipe.has(recipe)) return byRecipe.get(recipe);
  const key = JSON.stringify(recipe);
  // The recipes used last stay compiled (a fuzzer's mutations often decode to a recipe met before).
  let make = compiled.get(key);
  if (make) compiled.delete(key);
  else make = compile(compileRecipe(recipe));
  compiled.set(key, make);
  if (compiled.size > kCompiled) compiled.delete(compiled.keys().next().value);
  if (recipe !== null && typeof recipe === 'object') byRecipe.set(recipe, make);
  return make;
}

function buildInput(input, effects) {
  if (input.recipe !== undefined) return compiledFor(input.recipe)(requireOnce, effects);
  const make = require(input.module);
  if (typeof make !== 'function') {
    throw new UsageError(`value module ${input.module} must export a function returning the value`);
  }
  return { value: make(effects), setup() {}, teardown() {} };
}

module.exports = { buildInput };
