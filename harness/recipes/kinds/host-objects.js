'use strict';
// Host objects: a MessagePort, the other API objects of hosts.js, and the
// interceptor-backed stores, process.env and sessionStorage.
const { hostTypes } = require('../hosts');
const { entries, pair, key, oneOf } = require('../validate');
const { printProps, planProps } = require('../props');
const { withRequire, keyOf, helper, inBody } = require('../runtime');

// Parsing a key costs far more than copying one: a copy of a key parsed
// once, made by structuredClone, is a new KeyObject of the same class, own
// properties and key material, the same value to both codecs. A copied
// X509Certificate has another prototype: certificates are parsed each time.
const kCopied = new Set(['secret-key', 'private-key', 'public-key']);
function copies(type, expr) {
  const make = withRequire(expr);
  if (!kCopied.has(type)) return make;
  let original;
  return (require) => structuredClone(original ??= make(require));
}
const makeHost = Object.fromEntries(Object.entries(hostTypes).map(([type, expr]) => [type, copies(type, expr)]));
const hostNames = Object.keys(hostTypes);
// Each host type as the titles of findings name it.
const hostWords = {
  'secret-key': 'a secret KeyObject', 'public-key': 'a public KeyObject', 'private-key': 'a private KeyObject',
  x509: 'an X509Certificate', 'wasm-module': 'a WebAssembly.Module',
};

// `v<n>.port1.close();` of the printed code's teardown, with its message when
// a tampering step left the port without a close method.
function closePort(c, channel, port) {
  const object = channel.read(c)[port];
  const close = object.close;
  if (typeof close !== 'function') throw new TypeError(`v${channel.index}.${port}.close is not a function`);
  Reflect.apply(close, object, []);
}

// For the codec call (setup to teardown) a store holds `props` alone, in
// order, as strings; what it held before is put back after.
function interceptorHost(target, store) {
  const pairsOf = (r, path) => entries(r.props, path, 'props').map((p, i) => pair(p, `${path}.props[${i}]`));
  return {
    check: pairsOf,
    print(r, path, gen, pairs) {
      const printed = pairs.map(([k, v], i) =>
        `[${key(k, `${path}.props[${i}][0]`)}, ${gen.emit(v, `${path}.props[${i}][1]`)}]`);
      const restore = `restore${gen.setup.length}`;
      gen.lines.push(`let ${restore} = null;`);
      gen.setup.push(`${restore} = ${gen.helper('holding')}(${target}, [${printed.join(', ')}]);`);
      gen.teardown.push(`${restore}?.();`);
      return target;
    },
    plan(r, path, p, pairs) {
      inBody(p);  // its setup could not see what it declared
      const planned = pairs.map(([k, v], i) =>
        [keyOf(k, `${path}.props[${i}][0]`), p.emit(v, `${path}.props[${i}][1]`)]);
      const n = p.saves++;
      p.setup.push((c) => { c.saved[n] = helper.holding(store(), planned.map(([k, v]) => [k(), v(c)])); });
      p.teardown.push((c) => c.saved[n]?.());
      return store;
    },
    words: () => `\`${target}\``,
  };
}

const kinds = {
  // A MessagePort is a real host object; it is closed again after the call.
  port: {
    referable: true,
    binds: true,
    print(r, path, gen) {
      gen.require('MessageChannel', 'node:worker_threads');
      const channel = gen.declare('new MessageChannel()');
      gen.closes.push(`${channel}.port1.close();`, `${channel}.port2.close();`);
      const name = gen.bind(r, path, `${channel}.port1`);
      printProps(name, r, path, gen);
      return name;
    },
    plan(r, path, p) {
      const channel = p.declare((c) => new (c.require('node:worker_threads').MessageChannel)());
      p.closes.push((c) => closePort(c, channel, 'port1'), (c) => closePort(c, channel, 'port2'));
      const name = p.bind(r, path, (c) => channel.read(c).port1);
      planProps(name, r, path, p);
      return name;
    },
    words: () => 'a MessagePort',
  },

  // Other host objects (KeyObjects, X509Certificate) and the WebAssembly.Module.
  host: {
    referable: true,
    binds: true,
    check: (r, path) => oneOf(r.type, hostNames, path, 'type'),
    print(r, path, gen, type) {
      const name = gen.bind(r, path, hostTypes[type]);
      printProps(name, r, path, gen);
      return name;
    },
    plan(r, path, p, type) {
      const make = makeHost[type];
      const name = p.bind(r, path, (c) => make(c.require));
      planProps(name, r, path, p);
      return name;
    },
    words: (r) => hostWords[r.type] ?? 'a host object',
  },

  // Host objects whose properties come from interceptors, not own data
  // properties: the process's one `process.env` and `sessionStorage`.
  env: interceptorHost('process.env', () => process.env),
  storage: interceptorHost('sessionStorage', () => globalThis.sessionStorage),
};

// The kinds above whose value is a shared interceptor-backed host object.
const interceptorHosts = { env: 'process.env', storage: 'sessionStorage' };

module.exports = { kinds, interceptorHosts, makeHost, hostWords };
