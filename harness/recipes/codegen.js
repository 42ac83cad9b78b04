'use strict';
// Turns a recipe (JSON data, see docs/recipes.md) into the JavaScript
// source of a function that builds the value. Repro scripts and reports print
// it; checks build the same value with interpret.js, which does what this
// code does without compiling it (test/harness/interpret.test.js holds the
// two together), and compile it only for the few recipes that one leaves to it.
//
// The generated body sees `require` and `effects` (an array that getters and
// setters installed by tampering steps push to) and returns
// `{ value, setup(), teardown() }`: setup/teardown install and remove the
// global tampering steps around one codec call.

const { RecipeError } = require('./errors');
const { emitNode } = require('./kinds');
const { helpers } = require('./helpers');
const { receivingWorld } = require('./steps');

// Records what a node with an `id` is bound to, for the refs after it.
function nameNode(ids, recipe, path, binding) {
  if (recipe.id === undefined) return;
  if (!Number.isInteger(recipe.id) || ids.has(recipe.id)) {
    throw new RecipeError(path, `"id" must be a unique integer, got ${JSON.stringify(recipe.id)}`);
  }
  ids.set(recipe.id, binding);
}

function compileRecipe(recipe) {
  const gen = new Generator();
  const value = gen.emit(recipe, '$');
  return [...gen.lines, ...returned(gen, [`value: ${value}`])].join('\n');
}

// The object a printed function returns: on one line when its setup and
// teardown are a statement each at most.
function returned(gen, fields) {
  const teardown = teardownOf(gen);
  const methods = [`setup() {${block(gen.setup)}}`, `teardown() {${block(teardown)}}`];
  const all = [...fields, ...methods, ...(gen.pool ? ['pool: true'] : [])];
  if (gen.setup.length < 2 && teardown.length < 2) return [`return { ${all.join(', ')} };`];
  return ['return {', ...all.map((f) => `  ${f},`), '};'];
}

// The source of the function that sets up the world a recipe's frames are
// decoded in (its steps on the receiving side, steps.js receivingWorld):
// (require, effects) -> { setup(), teardown(), pool? }; null when it has none.
function compileWorld(recipe) {
  const world = receivingWorld(recipe);
  if (!world) return null;
  const gen = new Generator();
  gen.side = 'receive';
  // The world's node only carries its steps: its value is never used.
  gen.emit(world, '$');
  gen.lines = gen.lines.filter((line) => line !== 'const v1 = undefined;');
  return [...gen.lines, ...returned(gen, [])].join('\n');
}

// What teardown undoes, last done first: the shared state steps changed, then
// the ports. A close can throw (a step can take a port's close method away),
// and must not leave a prototype changed for the values built after it.
const teardownOf = (gen) => [...gen.teardown.toReversed(), ...gen.closes.toReversed()];

// A method's body: on its own line when it is one statement.
function block(lines) {
  if (lines.length < 2) return lines.length ? ` ${lines[0]} ` : '';
  return `\n${lines.map((l) => `    ${l}`).join('\n')}\n  `;
}

class Generator {
  lines = [];
  setup = [];
  teardown = [];
  closes = [];
  ids = new Map();
  count = 0;
  required = new Set();

  variable() { return `v${++this.count}`; }

  helper(name) {
    if (!this.required.has(name)) {
      this.required.add(name);
      this.lines.unshift(helpers[name]);
    }
    return name;
  }

  require(name, from) {
    if (this.required.has(name)) return;
    this.required.add(name);
    this.lines.unshift(`const { ${name} } = require('${from}');`);
  }

  // A node's expression (kinds.js emitNode).
  emit(recipe, path) { return emitNode(this, recipe, path, 'print'); }

  bind(recipe, path, expr) {
    const name = this.declare(expr);
    nameNode(this.ids, recipe, path, name);
    return name;
  }

  declare(expr) {
    const name = this.variable();
    this.lines.push(`const ${name} = ${expr};`);
    return name;
  }

  ref(recipe, path) {
    const name = this.ids.get(recipe.to);
    if (!name) throw new RecipeError(path, `"to" names no earlier node with id ${JSON.stringify(recipe.to)}`);
    return name;
  }
}

module.exports = { compileRecipe, compileWorld, nameNode, teardownOf };
