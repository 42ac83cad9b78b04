'use strict';
// The checks every kind definition (kinds/) shares, so that a recipe is
// refused with the same words whether it is printed or planned, and the
// names a recipe may use.
const { RecipeError } = require('./errors');
const { viewTypes, bytesPerElement } = require('../wire/tags');

const lit = (v) => JSON.stringify(v);

const errorTypes = ['Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError',
  'TypeError', 'URIError'];
// Names a recipe may use as values (`global`) and whose prototypes steps may touch.
const globals = new Set([...viewTypes, ...errorTypes, 'Object', 'Array', 'Map', 'Set', 'Date',
  'RegExp', 'ArrayBuffer', 'SharedArrayBuffer', 'Number', 'String', 'Boolean', 'BigInt',
  'Function', 'Symbol', 'MessagePort']);

// message: a string, or a function that makes it (a list of names joined at
// each check would cost every planned recipe).
function check(ok, path, message) {
  if (!ok) throw new RecipeError(path, typeof message === 'function' ? message() : message);
}

function hex(value, path, field = 'bytes') {
  check(typeof value === 'string' && /^(?:[0-9a-fA-F]{2})*$/.test(value), path,
    `"${field}" must be a hex string`);
  return value.toLowerCase();
}

function count(value, path, field) {
  check(Number.isInteger(value) && value >= 0 && value <= 2 ** 32, path,
    `"${field}" must be a whole number of at most 2^32`);
  return value;
}

function oneOf(value, list, path, field) {
  check(list.includes(value), path, () => `"${field}" must be one of ${list.join(', ')}`);
  return value;
}

// The global a name stands for, as the printed code spells it.
function globalName(name, path) {
  check(globals.has(name), path, () => `${lit(name)} is not a known global`);
  return name === 'MessagePort' ? 'require(\'node:worker_threads\').MessagePort' : name;
}

// A key as the printed code spells it.
function key(k, path) {
  if (typeof k === 'string') return lit(k);
  if (k && typeof k.symbol === 'string') return `Symbol(${lit(k.symbol)})`;
  if (k && typeof k.wellKnown === 'string' && typeof Symbol[k.wellKnown] === 'symbol') {
    return `Symbol.${k.wellKnown}`;
  }
  throw new RecipeError(path, 'a key is a string, {"symbol": description} or {"wellKnown": name}');
}

function labelOf(k) {
  if (typeof k === 'string') return k;
  return k.symbol !== undefined ? `Symbol(${k.symbol})` : `Symbol.${k.wellKnown}`;
}

function entries(list, path, field) {
  check(Array.isArray(list ?? []), path, `"${field}" must be an array`);
  return list ?? [];
}

// A [key, recipe] pair of `props`, checked.
function pair(p, path, message = 'a property is [key, recipe]') {
  check(Array.isArray(p) && p.length === 2, path, message);
  return p;
}

// A number as the printed code spells it.
function number(v, path) {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  check(['-0', 'NaN', 'Infinity', '-Infinity'].includes(v), path,
    '"v" must be a number or one of "-0", "NaN", "Infinity", "-Infinity"');
  return v;
}

// A view's bytes and where they sit, checked: type, hex bytes `repeat`
// times (views of 64 KiB and more), an element-aligned offset.
function viewLayout(r, path) {
  oneOf(r.type, viewTypes, path, 'type');
  const bytes = hex(r.bytes ?? '', path);
  const times = r.repeat === undefined ? 1 : count(r.repeat, path, 'repeat');
  const size = bytes.length / 2 * times;
  const width = bytesPerElement[r.type] ?? 1;
  check(size % width === 0, path, `${r.type} needs a multiple of ${width} bytes`);
  const offset = count(r.offset ?? 0, path, 'offset');
  check(offset % width === 0, path, `a ${r.type} offset must be a multiple of ${width}`);
  return { bytes, times, size, width, offset };
}

module.exports = {
  lit, errorTypes, globals, check, hex, count, oneOf, globalName, key, labelOf, entries, pair, number, viewLayout,
};
