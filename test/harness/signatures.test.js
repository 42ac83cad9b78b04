'use strict';
// Signatures dedupe findings: inputs hitting one problem share a signature,
// different problems do not.
const assert = require('node:assert/strict');
const { compareOutcomes } = require('../../harness/oracle/compare');
const { canonicalize } = require('../../harness/oracle/canonical');
const { fixture, frame, useSession, checkAgainst } = require('../fixtures/helpers');

const u8 = (type, bytes, tamper) => ({ k: 'view', type, bytes, tamper });
const ownByteLength = (n) => [{ op: 'define', key: 'byteLength', value: { k: 'number', v: n } }];
const ownTag = (name) => [{ op: 'define', key: { wellKnown: 'toStringTag' }, value: { k: 'string', v: name } }];
const inObject = (recipe) => ({ k: 'object', props: [['x', { k: 'string', v: 'padding' }], ['view', recipe]] });

const signatures = (result) => result.differences.map((d) => d.signature);

describe('signatures', function () {
  const session = useSession();

  const check = (recipe) => session.check('value', { recipe });

  it('are equal for two inputs hitting the own-byteLength difference', async function () {
    const [top, nested] = await Promise.all([
      check(u8('Uint8Array', '01020304', ownByteLength(1))),
      check(inObject(u8('Int16Array', '0100020003000400', ownByteLength(2)))),
    ]);
    const [s1] = signatures(top).filter((s) => s.startsWith('bytes/'));
    const [s2] = signatures(nested).filter((s) => s.startsWith('bytes/'));
    assert.equal(s1, 'bytes/serialize/host.byteLength');
    assert.equal(s2, s1);
  });

  it('differ between the own-byteLength and the own-toStringTag differences', async function () {
    const [byteLength, tag] = await Promise.all([
      check(u8('Uint8Array', '01020304', ownByteLength(1))),
      check(u8('Uint8Array', '01020304', ownTag('Int8Array'))),
    ]);
    assert.notDeepEqual(signatures(byteLength), signatures(tag));
  });

  it('are equal for two crashing MessagePorts, and differ from an acceptance difference', async function () {
    const port = (key, v) => ({ k: 'port', props: [[key, { k: 'number', v }]] });
    const [p0, p3, foo] = await Promise.all([
      check(port('0', 5)),
      check(port('3', 7)),
      check(u8('Uint8Array', '01', ownTag('Foo'))),
    ]);
    assert.equal(p0.differences[0].tier, 'crash');
    assert.deepEqual(signatures(p3), signatures(p0));
    assert.notDeepEqual(signatures(foo), signatures(p0));
  });

  it('are equal for two unaligned views copied differently, whatever their type', async function () {
    const unaligned = (type, bytes) => ({ k: 'array', items: [{ k: 'string', v: 'a' }, u8(type, bytes)] });
    const [u16, f64] = await Promise.all([
      check(unaligned('Uint16Array', '0100')),
      check(unaligned('Float64Array', '000000000000f03f')),
    ]);
    assert.deepEqual(signatures(u16), ['value/deserialize/view.backing']);
    assert.deepEqual(signatures(f64), signatures(u16));
  });

  it('are equal for the same rejection pair on different frames', async function () {
    const [short, long] = await Promise.all([
      session.check('frame', { bytes: frame('ff0f 5c02 49') }),
      session.check('frame', { bytes: frame('ff0f 6f 220161 5c07 49 7b01') }),
    ]);
    assert.equal(signatures(short).length, 1);
    assert.deepEqual(signatures(long), signatures(short));
  });

  // A missing or extra property is named props, not by its index in `props`,
  // or the same dropped property would sign differently by object size.
  it('do not depend on how many properties precede the one that differs', async function () {
    const object = (n) => ({ k: 'object', props: Array.from({ length: n }, (_, i) => [`p${i}`, { k: 'number', v: i }]) });
    const dropping = (n) => checkAgainst(fixture('drop-last-prop.js'), 'value', { recipe: object(n) });
    const [one, three] = await Promise.all([dropping(1), dropping(3)]);
    // The decoded value differs, and the adapter does not read back its own frame.
    assert.deepEqual(one.differences.map((d) => d.tier), ['value', 'roundtrip']);
    assert.deepEqual(signatures(three), signatures(one));
  });

  // Field names come from the wire field, never from a label function's
  // source, inside an int32 or a double too.
  it('name numeric wire fields without JavaScript source', function () {
    const ok = (bytes) => ({ kind: 'ok', bytes });
    for (const [a, b] of [['ff0f 4902', 'ff0f 4904'], ['ff0f 4e 000000000000f03f', 'ff0f 4e 0000000000000040']]) {
      const [d] = compareOutcomes('serialize', 'serialize', ok(frame(a)), ok(frame(b)));
      assert.doesNotMatch(d.signature, /=>|\(/, d.signature);
      assert.match(d.signature, /^bytes\/serialize\/(int32|double)\./);
    }
  });

  it('keep tree differences at different fields apart', function () {
    const t = (v) => JSON.parse(JSON.stringify(canonicalize(v)));
    const ok = (value) => ({ kind: 'ok', tree: t(value) });
    const [number] = compareOutcomes('deserialize', 'w', ok(1), ok(2));
    const [date] = compareOutcomes('deserialize', 'w', ok(new Date(1)), ok(new Date(2)));
    const [nested] = compareOutcomes('deserialize', 'w', ok({ deep: [1] }), ok({ deep: [2] }));
    assert.notEqual(number.signature, date.signature);
    // The same field of the same node type, at any depth, is one problem.
    assert.equal(nested.signature, number.signature);
  });
});
