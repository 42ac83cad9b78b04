'use strict';
// Every recipe node (an object with a string `k`), wherever it sits in a
// recipe: in props, items, entries, tampering steps and their values. Parents
// come first. A stack, not nested generators: every input is walked.

function recipeNodes(value) {
  const found = [];
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (typeof v.k === 'string') found.push(v);
    const children = Array.isArray(v) ? v : Object.values(v);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return found;
}

module.exports = { recipeNodes };
