'use strict';
// Values whose size is a parameter: nests up to and past the stack limit,
// long arrays of numbers.
const { hostTypes } = require('../hosts');
const { check, count, oneOf } = require('../validate');
const { helper, withRequire, constant, newArray, holeyArray } = require('../runtime');
const { makeHost, hostWords } = require('./host-objects');

// Containers a `nest` recipe wraps its leaf in.
const nestings = {
  object: '(v) => ({ a: v })',
  array: '(v) => [v]',
  map: '(v) => new Map([[0, v]])',
  set: '(v) => new Set([v])',
  host: `(v) => Object.assign(${hostTypes['secret-key']}, { a: v })`,
};
const nestingNames = Object.keys(nestings);
const nestingWords = {
  object: 'an object', array: 'an array', map: 'a Map', set: 'a Set', host: hostWords['secret-key'],
};
const makeWrap = Object.fromEntries(Object.entries(nestings).map(([name, expr]) => [name, withRequire(expr)]));
// A nest of host objects is a nest of secret keys: copies too.
makeWrap.host = (require) => (v) => Object.assign(makeHost['secret-key'](require), { a: v });
// An array made by a literal in shared code would learn from the ones before (runtime.js newArray).
const wrapArray = (v) => Array.of(v);

const kinds = {
  // `leaf` wrapped `depth` times in a container.
  nest: {
    check(r, path) {
      oneOf(r.in, nestingNames, path, 'in');
      const depth = count(r.depth, path, 'depth');
      check(depth <= 100000, path, '"depth" must be at most 100000');
      return depth;
    },
    print(r, path, gen, depth) {
      const leaf = r.leaf === undefined ? 'null' : gen.emit(r.leaf, `${path}.leaf`);
      return `${gen.helper('nest')}(${leaf}, ${depth}, ${nestings[r.in]})`;
    },
    plan(r, path, p, depth) {
      const leaf = r.leaf === undefined ? constant(null) : p.emit(r.leaf, `${path}.leaf`);
      if (r.in === 'array') return (c) => helper.nest(leaf(c), depth, wrapArray);
      const make = makeWrap[r.in];
      return (c) => helper.nest(leaf(c), depth, make(c.require));
    },
    words(r, say) {
      const around = r.leaf === undefined || r.leaf?.k === 'null' ? '' : ` around ${say.node(r.leaf)}`;
      return `${nestingWords[r.in] ?? 'a value'} nested ${r.depth} deep${around}`;
    },
  },

  // A long array of numbers: packed (`every` 1, written dense) or holey with
  // every `every`-th index set (written sparse); doubles or small integers.
  range: {
    check(r, path) {
      const n = count(r.n, path, 'n');
      check(n <= 1 << 24, path, '"n" must be at most 2^24');
      const every = r.every === undefined ? 1 : count(r.every, path, 'every');
      return { n, every };
    },
    print(r, path, gen, { n, every }) {
      const item = r.double ? 'i + 0.5' : 'i';
      if (every <= 1) return `Array.from({ length: ${n} }, (_, i) => ${item})`;
      return `((a) => { for (let i = 0; i < ${n}; i += ${every}) a[i] = ${item}; return a; })(new Array(${n}))`;
    },
    plan(r, path, p, { n, every }) {
      const offset = r.double ? 0.5 : 0;
      // Pushed, the array is packed, as Array.from makes it (V8 writes a
      // holey one as sparse), and made faster than by Array.from.
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
    words: (r) => ((r.every ?? 1) > 1 ? `a holey array of length ${r.n}, one index in ${r.every} set` :
      `an array of ${r.n} ${r.double ? 'doubles' : 'numbers'}`),
  },
};

module.exports = { kinds, nestings };
