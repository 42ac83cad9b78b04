'use strict';
// What the runners ask of a recipe's tampering steps before they check it,
// found in one walk and kept per recipe object (each is asked more than once
// per check, some in the process that draws it and again where it is checked):
//   tampered            a node carries tampering steps: they change what a
//                       codec reads, so the round-trip oracle compares no
//                       value (roundtrip.js), and the value is not described
//   changesSharedState  a `proto` step (a property of a built-in prototype) or
//                       an `inherited-setter` step (a setter on
//                       Object.prototype) changes, for the codec call, what
//                       every object of the process shares. V8 then throws
//                       away all compiled code that relied on those
//                       prototypes, at the change and again at its undoing,
//                       and the checks that follow run unoptimized while it is
//                       compiled anew. One fast-check value recipe in seven
//                       has such a step; in one process of 26.10.0 the others
//                       cost 174 µs a check alone, 305 µs mixed with them. The
//                       batch runner keeps them in workers of their own (batches.js).

const { recipeNodes } = require('./nodes');

const kSharedSteps = new Set(['proto', 'inherited-setter']);
const known = new WeakMap();

function stepsOf(recipe) {
  let found = known.get(recipe);
  if (found) return found;
  const withSteps = recipeNodes(recipe).filter((node) => Object.hasOwn(node, 'tamper'));
  found = {
    tampered: withSteps.length > 0,
    changesSharedState: withSteps.some((node) => Array.isArray(node.tamper) &&
      node.tamper.some((step) => kSharedSteps.has(step?.op))),
  };
  known.set(recipe, found);
  return found;
}

const isObject = (recipe) => recipe !== null && typeof recipe === 'object';
const tampered = (recipe) => isObject(recipe) && stepsOf(recipe).tampered;
const changesSharedState = (recipe) => isObject(recipe) && stepsOf(recipe).changesSharedState;

module.exports = { tampered, changesSharedState };
