'use strict';
// Every codec adapter in every binary that has it, driven through the worker:
// serialize, decode and the framer's handling of reads.
const assert = require('node:assert/strict');
const path = require('node:path');
const { AsyncWorker } = require('../../harness/run/async-driver');
const { Session, resolveCodec } = require('../../harness/run/session');
const { EnvironmentError, UsageError } = require('../../harness/base/errors');
const { node26, node263, fixture, frame } = require('../fixtures/helpers');

// Frames of the V8 format (version 15) with the IPC host-object layout:
// 49 = int32 (zigzag varint), 22 = one-byte string, 6f..7b = object,
// 5c 00 <index> <byteLength> <bytes> = an ArrayBufferView (index 10 = Buffer).
const one = frame('ff0f 4902');
const two = frame('ff0f 4904');
const three = frame('ff0f 4906');
const objectA1 = frame('ff0f 6f 220161 4902 7b01');
// Host tag 2 is neither "view" (0) nor "copied object" (1).
const badHostTag = frame('ff0f 5c02 49');

const sides = [
  ['26.12.1', 'js'], ['26.12.1', 'native'], ['26.12.1', 'builtin'],
  ['26.3.1', 'js'], ['26.3.1', 'builtin'],
];

const summary = (read) => ({
  delivered: read.delivered.map((t) => t.props?.map(([k]) => k) ?? t.v),
  error: read.error ? read.error.code ?? read.error.name : undefined,
  buffering: read.buffering,
});

describe('codec adapters', function () {
  const workers = {};
  before(function () {
    workers['26.12.1'] = new AsyncWorker(node26);
    workers['26.3.1'] = new AsyncWorker(node263);
  });
  after(function () {
    for (const w of Object.values(workers)) w.close();
  });

  for (const [version, codec] of sides) {
    describe(`${codec} on ${version}`, function () {
      const run = (request) => workers[version].request({ ...request, codec });
      const serialize = (recipe) => run({ op: 'serialize', input: { recipe } });
      const stream = (bytes, chunks) => run({ op: 'stream', bytes, chunks });

      it('serializes plain values and views in the IPC layout', async function () {
        const [n, s, o, buf, u16] = await Promise.all([
          serialize({ k: 'number', v: 1 }),
          serialize({ k: 'string', v: 'a' }),
          serialize({ k: 'object', props: [['a', { k: 'number', v: 1 }]] }),
          serialize({ k: 'view', type: 'Buffer', bytes: '0102' }),
          serialize({ k: 'view', type: 'Uint16Array', bytes: '0100' }),
        ]);
        assert.equal(n.bytes, one);
        assert.equal(s.bytes, frame('ff0f 220161'));
        assert.equal(o.bytes, objectA1);
        assert.equal(buf.bytes, frame('ff0f 5c00 0a 02 0102'));
        assert.equal(u16.bytes, frame('ff0f 5c00 04 02 0100'));
      });

      it('decodes a Buffer in place, borrowing the frame', async function () {
        const out = await run({ op: 'deserialize', bytes: 'ff0f5c000a020102' });
        assert.equal(out.kind, 'ok');
        const { tree } = out;
        assert.equal(tree.t, 'view');
        assert.equal(tree.isBuffer, true);
        assert.equal(tree.bytes, '0102');
        assert.equal(tree.backing, 'frame');
        // 4 bytes of prefix, then ff 0f 5c 00 0a 02 before the data.
        assert.equal(tree.byteOffset, 10);
      });

      it('rejects a host object with tag 2 without crashing', async function () {
        const out = await run({ op: 'deserialize', bytes: badHostTag.slice(8) });
        assert.equal(out.kind, 'reject');
        // Native glue throws ERR_INVALID_STATE; the JS codecs fail an internal assert.
        const nativeGlue = codec === 'native' || (codec === 'builtin' && version === '26.12.1');
        assert.equal(out.error.code, nativeGlue ? 'ERR_INVALID_STATE' : 'ERR_INTERNAL_ASSERTION');
      });

      it('joins a length field split across reads', async function () {
        const out = await stream(objectA1, [1, 1, 1]);
        assert.deepEqual(out.reads.map(summary), [
          { delivered: [], error: undefined, buffering: true },
          { delivered: [], error: undefined, buffering: true },
          { delivered: [], error: undefined, buffering: true },
          { delivered: [['a']], error: undefined, buffering: false },
        ]);
      });

      it('waits for more data on a length prefix >= 2^31', async function () {
        // Read as unsigned: 0x80000000 announces 2 GiB, not a negative length.
        const out = await stream('80000000ff0f4902', []);
        assert.deepEqual(out.reads.map(summary), [{ delivered: [], error: undefined, buffering: true }]);
        const max = await stream('ffffffffff0f4902', []);
        assert.deepEqual(max.reads.map(summary), [{ delivered: [], error: undefined, buffering: true }]);
      });

      it('delivers several frames of one read in order', async function () {
        const out = await stream(one + two + three + one.slice(0, 6), []);
        assert.deepEqual(out.reads.map(summary), [
          { delivered: ['1', '2', '3'], error: undefined, buffering: true },
        ]);
      });

      it('delivers messages before a malformed frame, raises, and goes on after it', async function () {
        const first = one + badHostTag + two;
        const out = await stream(first + three, [first.length / 2]);
        const [r1, r2] = out.reads.map(summary);
        assert.deepEqual(r1.delivered, ['1']);
        assert.ok(r1.error, 'the malformed frame raises');
        // The frame after the bad one waits for the next read.
        assert.deepEqual(r2, { delivered: ['2', '3'], error: undefined, buffering: false });
      });

      it('keeps the buffering state of the last read that ended without an error', async function () {
        // Read 1 leaves a partial frame; read 2 completes it and it fails to decode.
        const out = await stream(badHostTag, [6]);
        assert.deepEqual(out.reads.map((r) => r.buffering), [true, true]);
        assert.ok(out.reads[1].error);
      });
    });
  }

  describe('a user adapter file', function () {
    const adapter = fixture('wrapped-js.js');
    const run = (request) => workers['26.12.1'].request({ ...request, codec: adapter });

    it('serializes and decodes like the codec it wraps', async function () {
      const recipe = { k: 'array', items: [{ k: 'view', type: 'Buffer', bytes: 'ff' }, { k: 'bigint', v: '-7' }] };
      const [mine, js] = await Promise.all([
        run({ op: 'serialize', input: { recipe } }),
        workers['26.12.1'].request({ op: 'serialize', codec: 'js', input: { recipe } }),
      ]);
      assert.equal(mine.kind, 'ok');
      assert.equal(mine.bytes, js.bytes);
      const decoded = await run({ op: 'deserialize', bytes: mine.bytes.slice(8) });
      assert.deepEqual(decoded.tree.props.map(([, v]) => v.t), ['view', 'bigint']);
    });

    it('gets the reference framer when it has none', async function () {
      const out = await run({ op: 'stream', bytes: one + two, chunks: [3] });
      assert.deepEqual(out.reads.map(summary), [
        { delivered: [], error: undefined, buffering: true },
        { delivered: ['1', '2'], error: undefined, buffering: false },
      ]);
    });

    it('is resolved to an absolute path and compared through a session', async function () {
      const relative = path.relative(process.cwd(), adapter);
      assert.equal(resolveCodec(relative), adapter);
      const session = new Session({ a: { codec: 'js' }, b: { codec: relative }, timeoutMs: 10_000 });
      try {
        assert.equal(session.sides.b.codec, adapter);
        const result = await session.check('value', { recipe: { k: 'string', v: 'x\u0101' } });
        assert.deepEqual(result.differences, []);
        assert.equal(result.outcomes.serialize.b.kind, 'ok');
      } finally {
        session.close();
      }
    });

    it('that breaks the contract is refused with a usage error', async function () {
      await assert.rejects(
        workers['26.12.1'].request({ op: 'deserialize', codec: fixture('no-deserialize.js'), bytes: 'ff0f4902' }),
        (err) => err instanceof UsageError && /deserialize\(\)/.test(err.message));
    });

    it('that does not exist is refused before any worker starts', function () {
      assert.throws(() => resolveCodec('test/fixtures/no-such-adapter.js'), UsageError);
    });
  });

  describe('native on 26.3.1', function () {
    it('is an environment error naming ipc_serdes when a session is set up', function () {
      assert.throws(
        () => new Session({ a: { codec: 'js', node: '26.3.1' }, b: { codec: 'native', node: '26.3.1' } }),
        (err) => err instanceof EnvironmentError && /ipc_serdes/.test(err.message) && !err.message.includes('\n'));
    });

    it('is an environment error naming ipc_serdes inside the worker', async function () {
      await assert.rejects(
        workers['26.3.1'].request({ op: 'serialize', codec: 'native', input: { recipe: { k: 'null' } } }),
        (err) => err instanceof EnvironmentError && /ipc_serdes/.test(err.message));
    });
  });
});
