'use strict';
// Which inputs must not run a codec in the process that runs the checks.
// Checks run in-process when both codecs live in one binary; an input whose
// recipe has the shape of a crash already known in a native codec goes to an
// isolated worker instead. The check is the same either way, so a screened
// input is never skipped: if it crashes, the crash is its finding, as before.
// An input the screen lets through and that crashes is still a finding: the
// engines replay it isolated. It only costs the in-process runner a restart.

const { recipeNodes } = require('./nodes');
const { isIndex } = require('./vocabulary');

// The steps that may give their object an own enumerable key (`proto` and
// `inherited-setter` change a prototype, `delete` takes a key away, and the
// codec does not copy a key defined as not enumerable).
const addsOwnKey = (step) => step?.op === 'set' || (step?.op === 'define' && step.enumerable !== false);

// Node's host objects, as recipe nodes: ports, KeyObjects, certificates (V8
// writes a WebAssembly.Module itself: the codec never copies its keys).
const isHost = (node) => node.k === 'port' || (node.k === 'host' && node.type !== 'wasm-module') ||
  (node.k === 'nest' && node.in === 'host');

// The keys a host object gets from its own recipe: its props, and those that
// its tampering steps and the steps its getters run add to it.
function* ownKeys(node) {
  for (const [key] of node.props ?? []) yield key;
  for (const step of node.tamper ?? []) {
    if (addsOwnKey(step)) yield step.key;
    for (const then of step.get?.then ?? []) if (addsOwnKey(then) && then.on === undefined) yield then.key;
  }
}

// A getter step aimed at a property of its object ("on": key) may add keys to
// a host object held there.
const aimedSteps = (node) => (node.tamper ?? []).flatMap((step) => step.get?.then ?? [])
  .filter((then) => then.on !== undefined && addsOwnKey(then));

const shapes = [
  {
    // ipc_serdes (26.4+, 24.19+) copies a host object's own keys with
    // key.As<Name>() on what GetOwnPropertyNames gives: a Number for an
    // index key. Up to 2 ** 31 - 1 it is a Smi, and 26.10.0 crashes at once;
    // a larger one is a HeapNumber, cast to a string: the key is dropped,
    // and processes that ran such inputs in a fuzzing run died later on
    // inputs that never crash alone.
    name: 'index key on a host object',
    matches(recipe) {
      const all = recipeNodes(recipe);
      if (!all.some(isHost)) return false;
      return all.some((node) => (isHost(node) && [...ownKeys(node)].some(isIndex)) ||
        aimedSteps(node).some((step) => isIndex(step.key)));
    },
  },
];

// The shapes of recipes screened before: fast-check's value recipes are
// screened where they are drawn (arbitraries/recipes.js) and again where
// they are checked (batches.js).
const shapeOf = new WeakMap();

// The shape an input of a check has, or null. A value module is user code:
// anything may happen in it, so it is always screened.
function screen(input) {
  if (input?.module !== undefined) return 'value module';
  const { recipe } = input ?? {};
  if (recipe === undefined) return null;
  const remembered = recipe !== null && typeof recipe === 'object';
  if (remembered && shapeOf.has(recipe)) return shapeOf.get(recipe);
  const shape = shapes.find((s) => s.matches(recipe))?.name ?? null;
  if (remembered) shapeOf.set(recipe, shape);
  return shape;
}

module.exports = { screen, shapes };
