'use strict';
// Canonical trees: everything a user could observe of a decoded value, as
// JSON that compares with deep equality. canonical.js needs no internals, so
// most rules are checked in this process; the rules about frames and codec
// copies are checked on real decodes in 26.12.1.
const assert = require('node:assert/strict');
const { canonicalize } = require('../../harness/oracle/canonical');
const { treeDiff } = require('../../harness/oracle/compare');
const { frame, useSession, node26, runNode } = require('../fixtures/helpers');

const c = (value, options) => canonicalize(value, options);
// Trees travel between processes as JSON: a rule only holds if it survives that.
const wire = (tree) => JSON.parse(JSON.stringify(tree));
const differ = (x, y) => assert.notEqual(treeDiff(wire(c(x)), wire(c(y))), null);
const same = (x, y) => assert.equal(treeDiff(wire(c(x)), wire(c(y))), null);
const firstDifferingChar = (x, y) => [...x].findIndex((ch, i) => ch !== y[i]);

describe('canonical trees', function () {
  describe('primitives', function () {
    it('tells -0 from 0 and keeps NaN', function () {
      assert.deepEqual(c(-0), { t: 'number', v: '-0' });
      assert.deepEqual(c(0), { t: 'number', v: '0' });
      assert.deepEqual(c(NaN), { t: 'number', v: 'NaN' });
      differ(-0, 0);
    });

    it('writes bigints as decimal text, distinct from numbers', function () {
      assert.deepEqual(c(-12345678901234567890n), { t: 'bigint', v: '-12345678901234567890' });
      differ(1n, 1);
    });

    it('keeps two-byte strings and lone surrogates through JSON', function () {
      for (const s of ['\u{1F600}', '\u0101x', '\uD800', 'a\uDC00b']) {
        assert.deepEqual(wire(c(s)), { t: 'string', v: s });
      }
      differ('\uD800', '\uFFFD');
    });

    it('tells undefined, null and booleans apart', function () {
      assert.deepEqual([undefined, null, true].map((v) => c(v).t), ['undefined', 'null', 'boolean']);
      differ(undefined, null);
    });
  });

  describe('arrays', function () {
    it('tells holes from undefined items', function () {
      // eslint-disable-next-line no-sparse-arrays
      const holey = c([1, , 3]);
      assert.deepEqual(holey.props.map(([k]) => k), ['0', '2']);
      assert.equal(holey.length, 3);
      // eslint-disable-next-line no-sparse-arrays
      differ([1, , 3], [1, undefined, 3]);
    });

    it('records the length beyond the last item', function () {
      const a = [1];
      a.length = 5;
      assert.equal(c(a).length, 5);
      differ(a, [1]);
    });

    it('lists enumerable items and properties in order, accessors without calling them', function () {
      const a = [1, 2, 3];
      Object.defineProperty(a, 1, { get() { throw new Error('called'); }, enumerable: true });
      Object.defineProperty(a, 2, { value: 3, enumerable: false });
      a.named = 'n';
      a[Symbol('s')] = 4;
      assert.deepEqual(c(a).props, [['0', { t: 'number', v: '1' }], ['1', { t: 'accessor' }],
        ['named', { t: 'string', v: 'n' }]]);
    });

    it('asks a Proxy of an array for its keys and each one\'s descriptor once', function () {
      const asked = [];
      const p = new Proxy([1], {
        ownKeys: (t) => { asked.push('ownKeys'); return Reflect.ownKeys(t); },
        getOwnPropertyDescriptor: (t, k) => { asked.push(k); return Reflect.getOwnPropertyDescriptor(t, k); },
      });
      assert.deepEqual(c(p).props, [['0', { t: 'number', v: '1' }]]);
      assert.deepEqual(asked, ['ownKeys', '0', 'length']);
    });

    // With the binary's internals, an array's items are asked for by index
    // (a Proxy's keys are listed, as without them): the tree must not change.
    it('describes arrays walked by index as it does when their keys are listed', async function () {
      this.timeout(30_000);
      const canonical = JSON.stringify(require.resolve('../../harness/oracle/canonical'));
      const script = `const { canonicalize } = require(${canonical});
        const packed = [1, 'two', -0, [3], { four: 4 }];
        packed.named = 5;
        const holey = [1, , 3];
        holey.length = 9;
        const sparse = [];
        for (let i = 0; i < 1e5; i += 5000) sparse[i] = i;
        const odd = [0, 1, 2, 3];
        Object.defineProperty(odd, 1, { get() { throw new Error('called'); }, enumerable: true });
        Object.defineProperty(odd, 2, { value: 2, enumerable: false });
        odd[4294967295] = 'not an index';
        // Sparse enough to have its keys listed, once objects among its first items were met.
        const sparseObjects = [{ first: 1 }, [2]];
        sparseObjects[50000] = { last: 3 };
        const half = [];
        for (let i = 0; i < 4000; i += 2) half[i] = i;
        const arrays = { packed, holey, sparse, sparseObjects, odd, half, empty: [], long: Array.from({ length: 3000 }, (_, i) => i) };
        const trees = Object.entries(arrays).map(([name, a]) =>
          [name, JSON.stringify(canonicalize(a)), JSON.stringify(canonicalize(new Proxy(a, {})))]);
        console.log(JSON.stringify(trees));`;
      const run = await runNode(node26, ['--expose-internals', '--no-warnings', '-e', script]);
      assert.equal(run.code, 0, run.stderr);
      for (const [name, byIndex, byKeys] of JSON.parse(run.stdout)) assert.equal(byIndex, byKeys, name);
    });

    it('shares the nodes of equal numbers and short strings, but not of -0 and 0', function () {
      const { props } = c([7, 7, 'ab', 'ab', -0, 0, 'x'.repeat(40), 'x'.repeat(40)]);
      const nodes = props.map(([, node]) => node);
      assert.equal(nodes[0], nodes[1]);
      assert.equal(nodes[2], nodes[3]);
      assert.notEqual(nodes[4], nodes[5]);
      assert.deepEqual([nodes[4], nodes[5]], [{ t: 'number', v: '-0' }, { t: 'number', v: '0' }]);
      assert.notEqual(nodes[6], nodes[7]);
      assert.ok(Object.isFrozen(nodes[0]));
      differ([7, 'ab'], [7, 'ac']);
    });

    it('lists extra named properties after the items', function () {
      const a = [7];
      a.extra = 'x';
      assert.deepEqual(c(a).props.map(([k]) => k), ['0', 'extra']);
    });

    it('reads a plain array\'s items as values, to the same tree', function () {
      const holey = [1];
      holey[2] = 3;
      holey[5000] = 'far';
      const named = Array.from({ length: 300 }, (_, i) => i / 2);
      named.extra = [null];
      const sparse = [];
      sparse[1e6] = 1;
      for (const a of [[], [7, 'ab', { x: [1] }], holey, named, sparse, Array.from({ length: 2000 }, (_, i) => `${i}`)]) {
        assert.equal(JSON.stringify(c(a, { plain: true })), JSON.stringify(c(a)));
      }
    });

    it('tells a plain array\'s holes from items its prototypes give at those indices', async function () {
      // Items are asked for by index only with the binary's internals (ownNonIndexKeys).
      const script = `
        const { canonicalize } = require(${JSON.stringify(require.resolve('../../harness/oracle/canonical'))});
        const holey = () => {
          const a = Array.from({ length: 100 }, (_, i) => i);
          delete a[5];
          delete a[70];
          return a;
        };
        const own = (value, plain) => canonicalize(value, { plain }).props.map(([k]) => k).join();
        const lists = [own(holey(), false)];
        lists.push(own(Object.setPrototypeOf(holey(), Object.create(null, { 5: { value: 1 } })), true));
        Array.prototype[5] = 'inherited';
        Object.prototype[70] = 'inherited';
        lists.push(own(holey(), true), own(holey(), false));
        console.log(JSON.stringify(lists));`;
      const run = await runNode(node26, ['--expose-internals', '--no-warnings', '-e', script]);
      assert.equal(run.code, 0, run.stderr);
      const [expected, ...plain] = JSON.parse(run.stdout);
      assert.equal(expected.split(',').length, 98);
      assert.equal(expected.includes(',5,'), false);
      for (const list of plain) assert.equal(list, expected);
    });

    it('reads the items of arrays not known to be plain through their descriptors', function () {
      let ran = 0;
      const a = [1, 2];
      Object.defineProperty(a, 0, { get() { ran++; return 9; }, enumerable: true });
      Object.defineProperty(a, 1, { value: 2, enumerable: false });
      assert.deepEqual(wire(c(a)).props, [['0', { t: 'accessor' }]]);
      assert.equal(ran, 0);
    });
  });

  describe('objects', function () {
    it('keeps property order', function () {
      assert.deepEqual(c({ b: 1, a: 2 }).props.map(([k]) => k), ['b', 'a']);
      differ({ a: 1, b: 2 }, { b: 2, a: 1 });
    });

    it('lists only enumerable string keys, and accessors without calling them', function () {
      const o = { shown: 1, [Symbol('s')]: 2 };
      Object.defineProperty(o, 'hidden', { value: 3, enumerable: false });
      let called = false;
      Object.defineProperty(o, 'getter', { get() { called = true; return 4; }, enumerable: true });
      assert.deepEqual(c(o).props, [['shown', { t: 'number', v: '1' }], ['getter', { t: 'accessor' }]]);
      assert.equal(called, false);
    });

    it('names the prototype chain, with ? for unknown prototypes', function () {
      assert.deepEqual(c({}).proto, ['Object']);
      assert.deepEqual(c(Object.create(null)).proto, []);
      class Mine {}
      assert.deepEqual(c(new Mine()).proto, ['?', 'Object']);
      differ({}, Object.create(null));
    });

    // Reading FormData or Headers loads Node's fetch implementation (30 ms): a
    // worker that starts after a crash would pay for it on its first value.
    it('names the prototypes of lazy globals, and loads them only when it meets one', async function () {
      this.timeout(30_000);
      const canonical = JSON.stringify(require.resolve('../../harness/oracle/canonical'));
      const script = `const { canonicalize } = require(${canonical});
        const fetchLoaded = () => process.moduleLoadList.some((m) => m.includes('undici'));
        const before = [canonicalize(new Map()).proto, fetchLoaded()];
        console.log(JSON.stringify([...before, canonicalize(new FormData()).proto, canonicalize(new Headers()).proto]));`;
      const run = await runNode(node26, ['--expose-internals', '--no-warnings', '-e', script]);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout),
        [['Map', 'Object'], false, ['FormData', 'Object'], ['Headers', 'Object']]);
    });
  });

  describe('Map and Set', function () {
    it('keep insertion order', function () {
      const m = c(new Map([['b', 1], ['a', 2]]));
      assert.equal(m.t, 'map');
      assert.deepEqual(m.entries.map(([k]) => k.v), ['b', 'a']);
      differ(new Map([[1, 1], [2, 2]]), new Map([[2, 2], [1, 1]]));
      const s = c(new Set([3, 1]));
      assert.deepEqual(s.values.map((v) => v.v), ['3', '1']);
      differ(new Set([1, 2]), new Set([2, 1]));
    });
  });

  describe('Date, RegExp and boxed primitives', function () {
    it('writes a date as its time value, invalid dates as NaN', function () {
      assert.equal(c(new Date(5)).v, '5');
      assert.equal(c(new Date(NaN)).v, 'NaN');
      assert.equal(c(new Date(-0)).v, '0');
      differ(new Date(1), new Date(2));
    });

    it('writes source and flags of a RegExp', function () {
      const r = c(/a.b/gi);
      assert.deepEqual([r.t, r.source, r.flags], ['regexp', 'a.b', 'gi']);
      differ(/a/g, /a/i);
      differ(/a/, /b/);
    });

    it('unwraps boxed primitives and keeps their prototypes', function () {
      const n = c(Object(-0));
      assert.equal(n.t, 'boxed');
      assert.deepEqual(n.v, { t: 'number', v: '-0' });
      assert.deepEqual(n.proto, ['Number', 'Object']);
      assert.deepEqual(c(Object('s')).v, { t: 'string', v: 's' });
      assert.deepEqual(c(Object(false)).proto, ['Boolean', 'Object']);
      assert.deepEqual(c(Object(2n)).v, { t: 'bigint', v: '2' });
      differ(Object(1), 1);
    });

    it('lists a String object\'s characters as properties, unless it is longer than 64 Ki', function () {
      assert.deepEqual(c(Object('ab')).props.map(([k]) => k), ['0', '1']);
      assert.deepEqual(c(Object('a'.repeat(1 << 20))).props, []);
    });
  });

  describe('errors', function () {
    it('records name, message, whether there is a stack, and the cause', function () {
      const e = c(new TypeError('boom', { cause: 5 }));
      assert.equal(e.t, 'error');
      assert.equal(e.name, 'TypeError');
      assert.equal(e.message, 'boom');
      assert.equal(e.hasStack, true);
      assert.deepEqual(e.cause, { t: 'number', v: '5' });
      assert.deepEqual(e.proto, ['TypeError', 'Error', 'Object']);
      // message, stack and cause are fields of the node, not properties.
      assert.deepEqual(e.props, []);
    });

    it('tells a missing cause from an undefined one, and a missing stack', function () {
      assert.equal('cause' in c(new Error('x')), false);
      assert.deepEqual(c(new Error('x', { cause: undefined })).cause, { t: 'undefined' });
      const bare = new Error('x');
      delete bare.stack;
      assert.equal(c(bare).hasStack, false);
    });

    it('lists other own enumerable properties', function () {
      const err = new RangeError('r');
      err.code = 'E_X';
      assert.deepEqual(c(err).props, [['code', { t: 'string', v: 'E_X' }]]);
    });
  });

  describe('shared and circular references', function () {
    it('numbers objects in visiting order and refers back by id', function () {
      const shared = {};
      const tree = c([shared, shared]);
      assert.equal(tree.id, 0);
      assert.equal(tree.props[0][1].id, 1);
      assert.deepEqual(tree.props[1][1], { t: 'ref', id: 1 });
      differ([shared, shared], [{}, {}]);
    });

    it('ends a cycle in a ref to the enclosing object', function () {
      const o = { name: 'o' };
      o.self = o;
      assert.deepEqual(c(o).props[1], ['self', { t: 'ref', id: 0 }]);
    });
  });

  describe('views', function () {
    it('tells a Buffer from a Uint8Array by prototype and isBuffer', function () {
      const b = c(Buffer.from([1, 2]));
      const u = c(new Uint8Array([1, 2]));
      assert.deepEqual(b.proto, ['Buffer', 'Uint8Array', 'TypedArray', 'Object']);
      assert.deepEqual(u.proto, ['Uint8Array', 'TypedArray', 'Object']);
      assert.deepEqual([b.kind, b.isBuffer, u.kind, u.isBuffer], ['Uint8Array', true, 'Uint8Array', false]);
      assert.equal(b.bytes, u.bytes);
    });

    it('shows a subclass as ?', function () {
      class Sub extends Uint8Array {}
      assert.deepEqual(c(new Sub(1)).proto, ['?', 'Uint8Array', 'TypedArray', 'Object']);
    });

    it('reports kind by the internal type, not by a toStringTag property', function () {
      const v = new Uint8Array(1);
      Object.defineProperty(v, Symbol.toStringTag, { value: 'Int8Array' });
      assert.equal(c(v).kind, 'Uint8Array');
    });

    it('records length, byteLength and bytes; a DataView has no length', function () {
      const f = c(new Float64Array([1]));
      assert.deepEqual([f.kind, f.length, f.byteLength, f.bytes], ['Float64Array', 1, 8, '000000000000f03f']);
      const d = c(new DataView(new ArrayBuffer(3)));
      assert.equal(d.kind, 'DataView');
      assert.equal('length' in d, false);
      assert.equal(d.byteLength, 3);
    });

    it('leaves out indexed elements from props but keeps other own properties', function () {
      const v = new Uint8Array(2);
      v.extra = 1;
      assert.deepEqual(c(v).props.map(([k]) => k), ['extra']);
    });

    it('lists the same properties of views with the binary\'s internals, without listing indices', async function () {
      this.timeout(30_000);
      // Runs here (node without internals) and in 26.12.1 with them; counts the views whose every key was listed.
      function describeViews(canonicalize) {
        const ownKeys = Reflect.ownKeys;
        let listed = 0;
        Reflect.ownKeys = (o) => { listed += ArrayBuffer.isView(o); return ownKeys(o); };
        const small = new Uint8Array(3000);
        Object.assign(small, { extra: 1, '01': 'x' });
        Object.defineProperty(small, 'hidden', { value: 2, enumerable: false });
        Object.defineProperty(small, 'acc', { get() { throw new Error('called'); }, enumerable: true });
        small[Symbol('s')] = 3;
        const buffer = Object.assign(Buffer.alloc(5000), { name: 'b' });
        const largest = Object.assign(new Int16Array(1 << 16), { z: null });
        const tooLong = Object.assign(new Uint8Array((1 << 16) + 1), { z: null });
        const props = [small, buffer, largest, tooLong, new Float64Array(4)].map((v) => canonicalize(v).props);
        Reflect.ownKeys = ownKeys;
        return { props, listed };
      }
      const canonical = require.resolve('../../harness/oracle/canonical');
      const script = `const d = ${describeViews}; console.log(JSON.stringify(d(require(${JSON.stringify(canonical)}).canonicalize)))`;
      const run = await runNode(node26, ['--expose-internals', '--no-warnings', '-e', script]);
      assert.equal(run.code, 0, run.stderr);
      const here = describeViews(canonicalize);
      const expected = [[['extra', { t: 'number', v: '1' }], ['acc', { t: 'accessor' }]],
        [['name', { t: 'string', v: 'b' }]], [['z', { t: 'null' }]], [], []];
      assert.deepEqual(here, { props: expected, listed: 4 });
      assert.deepEqual(JSON.parse(run.stdout), { props: expected, listed: 0 });
    });

    it('says whether a view borrows the frame, owns its buffer exactly, or is a slice', function () {
      const frameBuffer = new ArrayBuffer(16);
      const onFrame = c(new Uint8Array(frameBuffer, 6, 2), { frame: frameBuffer });
      assert.equal(onFrame.backing, 'frame');
      assert.equal(onFrame.byteOffset, 6);

      const exact = c(new Uint16Array(2), { frame: frameBuffer });
      assert.equal(exact.backing, 'exact');
      assert.equal('byteOffset' in exact, false);

      const slice = c(new Uint8Array(new ArrayBuffer(8), 2, 2), { frame: frameBuffer });
      assert.equal(slice.backing, 'slice');
      // Offsets into a slice depend on allocation history: left out.
      assert.equal('byteOffset' in slice, false);
      same(new Uint8Array(new ArrayBuffer(8), 2, 2), new Uint8Array(new ArrayBuffer(9), 5, 2));
    });
  });

  describe('long byte runs', function () {
    const mib = (at, byte) => {
      const v = new Uint8Array(1 << 20).fill(7);
      if (at !== undefined) v[at] = byte;
      return v;
    };

    it('spell out a MiB view\'s bytes, as they were when described, when read', function () {
      const v = mib();
      const tree = c(v);
      v[5] = 9;
      const again = c(v);
      assert.equal(tree.bytes, '07'.repeat(1 << 20));
      assert.equal(again.bytes, Buffer.from(v).toString('hex'));
      assert.deepEqual(wire(c(mib(5, 9))).bytes, Buffer.from(v).toString('hex'));
      assert.equal(wire(c(new Uint8Array(1 << 20).buffer)).bytes, '00'.repeat(1 << 20));
    });

    it('find a difference in the middle of a MiB view or buffer where it is, as on trees read from JSON', function () {
      const middle = 1 << 19;
      for (const make of [mib, (...args) => mib(...args).buffer]) {
        const [x, y] = [make(), make(middle, 8)];
        const d = treeDiff(c(x), c(y));
        assert.deepEqual(d, treeDiff(wire(c(x)), wire(c(y))));
        assert.deepEqual([d.path, d.field], ['$.bytes', 'bytes']);
        assert.equal(firstDifferingChar(d.a, d.b), 2 * middle + 1);
        // One side read from JSON, the other not.
        assert.deepEqual(treeDiff(c(x), wire(c(y))), d);
        assert.equal(treeDiff(c(x), c(make())), null);
        assert.equal(treeDiff(c(x), wire(c(x))), null);
      }
    });

    it('find a difference in a MiB view below a tree deeper than the stack', function () {
      const nested = (leaf) => {
        let tree = c(leaf);
        for (let i = 0; i < 100_000; i++) tree = { t: 'array', id: 0, length: 1, props: [['0', tree]] };
        return tree;
      };
      assert.equal(treeDiff(nested(mib()), nested(mib())), null);
      const d = treeDiff(nested(mib()), nested(mib(1 << 19, 8)));
      assert.equal(d.path, `$${'.props[0][1]'.repeat(100_000)}.bytes`);
      assert.equal(firstDifferingChar(d.a, d.b), (1 << 20) + 1);
    });
  });

  describe('long runs of numbers', function () {
    const numbers = (n, at, value) => {
      const a = Array.from({ length: n }, (_, i) => i + 0.5);
      if (at !== undefined) a[at] = value;
      return a;
    };
    // A Proxy's props are listed key by key, never as a run.
    const spelled = (array) => c(new Proxy(array, {})).props;
    it('spell out their items, then the other props, when read, as a short array would', function () {
      const holey = numbers(1000);
      delete holey[3];
      holey.tail = { x: 1 };
      for (const array of [numbers(1000), holey]) {
        const tree = c(array);
        assert.deepEqual(wire(tree).props, wire(spelled(array)));
        assert.deepEqual(tree.props, wire(tree).props);
      }
    });

    it('find the first differing item or prop where it is, on trees as made and as read from JSON', function () {
      const cases = [
        [numbers(1000), numbers(1000, 700, -1), '$.props[700][1].v'],
        [numbers(1000, 5, 0), numbers(1000, 5, -0), '$.props[5][1].v'],
        [Object.assign(numbers(1000), { x: 1 }), Object.assign(numbers(1000), { x: 2 }), '$.props[1000][1].v'],
      ];
      for (const [x, y, path] of cases) {
        const d = treeDiff(c(x), c(y));
        assert.equal(d?.path, path);
        assert.deepEqual(treeDiff(wire(c(x)), wire(c(y))), d);
        assert.deepEqual(treeDiff(c(x), wire(c(y))), d);
      }
      same(numbers(1000), numbers(1000));
      same(numbers(1000, 9, NaN), numbers(1000, 9, NaN));
      assert.equal(treeDiff(c(numbers(1000)), c(numbers(1000))), null);
    });

    it('are only runs of enumerable numbers, so an accessor or an object among them is seen', function () {
      const withGetter = numbers(1000);
      Object.defineProperty(withGetter, 400, { get: () => 1, enumerable: true });
      assert.deepEqual(c(withGetter).props[400], ['400', { t: 'accessor' }]);
      const withObject = numbers(1000, 400, {});
      assert.equal(c(withObject).props[400][1].t, 'object');
      differ(withObject, numbers(1000, 400, {}).map((v, i) => (i === 401 ? 0 : v)));
    });
  });

  describe('array buffers', function () {
    it('tells ArrayBuffer, SharedArrayBuffer and resizable buffers apart', function () {
      const plain = c(new Uint8Array([1, 2]).buffer);
      assert.deepEqual([plain.t, plain.shared, plain.resizable, plain.byteLength, plain.bytes],
        ['arraybuffer', false, false, 2, '0102']);
      assert.equal('maxByteLength' in plain, false);

      const shared = c(new SharedArrayBuffer(1));
      assert.deepEqual([shared.shared, shared.proto[0]], [true, 'SharedArrayBuffer']);

      const resizable = c(new ArrayBuffer(1, { maxByteLength: 4 }));
      assert.deepEqual([resizable.resizable, resizable.maxByteLength], [true, 4]);

      const growable = c(new SharedArrayBuffer(1, { maxByteLength: 8 }));
      assert.deepEqual([growable.shared, growable.resizable, growable.maxByteLength], [true, true, 8]);

      differ(new ArrayBuffer(1), new SharedArrayBuffer(1));
      differ(new ArrayBuffer(1), new ArrayBuffer(1, { maxByteLength: 1 }));
    });
  });

  describe('on values decoded in 26.12.1', function () {
    const session = useSession();

    const decode = (side, payloadHex) =>
      session.run(side, { op: 'deserialize', bytes: payloadHex.replace(/\s+/g, '') });

    it('shows aligned views borrowing the frame at their offset in it, in both codecs', async function () {
      // [Uint16Array [1]]: the view bytes start at payload offset 8, frame offset 12.
      const payload = 'ff0f 4101 5c00 04 02 0100 2400 01';
      const [a, b] = await Promise.all([decode('a', payload), decode('b', payload)]);
      for (const out of [a, b]) {
        const view = out.tree.props[0][1];
        assert.deepEqual([view.kind, view.backing, view.byteOffset, view.bytes], ['Uint16Array', 'frame', 12, '0100']);
      }
    });

    it('shows an unaligned view as a slice copy in js and an exact copy in native', async function () {
      // ["a", Uint16Array [1]]: the view bytes start at frame offset 15, odd.
      const payload = 'ff0f 4102 220161 5c00 04 02 0100 2400 02';
      const [a, b] = await Promise.all([decode('a', payload), decode('b', payload)]);
      const va = a.tree.props[1][1];
      const vb = b.tree.props[1][1];
      assert.equal(va.backing, 'slice');
      assert.equal(vb.backing, 'exact');
      assert.equal(va.bytes, vb.bytes);
      assert.equal('byteOffset' in va || 'byteOffset' in vb, false);
    });

    it('numbers a value the frame references twice with a ref node', async function () {
      // [o, o]: 5e 01 is an object reference to id 1 (the array is id 0).
      const payload = 'ff0f 4102 6f7b00 5e01 2400 02';
      const out = await decode('b', payload);
      assert.deepEqual(out.tree.props[1][1], { t: 'ref', id: out.tree.props[0][1].id });
    });

    it('gives views of a streamed read the same tree in both codecs', async function () {
      // Both sides decode the same bytes from the same kind of read: where a
      // borrowed view sits in the read cannot depend on earlier allocations.
      const bytes = frame('ff0f 4103 5c00 01 04 01020304 5c00 04 04 01000200 5c00 0a 02 6162 2400 03');
      const result = await session.check('stream', { bytes, chunks: [] });
      assert.deepEqual(result.differences, []);
      const [view] = result.outcomes.stream.a.reads[0].delivered[0].props[0].slice(1);
      assert.deepEqual([view.backing, view.byteOffset], ['frame', 12]);
    });
  });
});
