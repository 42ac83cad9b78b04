'use strict';
// The classes of a recipe node that the coverage view counts (coverage.js):
// its kind, and what of it the codecs branch on (an integer key, a string's
// length and shape, a view's size, a nest's depth), and of a tampering step,
// what it and its getter do. coverage.js walks the recipe and hands each
// node here with the function that counts. The Jazzer.js value target
// instruments this module, so that libFuzzer follows the classes its inputs
// reach, and not that walk: Jazzer.js hooks every compare with a literal and
// every case of a switch, and on the walk's compares, made on every field of
// every node and telling nothing of the input, a check spent much of its
// time. So no switch here: a kind picks its function from a table, whose
// calls libFuzzer tells apart as well.

const { integerKeyClasses } = require('../recipes/vocabulary');

const lengthClasses = [0, 1, 63, 64, 65, 4096, 65536, 1 << 20];

const lengthClassOf = new Set(lengthClasses);
const integerKeyClassOf = new Set(integerKeyClasses);
const primitiveKinds = new Set(['undefined', 'null', 'bool', 'number', 'bigint', 'string']);
const kTwoByte = /[\u0100-\uffff]/;
const kSurrogatePairs = /[\ud800-\udbff][\udc00-\udfff]/g;
const kSurrogate = /[\ud800-\udfff]/;

function stringClasses(v, repeat, shape, add) {
  const length = v.length * repeat;
  if (lengthClassOf.has(length)) add('string length', String(length));
  add('string shape', shape ?? 'literal');
  // A lone surrogate is two-byte too: most strings are neither.
  if (!kTwoByte.test(v)) return;
  add('string shape', 'two-byte');
  if (kSurrogate.test(v.replace(kSurrogatePairs, ''))) add('string shape', 'lone surrogate');
}

function viewClasses(size, add) {
  if (Math.abs(size - 65536) <= 8) add('view', 'around 64 KiB');
  if (size >= 1 << 20) add('view', 'MiB');
}

// Null-prototype tables: a kind or op is whatever string an input holds.
const byKind = Object.assign(Object.create(null), {
  port: (node, add) => add('host', 'port'),
  host: (node, add) => add('host', node.type),
  string(node, add) {
    if (typeof node.v === 'string') stringClasses(node.v, node.repeat ?? 1, node.shape, add);
  },
  nest(node, add) {
    add('depth', node.depth >= 10000 ? 'nest 10000+' : node.depth >= 1000 ? 'nest 1000' : 'nest 2-100');
  },
  range(node, add) {
    if (node.n >= 1000) add('array', (node.every ?? 1) > 1 ? 'long holey' : 'long packed');
  },
  view(node, add) {
    if (typeof node.bytes === 'string') viewClasses(node.bytes.length / 2 * (node.repeat ?? 1), add);
  },
  shapes(node, add) {
    if (node.rows?.length > 1) add('hidden class', node.then?.length ? 'changed' : 'shared');
  },
});

const ordinaryPrototypes = new Set(['Object', 'Array']);

// A node of kind k (a string); top: the recipe's root, the message itself.
function kindClasses(node, k, top, add) {
  add('kind', k);
  if (top && primitiveKinds.has(k)) add('message', 'primitive');
  const { props } = node;
  if (Array.isArray(props)) {
    for (let i = 0; i < props.length; i++) if (integerKeyClassOf.has(props[i][0])) add('integer key', props[i][0]);
  }
  byKind[k]?.(node, add);
}

// A tampering step of op `op` (a string), and what its getter does.
function stepClasses(step, op, add) {
  add('step', op);
  // A step that changes the world, by the side it changes.
  if (op === 'patch' || op === 'pool' || step.side !== undefined) add('world', `${op} ${step.side ?? 'send'}`);
  if (op === 'prototype') {
    const ordinary = ordinaryPrototypes.has(step.of) ? step.of : 'view type';
    add('prototype of', step.proxy ? 'Proxy' : step.of === null ? 'null' : ordinary);
  }
  const { get } = step;
  if (!get) return;
  if (Array.isArray(get.then)) for (let i = 0; i < get.then.length; i++) add('getter effect', get.then[i].op);
  if (get.throws !== undefined) add('getter effect', 'throw');
}

module.exports = { kindClasses, stepClasses, lengthClasses };
