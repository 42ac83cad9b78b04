'use strict';
// Which recipes change what every object of a process shares, for the codec
// call: a `proto` step (a property of a built-in prototype) or an
// `inherited-setter` step (a setter on Object.prototype). V8 then throws away
// all compiled code that relied on those prototypes, at the change and again
// at its undoing, and the checks that follow run unoptimized while it is
// compiled anew. One fast-check value recipe in seven has such a step; in one
// process of 26.10.0, the others cost 174 µs a check alone and 305 µs mixed
// with them. The runners keep them apart (batches.js, sync-session.js).

const kSharedSteps = /"op":"(?:proto|inherited-setter)"/;

// Asked of each input where it is routed: recipes are objects, written once.
const known = new WeakMap();

// Whether a recipe (or any node in it) has such a step. A string a recipe
// holds is written with its quotes escaped, so only a step's own fields match.
function changesSharedState(recipe) {
  if (recipe === null || typeof recipe !== 'object') return false;
  let changes = known.get(recipe);
  if (changes === undefined) known.set(recipe, changes = kSharedSteps.test(JSON.stringify(recipe)));
  return changes;
}

module.exports = { changesSharedState };
