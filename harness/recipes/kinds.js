'use strict';
// The kind table: every recipe kind, defined in one place in kinds/ (a module
// there exports `kinds`, each entry with its check, print and plan), and
// what the generators and the oracle need to know of them. A module added
// to kinds/ adds its kinds: codegen.js prints them, interpret.js plans them,
// and the byte grammar draws those that carry a `draw` part (bytes.js).
const fs = require('node:fs');
const path = require('node:path');
const { RecipeError } = require('./errors');
const { errorTypes } = require('./checks');
const { stringShapes } = require('./kinds/primitives');
const { nestings } = require('./kinds/heavy');
const { interceptorHosts } = require('./kinds/host-objects');
const { worldSteps } = require('./tampering');

// In file name order, so that the table's order does not depend on the file system.
const folder = path.join(__dirname, 'kinds');
const kinds = {};
for (const file of fs.readdirSync(folder).filter((f) => f.endsWith('.js')).sort()) {
  for (const [name, kind] of Object.entries(require(path.join(folder, file)).kinds)) {
    if (Object.hasOwn(kinds, name)) throw new Error(`recipe kind ${name} is defined twice (kinds/${file})`);
    kinds[name] = { ...kind, file };
  }
}

// The definition of a recipe node's kind, or the error a malformed node gets.
function kindOf(recipe, path) {
  if (recipe === null || typeof recipe !== 'object' || Array.isArray(recipe)) {
    throw new RecipeError(path, 'a recipe node must be an object with a "k" field');
  }
  const kind = Object.hasOwn(kinds, recipe.k) ? kinds[recipe.k] : undefined;
  if (!kind) throw new RecipeError(path, `unknown kind ${JSON.stringify(recipe.k)}`);
  return kind;
}

// A node's tampering steps, checked.
function tamperOf(recipe, path) {
  if (recipe.tamper !== undefined && !Array.isArray(recipe.tamper)) {
    throw new RecipeError(path, '"tamper" must be an array of steps');
  }
  return recipe.tamper;
}

module.exports = { kinds, kindOf, tamperOf, errorTypes, stringShapes, nestings, interceptorHosts, worldSteps };
