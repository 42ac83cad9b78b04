'use strict';
// The kind table: every recipe kind, defined in one place in kinds/ (a
// module there exports `kinds`, each entry with its check, print and plan;
// docs/recipes.md), and what the generators and the oracle need to know of
// them. A kind added to a module of kinds/ is printed (codegen.js), planned
// (interpret.js), said in the titles of findings (its `words`, words.js) and,
// with a `draw` part, drawn by the byte grammar and the arbitraries (bytes.js).
// A `referable` kind is an object a later node may refer back to (`ref`).
const { RecipeError } = require('./errors');
const { errorTypes } = require('./validate');
const { stringShapes } = require('./kinds/primitives');
const { nestings } = require('./kinds/heavy');
const { interceptorHosts } = require('./kinds/host-objects');
const { worldSteps, applyStep } = require('./tampering');

// Required by name, not by listing the folder: what the table holds is what
// is required here, and a module a bundle packs (base/bundle.js) is found
// by its literal requires.
const modules = {
  'primitives.js': require('./kinds/primitives'),
  'containers.js': require('./kinds/containers'),
  'buffers.js': require('./kinds/buffers'),
  'host-objects.js': require('./kinds/host-objects'),
  'heavy.js': require('./kinds/heavy'),
};
const kinds = {};
for (const [file, module] of Object.entries(modules)) {
  for (const [name, kind] of Object.entries(module.kinds)) {
    if (Object.hasOwn(kinds, name)) throw new Error(`recipe kind ${name} is defined twice (kinds/${file})`);
    // One shape for every kind, so that the walk's reads of them stay monomorphic.
    kinds[name] = { binds: Boolean(kind.binds), referable: Boolean(kind.referable), check: kind.check ?? null,
      print: kind.print ?? null, plan: kind.plan ?? null, draw: kind.draw ?? null, words: kind.words ?? null, file };
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

// One node, printed (`how` 'print', by codegen.js's generator) or planned
// ('plan', by interpret.js's planner), `builder` being the one or the other:
// its kind's check, then its print or plan, then its tampering steps on what
// it made. A kind that does not bind itself is bound when steps or refs need
// a name for it.
function emitNode(builder, recipe, path, how) {
  const kind = kindOf(recipe, path);
  const checked = kind.check === null ? undefined : kind.check(recipe, path);
  let made = how === 'plan' ? kind.plan(recipe, path, builder, checked) : kind.print(recipe, path, builder, checked);
  const { tamper } = recipe;
  if (!kind.binds && (recipe.id !== undefined || tamper)) made = builder.bind(recipe, path, made);
  if (tamper === undefined) return made;
  if (!Array.isArray(tamper)) throw new RecipeError(path, '"tamper" must be an array of steps');
  for (let i = 0; i < tamper.length; i++) applyStep(tamper[i], made, `${path}.tamper[${i}]`, builder, how);
  return made;
}

module.exports = { kinds, emitNode, errorTypes, stringShapes, nestings, interceptorHosts, worldSteps };
