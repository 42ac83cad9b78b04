'use strict';
// Value recipes: every kind and tampering step builds (in a 26.12.1 worker)
// the value it describes, and a malformed recipe is a RecipeError naming the
// JSON path of the offending node.
const assert = require('node:assert/strict');
const { compileRecipe } = require('../../harness/recipes/codegen');
const { RecipeError } = require('../../harness/recipes/errors');
const { viewTypes, bytesPerElement } = require('../../harness/wire/tags');
const { UsageError } = require('../../harness/base/errors');
const { fixture, useWorker } = require('../fixtures/helpers');

const num = (v) => ({ k: 'number', v });
const str = (v) => ({ k: 'string', v });
const obj = (props, extra) => ({ k: 'object', props, ...extra });
const keysOf = (tree) => tree.props.map(([k]) => k);
const prop = (tree, key) => tree.props.find(([k]) => k === key)?.[1];

describe('recipes', function () {
  const worker = useWorker();

  // Serializes the recipe's value with js and decodes the frame again.
  async function build(recipe) {
    const serialized = await worker.request({ op: 'serialize', codec: 'js', input: { recipe } });
    if (serialized.kind !== 'ok') return { serialized };
    const decoded = await worker.request({ op: 'deserialize', codec: 'js', bytes: serialized.bytes.slice(8) });
    return { serialized, tree: decoded.tree };
  }
  const trees = async (recipes) => (await Promise.all(recipes.map(build))).map((r) => {
    assert.equal(r.serialized.kind, 'ok', JSON.stringify(r.serialized));
    return r.tree;
  });

  describe('kinds', function () {
    it('build primitives, special numbers and bigints', async function () {
      const [u, n, t, ints, big, s] = await trees([
        { k: 'undefined' }, { k: 'null' }, { k: 'bool', v: true },
        // JSON has no -0: recipes spell it "-0".
        { k: 'array', items: [num('-0'), num('NaN'), num('Infinity'), num('-Infinity'), num(1.5), num(0)] },
        { k: 'bigint', v: '-123456789012345678901234567890' },
        str('a\uD800\u{1F600}'),
      ]);
      assert.deepEqual([u.t, n.t, t.t, t.v], ['undefined', 'null', 'boolean', true]);
      assert.deepEqual(ints.props.map(([, v]) => v.v), ['-0', 'NaN', 'Infinity', '-Infinity', '1.5', '0']);
      assert.equal(big.v, '-123456789012345678901234567890');
      assert.equal(s.v, 'a\uD800\u{1F600}');
    });

    it('build host objects, long and shaped strings, nests, long arrays and shared shapes', async function () {
      const [key, cert, text, sliced, nest, range, shapes] = await trees([
        { k: 'host', type: 'secret-key', props: [['2147483648', num(1)]] },
        { k: 'host', type: 'x509', props: [['a', num(2)]] },
        { k: 'string', v: '\u20ac', repeat: 65, shape: 'cons' },
        { k: 'string', v: 'ab', repeat: 4096, shape: 'sliced' },
        { k: 'nest', in: 'array', depth: 3, leaf: num(7) },
        { k: 'range', n: 1000, every: 2, double: true },
        { k: 'shapes', keys: ['x', 'y'], rows: [[num(1), num(2)], [num(1), num(2)]], then: [[1, 'x', num(0.5)]] },
      ]);
      // Host objects are copied into plain objects.
      assert.deepEqual(key.props, [['2147483648', { t: 'number', v: '1' }]]);
      assert.deepEqual(cert.props, [['a', { t: 'number', v: '2' }]]);
      assert.equal(text.v, '\u20ac'.repeat(65));
      assert.equal(sliced.v, 'ab'.repeat(4096));
      assert.equal(nest.props[0][1].props[0][1].props[0][1].v, '7');
      assert.equal(range.length, 1000);
      assert.deepEqual(range.props[1], ['2', { t: 'number', v: '2.5' }]);
      assert.deepEqual(shapes.props[1][1].props, [['x', { t: 'number', v: '0.5' }], ['y', { t: 'number', v: '2' }]]);
    });

    it('build views of repeated bytes and getters that change the object being copied', async function () {
      const [view, object] = await trees([
        { k: 'view', type: 'Uint16Array', bytes: '0100', repeat: 32768 },
        { k: 'object', props: [['a', num(1)], ['b', num(2)]],
          tamper: [{ op: 'define', key: 'a', get: { returns: num(3), then: [{ op: 'delete', key: 'b' }] } }] },
      ]);
      assert.equal(view.byteLength, 65536);
      assert.equal(view.bytes, '0100'.repeat(32768));
      // The getter of the first key deleted the second before it was read.
      assert.deepEqual(object.props, [['a', { t: 'number', v: '3' }]]);
    });

    it('build symbols, functions and globals, which no codec can write', async function () {
      const recipes = [{ k: 'symbol', description: 's' }, { k: 'function' }, { k: 'global', name: 'Map' }];
      const out = await Promise.all(recipes.map(build));
      for (const { serialized } of out) {
        assert.equal(serialized.kind, 'reject');
        assert.match(serialized.error.message, /could not be cloned/);
      }
    });

    it('build arrays with holes, undefined items and a longer length', async function () {
      const [holey, trailing, long] = await trees([
        { k: 'array', items: [num(1), { k: 'hole' }, { k: 'undefined' }] },
        { k: 'array', items: [num(1), { k: 'hole' }] },
        { k: 'array', items: [num(1)], length: 4, props: [['x', str('y')]] },
      ]);
      assert.deepEqual([keysOf(holey), holey.length], [['0', '2'], 3]);
      assert.deepEqual([keysOf(trailing), trailing.length], [['0'], 2]);
      assert.deepEqual([keysOf(long), long.length], [['0', 'x'], 4]);
    });

    it('build maps, sets, dates, regexps and boxed primitives', async function () {
      const [map, set, date, bad, re, boxes] = await trees([
        { k: 'map', entries: [[str('b'), num(1)], [num(2), { k: 'null' }]] },
        { k: 'set', values: [num(3), str('x')] },
        { k: 'date', v: 86400000 },
        { k: 'date', v: 'NaN' },
        { k: 'regexp', source: 'a+b', flags: 'gi' },
        { k: 'array', items: ['bool', 'number', 'bigint', 'string'].map((k) =>
          ({ k: 'boxed', of: { k, v: { bool: false, number: 7, bigint: '8', string: 's' }[k] } })) },
      ]);
      assert.deepEqual(map.entries.map(([k, v]) => [k.v, v.t]), [['b', 'number'], ['2', 'null']]);
      assert.deepEqual(set.values.map((v) => v.v), ['3', 'x']);
      assert.deepEqual([date.t, date.v, bad.v], ['date', '86400000', 'NaN']);
      assert.deepEqual([re.source, re.flags], ['a+b', 'gi']);
      assert.deepEqual(boxes.props.map(([, v]) => [v.t, v.proto[0], v.v.v]),
        [['boxed', 'Boolean', false], ['boxed', 'Number', '7'], ['boxed', 'BigInt', '8'], ['boxed', 'String', 's']]);
    });

    it('build errors of every type, with cause and without stack', async function () {
      const recipes = [
        { k: 'error', type: 'RangeError', message: 'm', cause: num(1) },
        { k: 'error', stack: false },
        { k: 'error', type: 'URIError', stack: 'custom stack' },
      ];
      const [range, bare, custom] = await trees(recipes);
      assert.deepEqual([range.t, range.name, range.message, range.cause.v], ['error', 'RangeError', 'm', '1']);
      assert.deepEqual(['cause' in bare, bare.hasStack], [false, false]);
      assert.deepEqual([custom.name, custom.hasStack], ['URIError', true]);
      const { serialized } = await build(recipes[2]);
      assert.ok(serialized.bytes.includes(Buffer.from('custom stack').toString('hex')));
    });

    it('build array buffers, resizable ones, and shared ones', async function () {
      const [plain, resizable] = await trees([
        { k: 'arraybuffer', bytes: '0102' },
        { k: 'arraybuffer', bytes: '01', maxByteLength: 8 },
      ]);
      assert.deepEqual([plain.t, plain.bytes, plain.resizable], ['arraybuffer', '0102', false]);
      assert.deepEqual([resizable.resizable, resizable.maxByteLength, resizable.bytes], [true, 8, '01']);
      // A SharedArrayBuffer cannot cross a process: the serializer says so.
      const { serialized } = await build({ k: 'arraybuffer', bytes: '01', shared: true });
      assert.equal(serialized.kind, 'reject');
      assert.match(serialized.error.message, /SharedArrayBuffer/);
    });

    it('build every view type with the right element width', async function () {
      const recipes = viewTypes.map((type) => ({
        k: 'view', type, bytes: '01'.repeat(2 * (bytesPerElement[type] ?? 1)),
      }));
      const built = await trees(recipes);
      for (const [i, type] of viewTypes.entries()) {
        const tree = built[i];
        const width = bytesPerElement[type] ?? 1;
        assert.equal(tree.kind, type === 'Buffer' ? 'Uint8Array' : type, type);
        assert.equal(tree.isBuffer, type === 'Buffer', type);
        assert.equal(tree.byteLength, 2 * width, type);
        if (type !== 'DataView') assert.equal(tree.length, 2, type);
      }
    });

    it('build views at an offset, on a given buffer, pooled, tracking length, or subclassed', async function () {
      const [offset, onBuffer, pooled, sub] = await trees([
        { k: 'view', type: 'Uint16Array', bytes: '0100', offset: 4, slack: 2 },
        { k: 'array', items: [
          { k: 'arraybuffer', bytes: 'aabbccdd', id: 1 },
          { k: 'view', type: 'Uint8Array', bytes: 'ccdd', offset: 2, buffer: { k: 'ref', to: 1 } },
        ] },
        { k: 'view', type: 'Buffer', bytes: 'beef', pooled: true },
        { k: 'view', type: 'Int8Array', bytes: 'ff', subclass: true },
      ]);
      assert.deepEqual([offset.kind, offset.bytes], ['Uint16Array', '0100']);
      // The view shows the ArrayBuffer's bytes from its offset on.
      assert.equal(onBuffer.props[1][1].bytes, 'ccdd');
      assert.deepEqual([pooled.isBuffer, pooled.bytes], [true, 'beef']);
      assert.equal(sub.kind, 'Int8Array');

      const tracking = await trees([{
        k: 'view', type: 'Uint8Array', lengthTracking: true,
        buffer: { k: 'arraybuffer', bytes: '0102', maxByteLength: 8 },
        tamper: [{ op: 'resize', to: 5 }],
      }]);
      assert.deepEqual([tracking[0].length, tracking[0].bytes], [5, '0102000000']);
    });

    it('build a MessagePort, written as a copied plain object', async function () {
      const [port] = await trees([{ k: 'port', props: [['x', num(1)]] }]);
      assert.deepEqual([port.t, port.proto, keysOf(port)], ['object', ['Object'], ['x']]);
    });
  });

  describe('references', function () {
    it('share a node given an id', async function () {
      const [tree] = await trees([{ k: 'array', items: [obj([], { id: 1 }), { k: 'ref', to: 1 }] }]);
      assert.deepEqual(tree.props[1][1], { t: 'ref', id: tree.props[0][1].id });
    });

    it('close cycles through objects, arrays and maps', async function () {
      const [o, a, m] = await trees([
        obj([['self', { k: 'ref', to: 1 }]], { id: 1 }),
        { k: 'array', id: 2, items: [{ k: 'ref', to: 2 }] },
        { k: 'map', id: 3, entries: [[str('me'), { k: 'ref', to: 3 }]] },
      ]);
      assert.deepEqual(prop(o, 'self'), { t: 'ref', id: 0 });
      assert.deepEqual(a.props[0][1], { t: 'ref', id: 0 });
      assert.deepEqual(m.entries[0][1], { t: 'ref', id: 0 });
    });
  });

  describe('tampering steps', function () {
    it('set, define and delete own properties', async function () {
      const [tree] = await trees([obj([['a', num(1)], ['b', num(2)]], {
        tamper: [
          { op: 'set', key: 'c', value: num(3) },
          { op: 'define', key: 'hidden', value: num(4), enumerable: false },
          { op: 'define', key: 'shown', value: num(5) },
          { op: 'delete', key: 'a' },
        ],
      })]);
      assert.deepEqual(keysOf(tree), ['b', 'c', 'shown']);
    });

    it('define getters that record their calls, return values or throw', async function () {
      const returning = await build(obj([], { tamper: [{ op: 'define', key: 'g', get: { returns: str('v') } }] }));
      assert.deepEqual(returning.serialized.effects, ['get g']);
      assert.deepEqual(prop(returning.tree, 'g'), { t: 'string', v: 'v' });
      const throwing = await build(obj([], { tamper: [{ op: 'define', key: 'g', get: { throws: 'boom' } }] }));
      assert.equal(throwing.serialized.kind, 'reject');
      assert.equal(throwing.serialized.error.message, 'boom');
      assert.deepEqual(throwing.serialized.effects, ['get g']);
    });

    it('freeze and preventExtensions, so later sets do nothing', async function () {
      const [frozen, sealed] = await trees([
        obj([['a', num(1)]], { tamper: [{ op: 'freeze' }, { op: 'set', key: 'a', value: num(2) }] }),
        obj([], { tamper: [{ op: 'preventExtensions' }, { op: 'set', key: 'b', value: num(2) }] }),
      ]);
      assert.deepEqual(prop(frozen, 'a'), { t: 'number', v: '1' });
      assert.deepEqual(keysOf(sealed), []);
    });

    it('replace a prototype: a Buffer made a Uint8Array is written as one', async function () {
      const [plain, changed] = await Promise.all([
        build({ k: 'view', type: 'Buffer', bytes: '01' }),
        build({ k: 'view', type: 'Buffer', bytes: '01', tamper: [{ op: 'prototype', of: 'Uint8Array' }] }),
      ]);
      assert.equal(plain.tree.isBuffer, true);
      assert.equal(changed.tree.isBuffer, false);
    });

    it('detach and resize buffers', async function () {
      const detached = await build({ k: 'arraybuffer', bytes: '0102', tamper: [{ op: 'detach' }] });
      // A detached buffer cannot be written; the step did run.
      assert.equal(detached.serialized.kind, 'reject');
      assert.match(detached.serialized.error.message, /detached/i);
      const [resized] = await trees([{
        k: 'arraybuffer', bytes: '01020304', maxByteLength: 8, tamper: [{ op: 'resize', to: 2 }],
      }]);
      assert.deepEqual([resized.byteLength, resized.bytes], [2, '0102']);
    });

    it('change Buffer.prototype only for the duration of the call', async function () {
      const tampered = {
        k: 'view', type: 'Buffer', bytes: '01',
        tamper: [{
          op: 'proto', of: 'Buffer', key: 'constructor', get: { returns: { k: 'global', name: 'Uint8Array' } },
        }],
      };
      const during = await build(tampered);
      // js took the constructor from the getter and wrote type index 1, not 10.
      assert.equal(during.serialized.bytes.slice(16, 18), '01');
      assert.deepEqual(during.serialized.effects, ['get constructor']);
      const after = await build({ k: 'view', type: 'Buffer', bytes: '01' });
      assert.equal(after.serialized.bytes.slice(16, 18), '0a');
      assert.deepEqual(after.serialized.effects, []);
    });

    it('install an Object.prototype setter only for the duration of the call', function () {
      const source = compileRecipe(obj([], { tamper: [{ op: 'inherited-setter', key: 'zz' }] }));
      const effects = [];
      const built = new Function('require', 'effects', source)(require, effects);
      try {
        built.setup();
        const target = {};
        target.zz = 1;
        assert.deepEqual(effects, ['set zz']);
        assert.equal(Object.hasOwn(target, 'zz'), false);
      } finally {
        built.teardown();
      }
      assert.equal(Object.hasOwn(Object.prototype, 'zz'), false);
      ({}).zz = 2;
      assert.deepEqual(effects, ['set zz']);
    });

    it('leave Object.prototype and Buffer.prototype clean for the next call in the worker', async function () {
      const input = { module: fixture('probe-globals.js') };
      const probe = () => worker.request({ op: 'serialize', codec: 'js', input });
      const before = await probe();
      const tampered = await worker.request({
        op: 'serialize', codec: 'js', input: {
          recipe: { k: 'view', type: 'Buffer', bytes: '01', tamper: [
            { op: 'inherited-setter', key: 'leak' },
            { op: 'proto', of: 'Buffer', key: 'constructor', value: num(1) },
            { op: 'proto', of: 'Object', key: 'extra', value: num(1) },
          ] },
        },
      });
      assert.equal(tampered.kind, 'ok');
      assert.equal(tampered.bytes.slice(16, 18), '01');
      const after = await probe();
      assert.equal(after.bytes, before.bytes);
    });

    // Setup runs inside the try whose finally runs teardown: a step that fails
    // to install must not leave earlier steps installed.
    it('leave Buffer.prototype clean even when a later global step fails to install', async function () {
      const leaky = num(1);
      leaky.tamper = [
        { op: 'proto', of: 'Buffer', key: 'constructor', value: num(1) },
        // Array.prototype.length is not configurable: this step throws.
        { op: 'proto', of: 'Array', key: 'length', value: num(0) },
      ];
      await worker.request({ op: 'serialize', codec: 'js', input: { recipe: leaky } });
      const after = await build({ k: 'view', type: 'Buffer', bytes: '01' });
      assert.equal(after.serialized.bytes.slice(16, 18), '0a');
    });
  });

  // What the runners ask of a recipe's steps (recipes/steps.js).
  it('tell which recipes are tampered, and which change a built-in prototype', function () {
    const { changesSharedState, tampered } = require('../../harness/recipes/steps');
    const step = (op, extra) => obj([['a', num(1)]], { tamper: [{ op, key: 'x', ...extra }] });
    assert.equal(changesSharedState(step('inherited-setter')), true);
    assert.equal(changesSharedState({ k: 'array', items: [step('proto', { of: 'Object', value: num(1) })] }), true);
    for (const op of ['set', 'define', 'delete', 'freeze']) {
      assert.equal(changesSharedState(step(op, { value: num(1) })), false, op);
    }
    assert.equal(changesSharedState(str('"op":"proto"')), false, 'a string that reads like a step is none');
    assert.equal(changesSharedState(obj([['op', str('proto')]])), false);
    assert.equal(tampered(step('define', { value: num(1) })), true);
    assert.equal(tampered({ k: 'map', entries: [[num(1), step('freeze')]] }), true);
    assert.equal(tampered(obj([['tamper', str('tamper')]])), false, 'a key or string named so is no step');
  });

  // An element of Object.prototype or Array.prototype leaves V8's array paths slow for good.
  it('tell which recipes give a built-in prototype an element, for the rest of the process', function () {
    const { changesSharedState, spoilsProcess } = require('../../harness/recipes/steps');
    const step = (op, key, extra) => obj([['a', num(1)]], { tamper: [{ op, key, ...extra }] });
    for (const key of ['0', '2147483648', '4294967294']) {
      assert.equal(spoilsProcess(step('inherited-setter', key)), true, key);
      assert.equal(spoilsProcess({ k: 'array', items: [step('proto', key, { of: 'Array', value: num(1) })] }), true);
    }
    for (const key of ['4294967295', '-0', '01', '1e3', 'x', { symbol: 'hidden' }]) {
      assert.equal(spoilsProcess(step('inherited-setter', key)), false, JSON.stringify(key));
      assert.equal(changesSharedState(step('inherited-setter', key)), true);
    }
    assert.equal(spoilsProcess(step('set', '0', { value: num(1) })), false, 'an element of the value itself');
    assert.equal(spoilsProcess(step('define', '1', { value: num(1) })), false);
  });

  // A batch worker is told what the process that drew its inputs found (batches.js).
  it('take what another process found of a recipe sent as JSON, rather than walk it again', function () {
    const { changesSharedState, tampered, stepsMark, markSteps } = require('../../harness/recipes/steps');
    const { spoilsProcess } = require('../../harness/recipes/steps');
    const setter = obj([['a', num(1)]], { tamper: [{ op: 'inherited-setter', key: 'x' }] });
    const element = obj([['a', num(1)]], { tamper: [{ op: 'inherited-setter', key: '7' }] });
    const defined = obj([], { tamper: [{ op: 'define', key: 'x', value: num(1) }] });
    const asked = (recipe) => [tampered(recipe), changesSharedState(recipe), spoilsProcess(recipe)];
    for (const recipe of [setter, element, defined, num(1)]) {
      const copy = JSON.parse(JSON.stringify(recipe));
      markSteps(copy, stepsMark(recipe));
      assert.deepEqual(asked(copy), asked(recipe));
    }
    // The mark is what is asked, not the recipe: a marked copy is not walked.
    const marked = JSON.parse(JSON.stringify(setter));
    markSteps(marked, stepsMark(num(1)));
    assert.equal(changesSharedState(marked), false);
    // No mark (a value module's input) or an unknown one leaves the recipe to be walked.
    const unmarked = JSON.parse(JSON.stringify(setter));
    markSteps(unmarked, -1);
    markSteps(unmarked, 7);
    assert.equal(changesSharedState(unmarked), true);
  });

  describe('byte grammar', function () {
    const { decodeRecipe, encodeRecipe } = require('../../harness/recipes/bytes');

    // Seeded, so that a failure names the bytes that broke it.
    it('decodes any bytes to a recipe that compiles and encodes back to the same recipe', function () {
      let seed = 1;
      const random = () => { seed = (seed * 48271) % 2147483647; return seed & 0xff; };
      for (let i = 0; i < 3000; i++) {
        const bytes = Buffer.from(Array.from({ length: 1 + (i % 160) }, random));
        const recipe = decodeRecipe(bytes);
        compileRecipe(recipe);
        assert.deepEqual(decodeRecipe(encodeRecipe(recipe)), recipe, bytes.toString('hex'));
      }
    });

    it('expresses every kind and every getter side effect', function () {
      const seen = new Set();
      const walk = (n) => {
        if (!n || typeof n !== 'object') return;
        if (n.k) seen.add(n.k);
        if (n.get?.then) seen.add(`then ${n.get.then[0].op}`);
        Object.values(n).forEach(walk);
      };
      let seed = 7;
      const random = () => { seed = (seed * 48271) % 2147483647; return seed & 0xff; };
      for (let i = 0; i < 3000; i++) walk(decodeRecipe(Buffer.from(Array.from({ length: 120 }, random))));
      for (const k of ['host', 'nest', 'range', 'shapes', 'port', 'view', 'then delete', 'then set', 'then define',
        'then prototype', 'then detach', 'then resize']) assert.ok(seen.has(k), k);
    });

    it('gives a host object an integer key, wherever it is read, for 4 values of its first byte in 256', function () {
      const { decodePart } = require('../../harness/recipes/bytes');
      const { integerKeys } = require('../../harness/recipes/vocabulary');
      // A secret key (type 0) whose key, of the class byte b, is read as a property's, as the key of an
      // effect getter (step 0), of an inherited setter (step 2), and as the key the getter's delete touches.
      const host = (...bytes) => decodePart('host', Buffer.from(bytes));
      const readers = {
        prop: (b) => host(0, 1, b, 0).props[0][0],
        getter: (b) => host(0, 0, 1, 0, b, 0).tamper[0].key,
        setter: (b) => host(0, 0, 1, 2, b, 0).tamper[0].key,
        effect: (b) => host(0, 0, 1, 0, 0, 0, 0, b, 0).tamper[0].get.then[0].key,
      };
      for (const [where, read] of Object.entries(readers)) {
        const keys = Array.from({ length: 256 }, (_, b) => read(b));
        assert.equal(keys.filter((k) => integerKeys.includes(k)).length, 4, where);
      }
    });
  });

  describe('malformed recipes', function () {
    const cases = [
      ['an unknown kind', { k: 'array', items: [num(1), { k: 'nope' }] }, '$.items[1]', /unknown kind "nope"/],
      ['a node that is not an object', { k: 'array', items: [5] }, '$.items[0]', /must be an object/],
      ['bad hex', obj([['b', { k: 'view', type: 'Uint8Array', bytes: '0g' }]]), '$.props[0][1]', /hex/],
      ['an odd byte count for Int16Array', { k: 'view', type: 'Int16Array', bytes: '010203' }, '$', /Int16Array needs a multiple of 2 bytes/],
      ['a ref to an unknown id', { k: 'map', entries: [[str('k'), { k: 'ref', to: 9 }]] }, '$.entries[0][1]', /no earlier node with id 9/],
      ['a ref to a later id', { k: 'array', items: [{ k: 'ref', to: 1 }, obj([], { id: 1 })] }, '$.items[0]', /no earlier node/],
      ['a duplicate id', { k: 'array', items: [obj([], { id: 1 }), obj([], { id: 1 })] }, '$.items[1]', /unique integer/],
      ['an unknown tamper op', obj([], { tamper: [{ op: 'set', key: 'a', value: num(1) }, { op: 'nope' }] }), '$.tamper[1]', /unknown tampering step "nope"/],
      ['an unknown view type', { k: 'view', type: 'Int128Array' }, '$', /"type" must be one of/],
      ['an unknown global', { k: 'global', name: 'process' }, '$', /not a known global/],
      ['a hole outside items', obj([['x', { k: 'hole' }]]), '$.props[0][1]', /hole/],
    ];

    for (const [name, recipe, at, pattern] of cases) {
      it(`rejects ${name} at ${at}`, function () {
        assert.throws(() => compileRecipe(recipe), (err) => {
          assert.ok(err instanceof RecipeError && err instanceof UsageError);
          assert.ok(err.message.startsWith(`recipe ${at}: `), err.message);
          assert.match(err.message, pattern);
          return true;
        });
      });
    }

    it('comes back from the worker as a usage error naming the path', async function () {
      await assert.rejects(
        worker.request({ op: 'serialize', codec: 'js', input: { recipe: { k: 'array', items: [{ k: 'nope' }] } } }),
        (err) => err instanceof UsageError && err.message.startsWith('recipe $.items[0]: '));
      // The worker survives it.
      const after = await worker.request({ op: 'serialize', codec: 'js', input: { recipe: num(1) } });
      assert.equal(after.kind, 'ok');
    });
  });
});
