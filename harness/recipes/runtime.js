'use strict';
// What planned recipes (interpret.js) build with: the printed code's helpers
// evaluated once, and the closures that do what its statements do, in
// sloppy mode as it runs.
const { helpers } = require('./helpers');
const { key } = require('./validate');

// What the printed code defines once: its helpers, and the expressions that
// make host objects and nesting wrappers (they call `require`).
const source = (text) => (0, eval)(text);
const helper = Object.fromEntries(Object.keys(helpers)
  .map((name) => [name, source(`(() => { ${helpers[name]} return ${name}; })()`)]));
const withRequire = (expr) => source(`(function (require) { return ${expr}; })`);

// The printed code is sloppy-mode code, where an assignment that cannot be
// made and a delete that cannot be done fail silently, and where a function
// has own `arguments` and `caller`. These are made in sloppy code too.
const { sloppyAssign, remove, sloppyFunction, recordingFunction } = source(`({
  sloppyAssign(o, k, v) { o[k] = v; },
  remove(o, k) { delete o[k]; },
  sloppyFunction() { return function f() {}; },
  recordingFunction(name, effects, value) {
    return { [name]: function () { if (effects.codecRunning) effects.push('call ' + name); return value; } }[name];
  },
})`);

// An assignment to an object goes through Reflect.set, which keeps no
// memory of earlier stores: a store in shared code learns the elements kind
// transitions it made (to doubles, say) and makes them again for a value
// that does not need them. Sloppy code assigns to anything else.
function assign(o, k, v) {
  if ((typeof o === 'object' && o !== null) || typeof o === 'function') Reflect.set(o, k, v);
  else sloppyAssign(o, k, v);
}

// A recipe the planner does not plan: build.js compiles the printed code for it.
class Unplanned extends Error {}

// The global a name stands for, once globalName() has accepted it; as in the
// printed code, a name this binary lacks (Float16Array before V8 13) throws.
function globalOf(name, c) {
  if (name === 'MessagePort') return c.require('node:worker_threads').MessagePort;
  if (!(name in globalThis)) throw new ReferenceError(`${name} is not defined`);
  return globalThis[name];
}

// The printed code's string literals are internalized, as property keys are.
function internalized(s) {
  for (const k in { [s]: 0 }) return k;
  return s;
}

// Arrays made as a fresh function's literal would be: an array literal or
// `new Array` in code that runs often learns from the arrays it made before
// (V8's allocation sites), and would start a later array as doubles, which
// V8 writes differently from small integers. Builtins called, not
// constructed, keep no such memory.
const newArray = () => Array.of();
const holeyArray = (n) => Array(n);

// A key as the printed code evaluates it: a symbol key is a new Symbol at each use.
function keyOf(k, path) {
  key(k, path);
  if (typeof k === 'string') return () => k;
  if (k.symbol !== undefined) return () => Symbol(k.symbol);
  const symbol = Symbol[k.wellKnown];
  return () => symbol;
}

const constant = (v) => () => v;

const run = (lines, c) => {
  for (let i = 0; i < lines.length; i++) lines[i](c);
};

// A step whose setup must see what it declared, met where it cannot (inside a getter).
function inBody(p) {
  if (p.scope !== p.body) throw new Unplanned();
}

module.exports = {
  helper, withRequire, sloppyAssign, remove, sloppyFunction, recordingFunction, assign, Unplanned, globalOf,
  internalized, newArray, holeyArray, keyOf, constant, run, inBody,
};
