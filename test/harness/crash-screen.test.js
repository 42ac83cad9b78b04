'use strict';
const assert = require('node:assert/strict');
const { screen } = require('../../harness/recipes/crash-shapes');
const { BlockingWorker } = require('../../harness/run/blocking-driver');
const { node26 } = require('../fixtures/helpers');

const port = (props, extra) => ({ recipe: { k: 'port', props, ...extra } });
const num = { k: 'number', v: 1 };

describe('crash screen', function () {
  it('screens a host object with an index key, own or added by a getter', function () {
    assert.equal(screen(port([['0', num]])), 'index key on a host object');
    assert.equal(screen(port([['2147483647', num]])), 'index key on a host object');
    assert.equal(screen(port([['4294967294', num]])), 'index key on a host object');
    assert.equal(screen({ recipe: { k: 'nest', in: 'host', depth: 3, leaf: num, tamper: [{ op: 'set', key: '7' }] } }),
      'index key on a host object');
    const aimed = { op: 'define', key: 'a', get: { then: [{ op: 'set', on: 'p', key: '3', value: num }] } };
    assert.equal(screen({ recipe: { k: 'object', props: [['p', { k: 'port', props: [] }]], tamper: [aimed] } }),
      'index key on a host object');
    const getter = { op: 'define', key: 'a', get: { then: [{ op: 'set', key: '12', value: num }] } };
    assert.equal(screen({ recipe: { k: 'host', type: 'x509', props: [], tamper: [getter] } }),
      'index key on a host object');
  });

  it('lets through keys that are no index and objects that are no host object', function () {
    for (const key of ['4294967295', '01', '-0', '1e3', 'a']) {
      assert.equal(screen(port([[key, num]])), null, key);
    }
    // Steps that put the key on a prototype, or take it away, or define it as not enumerable, give the host
    // object no index key that the codec copies; nor has a WebAssembly.Module keys that it copies.
    assert.equal(screen(port([], { tamper: [{ op: 'define', key: '0', value: num, enumerable: false }] })), null);
    assert.equal(screen({ recipe: { k: 'host', type: 'wasm-module', props: [['0', num]] } }), null);
    for (const op of ['inherited-setter', 'proto', 'delete']) {
      assert.equal(screen({ recipe: { k: 'port', props: [], tamper: [{ op, key: '0', of: 'Object', value: num }] } }),
        null, op);
    }
    assert.equal(screen({ recipe: { k: 'object', props: [['0', num]] } }), null);
    assert.equal(screen({ recipe: { k: 'array', items: [{ k: 'port', props: [['a', num]] },
      { k: 'object', props: [['1', num]], tamper: [{ op: 'define', key: '7', value: num }] }] } }), null);
    assert.equal(screen({ recipe: { k: 'view', type: 'Uint8Array', bytes: '00', tamper: [{ op: 'set', key: '0' }] } }),
      null);
    assert.equal(screen({ bytes: '00' }), null);
  });

  // What the screen claims of the binary: an own index key on a host object
  // crashes it, one on a prototype does not.
  it('lets through only what ipc_serdes of 26.12.1 does not crash on', function () {
    this.timeout(60_000);
    const worker = new BlockingWorker(node26, { timeoutMs: 10_000 });
    try {
      const cases = [port([['2147483647', num]]), { recipe: { k: 'host', type: 'secret-key', props: [['1', num]] } },
        { recipe: { k: 'host', type: 'x509', props: [], tamper: [{ op: 'inherited-setter', key: '0' }] } },
        { recipe: { k: 'port', props: [], tamper: [{ op: 'proto', of: 'Object', key: '0', value: num }] } },
        port([], { tamper: [{ op: 'define', key: '0', get: { returns: num }, enumerable: false }] }),
        { recipe: { k: 'host', type: 'wasm-module', props: [['0', num]] } }];
      const serialize = (input) => worker.request({ op: 'serialize', codec: 'native', input });
      const crashed = cases.map((input) => serialize(input).kind === 'crash');
      assert.deepEqual(crashed, cases.map((input) => screen(input) !== null));
      assert.deepEqual(crashed, [true, true, false, false, false, false]);
    } finally {
      worker.close();
    }
  });

  it('screens every value module', function () {
    assert.equal(screen({ module: '/x.js' }), 'value module');
  });
});
