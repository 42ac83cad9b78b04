'use strict';
// Builds the value a request names: a recipe, or a value module (a CommonJS
// file exporting a function that returns the value, given the effects array).
const { compileRecipe, compileWorld } = require('./codegen');
const { planRecipe, planWorld, Unplanned } = require('./interpret');
const { UsageError } = require('../base/errors');

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

// A recipe object met again (a check that builds a value per codec, a
// recipe of the frame checks' pool) is planned once.
const byRecipe = new WeakMap();

// byText: the recipes used last stay planned by their text too, for recipes
// decoded anew each time (a fuzzer's mutations often decode to a recipe met
// before); spelling out each of fast-check's recipes, all new, cost its
// value workers 3% of their time for nothing.
function builderFor(recipe, byText) {
  const isObject = recipe !== null && typeof recipe === 'object';
  if (isObject && byRecipe.has(recipe)) return byRecipe.get(recipe);
  let make;
  if (byText) {
    const key = JSON.stringify(recipe);
    make = builders.get(key);
    if (make) builders.delete(key);
    else make = makerOf(recipe);
    builders.set(key, make);
    if (builders.size > kBuilders) builders.delete(builders.keys().next().value);
  } else {
    make = makerOf(recipe);
  }
  if (isObject) byRecipe.set(recipe, make);
  return make;
}

// buildInput(input, effects), keeping recipes by their text or not (see builderFor).
function inputBuilder({ byText }) {
  return (input, effects) => {
    if (input.recipe !== undefined) return builderFor(input.recipe, byText)(requireOnce, effects);
    const make = require(input.module);
    if (typeof make !== 'function') {
      throw new UsageError(`value module ${input.module} must export a function returning the value`);
    }
    return { value: make(effects), setup() {}, teardown() {} };
  };
}

const buildInput = inputBuilder({ byText: true });

// The world a recipe's frames are decoded in (its receiving side's steps):
// { setup(), teardown(), pool }, its calls recorded in `effects`; null when
// the recipe takes no step on that side. Planned once per recipe text.
const worlds = new Map();
function buildWorld(recipe, effects) {
  const key = JSON.stringify(recipe);
  if (!worlds.has(key)) {
    let make;
    try {
      make = planWorld(recipe);
    } catch (err) {
      if (!(err instanceof Unplanned)) throw err;
      make = compile(compileWorld(recipe));
    }
    if (worlds.size >= kBuilders) worlds.delete(worlds.keys().next().value);
    worlds.set(key, make);
  }
  return worlds.get(key)?.(requireOnce, effects) ?? null;
}

module.exports = { buildInput, inputBuilder, buildWorld };
