'use strict';
// Builds a recipe's value without generating source: the recipe is planned
// once into closures that do, statement for statement and in the same order,
// what the code codegen.js prints would do. A check of a new recipe then costs
// no compilation, and builds its value with code that is already warm.
// Repro scripts keep the printed code; test/harness/interpret.test.js holds
// the two to the same values, effects and errors.
//
// The printed code keeps its variables in scopes: the body, and the getter
// functions that tampering steps install. Here they are slots of one array,
// and a read the printed code could not make (a `ref` to a node built inside
// a getter, from outside it) throws the ReferenceError that code would throw.

const { RecipeError } = require('./errors');
const { hostTypes } = require('./hosts');
const { helpers, nameNode, teardownOf } = require('./codegen');
const {
  kinds: emitters, errorTypes, stringShapes, nestings, getterSteps, steps: stepNames,
  check, hex, count, entries, number, key, globalName, labelOf, viewLayout, patchLabel, onSide,
} = require('./kinds');
const { receivingWorld } = require('./steps');

// What the printed code defines once: its helpers, and the expressions that
// make host objects and nesting wrappers (they call `require`).
const source = (text) => (0, eval)(text);
const helper = Object.fromEntries(Object.keys(helpers)
  .map((name) => [name, source(`(() => { ${helpers[name]} return ${name}; })()`)]));
const withRequire = (expr) => source(`(function (require) { return ${expr}; })`);
// Parsing a key costs 25 µs (EC keys); a copy of a key parsed once, made by
// structuredClone, is a new KeyObject of the same class, own properties and
// key material, the same value to both codecs, for 1.5 µs. A copied
// X509Certificate has another prototype: certificates are parsed each time.
const kCopied = new Set(['secret-key', 'private-key', 'public-key']);
function copies(type, expr) {
  const make = withRequire(expr);
  if (!kCopied.has(type)) return make;
  let original;
  return (require) => structuredClone(original ??= make(require));
}
const makeHost = Object.fromEntries(Object.entries(hostTypes).map(([type, expr]) => [type, copies(type, expr)]));
const makeWrap = Object.fromEntries(Object.entries(nestings).map(([name, expr]) => [name, withRequire(expr)]));
// A nest of host objects is a nest of secret keys: copies too.
makeWrap.host = (require) => (v) => Object.assign(makeHost['secret-key'](require), { a: v });
// The printed code is sloppy-mode code, where an assignment that cannot be
// made and a delete that cannot be done fail silently, and where a function
// has own `arguments` and `caller`. These are made in sloppy code too.
const { sloppyAssign, remove, sloppyFunction } = source(`({
  sloppyAssign(o, k, v) { o[k] = v; },
  remove(o, k) { delete o[k]; },
  sloppyFunction() { return function f() {}; },
})`);

// An assignment to an object goes through Reflect.set, which keeps no
// memory of earlier stores: a store in shared code learns the elements kind
// transitions it made (to doubles, say) and makes them again for a value
// that does not need them. Sloppy code assigns to anything else.
function assign(o, k, v) {
  if ((typeof o === 'object' && o !== null) || typeof o === 'function') Reflect.set(o, k, v);
  else sloppyAssign(o, k, v);
}

// A recipe this module does not plan: build.js compiles the printed code for it.
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

  emit(recipe, path) {
    if (recipe === null || typeof recipe !== 'object' || Array.isArray(recipe)) {
      throw new RecipeError(path, 'a recipe node must be an object with a "k" field');
    }
    const kind = Object.hasOwn(planners, recipe.k) ? planners[recipe.k] : undefined;
    if (!kind) {
      throw new RecipeError(path, `unknown kind ${JSON.stringify(recipe.k)}`);
    }
    let expr = kind.plan(recipe, path, this);
    if (!emitters[recipe.k].binds && (recipe.id !== undefined || recipe.tamper)) expr = this.bind(recipe, path, expr);
    if (recipe.tamper !== undefined && !Array.isArray(recipe.tamper)) {
      throw new RecipeError(path, '"tamper" must be an array of steps');
    }
    for (const [i, step] of (recipe.tamper ?? []).entries()) applyStep(step, expr, `${path}.tamper[${i}]`, this);
    return expr;
  }

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

// `v<n>.port1.close();` of the printed code's teardown, with its message when
// a tampering step left the port without a close method.
function closePort(c, channel, port) {
  const object = channel.read(c)[port];
  const close = object.close;
  if (typeof close !== 'function') throw new TypeError(`v${channel.index}.${port}.close is not a function`);
  Reflect.apply(close, object, []);
}

const run = (lines, c) => {
  for (let i = 0; i < lines.length; i++) lines[i](c);
};

function props(name, recipe, path, p) {
  for (const [i, pair] of entries(recipe.props, path, 'props').entries()) {
    check(Array.isArray(pair) && pair.length === 2, `${path}.props[${i}]`, 'a property is [key, recipe]');
    const value = p.emit(pair[1], `${path}.props[${i}][1]`);
    const k = keyOf(pair[0], `${path}.props[${i}][0]`);
    p.lines.push((c) => assign(name(c), k(), value(c)));
  }
}

// The emitters' checks of a node that builds no children, run for their errors.
const checked = (r, path) => emitters[r.k].emit(r, path, { helper: (name) => name });

const planners = {
  undefined: { plan: () => constant(undefined) },
  null: { plan: () => constant(null) },
  bool: { plan: (r, path) => (checked(r, path), constant(r.v)) },
  number: { plan: (r, path) => constant(Number(number(r.v, path))) },
  bigint: { plan: (r, path) => (checked(r, path), constant(BigInt(r.v))) },
  string: {
    plan(r, path) {
      checked(r, path);
      const literal = internalized(r.v);
      const text = r.repeat === undefined || r.repeat === 1 ? constant(literal) : () => literal.repeat(r.repeat);
      if (!stringShapes.includes(r.shape)) return text;
      const shape = helper[r.shape];
      return () => shape(text());
    },
  },
  symbol: {
    plan(r) {
      const description = String(r.description ?? '');
      return () => Symbol(description);
    },
  },
  function: { plan: () => sloppyFunction },
  global: {
    plan(r, path) {
      globalName(r.name, path);
      return (c) => globalOf(r.name, c);
    },
  },

  ref: { plan: (r, path, p) => p.ref(r, path) },

  object: {
    plan(r, path, p) {
      const name = p.bind(r, path, () => ({}));
      props(name, r, path, p);
      return name;
    },
  },

  array: {
    plan(r, path, p) {
      const name = p.bind(r, path, newArray);
      const items = entries(r.items, path, 'items');
      for (const [i, item] of items.entries()) {
        if (item?.k === 'hole') continue;
        const value = p.emit(item, `${path}.items[${i}]`);
        p.lines.push((c) => assign(name(c), i, value(c)));
      }
      if (items.length && items.at(-1)?.k === 'hole') p.lines.push((c) => assign(name(c), 'length', items.length));
      if (r.length !== undefined) {
        const length = count(r.length, path, 'length');
        p.lines.push((c) => assign(name(c), 'length', length));
      }
      props(name, r, path, p);
      return name;
    },
  },
  hole: { plan: (r, path) => { throw new RecipeError(path, 'a hole may only stand in "items"'); } },

  map: {
    plan(r, path, p) {
      const name = p.bind(r, path, () => new Map());
      for (const [i, pair] of entries(r.entries, path, 'entries').entries()) {
        check(Array.isArray(pair) && pair.length === 2, `${path}.entries[${i}]`, 'an entry is [key, value]');
        const k = p.emit(pair[0], `${path}.entries[${i}][0]`);
        const value = p.emit(pair[1], `${path}.entries[${i}][1]`);
        p.lines.push((c) => { name(c).set(k(c), value(c)); });
      }
      return name;
    },
  },

  set: {
    plan(r, path, p) {
      const name = p.bind(r, path, () => new Set());
      for (const [i, item] of entries(r.values, path, 'values').entries()) {
        const value = p.emit(item, `${path}.values[${i}]`);
        p.lines.push((c) => { name(c).add(value(c)); });
      }
      return name;
    },
  },

  date: {
    plan(r, path) {
      const time = Number(number(r.v, path));
      return () => new Date(time);
    },
  },

  regexp: {
    plan(r, path) {
      checked(r, path);
      const flags = r.flags ?? '';
      return () => new RegExp(r.source, flags);
    },
  },

  boxed: {
    plan(r, path, p) {
      check(['bool', 'number', 'bigint', 'string'].includes(r.of?.k), path,
        '"of" must be a bool, number, bigint or string recipe');
      const of = p.emit(r.of, `${path}.of`);
      return (c) => Object(of(c));
    },
  },

  error: {
    plan(r, path, p) {
      const type = r.type ?? 'Error';
      check(errorTypes.includes(type), path, () => `"type" must be one of ${errorTypes.join(', ')}`);
      const message = String(r.message ?? '');
      const cause = r.cause === undefined ? null : p.emit(r.cause, `${path}.cause`);
      const name = p.bind(r, path, cause ?
        (c) => new globalThis[type](message, { cause: cause(c) }) : () => new globalThis[type](message));
      if (r.stack === false) {
        p.lines.push((c) => remove(name(c), 'stack'));
      } else if (r.stack !== undefined && typeof r.stack !== 'string') {
        throw new Unplanned();  // printed as a JSON literal: a new object at each build
      } else {
        const stack = r.stack ?? `${type}: ${r.message ?? ''}\n    at ipcfuzz recipe`;
        p.lines.push((c) => assign(name(c), 'stack', stack));
      }
      return name;
    },
  },

  arraybuffer: {
    plan(r, path) {
      const bytes = Buffer.from(hex(r.bytes, path), 'hex');
      const size = bytes.length;
      const Ctor = r.shared ? SharedArrayBuffer : ArrayBuffer;
      const options = r.maxByteLength === undefined ? undefined :
        { maxByteLength: Math.max(size, count(r.maxByteLength, path, 'maxByteLength')) };
      const make = options ? () => new Ctor(size, { ...options }) : () => new Ctor(size);
      return size ? () => helper.fill(make(), 0, bytes) : make;
    },
  },

  view: {
    plan(r, path, p) {
      const { bytes, times, size, width, offset } = viewLayout(r, path);
      if (r.type === 'Buffer' && r.pooled) return () => Buffer.from(times === 1 ? bytes : bytes.repeat(times), 'hex');
      let backing;
      if (r.buffer !== undefined) {
        backing = p.emit(r.buffer, `${path}.buffer`);
      } else {
        const total = offset + size + count(r.slack ?? 0, path, 'slack');
        const decoded = Buffer.from(bytes, 'hex');
        backing = () => helper.fill(new ArrayBuffer(total), offset, decoded, times);
      }
      const length = size / width;
      const tracking = r.lengthTracking;
      if (r.type === 'Buffer') {
        return tracking ? (c) => Buffer.from(backing(c), offset) : (c) => Buffer.from(backing(c), offset, length);
      }
      const type = r.type;
      const subclass = `${type}Subclass`;
      const ctor = r.subclass ? (c) => ({ [subclass]: class extends globalOf(type, c) {} })[subclass] :
        (c) => globalOf(type, c);
      return tracking ? (c) => new (ctor(c))(backing(c), offset) : (c) => new (ctor(c))(backing(c), offset, length);
    },
  },

  port: {
    plan(r, path, p) {
      const channel = p.declare((c) => new (c.require('node:worker_threads').MessageChannel)());
      p.closes.push((c) => closePort(c, channel, 'port1'), (c) => closePort(c, channel, 'port2'));
      const name = p.bind(r, path, (c) => channel.read(c).port1);
      props(name, r, path, p);
      return name;
    },
  },

  host: {
    plan(r, path, p) {
      check(Object.hasOwn(hostTypes, r.type), path, () => `"type" must be one of ${Object.keys(hostTypes).join(', ')}`);
      const make = makeHost[r.type];
      const name = p.bind(r, path, (c) => make(c.require));
      props(name, r, path, p);
      return name;
    },
  },

  env: { plan: (r, path, p) => interceptorHost(r, path, p, () => process.env) },
  storage: { plan: (r, path, p) => interceptorHost(r, path, p, () => globalThis.sessionStorage) },

  nest: {
    plan(r, path, p) {
      check(Object.hasOwn(nestings, r.in), path, () => `"in" must be one of ${Object.keys(nestings).join(', ')}`);
      const depth = count(r.depth, path, 'depth');
      check(depth <= 100000, path, '"depth" must be at most 100000');
      const leaf = r.leaf === undefined ? constant(null) : p.emit(r.leaf, `${path}.leaf`);
      const wrap = r.in === 'array' ? (v) => Array.of(v) : null;
      const make = makeWrap[r.in];
      return (c) => helper.nest(leaf(c), depth, wrap ?? make(c.require));
    },
  },

  range: {
    plan(r, path) {
      checked(r, path);
      const { n, every = 1 } = r;
      const offset = r.double ? 0.5 : 0;
      // Pushed, the array is packed, as Array.from makes it (V8 writes a
      // holey one as sparse), in a tenth of Array.from's time.
      if (every <= 1) {
        return () => {
          const a = newArray();
          for (let i = 0; i < n; i++) a.push(i + offset);
          return a;
        };
      }
      return () => {
        const a = holeyArray(n);
        for (let i = 0; i < n; i += every) a[i] = i + offset;
        return a;
      };
    },
  },

  shapes: {
    plan(r, path, p) {
      const name = p.bind(r, path, newArray);
      const keys = entries(r.keys, path, 'keys');
      for (const [i, row] of entries(r.rows, path, 'rows').entries()) {
        check(Array.isArray(row) && row.length === keys.length, `${path}.rows[${i}]`, 'a row has one value per key');
        const object = p.declare(() => ({})).read;
        for (const [j, k] of keys.entries()) {
          const keyFn = keyOf(k, `${path}.keys[${j}]`);
          const value = p.emit(row[j], `${path}.rows[${i}][${j}]`);
          p.lines.push((c) => assign(object(c), keyFn(), value(c)));
        }
        p.lines.push((c) => { name(c).push(object(c)); });
      }
      for (const [i, change] of entries(r.then, path, 'then').entries()) {
        const [row, k, value] = Array.isArray(change) ? change : [];
        check(Number.isInteger(row) && row >= 0 && row < (r.rows?.length ?? 0), `${path}.then[${i}]`,
          'a change is [row, key, recipe] naming an existing row');
        const keyFn = keyOf(k, `${path}.then[${i}]`);
        const made = p.emit(value, `${path}.then[${i}][2]`);
        p.lines.push((c) => assign(name(c)[row], keyFn(), made(c)));
      }
      return name;
    },
  },
};

// A getter's body: it records its call, runs its steps, then throws or returns.
// One that runs steps marks the build as changed (see planRecipe).
function getter(step, label, path, p, target) {
  const get = step.get;
  const record = `get ${label}`;
  const { lines, scope } = p.inFunction(() => {
    if (get.then === undefined) return;
    for (const [i, then] of entries(get.then, `${path}.get`, 'then').entries()) {
      const where = `${path}.get.then[${i}]`;
      check(getterSteps.has(then?.op), where, () => `a getter runs one of ${[...getterSteps].join(', ')}`);
      let on = target;
      if (then.on !== undefined) {
        const k = keyOf(then.on, where);
        on = (c) => target(c)[k()];
      }
      applyStep(then, on, where, p);
    }
  });
  const changes = lines.length > 0;
  const body = (c) => {
    c.effects.push(record);
    if (changes) c.changed = true;
    run(lines, c);
  };
  if (get.throws !== undefined) {
    const message = String(get.throws);
    return (c) => function get() {
      body(c);
      throw new Error(message);
    };
  }
  const returns = get.returns === undefined ? null : p.readFrom(scope, () => p.emit(get.returns, `${path}.get.returns`));
  return (c) => function get() {
    body(c);
    return returns?.(c);
  };
}

// A property descriptor, made anew where the printed code evaluates its literal.
function descriptor(step, label, path, p, target = constant(undefined)) {
  const enumerable = step.enumerable !== false;
  if (step.get) {
    const get = getter(step, label, path, p, target);
    return (c) => ({ get: get(c), enumerable, configurable: true });
  }
  if (step.value === undefined) throw new RecipeError(path, 'a "define" step needs "value" or "get"');
  const value = p.emit(step.value, `${path}.value`);
  const writable = step.writable !== false;
  return (c) => ({ value: value(c), enumerable, configurable: true, writable });
}

// A step that changes shared state for one call: see aroundCall in kinds.js.
function aroundCall(p, target, k, make) {
  if (p.scope !== p.body) throw new Unplanned();  // its setup could not see what it declared
  const n = p.saves++;
  p.setup.push((c) => {
    const saved = { old: Object.getOwnPropertyDescriptor(target(c), k()), installed: false };
    c.saved[n] = saved;
    Object.defineProperty(target(c), k(), make(c));
    saved.installed = true;
  });
  p.teardown.push((c) => {
    const s = c.saved[n];
    if (s?.installed && s.old) Object.defineProperty(target(c), k(), s.old);
    else if (s?.installed) remove(target(c), k());
  });
}

// An interceptor-backed store holding a recipe's props for the call: see kinds.js.
function interceptorHost(r, path, p, store) {
  if (p.scope !== p.body) throw new Unplanned();  // its setup could not see what it declared
  const pairs = entries(r.props, path, 'props').map((pair, i) => {
    check(Array.isArray(pair) && pair.length === 2, `${path}.props[${i}]`, 'a property is [key, recipe]');
    return [keyOf(pair[0], `${path}.props[${i}][0]`), p.emit(pair[1], `${path}.props[${i}][1]`)];
  });
  const n = p.saves++;
  p.setup.push((c) => { c.saved[n] = helper.holding(store(), pairs.map(([k, v]) => [k(), v(c)])); });
  p.teardown.push((c) => c.saved[n]?.());
  return store;
}

const isView = ArrayBuffer.isView;

const steps = {
  set(step, target, path, p) {
    const k = keyOf(step.key, path);
    const value = p.emit(step.value, `${path}.value`);
    p.lines.push((c) => assign(target(c), k(), value(c)));
  },
  define(step, target, path, p) {
    const k = keyOf(step.key, path);
    const make = descriptor(step, labelOf(step.key), path, p, target);
    p.lines.push((c) => { Object.defineProperty(target(c), k(), make(c)); });
  },
  delete(step, target, path, p) {
    const k = keyOf(step.key, path);
    p.lines.push((c) => remove(target(c), k()));
  },
  prototype(step, target, path, p) {
    if (step.of !== null) globalName(step.of, path);
    const of = step.of;
    const base = of === null ? () => null : (c) => globalOf(of, c).prototype;
    const proto = !step.proxy ? base : (c) => new Proxy(of === null ? Object.create(null) : base(c), {
      get(t, k, r) {
        c.effects.push(`proto get ${String(k)}`);
        return Reflect.get(t, k, r);
      },
    });
    p.lines.push((c) => { Object.setPrototypeOf(target(c), proto(c)); });
  },
  proto(step, target, path, p) {
    globalName(step.of, path);
    const prototype = (c) => globalOf(step.of, c).prototype;
    const k = keyOf(step.key, path);
    aroundCall(p, prototype, k, descriptor(step, labelOf(step.key), path, p));
  },
  'inherited-setter'(step, target, path, p) {
    const k = keyOf(step.key, path);
    const record = `set ${labelOf(step.key)}`;
    const message = step.throws === undefined ? undefined : String(step.throws);
    aroundCall(p, () => Object.prototype, k, (c) => ({
      set(value) {
        c.effects.push(record);
        if (message !== undefined) throw new Error(message);
      },
      configurable: true,
    }));
  },
  // A built-in's method or accessor recording its calls: see kinds.js.
  patch(step, target, path, p) {
    const owner = patchOwnerOf(step, path);
    const k = keyOf(step.key, path);
    const label = patchLabel(step);
    aroundCall(p, owner, k, (c) => helper.recording(owner(c), k(), c.effects, label));
  },
  pool(step, target, path, p) { p.pool = true; },
  detach(step, target, path, p) {
    p.lines.push((c) => {
      const value = target(c);
      const transfer = isView(target(c)) ? target(c).buffer : target(c);
      structuredClone(value, { transfer: [transfer] });
    });
  },
  resize(step, target, path, p) {
    const to = count(step.to, path, 'to');
    p.lines.push((c) => { (isView(target(c)) ? target(c).buffer : target(c)).resize(to); });
  },
  freeze(step, target, path, p) { p.lines.push((c) => { Object.freeze(target(c)); }); },
  preventExtensions(step, target, path, p) { p.lines.push((c) => { Object.preventExtensions(target(c)); }); },
};

function applyStep(step, target, path, p) {
  const apply = step && Object.hasOwn(steps, step.op) ? steps[step.op] : undefined;
  check(apply, path, () => `unknown tampering step ${JSON.stringify(step?.op)}; one of ${Object.keys(stepNames).join(', ')}`);
  if (onSide(step, p.side, path)) apply(step, target, path, p);
}

// What a patch step replaces a member of, as kinds.js patchOwner names it.
function patchOwnerOf(step, path) {
  const ctor = step.of === 'TypedArray' ? () => Object.getPrototypeOf(Uint8Array) :
    step.of === 'v8.Serializer' || step.of === 'v8.Deserializer' ?
      (c) => c.require('node:v8')[step.of.slice(3)] : (globalName(step.of, path), (c) => globalOf(step.of, c));
  return step.static ? ctor : (c) => ctor(c).prototype;
}

// The function the printed code is the body of: (require, effects) ->
// { value, setup(), teardown(), changed() }. Throws RecipeError as
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
