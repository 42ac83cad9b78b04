'use strict';
// Builds a recipe's value without generating source: the recipe is planned
// once into closures that do, statement for statement and in the same order,
// what the code codegen.js prints would do; each kind's plan sits next to
// its print in kinds/ (steps' in tampering.js). A check of a new recipe then
// costs no compilation, and builds its value with code that is already warm.
// Repro scripts keep the printed code; test/harness/interpret.test.js holds
// the two to the same values, effects and errors.
//
// The printed code keeps its variables in scopes: the body, and the getter
// functions that tampering steps install. Here they are slots of one array,
// and a read the printed code could not make (a `ref` to a node built inside
// a getter, from outside it) throws the ReferenceError that code would throw.

const { RecipeError } = require('./errors');
const { nameNode, teardownOf } = require('./codegen');
const { emitNode } = require('./kinds');
const { Unplanned, run } = require('./runtime');
const { receivingWorld } = require('./steps');

class Scope {
  constructor(parent) { this.parent = parent; }
  sees(scope) {
    for (let s = this; s; s = s.parent) if (s === scope) return true;
    return false;
  }
}

class Planner {
  body = new Scope(null);
  lines = [];
  scope = this.body;   // where declarations go
  view = this.body;    // where the expression being planned is read
  setup = [];
  teardown = [];
  closes = [];
  ids = new Map();     // id -> slot
  count = 0;           // variables v1, v2, ...
  saves = 0;           // what steps that change shared state saved
  side = 'send';       // the side of the check whose steps are planned
  pool = false;        // a pool step: Buffer's pool is watched

  // A node's closure (kinds.js emitNode).
  emit(recipe, path) { return emitNode(this, recipe, path, 'plan'); }

  bind(recipe, path, expr) {
    const slot = this.declare(expr);
    nameNode(this.ids, recipe, path, slot);
    return slot.read;
  }

  // A variable of the printed code (v1, v2, ...) set to what expr gives.
  declare(expr) {
    const index = ++this.count;
    this.lines.push((c) => { c.s[index] = expr(c); });
    return { index, scope: this.scope, read: (c) => c.s[index] };
  }

  ref(recipe, path) {
    const slot = this.ids.get(recipe.to);
    if (!slot) throw new RecipeError(path, `"to" names no earlier node with id ${JSON.stringify(recipe.to)}`);
    if (this.view.sees(slot.scope)) return slot.read;
    return () => { throw new ReferenceError(`v${slot.index} is not defined`); };
  }

  // Plans what fn plans into the body of a new function of the printed code
  // (a getter): its statements, to run at each call.
  inFunction(fn) {
    const saved = [this.lines, this.scope, this.view];
    this.lines = [];
    this.scope = this.view = new Scope(this.scope);
    try {
      fn();
      return { lines: this.lines, scope: this.scope };
    } finally {
      [this.lines, this.scope, this.view] = saved;
    }
  }

  // Plans fn's expression with the declarations it needs where they are now,
  // read from `scope` (a getter's return value).
  readFrom(scope, fn) {
    const saved = this.view;
    this.view = scope;
    try {
      return fn();
    } finally {
      this.view = saved;
    }
  }
}

// The function the printed code is the body of: (require, effects) ->
// { value, setup(), teardown(), changed(), takeFault() }. Throws RecipeError as
// compileRecipe does, and Unplanned for a recipe the printed code must build.
// changed(): whether user code that ran since it was built could have changed
// what it built (a getter that ran steps); the rest of what the value runs
// (setters, getters that only return, a prototype's recorded reads) records
// its call and changes nothing.
function planRecipe(recipe, side = 'send') {
  const p = new Planner();
  p.side = side;
  const value = p.emit(recipe, '$');
  const { lines, setup, pool } = p;
  const teardown = teardownOf(p);
  const { count, saves } = p;
  return (require, effects) => {
    // Filled, so that a store is never to a hole, which would run a setter
    // that a step put on Object.prototype for an index key.
    const c = { s: Array.from({ length: count + 1 }), saved: Array.from({ length: saves }), effects, require };
    run(lines, c);
    const built = value(c);
    c.changed = false;  // what ran while building, every build runs
    return {
      value: built,
      setup() { run(setup, c); },
      teardown() { run(teardown, c); },
      changed: () => c.changed,
      // The first error a getter's step threw since it was last asked, or null.
      takeFault() {
        const fault = c.fault ?? null;
        c.fault = null;
        return fault;
      },
      pool,
    };
  };
}

// The world a recipe's frames are decoded in, planned as compileWorld prints
// it: (require, effects) -> { setup(), teardown(), pool }, or null.
function planWorld(recipe) {
  const world = receivingWorld(recipe);
  return world && planRecipe(world, 'receive');
}

module.exports = { planRecipe, planWorld, Unplanned };
