'use strict';
// Tampering and world steps (a node's `tamper`), each printed and planned
// in one entry: print(step, name, path, gen, checked) adds statements to the
// printed code acting on the variable `name`; plan(step, target, path,
// plan, checked) adds the closures that do the same to what target(c) reads;
// words(step, say) says it for the titles of findings (words.js): a phrase
// after the value's noun ("with …", "whose …", "that …"), or inside a getter
// (`say.acting`) a verb ("deletes `visible`").
const { isDeepStrictEqual } = require('node:util');
const { RecipeError } = require('./errors');
const { lit, check, count, entries, key, labelOf, globalName, globals } = require('./validate');
const { helper, assign, remove, keyOf, constant, run, globalOf, inBody } = require('./runtime');
const {
  worldSides, patchTargets, receivingProtoKeys, receivingProtoAccessors, sendingHooks,
} = require('./vocabulary');

// Steps a getter may run on the object being copied (`then`), or on one of
// its properties (a step with `on`: the key), e.g. deleting a later key or
// detaching a buffer the serializer has yet to reach.
const getterSteps = new Set([
  'set', 'define', 'delete', 'prototype', 'detach', 'resize', 'freeze', 'preventExtensions',
]);
const getterStepList = () => `a getter runs one of ${[...getterSteps].join(', ')}`;

// A getter's body: it records its call, runs its steps, then throws or returns.
function printGetter(step, label, path, gen, name) {
  const get = step.get;
  const body = [`effects.push(${lit(`get ${label}`)});`];
  if (get.then !== undefined) {
    const outer = gen.lines;
    gen.lines = [];
    try {
      for (const [i, then] of entries(get.then, `${path}.get`, 'then').entries()) {
        const where = `${path}.get.then[${i}]`;
        check(getterSteps.has(then?.op), where, getterStepList);
        applyStep(then, then.on === undefined ? name : `${name}[${key(then.on, where)}]`, where, gen, 'print');
      }
      body.push(...gen.lines);
    } finally {
      gen.lines = outer;
    }
  }
  if (get.throws !== undefined) body.push(`throw new Error(${lit(String(get.throws))});`);
  else if (get.returns !== undefined) body.push(`return ${gen.emit(get.returns, `${path}.get.returns`)};`);
  return `get() { ${body.join(' ')} }`;
}

// The same, planned: one that runs steps marks the build as changed (see planRecipe).
function planGetter(step, label, path, p, target) {
  const get = step.get;
  const record = `get ${label}`;
  const { lines, scope } = p.inFunction(() => {
    if (get.then === undefined) return;
    for (const [i, then] of entries(get.then, `${path}.get`, 'then').entries()) {
      const where = `${path}.get.then[${i}]`;
      check(getterSteps.has(then?.op), where, getterStepList);
      let on = target;
      if (then.on !== undefined) {
        const k = keyOf(then.on, where);
        on = (c) => target(c)[k()];
      }
      applyStep(then, on, where, p, 'plan');
    }
  });
  const changes = lines.length > 0;
  const body = (c) => {
    c.effects.push(record);
    if (!changes) return;
    c.changed = true;
    try {
      run(lines, c);
    } catch (err) {
      // Kept for the harness (interpret.js takeFault): the recipe asked for a step that cannot be done.
      c.fault ??= err;
      throw err;
    }
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

// Only where frames are decoded: there a value the decoder reads shows in
// nothing it writes. A sending world's reads show in the frame, and
// child_process's own codec is held to the reference there (conformance/e2e).
const isWatched = (step, builder) => builder.side === 'receive' && !step.get && step.value !== undefined &&
  step.writable !== false;

function checkDescriptor(step, path) {
  if (!step.get && step.value === undefined) throw new RecipeError(path, 'a "define" step needs "value" or "get"');
}

function printDescriptor(step, label, path, gen, name) {
  checkDescriptor(step, path);
  const parts = [step.get ? printGetter(step, label, path, gen, name) : `value: ${gen.emit(step.value, `${path}.value`)}`];
  parts.push(`enumerable: ${step.enumerable !== false}`, 'configurable: true');
  if (!step.get) parts.push(`writable: ${step.writable !== false}`);
  return `{ ${parts.join(', ')} }`;
}

// A property descriptor, made anew where the printed code evaluates its literal.
function planDescriptor(step, label, path, p, target = constant(undefined)) {
  checkDescriptor(step, path);
  const enumerable = step.enumerable !== false;
  if (step.get) {
    const get = planGetter(step, label, path, p, target);
    return (c) => ({ get: get(c), enumerable, configurable: true });
  }
  const value = p.emit(step.value, `${path}.value`);
  const writable = step.writable !== false;
  return (c) => ({ value: value(c), enumerable, configurable: true, writable });
}

// A step that changes shared state (a prototype) for the duration of one call.
// Teardown undoes only what setup managed to install.
function printAroundCall(gen, target, k, newDescriptor) {
  const restore = `restore${gen.setup.length}`;
  gen.lines.push(`let ${restore} = null;`);
  gen.setup.push(`${restore} = ${gen.helper('replace')}(${target}, ${k}, ${newDescriptor});`);
  gen.teardown.push(`${restore}?.();`);
}

function planAroundCall(p, target, k, make) {
  inBody(p);  // its setup could not see what it declared
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

// Built-ins whose methods a `patch` step may replace: globals, the classes
// of node:v8 that the JS codec extends, and %TypedArray%.
const patchOwners = {
  'v8.Serializer': 'require(\'node:v8\').Serializer',
  'v8.Deserializer': 'require(\'node:v8\').Deserializer',
  'TypedArray': 'Object.getPrototypeOf(Uint8Array)',
};
// Every name a patch step's `of` may take.
const patchOwnerNames = [...Object.keys(patchOwners), ...globals];
const patchLabel = (step) => `${step.of}${step.static ? '' : '.prototype'}.${labelOf(step.key)}`;

const isView = ArrayBuffer.isView;
// The [of, key] of `list` a proto step names, for encoding it.
const protoOf = (list, s) => s && list.find(([of, key]) => of === s.of && key === s.key);

// Inside a getter, a step acts on the object being copied, or with `on` on one of its properties.
const subject = (say) => (say.on == null ? 'it' : say.key(say.on));
const ofSubject = (say) => (say.on == null ? '' : ` of ${say.key(say.on)}`);
const valueWords = (value, say) => say.literal(value) ?? say.node(value);

// A getter by its key and what it does when a codec reads it.
function getterWords(step, say) {
  const get = step.get;
  const then = get.then === undefined ? '' : say.then(get.then);
  // A getter that only throws is "a throwing getter"; one that does more, does it and throws.
  const throwing = get.throws !== undefined && !then;
  const does = [then, get.throws !== undefined && then ? 'throws' : '',
    get.returns !== undefined ? `returns ${valueWords(get.returns, say)}` : ''].filter(Boolean);
  const traits = `${step.enumerable === false ? 'non-enumerable ' : ''}${throwing ? 'throwing ' : ''}`;
  return `${say.a(`${traits}getter on ${say.key(step.key)}`)}${does.length ? ` that ${say.list(does)}` : ''}`;
}

function defineWords(step, say) {
  if (step.get) return `${say.acting ? 'defines' : 'with'} ${getterWords(step, say)}${ofSubject(say)}`;
  const hidden = step.enumerable === false;
  const k = say.key(step.key);
  if (say.acting) {
    return `defines ${k}${ofSubject(say)} as ${hidden ? 'a non-enumerable ' : ''}${valueWords(step.value, say)}`;
  }
  const literal = say.literal(step.value);
  const own = `${hidden ? 'a non-enumerable' : 'an'} own ${k}`;
  return literal ? `with ${own} of ${literal}` : `with ${own} holding ${say.node(step.value)}`;
}

function prototypeWords(step, say) {
  const base = step.of === null ? 'null' : `\`${step.of}.prototype\``;
  const proto = step.proxy ? `a Proxy of ${step.of === null ? 'an empty object' : base}` : base;
  if (say.acting) return `sets the prototype${ofSubject(say)} to ${proto}`;
  if (step.proxy) return `whose prototype is ${proto}`;
  return step.of === null ? 'with a null prototype' : `with ${proto} as its prototype`;
}

function protoWords(step, say) {
  const k = say.key(step.key);
  const what = step.get ? `a getter for ${k}` : `${k} set to ${valueWords(step.value, say)}`;
  return `with ${what} on \`${step.of}.prototype\` ${say.side(step)}`;
}

function detachWords(step, say) {
  if (say.acting) return say.on == null ? 'detaches its buffer' : `detaches the buffer of ${say.key(say.on)}`;
  return say.holder?.k === 'arraybuffer' ? 'that is detached' : 'on a detached ArrayBuffer';
}

const definitions = {
  set: {
    print(step, name, path, gen) {
      gen.lines.push(`${name}[${key(step.key, path)}] = ${gen.emit(step.value, `${path}.value`)};`);
    },
    plan(step, target, path, p) {
      const k = keyOf(step.key, path);
      const value = p.emit(step.value, `${path}.value`);
      p.lines.push((c) => assign(target(c), k(), value(c)));
    },
    words: (step, say) => (say.acting ? `sets ${say.key(step.key)}${ofSubject(say)} to ${valueWords(step.value, say)}` :
      `with ${say.key(step.key)} set to ${valueWords(step.value, say)}`),
  },
  define: {
    print(step, name, path, gen) {
      const k = key(step.key, path);
      gen.lines.push(`Object.defineProperty(${name}, ${k}, ${printDescriptor(step, labelOf(step.key), path, gen, name)});`);
    },
    plan(step, target, path, p) {
      const k = keyOf(step.key, path);
      const make = planDescriptor(step, labelOf(step.key), path, p, target);
      p.lines.push((c) => { Object.defineProperty(target(c), k(), make(c)); });
    },
    words: defineWords,
  },
  delete: {
    print(step, name, path, gen) { gen.lines.push(`delete ${name}[${key(step.key, path)}];`); },
    plan(step, target, path, p) {
      const k = keyOf(step.key, path);
      p.lines.push((c) => remove(target(c), k()));
    },
    words: (step, say) => (say.acting ? `deletes ${say.key(step.key)}${say.on == null ? '' : ` from ${subject(say)}`}` :
      `with ${say.key(step.key)} deleted`),
  },
  // `proxy`: the prototype is a Proxy of it whose reads are recorded.
  prototype: {
    check: (step, path) => step.of === null ? 'null' : `${globalName(step.of, path)}.prototype`,
    print(step, name, path, gen, to) {
      const proxy = `new Proxy(${step.of === null ? 'Object.create(null)' : to}, { get(t, k, r) { ` +
        'effects.push(`proto get ${String(k)}`); return Reflect.get(t, k, r); } })';
      gen.lines.push(`Object.setPrototypeOf(${name}, ${step.proxy ? proxy : to});`);
    },
    plan(step, target, path, p) {
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
    words: prototypeWords,
  },
  // Replaces a property of a built-in prototype (e.g. Buffer.prototype.constructor).
  // A writable value in a receiving world is put there watched (helpers.js): which codec reads it is an effect.
  proto: {
    check: (step, path) => globalName(step.of, path),
    print(step, name, path, gen, of) {
      const k = key(step.key, path);
      const label = labelOf(step.key);
      const descriptor = !isWatched(step, gen) ? printDescriptor(step, label, path, gen) :
        `${gen.helper('watched')}(${k}, ${gen.emit(step.value, `${path}.value`)}, effects, ${lit(label)}, ` +
        `${step.enumerable !== false})`;
      printAroundCall(gen, `${of}.prototype`, k, descriptor);
    },
    plan(step, target, path, p) {
      const prototype = (c) => globalOf(step.of, c).prototype;
      const k = keyOf(step.key, path);
      const label = labelOf(step.key);
      if (!isWatched(step, p)) {
        planAroundCall(p, prototype, k, planDescriptor(step, label, path, p));
        return;
      }
      const value = p.emit(step.value, `${path}.value`);
      const enumerable = step.enumerable !== false;
      planAroundCall(p, prototype, k, (c) => helper.watched(k(), value(c), c.effects, label, enumerable));
    },
    words: protoWords,
  },
  // An Object.prototype setter, as in the review repro of the native codec.
  'inherited-setter': {
    print(step, name, path, gen) {
      const k = key(step.key, path);
      const body = [`effects.push(${lit(`set ${labelOf(step.key)}`)});`];
      if (step.throws !== undefined) body.push(`throw new Error(${lit(String(step.throws))});`);
      printAroundCall(gen, 'Object.prototype', k, `{ set(value) { ${body.join(' ')} }, configurable: true }`);
    },
    plan(step, target, path, p) {
      const k = keyOf(step.key, path);
      const record = `set ${labelOf(step.key)}`;
      const message = step.throws === undefined ? undefined : String(step.throws);
      planAroundCall(p, () => Object.prototype, k, (c) => ({
        set(value) {
          c.effects.push(record);
          if (message !== undefined) throw new Error(message);
        },
        configurable: true,
      }));
    },
    words: (step, say) => `with a setter for ${say.key(step.key)} on \`Object.prototype\`` +
      `${step.throws === undefined ? '' : ' that throws'} ${say.side(step)}`,
  },
  // Replaces a built-in method or accessor (a prototype's, `static`: the
  // constructor's own) by one that records its calls and does what it did.
  patch: {
    check: (step, path) => (Object.hasOwn(patchOwners, step.of) ? null : globalName(step.of, path)),
    print(step, name, path, gen, global) {
      const ctor = global ?? patchOwners[step.of];
      const owner = step.static ? ctor : `${ctor}.prototype`;
      const k = key(step.key, path);
      printAroundCall(gen, owner, k, `${gen.helper('recording')}(${owner}, ${k}, effects, ${lit(patchLabel(step))})`);
    },
    plan(step, target, path, p) {
      const of = step.of;
      const ctor = of === 'TypedArray' ? () => Object.getPrototypeOf(Uint8Array) :
        of === 'v8.Serializer' || of === 'v8.Deserializer' ? (c) => c.require('node:v8')[of.slice(3)] :
          (c) => globalOf(of, c);
      const owner = step.static ? ctor : (c) => ctor(c).prototype;
      const k = keyOf(step.key, path);
      const label = patchLabel(step);
      planAroundCall(p, owner, k, (c) => helper.recording(owner(c), k(), c.effects, label));
    },
    words: (step, say) => `with \`${patchLabel(step)}\` replaced ${say.side(step)}`,
  },
  // Buffer's pool: how far each codec call moved its offset is an effect.
  pool: {
    print(step, name, path, gen) { gen.pool = true; },
    plan(step, target, path, p) { p.pool = true; },
    words: (step, say) => `with Buffer's pool watched ${say.side(step)}`,
  },
  detach: {
    print(step, name, path, gen) {
      gen.lines.push(`structuredClone(${name}, { transfer: [ArrayBuffer.isView(${name}) ? ${name}.buffer : ${name}] });`);
    },
    plan(step, target, path, p) {
      p.lines.push((c) => {
        const value = target(c);
        const transfer = isView(target(c)) ? target(c).buffer : target(c);
        structuredClone(value, { transfer: [transfer] });
      });
    },
    words: detachWords,
  },
  resize: {
    check: (step, path) => count(step.to, path, 'to'),
    print(step, name, path, gen, to) {
      gen.lines.push(`(ArrayBuffer.isView(${name}) ? ${name}.buffer : ${name}).resize(${to});`);
    },
    plan(step, target, path, p, to) {
      p.lines.push((c) => { (isView(target(c)) ? target(c).buffer : target(c)).resize(to); });
    },
    words: (step, say) => (say.acting ? `resizes the buffer${ofSubject(say)} to ${say.bytes(step.to)}` :
      `with its buffer resized to ${say.bytes(step.to)}`),
  },
  freeze: {
    print(step, name, path, gen) { gen.lines.push(`Object.freeze(${name});`); },
    plan(step, target, path, p) { p.lines.push((c) => { Object.freeze(target(c)); }); },
    words: (step, say) => (say.acting ? `freezes ${subject(say)}` : 'that is frozen'),
  },
  preventExtensions: {
    print(step, name, path, gen) { gen.lines.push(`Object.preventExtensions(${name});`); },
    plan(step, target, path, p) { p.lines.push((c) => { Object.preventExtensions(target(c)); }); },
    words: (step, say) => (say.acting ? `makes ${subject(say)} non-extensible` : 'that is not extensible'),
  },
};

// One shape for every step, so that reads of them stay monomorphic.
const steps = Object.fromEntries(Object.entries(definitions).map(([op, step]) =>
  [op, { check: step.check ?? null, print: step.print, plan: step.plan, words: step.words ?? null }]));

// The world steps the byte grammar and the arbitraries draw, each variant
// with its step and the sides it is drawn on (coverage.js counts each). In
// the order the grammar picks them by: a variant added goes last, so that
// seeds written before it decode as they did.
const worldVariants = Object.freeze({
  patch: { op: 'patch', sides: worldSides, draw: (choices, s) => {
    const given = s && patchTargets.find((target) => target.of === s.of && isDeepStrictEqual(target.key, s.key) &&
      Boolean(target.static) === Boolean(s.static));
    return { op: 'patch', ...choices.pick(patchTargets, given), side: choices.pick(worldSides, s?.side) };
  } },
  // Buffer's pool, watched on either side.
  pool: { op: 'pool', sides: worldSides,
    draw: (choices, s) => ({ op: 'pool', side: choices.pick(worldSides, s?.side) }) },
  // A data property or a getter-only accessor on a receiving process's
  // prototype, a hook on a sending process's (vocabulary.js says where).
  proto: { op: 'proto', sides: ['receive'], draw: (choices, s) => {
    const [of, key] = choices.pick(receivingProtoKeys, protoOf(receivingProtoKeys, s));
    return { op: 'proto', of, key, value: { k: 'number', v: choices.pick([2, 3, 0.5], s?.value.v) }, side: 'receive' };
  } },
  accessor: { op: 'proto', sides: ['receive'], draw: (choices, s) => {
    const [of, key] = choices.pick(receivingProtoAccessors, protoOf(receivingProtoAccessors, s));
    return { op: 'proto', of, key, get: {}, side: 'receive' };
  } },
  hook: { op: 'proto', sides: ['send'], draw: (choices, s) => {
    const [of, key] = choices.pick(sendingHooks, protoOf(sendingHooks, s));
    const returns = { k: 'number', v: choices.pick([0, 1], s?.value.returns?.v) };
    return { op: 'proto', of, key, value: { k: 'function', name: key, returns }, side: 'send' };
  } },
  // A codec that builds the objects it copies or decodes by assignment, not
  // by definition, runs the setter. Named keys only: an index setter on
  // Object.prototype runs for every array any code pushes to.
  setter: { op: 'inherited-setter', sides: worldSides, draw: (choices, s) => {
    const step = { op: 'inherited-setter', key: choices.pick(['visible', 'x', 'data', 'a'], s?.key) };
    if (choices.flag(s?.throws !== undefined)) step.throws = 'setter called';
    return { ...step, side: choices.pick(worldSides, s?.side) };
  } },
});
// The steps that take a side: those drawn as a world step.
const worldSteps = new Set(Object.values(worldVariants).map((variant) => variant.op));

// The side of a check a world step changes: the process that serializes
// (`send`, the default), the one that decodes the frames (`receive`), or both.
function sideOf(step, path) {
  const side = step?.side ?? 'send';
  check(worldSides.includes(side) && (side === 'send' || worldSteps.has(step?.op)), path,
    () => `"side" must be one of ${worldSides.join(', ')}, on a ${[...worldSteps].join(', ')} step`);
  return side;
}

// Prints or plans (`how`) one step, where the side being built is (`builder.side`:
// 'send' unless a receiving world is, see compileWorld and planWorld).
function applyStep(step, target, path, builder, how) {
  const def = step && Object.hasOwn(steps, step.op) ? steps[step.op] : undefined;
  check(def, path, () => `unknown tampering step ${lit(step?.op)}; one of ${Object.keys(steps).join(', ')}`);
  const side = sideOf(step, path);
  if (side !== 'both' && side !== (builder.side ?? 'send')) return;
  def[how](step, target, path, builder, def.check === null ? undefined : def.check(step, path));
}

module.exports = {
  steps, applyStep, getterSteps, worldSteps, worldVariants, patchOwners, patchOwnerNames, patchLabel,
};
