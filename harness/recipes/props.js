'use strict';
// `props` of objects, arrays, ports and host objects: [key, recipe] pairs
// assigned in order, printed and planned.
const { entries, pair, key } = require('./validate');
const { assign, keyOf } = require('./runtime');

function printProps(name, r, path, gen) {
  for (const [i, p] of entries(r.props, path, 'props').entries()) {
    pair(p, `${path}.props[${i}]`);
    const value = gen.emit(p[1], `${path}.props[${i}][1]`);
    gen.lines.push(`${name}[${key(p[0], `${path}.props[${i}][0]`)}] = ${value};`);
  }
}

function planProps(name, r, path, plan) {
  for (const [i, p] of entries(r.props, path, 'props').entries()) {
    pair(p, `${path}.props[${i}]`);
    const value = plan.emit(p[1], `${path}.props[${i}][1]`);
    const k = keyOf(p[0], `${path}.props[${i}][0]`);
    plan.lines.push((c) => assign(name(c), k(), value(c)));
  }
}

module.exports = { printProps, planProps };
