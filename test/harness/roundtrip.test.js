'use strict';
// The round-trip oracle: a codec must read back what it wrote, to the value it
// was given modulo the lossy classes of harness/oracle/roundtrip.js.
const assert = require('node:assert/strict');
const { fixture, useSession, checkAgainst } = require('../fixtures/helpers');
const fc = require('fast-check');
const { roundtripDifferences, lossless, lossy } = require('../../harness/oracle/roundtrip');
const { treeDiff } = require('../../harness/oracle/compare');
const { canonicalize } = require('../../harness/oracle/canonical');
const { recipe } = require('../../harness/arbitraries/recipes');
const { buildInput } = require('../../harness/recipes/build');

const roundtrips = (result) => result.differences.filter((d) => d.tier === 'roundtrip');

// A value every class of which round-trips: containers, references, views,
// buffers, dates, regexps, boxed values, errors, holes, integer-like keys.
const roundTripping = {
  k: 'object',
  props: [
    ['view', { k: 'view', type: 'Float64Array', bytes: '000000000000f03f', id: 1 }],
    ['again', { k: 'ref', to: 1 }],
    ['buffer', { k: 'view', type: 'Buffer', bytes: '0102' }],
    ['ab', { k: 'arraybuffer', bytes: '0a0b', maxByteLength: 8 }],
    ['4294967294', { k: 'array', items: [{ k: 'number', v: 1 }, { k: 'hole' }], length: 5 }],
    ['map', { k: 'map', entries: [[{ k: 'string', v: '\ud800' }, { k: 'bigint', v: '-12345678901234567890' }]] }],
    ['set', { k: 'set', values: [{ k: 'date', v: 5 }, { k: 'regexp', source: 'a+', flags: 'gu' }] }],
    ['boxed', { k: 'boxed', of: { k: 'number', v: '-0' } }],
    ['error', { k: 'error', type: 'RangeError', message: 'm', cause: { k: 'null' } }],
    ['port', { k: 'port', props: [['visible', { k: 'number', v: 2.5 }]] }],
  ],
};

describe('round-trip oracle', function () {
  describe('js against native', function () {
    const session = useSession();

    it('reports a frame that both codecs write and neither can read', async function () {
      const result = await session.check('value', { module: fixture('wasm-module.js') });
      // The codecs agree: the differential oracle alone says nothing.
      assert.deepEqual(result.differences.filter((d) => d.tier !== 'roundtrip'), []);
      const [finding] = roundtrips(result);
      assert.equal(finding.signature, 'roundtrip/deserialize/a+b:unreadable:Error');
      assert.match(finding.detail, /Unable to deserialize cloned data/);
    });

    // A patched built-in that records its call, beside a setter for index 0 on Object.prototype: the
    // harness records by definition, so the setter never runs for its own record.
    it('records user code beside an index setter on Object.prototype without running the setter', async function () {
      const recipe = { k: 'object', props: [['x', { k: 'view', type: 'Uint8Array', bytes: '01' }]],
        tamper: [{ op: 'patch', of: 'v8.Serializer', key: 'writeRawBytes', side: 'both' },
          { op: 'inherited-setter', key: '0' }] };
      const result = await session.check('value', { recipe });
      assert.equal(result.outcomes.serialize.a.kind, 'ok', JSON.stringify(result.outcomes.serialize.a.error));
      assert.deepEqual(result.differences.map((d) => d.signature),
        ['effects/serialize/a call v8.Serializer.prototype.*']);
    });

    it('reports nothing for a value both codecs read back', async function () {
      const result = await session.check('value', { recipe: roundTripping });
      assert.deepEqual(roundtrips(result), []);
      assert.ok(result.outcomes.serialize.a.inputTree, 'the input was described for the oracle');
    });

    it('names the codec that reads back another value', async function () {
      const result = await checkAgainst(fixture('drop-last-prop.js'), 'value',
        { recipe: { k: 'object', props: [['a', { k: 'number', v: 1 }], ['b', { k: 'number', v: 2 }]] } });
      const [finding] = roundtrips(result);
      assert.equal(finding.signature, 'roundtrip/deserialize/b:object.props');
      assert.equal(roundtrips(result).length, 1);
    });

    // What differs may hold a subtree too deep to print: the difference is
    // still reported, with that part named, not printed.
    it('reports a value read back wrong whatever the depth of what differs', async function () {
      const deep = { k: 'nest', in: 'array', depth: 1000, leaf: { k: 'null' } };
      const result = await checkAgainst(fixture('drop-last-prop.js'), 'value',
        { recipe: { k: 'object', props: [['z', deep]] } });
      const [finding] = roundtrips(result);
      assert.equal(finding.signature, 'roundtrip/deserialize/b:object.props');
      assert.match(finding.detail, /^b read back another value: \$\.props\[0\]: (\(nested too deep to print\)|\["z",)/);
    });

    it('compares no value when user code ran during serialization', async function () {
      const recipe = { k: 'object', props: [['a', { k: 'number', v: 1 }]],
        tamper: [{ op: 'define', key: 'g', get: { returns: { k: 'number', v: 1 } } }] };
      const result = await session.check('value', { recipe });
      assert.equal(result.outcomes.serialize.a.inputTree, undefined);
      assert.deepEqual(roundtrips(result), []);
    });
  });

  describe('a frame only one codec wrote', function () {
    const frame = { kind: 'ok', bytes: '00000002ff0f' };
    const unreadable = { kind: 'reject', error: { name: 'Error', message: 'Unable to deserialize cloned data.' } };
    const rejected = { kind: 'reject', error: { name: 'RangeError', message: 'm' } };
    const input = { recipe: { k: 'null' } };

    it('is no difference when the other codec cannot read it either', function () {
      const decodeOf = (producer) => (producer === 'b' ? unreadable : undefined);
      assert.deepEqual(roundtripDifferences(input, { a: rejected, b: frame }, decodeOf), []);
    });

    it('is a difference when the other codec reads it back', function () {
      const decodeOf = (producer, side) =>
        (producer === 'b' ? (side === 'a' ? { kind: 'ok' } : unreadable) : undefined);
      assert.deepEqual(roundtripDifferences(input, { a: rejected, b: frame }, decodeOf).map((d) => d.signature),
        ['roundtrip/deserialize/b:unreadable:Error']);
    });
  });

  describe('lossy classes', function () {
    it('drop prototypes, identity numbers and where view bytes live, and match accessors', function () {
      class Sub extends Uint8Array {}
      const input = { view: new Sub([1, 2]) };
      Object.defineProperty(input, 'g', { get: () => 1, enumerable: true });
      const output = { view: new Uint8Array([1, 2]), g: 1 };
      assert.deepEqual(lossless(canonicalize(input), canonicalize(output)), lossless(canonicalize(output)));
    });

    it('keep values, keys and view bytes', function () {
      const written = canonicalize({ a: new Uint8Array([1, 2]) });
      const read = canonicalize({ a: new Uint8Array([1, 3]) });
      const serialized = { a: { kind: 'ok', inputTree: written }, b: { kind: 'ok', inputTree: written } };
      const decodeOf = (producer, side) => ({ kind: 'ok', tree: side === 'a' ? written : read });
      const found = roundtripDifferences({ module: 'x' }, serialized, decodeOf);
      assert.deepEqual(found.map((d) => d.signature), ['roundtrip/deserialize/b:view.bytes']);
    });

    it('compare the trees as they are what the copies without the lossy fields compare as', function () {
      // Canonical trees of drawn values, and the same trees changed where the oracle looks and where it does not;
      // values nested less than 1000 deep, whose trees a recursive walk goes through.
      const shallow = recipe.filter((r) => !/"depth":\d{4}/.test(JSON.stringify(r)));
      const trees = fc.sample(shallow, { seed: 20261123, numRuns: 300 }).flatMap((r) => {
        try {
          return [canonicalize(buildInput({ recipe: r }, []).value)];
        } catch {
          return [];
        }
      });
      const change = fc.constantFrom(
        (node) => { node.v = 'changed'; }, (node) => { node.proto = ['?']; }, (node) => { node.id = 99; },
        (node) => { node.props = [['k', { t: 'null' }]]; }, (node) => { node.t = 'accessor'; },
        (node) => { delete node.props; }, (node) => { node.backing = 'frame'; }, (node) => { node.extra = 1; });
      const nodesOf = (tree) => JSON.stringify(tree).match(/"t":/g).length;
      fc.assert(fc.property(fc.nat(trees.length - 1), fc.nat(trees.length - 1), fc.nat(), change, fc.boolean(),
        (i, j, at, edit, other) => {
          const a = trees[i];
          const b = structuredClone(other ? trees[j] : a);
          let n = at % nodesOf(b);
          const visit = (x) => {
            if (x === null || typeof x !== 'object') return;
            if (!Array.isArray(x) && typeof x.t === 'string' && n-- === 0) edit(x);
            for (const child of Object.values(x)) visit(child);
          };
          visit(b);
          // The nodes holding the differing field are the trees' own, copied or not.
          const bare = (found) => found && { ...found, holders: undefined };
          const d = bare(treeDiff(a, b, lossy));
          if (d) [d.a, d.b] = [lossless(d.a, d.b), lossless(d.b)];
          assert.deepEqual(d, bare(treeDiff(lossless(a, b), lossless(b))));
        }), { seed: 20261123, numRuns: 2000 });
    });
  });
});
