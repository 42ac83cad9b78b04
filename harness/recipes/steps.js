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
//   spoilsProcess       such a step has an array index for its key (an element
//                       of Object.prototype or Array.prototype). V8 then takes
//                       the slow path of every array read and copy that could
//                       meet a hole, for the rest of the process (its
//                       no-elements protector is never restored). In a worker
//                       apart that had checked one of them, the other inputs
//                       that change shared state cost more CPU. They go to the
//                       worker of the screened inputs, which crashes and starts
//                       anew often anyway (run/placement.js).

const { recipeNodes } = require('./nodes');
const { isIndex } = require('./vocabulary');
const { interceptorHosts, worldSteps } = require('./kinds');

const kSharedSteps = new Set(['proto', 'inherited-setter', 'patch']);
const known = new WeakMap();
// What stepsOf finds: one of these, which another process is told by index (markSteps).
const marks = [
  { tampered: false, changesSharedState: false, spoilsProcess: false },
  { tampered: true, changesSharedState: false, spoilsProcess: false },
  { tampered: true, changesSharedState: true, spoilsProcess: false },
  { tampered: true, changesSharedState: true, spoilsProcess: true },
];

function stepsOf(recipe) {
  let found = known.get(recipe);
  if (found) return found;
  const nodes = recipeNodes(recipe);
  const withSteps = nodes.filter((node) => Object.hasOwn(node, 'tamper'));
  const shared = withSteps.flatMap((node) => (Array.isArray(node.tamper) ? node.tamper : []))
    .filter((step) => kSharedSteps.has(step?.op));
  // An interceptor-backed store is the process's own, filled for the call: shared state, changed.
  const stores = nodes.some((node) => Object.hasOwn(interceptorHosts, node.k));
  found = marks[shared.some((step) => isIndex(step.key)) ? 3 : shared.length || stores ? 2 : withSteps.length ? 1 : 0];
  known.set(recipe, found);
  return found;
}

const isObject = (recipe) => recipe !== null && typeof recipe === 'object';
const tampered = (recipe) => isObject(recipe) && stepsOf(recipe).tampered;
const changesSharedState = (recipe) => isObject(recipe) && stepsOf(recipe).changesSharedState;
const spoilsProcess = (recipe) => isObject(recipe) && stepsOf(recipe).spoilsProcess;

// What one process found, for another that gets the same recipe as JSON: a
// batch worker is told it with each input (batches.js) rather than walk the
// recipe again. Walking costs little where the recipes are drawn, but in the
// worker of the inputs that change shared state, whose every check empties
// the inline caches, it took 7% of the time (60 µs an input).
const stepsMark = (recipe) => (isObject(recipe) ? marks.indexOf(stepsOf(recipe)) : -1);
function markSteps(recipe, mark) {
  if (isObject(recipe) && marks[mark]) known.set(recipe, marks[mark]);
}

// The steps a recipe takes on the receiving side (`side`: receive or both),
// as one recipe of their own on no value, or null: what the frames of a check
// are decoded under (ops.js deserialize).
const worlds = new WeakMap();
function receivingWorld(recipe) {
  if (!isObject(recipe)) return null;
  if (!worlds.has(recipe)) {
    const steps = recipeNodes(recipe).flatMap((node) => (Array.isArray(node.tamper) ? node.tamper : []))
      .filter((step) => worldSteps.has(step?.op) && (step.side === 'receive' || step.side === 'both'));
    worlds.set(recipe, steps.length ? { k: 'undefined', tamper: steps } : null);
  }
  return worlds.get(recipe);
}

// The host objects a copy is made of (a port, a KeyObject, a certificate):
// the codecs take the keys of one to copy at different times, the native
// codec before it runs any getter, the JS codec's `{ ...object }` key by key.
const copiedHosts = new Set(['port', 'host']);
const keyChanges = new Set(['define', 'delete', 'set']);

// Whether a recipe has a getter on a copied host object that changes another
// of its keys (deletes it, defines it, hides it or shows it): then which keys
// each codec copies is that getter's doing, whichever key and whichever way.
function getterChangesKeys(recipe) {
  if (!isObject(recipe)) return false;
  return recipeNodes(recipe).some((node) => copiedHosts.has(node.k) && (node.tamper ?? []).some((step) =>
    step?.op === 'define' && (step.get?.then ?? []).some((then) => keyChanges.has(then?.op) && then.on === undefined &&
      JSON.stringify(then.key) !== JSON.stringify(step.key))));
}

module.exports = {
  tampered, changesSharedState, spoilsProcess, stepsMark, markSteps, receivingWorld, getterChangesKeys,
};
