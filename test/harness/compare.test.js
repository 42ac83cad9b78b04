'use strict';
// Outcome comparison: which tier a difference lands in, first on constructed
// outcomes, then on real inputs that produce each tier.
const assert = require('node:assert/strict');
const {
  compareOutcomes, effectsCause, bytesAsReadBack, partsOf, compareReads, treeDiff,
} = require('../../harness/oracle/compare');
const { tiers } = require('../../harness/base/vocabulary');
const { canonicalize } = require('../../harness/oracle/canonical');
const { fixture, frame, useSession, checkAgainst } = require('../fixtures/helpers');

const ok = (extra) => ({ kind: 'ok', ...extra });
const reject = (name, code) => ({ kind: 'reject', error: { name, code, message: 'm' } });
const tree = (value) => JSON.parse(JSON.stringify(canonicalize(value)));
const tiersOf = (differences) => differences.map((d) => d.tier);
const read = (delivered, extra) => ({ delivered: delivered.map(tree), buffering: false, ...extra });

describe('compare', function () {
  it('compares trees deeper than the JS stack, naming the same field and path as for shallow ones', function () {
    const nest = (depth, leaf) => {
      let tree = leaf;
      for (let i = 0; i < depth; i++) tree = { t: 'object', props: [['a', tree]] };
      return tree;
    };
    for (const depth of [3, 100_000]) {
      assert.equal(treeDiff(nest(depth, { t: 'number', v: 1 }), nest(depth, { t: 'number', v: 1 })), null);
      const d = treeDiff(nest(depth, { t: 'number', v: 1 }), nest(depth, { t: 'number', v: 2 }));
      assert.equal(d.field, 'v');
      assert.equal(d.node, 'number');
      assert.equal(d.path, `$${'.props[0][1]'.repeat(depth)}.v`);
    }
  });

  it('knows the nine tiers in order of severity', function () {
    assert.deepEqual(tiers, [
      'crash', 'acceptance', 'roundtrip', 'error-identity', 'bytes', 'classification', 'value', 'effects', 'framing',
    ]);
  });

  describe('compareOutcomes', function () {
    it('finds nothing in equal outcomes', function () {
      const written = () => ok({ bytes: 'aa', effects: ['get x'] });
      assert.deepEqual(compareOutcomes('serialize', 'w', written(), written()), []);
      const read = () => ok({ tree: tree({ a: 1 }) });
      assert.deepEqual(compareOutcomes('deserialize', 'w', read(), read()), []);
      assert.deepEqual(compareOutcomes('deserialize', 'w', reject('TypeError'), reject('TypeError')), []);
    });

    it('puts a crash or hang on one side, or unlike ones, in the crash tier, alone', function () {
      const segv = { kind: 'crash', signal: 'SIGSEGV', code: null };
      const [d] = compareOutcomes('serialize', 'serialize', ok({ bytes: 'aa' }), segv);
      assert.equal(d.tier, 'crash');
      assert.match(d.signature, /^crash\/serialize\/b:.*SIGSEGV/);
      assert.deepEqual(d.b, { kind: 'crash', signal: 'SIGSEGV', code: null });

      const hang = compareOutcomes('deserialize', 'w', { kind: 'hang', ms: 5 }, reject('TypeError'));
      assert.deepEqual(tiersOf(hang), ['crash']);
      assert.match(hang[0].signature, /^crash\/deserialize\/a:hang/);

      // Both crashing alike is agreement; crashing differently is not.
      assert.deepEqual(tiersOf(compareOutcomes('serialize', 'w', segv, segv)), []);
      const abort = { kind: 'crash', signal: 'SIGABRT' };
      assert.deepEqual(tiersOf(compareOutcomes('serialize', 'w', segv, abort)), ['crash']);
      assert.deepEqual(tiersOf(compareOutcomes('serialize', 'w', segv, { kind: 'hang', ms: 5 })), ['crash']);
      const exit = compareOutcomes('serialize', 'w', { kind: 'crash', signal: null, code: 134 }, ok({ bytes: 'aa' }));
      assert.match(exit[0].signature, /exit 134/);
    });

    it('puts ok against reject in the acceptance tier, naming who rejected with what', function () {
      const [d] = compareOutcomes('serialize', 'serialize', reject('Error', 'ERR_X'), ok({ bytes: 'aa' }));
      assert.equal(d.tier, 'acceptance');
      assert.equal(d.signature, 'acceptance/serialize/a-rejects:Error[ERR_X]');
      const [e] = compareOutcomes('serialize', 'serialize', ok({ bytes: 'aa' }), reject('TypeError'));
      assert.equal(e.signature, 'acceptance/serialize/b-rejects:TypeError');
    });

    it('puts two different rejections in the error-identity tier, by class and code', function () {
      const [d] = compareOutcomes('deserialize', 'w', reject('Error', 'ERR_A'), reject('Error', 'ERR_B'));
      assert.equal(d.tier, 'error-identity');
      assert.deepEqual([d.a.code, d.b.code], ['ERR_A', 'ERR_B']);
      const differences = compareOutcomes('deserialize', 'w', reject('TypeError'), reject('RangeError'));
      assert.deepEqual(tiersOf(differences), ['error-identity']);
      // The message is not part of the identity.
      assert.deepEqual(compareOutcomes('deserialize', 'w', reject('TypeError'),
        { kind: 'reject', error: { name: 'TypeError', message: 'other words' } }), []);
    });

    it('puts different frames in the bytes tier, named by the wire field where they part', function () {
      // A Uint8Array of 4 bytes written with byteLength 4 against byteLength 1.
      const a = frame('ff0f 5c00 01 04 01020304');
      const b = frame('ff0f 5c00 01 01 01');
      const [d] = compareOutcomes('serialize', 'serialize', ok({ bytes: a }), ok({ bytes: b }));
      assert.equal(d.tier, 'bytes');
      assert.equal(d.signature, 'bytes/serialize/host.byteLength');
      assert.match(d.detail, /offset 0x9\b/);
    });

    it('names an integral number written as int32 by one and double by the other a number representation', function () {
      // ff0f 49 02 is int32 1; ff0f 4e <8 bytes> is double 1.0 (as V8 writes a double field).
      const int32 = ok({ bytes: frame('ff0f4902') });
      const double = ok({ bytes: frame('ff0f4e000000000000f03f') });
      const [same] = compareOutcomes('serialize', 'w', int32, double);
      assert.equal(same.signature, 'bytes/serialize/number-representation');
      assert.match(same.detail, /the same numbers, written as another type from offset 0x6: a int32, b double/);
      // 2.0 is another number: the frames differ in the value written.
      const other = ok({ bytes: frame('ff0f4e0000000000000040') });
      const [byValue] = compareOutcomes('serialize', 'w', int32, other);
      assert.equal(byValue.tier, 'bytes');
      assert.notEqual(byValue.signature, same.signature);
    });

    it('puts a difference in node type or Buffer-ness in the classification tier', function () {
      const [byType] = compareOutcomes('deserialize', 'w', ok({ tree: tree(1) }), ok({ tree: tree(Object(1)) }));
      assert.equal(byType.tier, 'classification');
      const buffer = tree(Buffer.from([1]));
      const plain = { ...buffer, isBuffer: false };
      const [byBufferness] = compareOutcomes('deserialize', 'w', ok({ tree: buffer }), ok({ tree: plain }));
      assert.equal(byBufferness.tier, 'classification');
    });

    // A differing `proto` entry must be named proto, not by its index ("0"),
    // or prototype differences would land in the value tier.
    it('puts a difference in prototype chain or view kind in the classification tier', function () {
      const decoded = (value) => ok({ tree: tree(value) });
      const [byProto] = compareOutcomes('deserialize', 'w', decoded(Buffer.from([1])), decoded(new Uint8Array([1])));
      assert.equal(byProto.tier, 'classification');
      const [byKind] = compareOutcomes('deserialize', 'w', decoded(new Int8Array(1)), decoded(new Uint8Array(1)));
      assert.equal(byKind.tier, 'classification');
      const [nullProto] = compareOutcomes('deserialize', 'w', decoded({}), decoded(Object.create(null)));
      assert.equal(nullProto.tier, 'classification');
    });

    it('puts any other tree difference in the value tier', function () {
      const cases = [[1, 2], [-0, 0], ['a', 'b'], [{ a: 1 }, { a: 2 }], [new Uint8Array([1]), new Uint8Array([2])],
        [[1, 2], [1]]];
      for (const [x, y] of cases) {
        assert.deepEqual(tiersOf(compareOutcomes('deserialize', 'w', ok({ tree: tree(x) }), ok({ tree: tree(y) }))), ['value'], `${x} vs ${y}`);
      }
    });

    it('puts different user code run in the effects tier, alongside other differences', function () {
      const same = ok({ bytes: 'aa', effects: ['get byteLength'] });
      const none = ok({ bytes: 'aa', effects: [] });
      const [d] = compareOutcomes('serialize', 'serialize', same, none);
      assert.equal(d.tier, 'effects');
      assert.match(d.signature, /^effects\/serialize\//);
      assert.match(d.detail, /get byteLength/);
      const both = compareOutcomes('serialize', 'serialize',
        ok({ bytes: 'aa', effects: ['x'] }), ok({ bytes: 'bb', effects: [] }));
      assert.deepEqual(tiersOf(both), ['bytes', 'effects']);
    });
  });

  describe('effects signatures', function () {
    const signatureOf = (ea, eb) => compareOutcomes('serialize', 'serialize', ok({ bytes: 'aa', effects: ea }),
      ok({ bytes: 'aa', effects: eb }))[0].signature;

    it('name the user code that ran, not which of its reads came first', function () {
      const same = [
        [['proto get buffer'], ['proto get byteLength'], ['proto get Symbol(Symbol.toStringTag)']],
        [['get TypedArray.prototype.buffer'], ['get DataView.prototype.byteLength'],
          ['get TypedArray.prototype.Symbol.toStringTag']],
        [['call v8.Serializer.prototype.writeHeader'], ['call v8.Serializer.prototype.writeUint32']],
        [['call Buffer.allocUnsafe'], ['call Buffer.from']],
      ];
      for (const group of same) {
        const signatures = group.map((effects) => signatureOf(effects, []));
        assert.equal(new Set(signatures).size, 1, signatures.join(', '));
      }
      assert.equal(signatureOf(['proto get buffer'], []), 'effects/serialize/a proto get *');
      assert.equal(signatureOf([], ['get TypedArray.prototype.buffer']),
        'effects/serialize/b get ArrayBufferView.prototype.*');
    });

    it('keep apart different user code, and getters of keys of another class or that a codec reads', function () {
      const apart = [['proto get buffer'], ['get TypedArray.prototype.buffer'], ['call TypedArray.prototype.set'],
        ['call v8.Serializer.prototype.writeHeader'], ['call v8.Deserializer.prototype.readHeader'],
        ['get a'], ['get 0'], ['get Symbol(hidden)'], ['get Symbol.toStringTag'], ['set a'], ['get byteLength'],
        ['get constructor']];
      const signatures = apart.map((effects) => signatureOf(effects, []));
      assert.equal(new Set(signatures).size, apart.length, signatures.join(', '));
      assert.equal(signatureOf(['get Symbol.toStringTag'], []), 'effects/serialize/a get Symbol.toStringTag');
      // Which key a value's getter is on is the value's choice.
      assert.equal(signatureOf(['get x'], []), signatureOf(['get visible'], []));
      assert.equal(signatureOf(['get x'], []), 'effects/serialize/a get (named key)');
      assert.equal(signatureOf(['get 7'], []), signatureOf(['get 2147483648'], []));
    });

    it('compare sides that ended apart only as far as the side that failed ran', function () {
      const rejected = (effects) => ({ kind: 'reject', error: { name: 'Error', message: 'getter' }, effects });
      const of = (x, y) => compareOutcomes('serialize', 'serialize', x, y).filter((o) => o.tier === 'effects')
        .map((o) => o.signature);
      // b met a throwing getter that the user code a ran first had replaced.
      const replaced = ok({ bytes: 'aa', effects: ['get Symbol(hidden)', 'get visible'] });
      assert.deepEqual(of(replaced, rejected(['get visible'])), ['effects/serialize/a get (symbol key)']);
      // b stopped at its first getter: that it ran no more is its end's doing.
      assert.deepEqual(of(ok({ bytes: 'aa', effects: ['get x', 'get y'] }), rejected(['get x'])), []);
      assert.deepEqual(of(ok({ bytes: 'aa', effects: ['pool +8'] }), rejected([])), []);
      // Both failed: a ran a symbol getter before the getter b read last, or after it, where b may not have got to.
      const failedAs = (effects) => ({ ...rejected(effects), error: { name: 'TypeError', message: 'm' } });
      assert.deepEqual(of(rejected(['get Symbol(s)', 'get x']), failedAs(['get x'])),
        ['effects/serialize/a get (symbol key)']);
      assert.deepEqual(of(rejected(['get x', 'get Symbol(s)']), failedAs(['get x'])), []);
      // Nothing to line them up by.
      assert.deepEqual(of(rejected(['get Symbol(s)', 'get x']), failedAs(['get z'])), []);
      // b went on past where a stopped, and ran a getter a never got to.
      assert.deepEqual(of(rejected(['get constructor', 'get constructor']), ok({ bytes: 'aa',
        effects: ['get constructor', 'get 0'] })), []);
      // b ran a getter a never ran, before it failed.
      assert.deepEqual(of(ok({ bytes: 'aa', effects: ['get x'] }), rejected(['get x', 'get Symbol(s)'])),
        ['effects/serialize/b get (symbol key)']);
      // a stopped at a detached view after get x; b went on, to other getters, one of the same class.
      assert.deepEqual(of(rejected(['get x']), ok({ bytes: 'aa', effects: ['get x', 'get constructor', 'get data'] })),
        []);
      assert.deepEqual(of(rejected(['get constructor']), ok({ bytes: 'aa',
        effects: ['get constructor', 'proto get constructor', 'get constructor'] })), []);
      // One more read of what both read is where a stopped, not other code.
      assert.deepEqual(of(rejected(['get constructor', 'get constructor']), ok({ bytes: 'aa',
        effects: ['get constructor'] })), []);
      // a went on and never met what stopped b: each ran a class the other never did.
      assert.deepEqual(of(ok({ bytes: 'aa', effects: ['get Symbol(hidden)'] }), rejected(['get visible'])),
        ['effects/serialize/a get (symbol key), b get (named key)']);
      // a stopped at a view whose prototype is a Proxy, b went on to a later getter: b's alone is no difference.
      assert.deepEqual(of(rejected(['proto get constructor', 'proto get href']),
        ok({ bytes: 'aa', effects: ['proto get constructor', 'get constructor'] })), []);
    });

    it('name both sides where each ran a class of user code the other never ran', function () {
      assert.equal(signatureOf(['get Symbol(s)', 'get x'], ['get x', 'call Buffer.allocUnsafe']),
        'effects/serialize/a get (symbol key), b call Buffer.*');
      // One side's extra class names it alone, wherever the two first part.
      assert.equal(signatureOf(['get x', 'get y', 'get Symbol(s)'], ['get x']), 'effects/serialize/a get (symbol key)');
      // The same classes, run more often by one: where they first part.
      assert.equal(signatureOf(['get x', 'get x'], ['get x']), 'effects/serialize/a get (named key)');
    });

    it('name user code before the pool, whose moves follow from what was written', function () {
      assert.equal(signatureOf(['pool +8', 'get a'], ['pool +0']), 'effects/serialize/a get (named key)');
      assert.equal(signatureOf(['pool +8'], ['pool +0']), 'effects/serialize/a pool moved');
      assert.equal(signatureOf(['pool +16'], ['pool +0']), 'effects/serialize/a pool moved');
    });
  });

  describe('bytesAsReadBack', function () {
    const bytes = { tier: 'bytes', op: 'serialize', signature: 'bytes/serialize/one-byte-string.length', detail: 'd' };

    it('names a bytes difference by the keys one frame holds and the other does not, and which side', function () {
      const read = (object) => tree(object);
      const deleted = bytesAsReadBack(bytes, read({ x: 1, a: 2 }), read({ x: 1, visible: undefined, a: 2 }));
      assert.equal(deleted.signature, 'bytes/serialize/object.props (named key only in b)');
      const otherName = bytesAsReadBack(bytes, read({ x: 1 }), read({ x: 1, somethingLonger: 0 }));
      assert.equal(otherName.signature, deleted.signature);
      const index = bytesAsReadBack(bytes, read({ 2147483648: 1 }), read({}));
      assert.equal(index.signature, 'bytes/serialize/object.props (index key only in a)');
      assert.match(index.detail, /read back, the frames differ in keys/);
      // The object whose keys differ names it, not an array or object holding it.
      const nested = bytesAsReadBack(bytes, read([{ x: 1, extra: 2 }]), read([{ x: 1 }]));
      assert.equal(nested.signature, 'bytes/serialize/object.props (named key only in a)');
    });

    it('names it by the keys as written where a frame cannot be read back', function () {
      // A port that refers to itself, with a heap-number index key that one codec dropped.
      const written = [frame('ff0f5c016f4e000000000000e04149027b01'), frame('ff0f5c016f7b00')]
        .map((hex) => Buffer.from(hex, 'hex'));
      const named = bytesAsReadBack(bytes, undefined, undefined, written);
      assert.equal(named.signature, 'bytes/serialize/object.props (index key only in a)');
      assert.match(named.detail, /as written, object 1 holds keys \[2147483648\] in a, \[\] in b/);
      assert.equal(bytesAsReadBack(bytes, undefined, undefined, [written[0], written[0]]), bytes);
    });

    it('leaves a difference that is not in keys as it was', function () {
      assert.equal(bytesAsReadBack(bytes, tree({ a: 1 }), tree({ a: 2 })), bytes);
      assert.equal(bytesAsReadBack(bytes, tree({ a: 1 }), undefined), bytes);
      const numbers = { ...bytes, signature: 'bytes/serialize/number-representation' };
      assert.equal(bytesAsReadBack(numbers, tree({ a: 1 }), tree({})), numbers);
    });
  });

  describe('partsOf', function () {
    it('splits a signature named by two causes into one signature each', function () {
      assert.deepEqual(partsOf('bytes/serialize/object.props (index key only in a, named key only in b)'),
        ['bytes/serialize/object.props (index key only in a)', 'bytes/serialize/object.props (named key only in b)']);
      assert.deepEqual(partsOf('effects/serialize/a get (symbol key), b get (named key)'),
        ['effects/serialize/a get (symbol key)', 'effects/serialize/b get (named key)']);
      for (const one of ['bytes/serialize/object.props (index key only in a)', 'effects/serialize/a call Buffer.*',
        'bytes/serialize/object.props (order)', 'crash/serialize/b:crash SIGSEGV']) {
        assert.deepEqual(partsOf(one), [one]);
      }
    });
  });

  describe('effectsCause', function () {
    const d = (tier, op, rest) => ({ tier, op, signature: `${tier}/${op}/${rest}` });

    it('finds the user code that explains what one codec wrote or read back', function () {
      const effects = d('effects', 'serialize', 'a get byteLength');
      assert.equal(effectsCause([d('bytes', 'serialize', 'host.byteLength'), effects],
        d('bytes', 'serialize', 'host.byteLength')), effects);
      assert.equal(effectsCause([effects], d('value', 'deserialize', 'view.bytes')), effects);
    });

    it('is null for the pool, for an operation that came before the code, and for other tiers', function () {
      const bytes = d('bytes', 'serialize', 'host.byteLength');
      assert.equal(effectsCause([d('effects', 'serialize', 'a pool moved')], bytes), null);
      assert.equal(effectsCause([d('effects', 'deserialize', 'a call Buffer.*')], bytes), null);
      const crashed = d('crash', 'serialize', 'b:crash SIGSEGV');
      assert.equal(effectsCause([d('effects', 'serialize', 'a get x')], crashed), null);
      const rejected = d('acceptance', 'serialize', 'b-rejects:Error');
      assert.ok(effectsCause([d('effects', 'serialize', 'a get (symbol key)')], rejected));
    });
  });

  describe('treeDiff', function () {
    it('is null for equal trees and points at the first differing field', function () {
      assert.equal(treeDiff(tree({ a: [1, 2] }), tree({ a: [1, 2] })), null);
      const d = treeDiff(tree({ a: [1, 2] }), tree({ a: [1, 3] }));
      assert.equal(d.path, '$.props[0][1].props[1][1].v');
      assert.deepEqual([d.field, d.node, d.a, d.b], ['v', 'number', '2', '3']);
    });

    it('compares the node type before anything else', function () {
      const d = treeDiff(tree(new Map()), tree(new Set()));
      assert.deepEqual([d.path, d.field, d.a, d.b], ['$.t', 't', 'map', 'set']);
    });

    it('notices a field present on one side only', function () {
      const d = treeDiff({ t: 'x', extra: 1 }, { t: 'x' });
      assert.deepEqual([d.field, d.a, d.b], ['extra', 1, undefined]);
    });
  });

  describe('compareReads', function () {
    it('compares delivered messages as values, per read and message', function () {
      const [d] = compareReads([read([1])], [read([2])]);
      assert.equal(d.tier, 'value');
      assert.equal(d.op, 'stream');
      assert.equal(d.where, 'read 1, message 1');
    });

    it('puts a different number of messages or buffering state in the framing tier', function () {
      const count = compareReads([read([1, 2])], [read([1])]);
      assert.deepEqual(tiersOf(count), ['framing']);
      assert.match(count[0].signature, /^framing\/stream\/delivered/);
      const buffering = compareReads([read([], { buffering: true })], [read([], { buffering: false })]);
      assert.deepEqual(tiersOf(buffering), ['framing']);
      assert.match(buffering[0].signature, /^framing\/stream\/buffering/);
      assert.equal(buffering[0].where, 'read 1');
    });

    it('compares errors raised by a read like rejections', function () {
      const err = (code) => ({ name: 'Error', code, message: 'm' });
      const reads = compareReads([read([], { error: err('A') })], [read([], { error: err('B') })]);
      assert.deepEqual(tiersOf(reads), ['error-identity']);
      assert.deepEqual(tiersOf(compareReads([read([], { error: err('A') })], [read([])])), ['acceptance']);
      const same = () => [read([1]), read([], { error: err('A') })];
      assert.deepEqual(compareReads(same(), same()), []);
    });
  });

  describe('on real inputs', function () {
    const session = useSession();

    const u8 = (tamper) => ({ k: 'view', type: 'Uint8Array', bytes: '01020304', tamper });
    const tag = (name) => u8([{ op: 'define', key: { wellKnown: 'toStringTag' }, value: { k: 'string', v: name } }]);

    it('crash: native segfaults on a MessagePort with an integer key', async function () {
      const result = await session.check('value', { recipe: { k: 'port', props: [['0', { k: 'number', v: 5 }]] } });
      const crash = result.differences.filter((d) => d.tier === 'crash');
      assert.equal(crash.length, 1);
      assert.equal(result.outcomes.serialize.b.kind, 'crash');
      assert.equal(result.outcomes.serialize.b.signal, 'SIGSEGV');
      assert.equal(result.outcomes.serialize.a.kind, 'ok');
    });

    it('acceptance: js refuses a view whose toStringTag names no view type; native writes it', async function () {
      const result = await session.check('value', { recipe: tag('Foo') });
      assert.deepEqual(tiersOf(result.differences), ['acceptance']);
      assert.match(result.differences[0].signature, /^acceptance\/serialize\/a-rejects:/);
    });

    it('error-identity: both reject host tag 2, with different codes', async function () {
      const result = await session.check('frame', { bytes: frame('ff0f 5c02 49') });
      assert.deepEqual(tiersOf(result.differences), ['error-identity']);
      const [first] = result.differences;
      assert.deepEqual([first.a.code, first.b.code], ['ERR_INTERNAL_ASSERTION', 'ERR_INVALID_STATE']);
    });

    it('bytes: js writes an own byteLength property, native the real one', async function () {
      const recipe = u8([{ op: 'define', key: 'byteLength', value: { k: 'number', v: 1 } }]);
      const result = await session.check('value', { recipe });
      const bytes = result.differences.filter((d) => d.tier === 'bytes');
      assert.equal(bytes.length, 1);
      assert.equal(bytes[0].signature, 'bytes/serialize/host.byteLength');
    });

    it('bytes: an own toStringTag of Int8Array changes the type index js writes', async function () {
      const result = await session.check('value', { recipe: tag('Int8Array') });
      const { a, b } = result.outcomes.serialize;
      // Type index at frame offset 8: 0 (Int8Array) from js, 1 (Uint8Array) from native.
      assert.deepEqual([a.bytes.slice(16, 18), b.bytes.slice(16, 18)], ['00', '01']);
      assert.equal(result.differences.find((d) => d.tier === 'bytes').signature, 'bytes/serialize/host.index');
    });

    it('value: js copies an unaligned view into a pool slice, native into its own buffer', async function () {
      const result = await session.check('value', {
        recipe: { k: 'array', items: [{ k: 'string', v: 'a' }, { k: 'view', type: 'Uint16Array', bytes: '0100' }] },
      });
      assert.deepEqual(tiersOf(result.differences), ['value']);
      assert.equal(result.differences[0].signature, 'value/deserialize/view.backing');
    });

    it('effects: js reads an own byteLength getter, native does not', async function () {
      const recipe = u8([{ op: 'define', key: 'byteLength', get: { returns: { k: 'number', v: 4 } } }]);
      const result = await session.check('value', { recipe });
      assert.deepEqual(tiersOf(result.differences), ['effects']);
      assert.ok(result.outcomes.serialize.a.effects.includes('get byteLength'));
      assert.deepEqual(result.outcomes.serialize.b.effects, []);
    });

    it('classification: an adapter that boxes decoded numbers', async function () {
      const result = await checkAgainst(fixture('boxed-numbers.js'), 'value', { recipe: { k: 'number', v: 3 } });
      // The adapter also fails to read back its own frame as the number it was given.
      assert.deepEqual(tiersOf(result.differences), ['classification', 'roundtrip']);
    });

    it('classification: an adapter that decodes Buffers as plain Uint8Arrays', async function () {
      const recipe = { k: 'view', type: 'Buffer', bytes: '0102' };
      const result = await checkAgainst(fixture('plain-u8.js'), 'value', { recipe });
      assert.deepEqual(tiersOf(result.differences), ['classification']);
    });

    it('framing: an adapter whose framer never reports buffering', async function () {
      const input = { bytes: frame('ff0f 4902'), chunks: [2] };
      const result = await checkAgainst(fixture('no-buffering.js'), 'stream', input);
      assert.deepEqual(tiersOf(result.differences), ['framing']);
      assert.equal(result.differences[0].where, 'read 1');
      assert.match(result.differences[0].signature, /buffering/);
    });
  });
});
