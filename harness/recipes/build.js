'use strict';
// Builds the value a request names: a recipe, or a value module (a CommonJS
// file exporting a function that returns the value, given the effects array).
const { compileRecipe } = require('./codegen');
const { planRecipe, Unplanned } = require('./interpret');
const { UsageError } = require('../errors');

const builders = new Map();  // in the order last used
const kBuilders = 1000;

// A recipe's builder: planned (interpret.js), or for the few recipes it does
// not plan, compiled from the code a repro script prints.
function makerOf(recipe) {
  try {
    return planRecipe(recipe);
  } catch (err) {
    if (!(err instanceof Unplanned)) throw err;
    return compile(compileRecipe(recipe));
  }
}

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

function builderFor(recipe) {
  if (recipe !== null && typeof recipe === 'object' && byRecipe.has(recipe)) return byRecipe.get(recipe);
  const key = JSON.stringify(recipe);
  // The recipes used last stay planned (a fuzzer's mutations often decode to a recipe met before).
  let make = builders.get(key);
  if (make) builders.delete(key);
  else make = makerOf(recipe);
  builders.set(key, make);
  if (builders.size > kBuilders) builders.delete(builders.keys().next().value);
  if (recipe !== null && typeof recipe === 'object') byRecipe.set(recipe, make);
  return make;
}

function buildInput(input, effects) {
  if (input.recipe !== undefined) return builderFor(input.recipe)(requireOnce, effects);
  const make = require(input.module);
  if (typeof make !== 'function') {
    throw new UsageError(`value module ${input.module} must export a function returning the value`);
  }
  return { value: make(effects), setup() {}, teardown() {} };
}

module.exports = { buildInput };
