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
const { kinds, applyTamper } = require('./kinds');
const { receivingWorld } = require('./steps');

const helpers = {
  // Writes `bytes` (hex, or a Buffer the interpreter decoded once) `times`
  // over from `offset`: a long view costs no long string.
  fill: 'const fill = (buffer, offset, bytes, times = 1) => { ' +
    'const b = typeof bytes === \'string\' ? Buffer.from(bytes, \'hex\') : bytes; ' +
    'if (b.length) Buffer.from(buffer, offset, b.length * times).fill(b); return buffer; };',
  nest: 'const nest = (v, depth, wrap) => { for (let i = 0; i < depth; i++) v = wrap(v); return v; };',
  // String shapes: a concatenation, a slice of a longer string, a string
  // made by Buffer#toString (external when long), and a copy used as a
  // property key (internalized, leaving the copy thin).
  cons: 'const cons = (s) => s.slice(0, s.length >> 1) + s.slice(s.length >> 1);',
  sliced: 'const sliced = (s) => (\'\\u0000\'.repeat(16) + s).slice(16);',
  external: 'const external = (s) => Buffer.from(s, \'utf16le\').toString(\'utf16le\');',
  thin: 'const thin = (s) => { const t = (\' \' + s).slice(1); ({})[t] = 0; return t; };',
  // Makes an interceptor-backed store (process.env, sessionStorage) hold
  // `pairs` alone; gives the function that puts back what it held. A Web
  // Storage object is filled through its API (setItem): an index key assigned
  // as a property goes through V8's index interceptor, which stores 2^31 as
  // -2^31, before either codec sees it.
  holding: 'const holding = (store, pairs) => { const api = typeof store.setItem === \'function\'; ' +
    'const keys = api ? Array.from({ length: store.length }, (_, i) => store.key(i)) : Object.keys(store); ' +
    'const held = keys.map((k) => [k, api ? store.getItem(k) : store[k]]); ' +
    'const empty = () => { if (api) store.clear(); else for (const k of Object.keys(store)) delete store[k]; }; ' +
    'const put = (k, v) => { if (api) store.setItem(k, v); else store[k] = v; }; ' +
    'empty(); for (const [k, v] of pairs) put(k, v); ' +
    'return () => { empty(); for (const [k, v] of held) put(k, v); }; };',
  // The descriptor that puts a recorder in the place of a built-in method
  // or accessor (found on `owner` or up its prototype chain): each call made
  // while a codec runs records itself in `effects`, then each does what the
  // built-in did.
  recording: 'const recording = (owner, key, effects, label) => { let o = owner; let d; ' +
    'while (o && !(d = Object.getOwnPropertyDescriptor(o, key))) o = Object.getPrototypeOf(o); ' +
    'if (!d) throw new TypeError(`${label} is not there to patch`); ' +
    'const out = { configurable: true, enumerable: d.enumerable }; ' +
    'if (typeof d.value === \'function\') { const f = d.value; out.writable = true; ' +
    'out.value = function (...args) { if (effects.codecRunning) effects.push(`call ${label}`); ' +
    'return new.target ? Reflect.construct(f, args, new.target) : Reflect.apply(f, this, args); }; return out; } ' +
    'const get = d.get ?? (() => d.value); ' +
    'out.get = function () { if (effects.codecRunning) effects.push(`get ${label}`); ' +
    'return Reflect.apply(get, this, []); }; ' +
    'if (d.set) out.set = function (v) { if (effects.codecRunning) effects.push(`set ${label}`); ' +
    'Reflect.apply(d.set, this, [v]); }; ' +
    'return out; };',
};

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
  return [
    ...gen.lines,
    'return {',
    `  value: ${value},`,
    `  setup() {${block(gen.setup)}},`,
    `  teardown() {${block(teardownOf(gen))}},`,
    ...(gen.pool ? ['  pool: true,'] : []),
    '};',
  ].join('\n');
}

// The source of the function that sets up the world a recipe's frames are
// decoded in (its steps on the receiving side, steps.js receivingWorld):
// (require, effects) -> { setup(), teardown(), pool? }; null when it has none.
function compileWorld(recipe) {
  const world = receivingWorld(recipe);
  if (!world) return null;
  const gen = new Generator();
  gen.side = 'receive';
  gen.emit(world, '$');
  return [
    ...gen.lines,
    'return {',
    `  setup() {${block(gen.setup)}},`,
    `  teardown() {${block(teardownOf(gen))}},`,
    ...(gen.pool ? ['  pool: true,'] : []),
    '};',
  ].join('\n');
}

// What teardown undoes, last done first: the shared state steps changed, then
// the ports. A close can throw (a step can take a port's close method away),
// and must not leave a prototype changed for the values built after it.
const teardownOf = (gen) => [...gen.teardown.toReversed(), ...gen.closes.toReversed()];

function block(lines) {
  return lines.length ? `\n${lines.map((l) => `    ${l}`).join('\n')}\n  ` : '';
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

  emit(recipe, path) {
    if (recipe === null || typeof recipe !== 'object' || Array.isArray(recipe)) {
      throw new RecipeError(path, 'a recipe node must be an object with a "k" field');
    }
    const kind = kinds[recipe.k];
    if (!kind || typeof kind.emit !== 'function') {
      throw new RecipeError(path, `unknown kind ${JSON.stringify(recipe.k)}`);
    }
    let name = kind.emit(recipe, path, this);
    // Containers bind themselves before their children, so children can refer back.
    if (!kind.binds && (recipe.id !== undefined || recipe.tamper)) name = this.bind(recipe, path, name);
    if (recipe.tamper !== undefined && !Array.isArray(recipe.tamper)) {
      throw new RecipeError(path, '"tamper" must be an array of steps');
    }
    for (const [i, step] of (recipe.tamper ?? []).entries()) {
      applyTamper(step, name, `${path}.tamper[${i}]`, this);
    }
    return name;
  }

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

module.exports = { compileRecipe, compileWorld, helpers, nameNode, teardownOf };
