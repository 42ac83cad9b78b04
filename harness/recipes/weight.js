'use strict';
// How much of a value a recipe makes, told from the recipe alone: the
// fast-check arbitraries keep the frame and stream properties' values small
// with it, and the bench's traces keep every heavy value (trace.js).

// About how many bytes a recipe's frame holds: long strings, large views,
// long arrays and deep nests weigh what they repeat.
function estimatedBytes(node) {
  if (!node || typeof node !== 'object') return 0;
  if (Array.isArray(node)) return node.reduce((sum, n) => sum + estimatedBytes(n), 0);
  const own = node.k === 'string' && typeof node.v === 'string' ? node.v.length * 2 * (node.repeat ?? 1) :
    node.k === 'view' && typeof node.bytes === 'string' ? node.bytes.length / 2 * (node.repeat ?? 1) :
      node.k === 'range' ? node.n * 9 : node.k === 'nest' ? node.depth * 8 : 8;
  return own + Object.values(node).reduce((sum, n) => sum + (typeof n === 'object' ? estimatedBytes(n) : 0), 0);
}

// A string of 4,096 units, a nest 1,000 deep, an array of 1,000 items, a
// view of 64 KiB, or more: a value whose check costs milliseconds, not tens
// of microseconds. About one fast-check value input in a hundred and one
// Jazzer.js value input in 25 holds one; together they make more than half
// the codec calls' cost of a run.
const kHeavyBytes = 8000;
const isHeavyValue = (recipe) => estimatedBytes(recipe) >= kHeavyBytes;

module.exports = { estimatedBytes, isHeavyValue };
