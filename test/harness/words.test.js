'use strict';
// Findings in a maintainer's words (harness/findings/words.js, from the
// recipe's words, harness/recipes/words.js), on finding.json-shaped fixtures:
// the findings of a run of js against native in Node 26.12.1, and made ones
// of the tiers, inputs and codecs that run did not meet.
const assert = require('node:assert/strict');
const path = require('node:path');
const { kinds } = require('../../harness/recipes/kinds');
const { steps } = require('../../harness/recipes/tampering');
const { recipeWords, stepWords } = require('../../harness/recipes/words');
const { titleOf, familyOf, severityRank, families } = require('../../harness/findings/words');

// A finding.json with the fields a title is made from.
function finding({ name, signature, where = 'serialize', detail = '', recipe, bytes, chunks, a = { kind: 'ok' },
  b = { kind: 'ok' }, reachable = false, outcomes = {}, codecs = {} }) {
  const [tier, op] = signature.split('/');
  const input = bytes === undefined ? { recipe } : { bytes, ...(chunks ? { chunks } : {}) };
  return {
    name, signature, tier, where, detail, type: bytes === undefined ? 'value' : chunks ? 'stream' : 'frame', input,
    outcomes, differences: [{ tier, op, where, a, b, signature, detail }],
    sides: { a: { codec: codecs.a ?? 'js' }, b: { codec: codecs.b ?? 'native' } },
    reachability: { checked: true, reachable },
  };
}

// The 28 findings of one run (`ipcfuzz fuzz`, js against native, 26.12.1), their recipes and outcomes as saved.
const run = [
  {
    name: 'view with Object.prototype',
    signature: 'acceptance/serialize/a-rejects:Error',
    detail: 'a reject Error, b ok',
    recipe: { k: 'view', type: 'Int8Array', bytes: '', tamper: [{ op: 'prototype', of: 'Object' }] },
    a: { kind: 'reject', name: 'Error' },
    reachable: true,
    outcomes: { serialize: { a: { error: { name: 'Error', message: 'Unserializable host object: {}' } } } },
  },
  {
    name: 'detached view',
    signature: 'acceptance/serialize/a-rejects:TypeError',
    detail: 'a reject TypeError, b ok',
    recipe: { k: 'view', type: 'Int8Array', bytes: '', tamper: [{ op: 'detach' }] },
    a: { kind: 'reject', name: 'TypeError' },
    reachable: true,
    outcomes: {
      serialize: {
        a: { error: { name: 'TypeError', message: 'Cannot perform Construct on a detached ArrayBuffer' } },
      },
    },
  },
  {
    name: 'own byteLength',
    signature: 'bytes/serialize/host.byteLength',
    detail: 'frames differ from offset 0x9 (host.byteLength)',
    recipe: {
      k: 'view',
      type: 'BigInt64Array',
      bytes: '0000000000000000',
      tamper: [{ op: 'define', key: 'byteLength', value: { k: 'number', v: 0 } }],
    },
    reachable: true,
  },
  {
    name: 'own buffer',
    signature: 'bytes/serialize/host.bytes',
    detail: 'frames differ from offset 0xa (host.bytes)',
    recipe: {
      k: 'view',
      type: 'Int8Array',
      bytes: '',
      tamper: [{ op: 'define', key: 'buffer', value: { k: 'number', v: 1 } }],
    },
  },
  {
    name: 'own toStringTag',
    signature: 'bytes/serialize/host.index',
    detail: 'frames differ from offset 0x8 (host.index)',
    recipe: {
      k: 'view',
      type: 'Int32Array',
      bytes: '',
      tamper: [{ op: 'define', key: { wellKnown: 'toStringTag' }, value: { k: 'string', v: 'Int8Array' } }],
    },
    reachable: true,
  },
  {
    name: 'heap-number index on a port',
    signature: 'bytes/serialize/object.props (index key only in a)',
    recipe: { k: 'port', props: [['2147483648', { k: 'number', v: 1 }]] },
    reachable: true,
    outcomes: {
      decode: [
        { producer: 'a', a: { tree: { t: 'object', props: [['2147483648', { t: 'number', v: '1' }]] } } },
        { producer: 'b', a: { tree: { t: 'object', props: [] } } },
      ],
    },
  },
  {
    name: 'heap-number index getter hides a key',
    signature: 'bytes/serialize/object.props (index key only in a, named key only in b)',
    recipe: {
      k: 'host',
      type: 'public-key',
      tamper: [
        {
          op: 'define',
          key: '2147483648',
          get: { then: [{ op: 'define', key: 'a', value: { k: 'number', v: 5 }, enumerable: false }] },
        },
        { op: 'define', key: 'a', get: {} },
      ],
    },
    reachable: true,
    outcomes: {
      decode: [
        { producer: 'a', a: { tree: { t: 'object', props: [['2147483648', { t: 'undefined' }]] } } },
        { producer: 'b', a: { tree: { t: 'object', props: [['a', { t: 'number', v: '5' }]] } } },
      ],
    },
  },
  {
    name: 'heap-number index in sessionStorage',
    signature: 'bytes/serialize/object.props (index key only in b)',
    recipe: { k: 'storage', props: [['2147483648', { k: 'string', v: '' }]] },
    reachable: true,
    outcomes: {
      decode: [
        { producer: 'a', a: { tree: { t: 'object', props: [] } } },
        { producer: 'b', a: { tree: { t: 'object', props: [['2147483648', { t: 'undefined' }]] } } },
      ],
    },
  },
  {
    name: 'getter deletes a later key',
    signature: 'bytes/serialize/object.props (named key only in b)',
    recipe: {
      k: 'port',
      props: [['x', { k: 'number', v: 1 }], ['visible', { k: 'number', v: 2 }]],
      tamper: [{ op: 'define', key: 'x', get: { then: [{ op: 'delete', key: 'visible' }] } }],
    },
    reachable: true,
    outcomes: {
      decode: [
        { producer: 'a', a: { tree: { t: 'object', props: [['x', { t: 'undefined' }]] } } },
        {
          producer: 'b',
          a: { tree: { t: 'object', props: [['x', { t: 'undefined' }], ['visible', { t: 'undefined' }]] } },
        },
      ],
    },
  },
  {
    name: 'Smi index on a port',
    signature: 'crash/serialize/b:crash SIGSEGV',
    detail: 'b crash SIGSEGV',
    recipe: { k: 'port', props: [['2147483647', { k: 'null' }]] },
    b: { kind: 'crash', signal: 'SIGSEGV', code: null },
    reachable: true,
  },
  {
    name: 'receiving TypedArray#set',
    signature: 'effects/deserialize/a call ArrayBufferView.prototype.*',
    where: 'decode a\'s frame',
    detail: 'a ran [call TypedArray.prototype.set], b ran []',
    recipe: {
      k: 'object',
      props: [['b', { k: 'view', type: 'Float64Array', bytes: '' }]],
      tamper: [{ op: 'patch', of: 'TypedArray', key: 'set', side: 'both' }],
    },
    reachable: true,
    outcomes: { decode: [{ producer: 'a', a: { effects: ['call TypedArray.prototype.set'] }, b: { effects: [] } }] },
  },
  {
    name: 'receiving Buffer.allocUnsafe',
    signature: 'effects/deserialize/a call Buffer.*',
    where: 'decode a\'s frame',
    detail: 'a ran [call Buffer.allocUnsafe], b ran []',
    recipe: {
      k: 'object',
      props: [['b', { k: 'view', type: 'Float64Array', bytes: '' }]],
      tamper: [{ op: 'patch', of: 'Buffer', static: true, key: 'allocUnsafe', side: 'both' }],
    },
    reachable: true,
    outcomes: { decode: [{ producer: 'a', a: { effects: ['call Buffer.allocUnsafe'] }, b: { effects: [] } }] },
  },
  {
    name: 'receiving v8.Deserializer',
    signature: 'effects/deserialize/a call v8.Deserializer.prototype.*',
    where: 'decode a\'s frame',
    detail: 'a ran [call v8.Deserializer.prototype._readRawBytes], b ran []',
    recipe: {
      k: 'view',
      type: 'DataView',
      bytes: '',
      tamper: [{ op: 'patch', of: 'v8.Deserializer', key: '_readRawBytes', side: 'both' }],
    },
    reachable: true,
    outcomes: {
      decode: [
        { producer: 'a', a: { effects: ['call v8.Deserializer.prototype._readRawBytes'] }, b: { effects: [] } },
      ],
    },
  },
  {
    name: 'receiving view accessor',
    signature: 'effects/deserialize/a get ArrayBufferView.prototype.*',
    where: 'decode a\'s frame',
    recipe: {
      k: 'view',
      type: 'DataView',
      bytes: '',
      tamper: [{ op: 'patch', of: 'TypedArray', key: 'buffer', side: 'both' }],
    },
    reachable: true,
    outcomes: {
      decode: [
        {
          producer: 'a',
          a: { effects: ['get TypedArray.prototype.buffer', 'get TypedArray.prototype.buffer'] },
          b: { effects: ['get TypedArray.prototype.buffer'] },
        },
      ],
    },
  },
  {
    name: 'receiving BYTES_PER_ELEMENT',
    signature: 'effects/deserialize/a get BYTES_PER_ELEMENT',
    where: 'decode a\'s frame',
    detail: 'a ran [get BYTES_PER_ELEMENT], b ran []',
    recipe: {
      k: 'view',
      type: 'DataView',
      bytes: '',
      tamper: [
        { op: 'proto', of: 'Object', key: 'BYTES_PER_ELEMENT', value: { k: 'number', v: 2 }, side: 'receive' },
      ],
    },
    reachable: true,
    outcomes: { decode: [{ producer: 'a', a: { effects: ['get BYTES_PER_ELEMENT'] }, b: { effects: [] } }] },
  },
  {
    name: 'receiving pool',
    signature: 'effects/deserialize/a pool moved',
    where: 'decode a\'s frame',
    detail: 'a ran [pool +8], b ran [pool +0]',
    recipe: { k: 'view', type: 'Float64Array', bytes: '000000000000f03f', tamper: [{ op: 'pool', side: 'both' }] },
    outcomes: { decode: [{ producer: 'a', a: { effects: ['pool +8'] }, b: { effects: ['pool +0'] } }] },
  },
  {
    name: 'sending TypedArray#set',
    signature: 'effects/serialize/a call ArrayBufferView.prototype.*',
    detail: 'a ran [call TypedArray.prototype.set], b ran []',
    recipe: { k: 'object', tamper: [{ op: 'patch', of: 'TypedArray', key: 'set', side: 'both' }] },
    reachable: true,
    outcomes: { serialize: { a: { effects: ['call TypedArray.prototype.set'] }, b: { effects: [] } } },
  },
  {
    name: 'sending Buffer.allocUnsafe',
    signature: 'effects/serialize/a call Buffer.*',
    detail: 'a ran [call Buffer.allocUnsafe], b ran []',
    recipe: {
      k: 'regexp',
      source: 'a',
      flags: '',
      tamper: [{ op: 'patch', of: 'Buffer', static: true, key: 'allocUnsafe', side: 'send' }],
    },
    reachable: true,
    outcomes: { serialize: { a: { effects: ['call Buffer.allocUnsafe'] }, b: { effects: [] } } },
  },
  {
    name: 'sending v8.Serializer',
    signature: 'effects/serialize/a call v8.Serializer.prototype.*',
    detail: 'a ran [call v8.Serializer.prototype.writeUint32], b ran []',
    recipe: {
      k: 'host',
      type: 'secret-key',
      tamper: [{ op: 'patch', of: 'v8.Serializer', key: 'writeUint32', side: 'send' }],
    },
    reachable: true,
    outcomes: { serialize: { a: { effects: ['call v8.Serializer.prototype.writeUint32'] }, b: { effects: [] } } },
  },
  {
    name: 'sending view accessor',
    signature: 'effects/serialize/a get ArrayBufferView.prototype.*',
    detail: 'a ran [get DataView.prototype.byteLength, get DataView.prototype.byteLength], b ran []',
    recipe: {
      k: 'object',
      props: [['x', { k: 'view', type: 'DataView', bytes: '' }]],
      tamper: [{ op: 'patch', of: 'DataView', key: 'byteLength', side: 'both' }],
    },
    reachable: true,
    outcomes: {
      serialize: {
        a: { effects: ['get DataView.prototype.byteLength', 'get DataView.prototype.byteLength'] },
        b: { effects: [] },
      },
    },
  },
  {
    name: 'getter makes a key enumerable',
    signature: 'effects/serialize/a get (named key)',
    detail: 'a ran [get visible, get a], b ran [get visible]',
    recipe: {
      k: 'host',
      type: 'secret-key',
      props: [['visible', { k: 'null' }]],
      tamper: [
        { op: 'define', key: 'a', get: {}, enumerable: false },
        { op: 'define', key: 'visible', get: { then: [{ op: 'define', key: 'a', get: {} }] } },
      ],
    },
    reachable: true,
    outcomes: { serialize: { a: { effects: ['get visible', 'get a'] }, b: { effects: ['get visible'] } } },
  },
  {
    name: 'symbol-keyed getter',
    signature: 'effects/serialize/a get (symbol key)',
    detail: 'a ran [get Symbol(hidden)], b ran []',
    recipe: { k: 'host', type: 'x509', tamper: [{ op: 'define', key: { symbol: 'hidden' }, get: {} }] },
    outcomes: { serialize: { a: { effects: ['get Symbol(hidden)'] }, b: { effects: [] } } },
  },
  {
    name: 'sending pool',
    signature: 'effects/serialize/a pool moved',
    detail: 'a ran [pool +8], b ran [pool +0]',
    recipe: { k: 'object', tamper: [{ op: 'pool', side: 'both' }] },
    outcomes: { serialize: { a: { effects: ['pool +8'] }, b: { effects: ['pool +0'] } } },
  },
  {
    name: 'Proxy prototype',
    signature: 'effects/serialize/a proto get *',
    recipe: { k: 'view', type: 'Int8Array', bytes: '', tamper: [{ op: 'prototype', of: 'Int8Array', proxy: true }] },
    reachable: true,
    outcomes: {
      serialize: {
        a: {
          effects: [
            'proto get constructor',
            'proto get Symbol(Symbol.toStringTag)',
            'proto get byteLength',
            'proto get buffer',
            'proto get byteOffset',
            'proto get byteLength',
          ],
        },
        b: { effects: ['proto get constructor'] },
      },
    },
  },
  {
    name: 'symbol-keyed getter deletes a throwing one',
    signature: 'effects/serialize/b get (named key)',
    detail: 'a ran [get Symbol(hidden)], b ran [get visible]',
    recipe: {
      k: 'port',
      tamper: [
        { op: 'define', key: { symbol: 'hidden' }, get: { then: [{ op: 'delete', key: 'visible' }] } },
        { op: 'define', key: 'visible', get: { throws: 'getter' } },
      ],
    },
    b: { kind: 'reject', name: 'Error' },
    reachable: true,
    outcomes: { serialize: { a: { effects: ['get Symbol(hidden)'] }, b: { effects: ['get visible'] } } },
  },
  {
    name: 'WebAssembly.Module',
    signature: 'roundtrip/deserialize/a+b:unreadable:Error',
    where: 'a+b reading their own frame',
    detail: 'a wrote a frame it cannot read: reject Error: Unable to deserialize cloned data.',
    recipe: { k: 'host', type: 'wasm-module' },
    a: { kind: 'reject', name: 'Error' },
    b: { kind: 'reject', name: 'Error' },
  },
  {
    name: 'deep nest',
    signature: 'roundtrip/deserialize/a+b:unreadable:RangeError',
    where: 'a+b reading their own frame',
    detail: 'a wrote a frame it cannot read: reject RangeError: Maximum call stack size exceeded',
    recipe: { k: 'nest', in: 'object', depth: 2500 },
    a: { kind: 'reject', name: 'RangeError' },
    b: { kind: 'reject', name: 'RangeError' },
  },
  {
    name: 'toStringTag and BYTES_PER_ELEMENT',
    signature: 'roundtrip/deserialize/a:unreadable:RangeError',
    where: 'a reading its own frame',
    detail: 'a wrote a frame it cannot read: reject RangeError: Invalid DataView length 8',
    recipe: {
      k: 'array',
      items: [
        {
          k: 'resizable',
          type: 'Uint16Array',
          bytes: '07f2f2f2',
          tamper: [{ op: 'define', key: { wellKnown: 'toStringTag' }, value: { k: 'string', v: 'DataView' } }],
        },
        {
          k: 'host',
          type: 'wasm-module',
          tamper: [
            {
              op: 'proto',
              of: 'Function',
              key: 'BYTES_PER_ELEMENT',
              value: { k: 'number', v: 0.5 },
              side: 'receive',
            },
          ],
        },
      ],
    },
    a: { kind: 'reject', name: 'RangeError' },
    b: { kind: 'reject', name: 'Error' },
    reachable: true,
  },
].map(finding);

const mutant = (file) => path.join(__dirname, '..', '..', 'harness', 'mutants', file);
const hostTag2 = '00000005ff0f5c0249';

// What that run did not meet: other tiers, frames and streams, adapters, hangs.
const made = [
  {
    name: 'Buffer read as Uint8Array', signature: 'classification/deserialize/view.proto', where: "decode a's frame",
    detail: '$.proto[0]: "Buffer" vs "Uint8Array"', recipe: { k: 'view', type: 'Buffer', bytes: '01' },
    codecs: { b: mutant('buffer-as-uint8array.js') },
  },
  {
    name: 'unaligned view copy', signature: 'value/deserialize/view.backing', where: "decode a's frame",
    detail: '$.backing: "slice" vs "exact"', recipe: { k: 'view', type: 'Float64Array', bytes: '000000000000f03f' },
  },
  {
    name: 'host-object tag 2',
    signature: 'error-identity/stream/Error[ERR_INTERNAL_ASSERTION]~Error[ERR_INVALID_STATE]', where: 'read 1',
    bytes: hostTag2,
    a: { kind: 'reject', name: 'Error', code: 'ERR_INTERNAL_ASSERTION' },
    b: { kind: 'reject', name: 'Error', code: 'ERR_INVALID_STATE' },
  },
  {
    name: 'host-object tag 2 accepted', signature: 'acceptance/stream/a-rejects:Error[ERR_INTERNAL_ASSERTION]',
    where: 'read 1', bytes: '00000007ff0f5c026f7b00',
    a: { kind: 'reject', name: 'Error', code: 'ERR_INTERNAL_ASSERTION' },
    codecs: { b: mutant('any-host-tag.js') },
  },
  {
    name: 'messages dropped', signature: 'framing/stream/delivered', where: 'read 1',
    detail: 'a delivered 1 messages, b 0', bytes: `00000005ff0f6f7b00${hostTag2}`, chunks: [],
    codecs: { b: mutant('drops-messages-on-error.js') },
  },
  {
    name: 'signed length prefix', signature: 'framing/stream/buffering', where: 'read 1',
    detail: 'buffering: a true, b false', bytes: '80000000ff0f', chunks: [4],
    codecs: { b: mutant('signed-length-prefix.js') },
  },
  {
    name: 'hang receiving', signature: 'crash/deserialize/b:hang', where: "decode a's frame",
    recipe: { k: 'string', v: 'ab', repeat: 65536 }, b: { kind: 'hang' }, reachable: true,
  },
  {
    name: 'abort reading', signature: 'crash/stream/a:crash exit 134', where: 'read 1', bytes: hostTag2,
    a: { kind: 'crash', signal: null, code: 134 },
  },
  {
    name: 'another value read back', signature: 'roundtrip/deserialize/b:object.props',
    where: 'b reading its own frame',
    detail: 'b read back another value: $.props: [["a",{"t":"null"}]] written, [] read',
    recipe: { k: 'object', props: [['a', { k: 'null' }]] }, codecs: { b: 'builtin' },
  },
  {
    name: 'function refused', signature: 'acceptance/serialize/b-rejects:DataCloneError', recipe: { k: 'function' },
    b: { kind: 'reject', name: 'DataCloneError' },
    outcomes: {
      serialize: { b: { error: { name: 'DataCloneError', message: 'function f() {} could not be cloned.' } } },
    },
  },
  {
    name: 'number representation', signature: 'bytes/serialize/number-representation',
    detail: 'the same numbers, written as another type from offset 0x9: a double, b int32',
    recipe: {
      k: 'array', items: [{ k: 'object', props: [['p4', { k: 'number', v: 0.5 }]] }, { k: 'host', type: 'secret-key' }],
    },
  },
  {
    name: 'view type written wrong', signature: 'bytes/serialize/host.index',
    recipe: { k: 'view', type: 'Int16Array', bytes: '0100' }, codecs: { b: mutant('wrong-view-index.js') },
  },
  {
    name: 'inherited setter', signature: 'effects/serialize/b set (named key)',
    recipe: { k: 'port', props: [['x', { k: 'number', v: 1 }]], tamper: [{ op: 'inherited-setter', key: 'x' }] },
    outcomes: { serialize: { a: { effects: [] }, b: { effects: ['set x'] } } },
    codecs: { b: mutant('host-copy-by-assignment.js') },
  },
  {
    name: 'own byteLength getter', signature: 'effects/serialize/a get byteLength',
    recipe: { k: 'view', type: 'Uint8Array', bytes: '01',
      tamper: [{ op: 'define', key: 'byteLength', get: { returns: { k: 'number', v: 0 } } }] },
    outcomes: { serialize: { a: { effects: ['get byteLength'] }, b: { effects: [] } } },
  },
  {
    // The same signature from a value that is no view: no view's slot is shadowed.
    name: 'byteLength getter of an object', signature: 'effects/serialize/a get byteLength',
    recipe: { k: 'object', tamper: [{ op: 'define', key: 'byteLength', get: {} }] },
    outcomes: { serialize: { a: { effects: ['get byteLength'] }, b: { effects: [] } } },
  },
].map(finding);

const all = [...run, ...made];
const named = (name) => {
  const found = all.find((f) => f.name === name);
  assert.ok(found, `no fixture named ${name}`);
  return found;
};
// A title through child_process where the run found the difference so, and called directly.
const titles = (f) => [titleOf(f, { reachable: f.reachability.reachable }), titleOf(f)];

describe('words', function () {
  describe('recipes', function () {
    it('every kind of the table and every step has words, said beside its check, print and plan', function () {
      const missing = [
        ...Object.entries(kinds).filter(([, kind]) => typeof kind.words !== 'function')
          .map(([k, { file }]) => `kind "${k}" (harness/recipes/kinds/${file})`),
        ...Object.entries(steps).filter(([, step]) => typeof step.words !== 'function')
          .map(([op]) => `step "${op}" (harness/recipes/tampering.js)`),
      ];
      assert.deepEqual(missing, [], `give these a \`words(node, say)\`: ${missing.join(', ')}`);
    });

    it('says a whole value, nested parts included', function () {
      const view = { k: 'view', type: 'Float64Array', bytes: '' };
      assert.equal(recipeWords({ k: 'object', props: [['b', view]] }), 'an object whose `b` is an empty Float64Array');
      assert.equal(recipeWords({ k: 'nest', in: 'object', depth: 2500 }), 'an object nested 2500 deep');
      assert.equal(recipeWords({ k: 'host', type: 'x509' }), 'an X509Certificate');
      assert.equal(recipeWords({ k: 'storage', props: [] }), '`sessionStorage`');
      assert.equal(recipeWords({ k: 'array', items: [{ k: 'map', entries: [] }, { k: 'set', values: [] }] }),
        'an array of an empty Map and an empty Set');
      assert.equal(recipeWords({ id: 1, k: 'port', props: [['self', { k: 'ref', to: 1 }]] }),
        'a MessagePort whose `self` is itself');
      assert.equal(recipeWords({ id: 1, k: 'array', items: [{ k: 'object', props: [['up', { k: 'ref', to: 1 }]] }] }),
        'an array of an object whose `up` is a reference to a value it is in');
    });

    it('names index keys by the class V8 keeps them in', function () {
      const port = (key) => recipeWords({ k: 'port', props: [[key, { k: 'null' }]] });
      assert.equal(port('2147483647'), 'a MessagePort with an own key `2147483647` (a Smi index)');
      assert.equal(port('4294967294'), 'a MessagePort with an own key `4294967294` (a heap-number index)');
      assert.equal(port('4294967295'), 'a MessagePort with an own key `4294967295`');
      const symbolKeyed = { k: 'host', type: 'secret-key', tamper: [{ op: 'define', key: { symbol: 'h' }, get: {} }] };
      assert.equal(recipeWords(symbolKeyed), 'a secret KeyObject with a getter on `Symbol(h)`');
    });

    it('says steps after the value, a getter\'s steps as what it does, world steps last', function () {
      const port = { k: 'port', props: [['x', { k: 'number', v: 1 }], ['visible', { k: 'number', v: 2 }]],
        tamper: [{ op: 'define', key: 'x', get: { then: [{ op: 'delete', key: 'visible' }] } }] };
      assert.equal(recipeWords(port),
        'a MessagePort with an own key `visible` and a getter on `x` that deletes `visible`');
      const patched = { k: 'object', props: [['v', { k: 'view', type: 'DataView', bytes: '',
        tamper: [{ op: 'patch', of: 'v8.Serializer', key: 'writeUint32' }] }]] };
      assert.equal(recipeWords(patched), 'an object whose `v` is an empty DataView, ' +
        'with `v8.Serializer.prototype.writeUint32` replaced in the sending process');
      assert.equal(recipeWords(patched, { world: false }), 'an object whose `v` is an empty DataView');
      const world = { op: 'proto', of: 'Function', key: 'BYTES_PER_ELEMENT', value: { k: 'number', v: 2 },
        side: 'receive' };
      assert.equal(stepWords(world, { k: 'undefined' }),
        'with `BYTES_PER_ELEMENT` set to `2` on `Function.prototype` in the receiving process');
      assert.equal(stepWords({ op: 'detach' }, { k: 'view', type: 'Int8Array' }), 'on a detached ArrayBuffer');
      assert.equal(stepWords({ op: 'prototype', of: 'Int8Array', proxy: true }, { k: 'view' }),
        'whose prototype is a Proxy of `Int8Array.prototype`');
    });

    it('says a kind or a step it has no words for plainly', function () {
      assert.equal(recipeWords({ k: 'no-such-kind' }), 'a value of kind `no-such-kind`');
      assert.equal(recipeWords({ k: 'object', tamper: [{ op: 'no-such-step' }] }),
        'a plain object with a `no-such-step` step');
    });

    it('says less of a value when asked to', function () {
      const recipe = { k: 'array', items: [{ k: 'view', type: 'Int8Array', bytes: '', tamper: [{ op: 'detach' }] }] };
      assert.equal(recipeWords(recipe), 'an array of an empty Int8Array on a detached ArrayBuffer');
      assert.equal(recipeWords(recipe, { detail: 'brief' }), 'an array of an empty Int8Array');
    });
  });

  describe('titles', function () {
    // The words of the oracle's signatures, which a title never uses.
    const signatureWords = [
      /\b[ab] (ran|rejects?|get|set|call|crash|hang|wrote|read)\b/, /\*/, /object\.props/, /only in [ab]\b/,
      /\b[ab]\+b\b/, /[ab]-rejects/, /\b[ab]:/, /~/, /\bhost\.(index|bytes|byteLength)\b/, /ArrayBufferView/,
      /\((named|index|symbol) key\)/, /pool moved/, /proto get/,
    ];

    it('no title speaks in the signature\'s words', function () {
      for (const f of all) {
        for (const title of titles(f)) {
          for (const words of signatureWords) assert.doesNotMatch(title, words, `${f.name}: ${title}`);
        }
      }
    });

    it('every title is one line, kept short', function () {
      const lengths = all.flatMap(titles).map((title) => {
        assert.doesNotMatch(title, /\n/);
        assert.match(title, /^[A-Z0-9`]/, title);
        return title.length;
      });
      assert.ok(Math.max(...lengths) <= 220, `the longest title is ${Math.max(...lengths)} characters`);
      const long = lengths.filter((n) => n > 160).length;
      assert.ok(long <= lengths.length / 4, `${long} of ${lengths.length} titles pass 160 characters`);
    });

    it('crash: the signal, the side, what was sent and the key class', function () {
      const f = named('Smi index on a port');
      assert.equal(titleOf(f, { reachable: true }), '`child.send()` of a MessagePort with an own key `2147483647` ' +
        '(a Smi index) crashes the sender with the native codec: SIGSEGV');
      assert.equal(titleOf(f), 'The native codec crashes serializing a MessagePort with an own key `2147483647` ' +
        '(a Smi index): SIGSEGV');
      assert.equal(titleOf(named('hang receiving'), { reachable: true }),
        '`child.send()` of a string of 131072 characters hangs the receiving process with the native codec');
      assert.match(titleOf(named('abort reading')),
        /^26\.3\.1's JavaScript codec crashes reading a frame whose host-object tag is 2: exit code 134$/);
    });

    it('acceptance: who throws, with which error, and who sends it', function () {
      assert.equal(titleOf(named('detached view'), { reachable: true }), '`child.send()` of an empty Int8Array on a ' +
        'detached ArrayBuffer throws a TypeError in 26.3.1; the native codec sends it');
      assert.equal(titleOf(named('view with Object.prototype')), "26.3.1's JavaScript codec throws an Error " +
        'serializing an empty Int8Array with `Object.prototype` as its prototype; the native codec serializes it');
      // An error's message where the title has room for it.
      assert.equal(titleOf(named('function refused')), 'The native codec throws a DataCloneError ' +
        '("function f() {} could not be cloned.") serializing a function; 26.3.1 serializes it');
      assert.equal(titleOf(named('host-object tag 2 accepted')), "26.3.1's JavaScript codec throws an Error " +
        '(ERR_INTERNAL_ASSERTION) reading a frame whose host-object tag is 2; `any-host-tag.js` accepts it');
    });

    it('roundtrip: which codec cannot read its own frame back, and why', function () {
      assert.equal(titleOf(named('WebAssembly.Module')), 'Both codecs write a frame for a WebAssembly.Module that ' +
        'neither can read back (Error: Unable to deserialize cloned data.)');
      assert.match(titleOf(named('deep nest')), /an object nested 2500 deep .*RangeError: Maximum call stack size/);
      assert.equal(titleOf(named('toStringTag and BYTES_PER_ELEMENT')), "26.3.1's JavaScript codec writes a frame " +
        'for an array of a length-tracking Uint16Array on a resizable ArrayBuffer and a WebAssembly.Module that it ' +
        'cannot read back (RangeError: Invalid DataView length 8)');
      assert.equal(titleOf(named('another value read back')), "This build's child_process codec reads its own frame " +
        'of an object with an own key `a` back as another value (its `props` differs)');
    });

    it('error-identity: both reject, each with its error', function () {
      assert.equal(titleOf(named('host-object tag 2')), 'Both codecs reject a frame whose host-object tag is 2: ' +
        "26.3.1's JavaScript codec with an Error (ERR_INTERNAL_ASSERTION), the native codec with an Error " +
        '(ERR_INVALID_STATE)');
      assert.match(titleOf(named('host-object tag 2'), { reachable: true }),
        /^A frame whose host-object tag is 2 written on the IPC channel by a peer: the receiving process throws /);
    });

    it('bytes: what the value\'s own property, key or getter made the frames differ in', function () {
      assert.equal(titleOf(named('own byteLength')), 'An own `byteLength` of `0` on a BigInt64Array changes the ' +
        "byte length 26.3.1's JavaScript codec writes; the native codec ignores it");
      assert.equal(titleOf(named('own toStringTag'), { reachable: true }),
        "An own `Symbol.toStringTag` of `'Int8Array'` on an empty Int32Array changes the view type `child.send()` " +
        'sends in 26.3.1; the native codec ignores it');
      assert.equal(titleOf(named('heap-number index on a port')), 'A MessagePort with an own key `2147483648` ' +
        '(a heap-number index): the native codec leaves out `2147483648`; 26.3.1 sends it');
      assert.equal(titleOf(named('heap-number index in sessionStorage')), '`sessionStorage` with an own key ' +
        '`2147483648` (a heap-number index): the native codec sends `2147483648` as `undefined`; 26.3.1 leaves it out');
      assert.equal(titleOf(named('getter deletes a later key')), 'A MessagePort with an own key `visible` and a ' +
        'getter on `x` that deletes `visible`: the native codec sends `visible` as `undefined`; 26.3.1 leaves it out');
      assert.match(titleOf(named('heap-number index getter hides a key')),
        /leaves out `2147483648` and sends `a`; 26\.3\.1 the reverse$/);
      assert.match(titleOf(named('number representation')),
        /writes an integral number as an int32, 26\.3\.1 as a double$/);
      assert.equal(titleOf(named('view type written wrong')),
        'An Int16Array: `wrong-view-index.js` writes another view type than 26.3.1');
    });

    it('classification and value: what arrives, with each codec', function () {
      assert.equal(titleOf(named('Buffer read as Uint8Array')),
        '`buffer-as-uint8array.js` decodes a Buffer as a Uint8Array; 26.3.1 as a Buffer');
      assert.equal(titleOf(named('unaligned view copy')),
        "The native codec decodes a Float64Array into an ArrayBuffer of its own; 26.3.1 into a slice of Buffer's pool");
      assert.equal(titleOf(named('unaligned view copy'), { reachable: true }),
        'With the native codec, a Float64Array sent with `child.send()` arrives in an ArrayBuffer of its own; ' +
        "with 26.3.1 in a slice of Buffer's pool");
    });

    it('effects: the user code one codec runs and the other does not', function () {
      assert.equal(titleOf(named('sending v8.Serializer')),
        "Serializing a secret KeyObject: 26.3.1's JavaScript codec calls a replaced " +
        '`v8.Serializer.prototype.writeUint32`; the native codec does not call it');
      assert.equal(titleOf(named('sending v8.Serializer'), { reachable: true }), '`child.send()` of a secret ' +
        'KeyObject: 26.3.1 calls a replaced `v8.Serializer.prototype.writeUint32`; the native codec does not call it');
      assert.match(titleOf(named('receiving v8.Deserializer'), { reachable: true }),
        /: the receiving process calls a replaced `v8\.Deserializer\.prototype\._readRawBytes` in 26\.3\.1;/);
      assert.match(titleOf(named('receiving view accessor')),
        /runs the replaced getter `TypedArray\.prototype\.buffer` twice; the native codec once$/);
      assert.match(titleOf(named('sending pool')),
        /takes 8 bytes from Buffer's pool \(the length prefix\); the native codec takes none$/);
      assert.match(titleOf(named('receiving BYTES_PER_ELEMENT')),
        /reads the `BYTES_PER_ELEMENT` set on `Object\.prototype`; the native codec does not read it$/);
      assert.match(titleOf(named('getter makes a key enumerable')),
        /runs the getter of `a`; the native codec does not/);
      assert.match(titleOf(named('symbol-keyed getter')), /runs the getter of `Symbol\(hidden\)`; the native codec/);
      assert.match(titleOf(named('symbol-keyed getter deletes a throwing one')),
        /the native codec runs the getter of `visible` and throws; 26\.3\.1 does not/);
      assert.match(titleOf(named('Proxy prototype')),
        /reads `Symbol\.toStringTag` and 3 more keys through its Proxy prototype/);
      assert.match(titleOf(named('inherited setter')),
        /`host-copy-by-assignment\.js` runs the setter of `x` on `Object\.prototype`; 26\.3\.1 does not run it$/);
    });

    it('framing: how many messages or which buffering state each framer gave', function () {
      assert.equal(titleOf(named('messages dropped')), 'Reading a well-formed frame, then a frame whose host-object ' +
        'tag is 2, `drops-messages-on-error.js` delivers no message; 26.3.1 delivers 1 message');
      assert.equal(titleOf(named('signed length prefix')),
        'Reading a length prefix of 2147483648 (2^31) with 2 bytes after it in reads of 4 bytes and the rest ' +
        '(read 1 of 2), `signed-length-prefix.js` reports `buffering` false; 26.3.1 reports `buffering` true');
    });

    it('titles a finding of every tier', function () {
      const tiers = new Set(all.map((f) => f.tier));
      for (const tier of ['crash', 'acceptance', 'roundtrip', 'error-identity', 'bytes', 'classification', 'value',
        'effects', 'framing']) {
        assert.ok(tiers.has(tier), `no fixture of tier ${tier}`);
      }
    });
  });

  describe('families', function () {
    const members = {
      'sending-builtins': ['sending TypedArray#set', 'sending Buffer.allocUnsafe', 'sending v8.Serializer',
        'sending view accessor', 'sending pool'],
      'receiving-builtins': ['receiving TypedArray#set', 'receiving Buffer.allocUnsafe', 'receiving v8.Deserializer',
        'receiving view accessor', 'receiving BYTES_PER_ELEMENT', 'receiving pool'],
      'view-slots': ['view with Object.prototype', 'own byteLength', 'own buffer', 'own toStringTag', 'Proxy prototype',
        'toStringTag and BYTES_PER_ELEMENT', 'own byteLength getter'],
    };

    it('puts each finding in its family, and the others in none', function () {
      const expected = new Map(Object.entries(members).flatMap(([id, names]) => names.map((name) => [name, id])));
      for (const f of all) {
        assert.equal(familyOf(f)?.id ?? null, expected.get(f.name) ?? null, f.name);
      }
    });

    it('has one frozen table, each family with a heading and why', function () {
      assert.ok(Object.isFrozen(families));
      assert.deepEqual(Object.keys(families).sort(), Object.keys(members).sort());
      for (const family of Object.values(families)) {
        assert.ok(Object.isFrozen(family));
        assert.equal(typeof family.heading, 'string');
        assert.equal(typeof family.why, 'string');
      }
      assert.deepEqual(familyOf(named('sending pool')), { id: 'sending-builtins',
        heading: 'The native codec no longer calls built-ins a program can replace while sending',
        why: families['sending-builtins'].why });
    });
  });

  describe('severityRank', function () {
    it('orders a review by tier, then what child_process shows first', function () {
      const order = ['crash', 'acceptance', 'roundtrip', 'error-identity', 'classification', 'bytes', 'effects',
        'framing'];
      const ranks = order.map((tier) => severityRank({ tier }, { reachable: true }));
      assert.deepEqual([...ranks].sort((x, y) => x - y), ranks);
      assert.equal(severityRank({ tier: 'value' }), severityRank({ tier: 'classification' }));
      const detached = named('detached view');
      assert.ok(severityRank(detached, { reachable: true }) < severityRank(detached, { reachable: false }));
      assert.ok(severityRank({ signature: 'crash/serialize/b:crash SIGSEGV' }) < severityRank({ tier: 'acceptance' }));
    });
  });
});
