'use strict';
// Leaves: primitives, boxed primitives, dates, regexps, globals, references.
// Each kind (docs/recipes.md): check(node, path) -> what print and plan use;
// print(node, path, gen, checked) -> an expression of the printed code;
// plan(node, path, plan, checked) -> a closure (c) => the same value;
// words(node, say) -> a noun phrase for the titles of findings (words.js);
// and a kind the byte grammar does not draw itself, draw(choices, node, depth, grammar).
const { RecipeError } = require('../errors');
const { lit, check, count, oneOf, number, globalName } = require('../validate');
const { constant, internalized, sloppyFunction, recordingFunction, globalOf, helper } = require('../runtime');

// V8 string representations a `string` recipe can ask for (helpers.js).
const stringShapes = ['cons', 'sliced', 'external', 'thin'];
// A shape of 'literal' is the string as written.
const shapeNames = ['literal', ...stringShapes];
const boxable = ['bool', 'number', 'bigint', 'string'];
const boxedNames = { bool: 'Boolean', number: 'Number', bigint: 'BigInt', string: 'String' };

// A string by what the codecs branch on: its length, its representation, one or two bytes a character.
function stringWords(r, say) {
  const literal = say.literal(r);
  if (literal) return `the string ${literal}`;
  const text = String(r.v ?? '');
  const length = text.length * (r.repeat ?? 1);
  if (length === 0) return 'an empty string';
  const shape = r.shape && r.shape !== 'literal' ? `${r.shape} ` : '';
  const width = [...text].some((c) => c.charCodeAt(0) > 0xff) ? 'two-byte ' : '';
  return `${say.a(`${shape}${width}string`)} of ${length} characters`;
}

const kinds = {
  undefined: { print: () => 'undefined', plan: () => constant(undefined), words: () => '`undefined`' },
  null: { print: () => 'null', plan: () => constant(null), words: () => '`null`' },
  bool: {
    check: (r, path) => check(typeof r.v === 'boolean', path, '"v" must be a boolean'),
    print: (r) => String(r.v),
    plan: (r) => constant(r.v),
    words: (r) => `\`${r.v}\``,
  },
  number: {
    check: (r, path) => number(r.v, path),
    print: (r, path, gen, text) => text,
    plan: (r, path, p, text) => constant(Number(text)),
    words: (r) => `the number \`${Object.is(r.v, -0) ? '-0' : r.v}\``,
  },
  bigint: {
    check: (r, path) => check(typeof r.v === 'string' && /^-?\d+$/.test(r.v), path, '"v" must be a decimal string'),
    print: (r) => `${r.v}n`,
    plan: (r) => constant(BigInt(r.v)),
    words: (r) => `the bigint \`${r.v}n\``,
  },
  // `repeat` makes the long length classes; `shape` the V8 string
  // representation the codec meets.
  string: {
    check(r, path) {
      check(typeof r.v === 'string', path, '"v" must be a string');
      const times = r.repeat === undefined ? 1 : count(r.repeat, path, 'repeat');
      const shape = r.shape === undefined || r.shape === 'literal' ? undefined :
        oneOf(r.shape, shapeNames, path, 'shape') && r.shape;
      return { times, shape };
    },
    print(r, path, gen, { times, shape }) {
      const text = times === 1 ? lit(r.v) : `${lit(r.v)}.repeat(${times})`;
      return shape ? `${gen.helper(shape)}(${text})` : text;
    },
    plan(r, path, p, { times, shape }) {
      const literal = internalized(r.v);
      const text = times === 1 ? constant(literal) : () => literal.repeat(times);
      if (!shape) return text;
      const make = helper[shape];
      return () => make(text());
    },
    words: stringWords,
  },
  // Values no codec can write: a codec that meets one inside a value throws
  // part way through writing it.
  symbol: {
    draw: () => ({ k: 'symbol' }),
    check: (r) => String(r.description ?? ''),
    print: (r, path, gen, description) => `Symbol(${lit(description)})`,
    plan: (r, path, p, description) => () => Symbol(description),
    words: () => 'a symbol',
  },
  // With a `name` or what it `returns`, a function a codec may call as a hook
  // (a serializer's _getSharedArrayBufferId found on Object.prototype): each
  // call made while a codec runs records `call <name>`.
  function: {
    draw: () => ({ k: 'function' }),
    check(r, path) {
      if (r.name === undefined && r.returns === undefined) return null;
      const name = r.name ?? 'f';
      check(typeof name === 'string' && /^[A-Za-z_$][\w$]*$/.test(name), `${path}.name`,
        () => `"name" must be an identifier, got ${JSON.stringify(r.name)}`);
      return name;
    },
    print(r, path, gen, name) {
      if (name === null) return '(function f() {})';
      const returns = r.returns === undefined ? 'undefined' : gen.emit(r.returns, `${path}.returns`);
      return `(function ${name}() { if (effects.codecRunning) effects.push(${lit(`call ${name}`)}); return ${returns}; })`;
    },
    plan(r, path, p, name) {
      if (name === null) return sloppyFunction;
      const returns = r.returns === undefined ? constant(undefined) : p.emit(r.returns, `${path}.returns`);
      return (c) => recordingFunction(name, c.effects, returns(c));
    },
    words: (r) => (r.name === undefined && r.returns === undefined ? 'a function' :
      `a function \`${r.name ?? 'f'}\` that records its call${r.returns?.k === 'number' ? ` and returns ${r.returns.v}` : ''}`),
  },
  global: {
    check: (r, path) => globalName(r.name, path),
    print: (r, path, gen, name) => name,
    plan: (r) => (c) => globalOf(r.name, c),
    words: (r) => `the constructor \`${r.name}\``,
  },

  ref: {
    binds: true, print: (r, path, gen) => gen.ref(r, path), plan: (r, path, p) => p.ref(r, path),
    words: (r, say) => say.ref(r.to),
  },
  hole: {
    check: (r, path) => { throw new RecipeError(path, 'a hole may only stand in "items"'); },
    words: () => 'a hole',
  },

  date: {
    check: (r, path) => number(r.v, path),
    print: (r, path, gen, time) => `new Date(${time})`,
    plan(r, path, p, text) {
      const time = Number(text);
      return () => new Date(time);
    },
    words: () => 'a Date',
  },
  regexp: {
    check(r, path) {
      check(typeof r.source === 'string' && typeof (r.flags ?? '') === 'string', path,
        '"source" and "flags" must be strings');
      return r.flags ?? '';
    },
    print: (r, path, gen, flags) => `new RegExp(${lit(r.source)}, ${lit(flags)})`,
    plan: (r, path, p, flags) => () => new RegExp(r.source, flags),
    words: (r) => `the RegExp \`/${r.source}/${r.flags ?? ''}\``,
  },
  boxed: {
    check: (r, path) => check(boxable.includes(r.of?.k), path, '"of" must be a bool, number, bigint or string recipe'),
    print: (r, path, gen) => `Object(${gen.emit(r.of, `${path}.of`)})`,
    plan(r, path, p) {
      const of = p.emit(r.of, `${path}.of`);
      return (c) => Object(of(c));
    },
    words: (r, say) => say.a(`${boxedNames[r.of?.k] ?? 'boxed'} object`),
  },
};

module.exports = { kinds, stringShapes };
