'use strict';
// Runs inside the node binary under test (started with --expose-internals).
// Reads one JSON request a line on stdin and answers one JSON line each on
// fd 3, in order; stdout and stderr stay free for whatever codecs print.
// A request that crashes or hangs this process is answered by the parent.

const fs = require('node:fs');
const { canonicalize } = require('./canonical');
const { loadCodec } = require('./codecs');
const { buildInput } = require('./recipes/build');
const { EnvironmentError, UsageError } = require('./errors');

const kReply = 3;

function describeError(err) {
  if (err === null || (typeof err !== 'object' && typeof err !== 'function')) {
    return { name: typeof err, message: String(err) };
  }
  let name;
  try {
    name = err.constructor?.name ?? 'Object';
  } catch {
    name = 'Object';
  }
  const code = typeof err.code === 'string' ? err.code : undefined;
  return { name, code, message: String(err.message ?? '').slice(0, 1000) };
}

function attempt(fn) {
  try {
    return fn();
  } catch (err) {
    if (err instanceof EnvironmentError || err instanceof UsageError) throw err;
    return { kind: 'reject', error: describeError(err) };
  }
}

function toBuffer(bytes, what) {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`${what} returned ${typeof bytes}, not a Uint8Array`);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// A fresh ArrayBuffer holding [length prefix][payload], as a pipe read would;
// the payload is decoded in place so views can borrow it.
function framed(payload) {
  const frame = Buffer.alloc(payload.length + 4);
  frame.writeUInt32BE(payload.length, 0);
  payload.copy(frame, 4);
  return frame;
}

const ops = {
  info() {
    return { kind: 'ok', info: require('./codecs/probe').probe() };
  },

  serialize({ codec, input }) {
    const effects = [];
    const { value, setup, teardown } = buildInput(input, effects);
    const outcome = attempt(() => {
      setup();
      try {
        const frame = toBuffer(loadCodec(codec).serialize(value), 'serialize');
        return { kind: 'ok', bytes: frame.toString('hex') };
      } finally {
        teardown();
      }
    });
    outcome.effects = effects;
    return outcome;
  },

  deserialize({ codec, bytes }) {
    const frame = framed(Buffer.from(bytes, 'hex'));
    return attempt(() => {
      const value = loadCodec(codec).deserialize(frame.subarray(4));
      return { kind: 'ok', tree: canonicalize(value, { frame: frame.buffer }) };
    });
  },

  // Feeds `bytes` to one framer in chunks of the given sizes (the rest as a
  // last chunk) and records, per read, the messages delivered before any error,
  // the error, and the framer's buffering state afterwards.
  stream({ codec, bytes, chunks }) {
    const data = Buffer.from(bytes, 'hex');
    const framer = attempt(() => ({ kind: 'ok', framer: loadCodec(codec).createFramer() }));
    if (framer.kind !== 'ok') return framer;
    const reads = [];
    for (const chunk of cut(data, chunks)) {
      const read = { delivered: [] };
      const failure = attempt(() => {
        for (const message of framer.framer.push(chunk)) {
          read.delivered.push(canonicalize(message, { frame: chunk.buffer }));
        }
      });
      if (failure) read.error = failure.error;
      read.buffering = attempt(() => ({ kind: 'ok', v: Boolean(framer.framer.buffering()) })).v ?? 'error';
      reads.push(read);
    }
    return { kind: 'ok', reads };
  },
};

function* cut(data, sizes = []) {
  let at = 0;
  for (const size of sizes) {
    if (at >= data.length) return;
    // Each read arrives in an ArrayBuffer of its own, as from libuv.
    yield Buffer.from(data.subarray(at, at + size));
    at += size;
  }
  if (at < data.length || data.length === 0) yield Buffer.from(data.subarray(at));
}

function handle(request) {
  try {
    return { id: request.id, outcome: ops[request.op](request) };
  } catch (err) {
    const kind = err instanceof UsageError ? 'usage' : 'environment';
    if (err instanceof EnvironmentError || err instanceof UsageError) {
      return { id: request.id, fault: { kind, message: err.message } };
    }
    return { id: request.id, fault: { kind: 'internal', message: err?.stack ?? String(err) } };
  }
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  pending += text;
  let newline;
  while ((newline = pending.indexOf('\n')) !== -1) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    fs.writeSync(kReply, `${JSON.stringify(handle(JSON.parse(line)))}\n`);
  }
});
