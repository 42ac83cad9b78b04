'use strict';
// Containers: objects, arrays, maps, sets, errors, and objects made alike.
// They bind themselves before their children, so that children can refer back.
const { lit, check, count, entries, pair, key, oneOf, errorTypes } = require('../validate');
const { printProps, planProps } = require('../props');
const { assign, remove, keyOf, newArray, Unplanned } = require('../runtime');

const hasItems = (list) => Array.isArray(list) && list.length > 0;

// An array by its items (a hole among them says it is holey) and a length past them.
function arrayWords(r, say) {
  const items = Array.isArray(r.items) ? r.items : [];
  const length = r.length === undefined ? '' : ` of length ${r.length}`;
  if (!items.length) return length ? `an array${length}` : 'an empty array';
  return `an array${length} of ${say.items(items, 'items')}`;
}

// A map of one entry by what it maps, of more by how many.
function mapWords(r, say) {
  const entries = Array.isArray(r.entries) ? r.entries : [];
  if (!entries.length) return 'an empty Map';
  if (entries.length > 1 || !Array.isArray(entries[0])) return `a Map of ${entries.length} entries`;
  const [k, v] = entries[0];
  return `a Map whose entry for ${say.literal(k) ?? say.node(k)} is ${say.node(v)}`;
}

const kinds = {
  object: {
    referable: true,
    binds: true,
    print(r, path, gen) {
      const name = gen.bind(r, path, '{}');
      printProps(name, r, path, gen);
      return name;
    },
    plan(r, path, p) {
      const name = p.bind(r, path, () => ({}));
      planProps(name, r, path, p);
      return name;
    },
    words: (r) => (hasItems(r.props) ? 'an object' : 'a plain object'),
  },

  // Items are assigned in order, so an array without holes stays packed (V8
  // writes it dense); a {"k": "hole"} item or a larger length makes it holey
  // (written sparse).
  array: {
    referable: true,
    binds: true,
    check(r, path) {
      const items = entries(r.items, path, 'items');
      const length = r.length === undefined ? undefined : count(r.length, path, 'length');
      return { items, trailingHole: items.length > 0 && items.at(-1)?.k === 'hole', length };
    },
    print(r, path, gen, { items, trailingHole, length }) {
      const name = gen.bind(r, path, '[]');
      for (const [i, item] of items.entries()) {
        if (item?.k === 'hole') continue;
        gen.lines.push(`${name}[${i}] = ${gen.emit(item, `${path}.items[${i}]`)};`);
      }
      if (trailingHole) gen.lines.push(`${name}.length = ${items.length};`);
      if (length !== undefined) gen.lines.push(`${name}.length = ${length};`);
      printProps(name, r, path, gen);
      return name;
    },
    plan(r, path, p, { items, trailingHole, length }) {
      const name = p.bind(r, path, newArray);
      for (const [i, item] of items.entries()) {
        if (item?.k === 'hole') continue;
        const value = p.emit(item, `${path}.items[${i}]`);
        p.lines.push((c) => assign(name(c), i, value(c)));
      }
      if (trailingHole) p.lines.push((c) => assign(name(c), 'length', items.length));
      if (length !== undefined) p.lines.push((c) => assign(name(c), 'length', length));
      planProps(name, r, path, p);
      return name;
    },
    words: arrayWords,
  },

  map: {
    referable: true,
    binds: true,
    check: (r, path) => entries(r.entries, path, 'entries')
      .map((e, i) => pair(e, `${path}.entries[${i}]`, 'an entry is [key, value]')),
    print(r, path, gen, pairs) {
      const name = gen.bind(r, path, 'new Map()');
      for (const [i, [k, v]] of pairs.entries()) {
        const made = gen.emit(k, `${path}.entries[${i}][0]`);
        gen.lines.push(`${name}.set(${made}, ${gen.emit(v, `${path}.entries[${i}][1]`)});`);
      }
      return name;
    },
    plan(r, path, p, pairs) {
      const name = p.bind(r, path, () => new Map());
      for (const [i, [k, v]] of pairs.entries()) {
        const made = p.emit(k, `${path}.entries[${i}][0]`);
        const value = p.emit(v, `${path}.entries[${i}][1]`);
        p.lines.push((c) => { name(c).set(made(c), value(c)); });
      }
      return name;
    },
    words: mapWords,
  },

  set: {
    referable: true,
    binds: true,
    check: (r, path) => entries(r.values, path, 'values'),
    print(r, path, gen, values) {
      const name = gen.bind(r, path, 'new Set()');
      for (const [i, item] of values.entries()) {
        gen.lines.push(`${name}.add(${gen.emit(item, `${path}.values[${i}]`)});`);
      }
      return name;
    },
    plan(r, path, p, values) {
      const name = p.bind(r, path, () => new Set());
      for (const [i, item] of values.entries()) {
        const value = p.emit(item, `${path}.values[${i}]`);
        p.lines.push((c) => { name(c).add(value(c)); });
      }
      return name;
    },
    words: (r, say) => (hasItems(r.values) ? `a Set of ${say.items(r.values, 'values')}` : 'an empty Set'),
  },

  // The default stack names where the value was built: a fixed one keeps
  // the value the same in every process that builds it.
  error: {
    binds: true,
    check(r, path) {
      const type = oneOf(r.type ?? 'Error', errorTypes, path, 'type');
      return { type, stack: r.stack ?? `${type}: ${r.message ?? ''}\n    at ipcfuzz recipe` };
    },
    print(r, path, gen, { type, stack }) {
      const args = [lit(String(r.message ?? ''))];
      if (r.cause !== undefined) args.push(`{ cause: ${gen.emit(r.cause, `${path}.cause`)} }`);
      const name = gen.bind(r, path, `new ${type}(${args.join(', ')})`);
      if (stack === false) gen.lines.push(`delete ${name}.stack;`);
      else gen.lines.push(`${name}.stack = ${lit(stack)};`);
      return name;
    },
    plan(r, path, p, { type, stack }) {
      const message = String(r.message ?? '');
      const cause = r.cause === undefined ? null : p.emit(r.cause, `${path}.cause`);
      const name = p.bind(r, path, cause ?
        (c) => new globalThis[type](message, { cause: cause(c) }) : () => new globalThis[type](message));
      if (stack === false) p.lines.push((c) => remove(name(c), 'stack'));
      // Printed as a JSON literal: a new object at each build.
      else if (typeof stack !== 'string') throw new Unplanned();
      else p.lines.push((c) => assign(name(c), 'stack', stack));
      return name;
    },
    words: (r, say) => [say.a(r.type ?? 'Error'), r.stack === false ? 'without a stack' : '',
      r.cause === undefined ? '' : `whose cause is ${say.node(r.cause)}`].filter(Boolean).join(' '),
  },

  // Objects made alike (same keys, same order), so that they share a hidden
  // class, then changed (`then`: [row, key, recipe]) so that V8 generalizes
  // or deprecates it before the value is sent.
  shapes: {
    referable: true,
    binds: true,
    check(r, path) {
      const keys = entries(r.keys, path, 'keys');
      const rows = entries(r.rows, path, 'rows');
      for (const [i, row] of rows.entries()) {
        check(Array.isArray(row) && row.length === keys.length, `${path}.rows[${i}]`, 'a row has one value per key');
      }
      const then = entries(r.then, path, 'then').map((change, i) => {
        const [row, k, value] = Array.isArray(change) ? change : [];
        check(Number.isInteger(row) && row >= 0 && row < rows.length, `${path}.then[${i}]`,
          'a change is [row, key, recipe] naming an existing row');
        return [row, k, value];
      });
      return { keys, rows, then };
    },
    print(r, path, gen, { keys, rows, then }) {
      const name = gen.bind(r, path, '[]');
      for (const [i, row] of rows.entries()) {
        const object = gen.declare('{}');
        for (const [j, k] of keys.entries()) {
          gen.lines.push(`${object}[${key(k, `${path}.keys[${j}]`)}] = ${gen.emit(row[j], `${path}.rows[${i}][${j}]`)};`);
        }
        gen.lines.push(`${name}.push(${object});`);
      }
      for (const [i, [row, k, value]] of then.entries()) {
        gen.lines.push(`${name}[${row}][${key(k, `${path}.then[${i}]`)}] = ${gen.emit(value, `${path}.then[${i}][2]`)};`);
      }
      return name;
    },
    plan(r, path, p, { keys, rows, then }) {
      const name = p.bind(r, path, newArray);
      for (const [i, row] of rows.entries()) {
        const object = p.declare(() => ({})).read;
        for (const [j, k] of keys.entries()) {
          const keyFn = keyOf(k, `${path}.keys[${j}]`);
          const value = p.emit(row[j], `${path}.rows[${i}][${j}]`);
          p.lines.push((c) => assign(object(c), keyFn(), value(c)));
        }
        p.lines.push((c) => { name(c).push(object(c)); });
      }
      for (const [i, [row, k, value]] of then.entries()) {
        const keyFn = keyOf(k, `${path}.then[${i}]`);
        const made = p.emit(value, `${path}.then[${i}][2]`);
        p.lines.push((c) => assign(name(c)[row], keyFn(), made(c)));
      }
      return name;
    },
    words: (r) => `an array of ${Array.isArray(r.rows) ? r.rows.length : 0} objects of one hidden class` +
      (hasItems(r.then) ? ', then changed' : ''),
  },
};

module.exports = { kinds };
