'use strict';
// The operations a codec is put through, run in the process of the node under
// test: by the worker for the harness, and in-process by repro scripts.
// Each returns an outcome: { kind: 'ok', ... } or { kind: 'reject', error }.

const { effectsLog } = require('../recipes/effects');
const { canonicalize, copyBytes } = require('./canonical');
const { loadCodec, capabilitiesOf } = require('../codecs');
const { EnvironmentError, UsageError, describeError } = require('../base/errors');
const { tampered } = require('../recipes/steps');
const { Outcome } = require('../base/vocabulary');


// The outcome of a call that threw: a rejection, unless the harness itself is at fault.
function rejection(err) {
  if (err instanceof EnvironmentError || err instanceof UsageError) throw err;
  return { kind: Outcome.reject, error: describeError(err) };
}

function attempt(fn) {
  try {
    return fn();
  } catch (err) {
    return rejection(err);
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
  const frame = Buffer.allocUnsafeSlow(payload.length + 4);
  frame.writeUInt32BE(payload.length, 0);
  payload.copy(frame, 4);
  return frame;
}

// Both codecs of a check are handed the same bytes, one after the other: they
// are decoded from hex once. Every operation copies them before a codec sees them.
let lastHex = null;
let lastBytes = null;

function fromHex(hex) {
  if (hex !== lastHex) [lastHex, lastBytes] = [hex, Buffer.from(hex, 'hex')];
  return lastBytes;
}

// In-process, an outcome keeps the frame a codec wrote beside its hex, and a
// request to decode it carries the payload, so that no frame this process
// wrote is parsed back from hex (to decode it, or to compare it with another).
// Neither goes into JSON: a worker process gets the hex, and outcomes
// compare, travel and are saved as before.
const kFrame = Symbol('frame');

// The input of a frame or stream check made of bytes this process holds (a
// corrupted frame, frames in a row): hex, as inputs are recorded, carrying the
// bytes themselves for the operations of the check made here.
function bytesInput(bytes, extra) {
  const input = { bytes: bytes.toString('hex'), ...extra };
  input[kFrame] = bytes;
  return input;
}

// The request to run `op` (deserialize, roundtrip) on the payload of the frame of a serialize outcome.
function payloadRequest(op, outcome) {
  const request = { op, bytes: outcome.bytes.slice(8) };
  if (outcome[kFrame]) request[kFrame] = outcome[kFrame].subarray(4);
  return request;
}

const payloadOf = (request) => request[kFrame] ?? fromHex(request.bytes);

// The frame of an outcome that has bytes, as a Buffer.
const frameOf = (outcome) => outcome[kFrame] ?? Buffer.from(outcome.bytes, 'hex');

// The outcome of a codec that wrote `bytes`, kept as a copy (a codec may
// reuse the memory it returned). The other codec of a check mostly writes the
// same frame again: it gets the same copy and hex, neither made twice.
let lastWritten = null;

function written(bytes) {
  const view = toBuffer(bytes, 'serialize');
  if (!lastWritten?.frame.equals(view)) {
    const frame = copyBytes(view);
    lastWritten = { frame, hex: frame.toString('hex') };
  }
  return Object.defineProperty({ kind: Outcome.ok, bytes: lastWritten.hex }, kFrame, { value: lastWritten.frame });
}

// buildInput(input, effects) -> { value, setup, teardown } makes the value to
// serialize; built(request), when given, is told once it is made, before the
// codec runs; buildWorld(recipe, effects) -> { setup, teardown, pool } or
// null makes the world a recipe's frames are decoded in (recipes/build.js),
// where a request to decode carries the recipe (`world`).
function createOps(buildInput, { built, buildWorld } = {}) {
  const ops = {
    info: () => ({ kind: Outcome.ok, info: require('../codecs/probe').probe() }),
    serialize: (request) => {
      const effects = effectsLog();
      const build = attemptBuild(() => buildInput(request.input, effects));
      built?.(request);
      if (build.kind) return build;
      const outcome = serialize(loadCodec(request.codec), { ...build, effects });
      if (request.tree && outcome.kind === Outcome.ok) describeInput(outcome, build.value, request.input);
      return outcome;
    },
    // One request for both sides of a check, codecs { a, b } of this process:
    // [outcome a, outcome b] of a recipe's serialization, its value built
    // once when it can be (serializeShared); null for any other request.
    both: (request, codecs) => {
      if (request.op !== 'serialize' || request.input.recipe === undefined) return null;
      const reference = (side) => capabilitiesOf(codecs[side]).reference;
      const order = reference('b') ? ['a', 'b'] : reference('a') ? ['b', 'a'] : null;
      if (!order) return null;
      const alone = (side) => ops.serialize({ ...request, codec: codecs[side] });
      const effects = effectsLog();
      const build = attemptBuild(() => buildInput(request.input, effects));
      if (build.kind) return [build, { ...build }];
      const outcomes = serializeShared(build, effects, order.map((side) => loadCodec(codecs[side])),
        request.tree ? request.input : null);
      // Whatever the value did not stay the same for was serialized on a value of its own.
      const [first, second] = outcomes.map((outcome, i) => outcome ?? alone(order[i]));
      return order[0] === 'a' ? [first, second] : [second, first];
    },
    deserialize: (request) => {
      const codec = loadCodec(request.codec);
      const effects = effectsLog();
      const world = request.world === undefined || !buildWorld ? null :
        attemptBuild(() => buildWorld(request.world, effects));
      if (world?.kind) return world;
      const plain = isPlain(request.codec);
      return inWorld(world, effects, (around) => deserialize(codec, payloadOf(request), plain, around));
    },
    roundtrip: (request) => roundtrip(loadCodec(request.codec), payloadOf(request)),
    stream: (request) => stream(loadCodec(request.codec), payloadOf(request), request.chunks, isPlain(request.codec)),
  };
  return ops;
}

// What a worker that ran out of time on a request owes it: when a value
// module was still being built (no `built` note came), the input is at
// fault, not the codec; null otherwise.
function unfinishedBuild(request, built, ms) {
  if (request.op !== 'serialize' || request.input?.module === undefined || built) return null;
  return { kind: Outcome.unbuildable, error: { name: 'Error', message: `building the value did not finish in ${ms} ms` } };
}

// A value whose construction throws (a step that cannot apply to it, such as
// detaching Buffer's pool) is no input at all: the checks skip it.
function attemptBuild(build) {
  const outcome = attempt(build);
  return outcome.kind === Outcome.reject ? { kind: Outcome.unbuildable, error: outcome.error } : outcome;
}

// A setup or teardown that throws is the recipe's fault, not the codec's
// (a getter took away the close method of a port the teardown closes): the
// input is unbuildable, whatever the codec did.
function faultOf(outcome, when) {
  return outcome?.kind === Outcome.reject ?
    { kind: Outcome.unbuildable, error: { ...outcome.error, message: `${when}: ${outcome.error.message}` } } : null;
}

// A getter's step that threw during a codec's call (a detach of a buffer
// already detached) is the recipe's fault, as a setup that throws is: that
// call's outcome is unbuildable, whatever the codec did around it. A
// getter declared to throw is the value's own and stays the codec's outcome.
function stepFault(watch, outcome) {
  const fault = watch?.takeFault?.();
  if (!fault) return outcome;
  const { error } = rejection(fault);
  return { kind: Outcome.unbuildable, error: { ...error, message: `a getter's step threw: ${error.message}` } };
}

// build.effects collects what user code ran (getters, setters) during the call.
function serialize(codec, build) {
  const setup = faultOf(attempt(() => build.setup()), 'the recipe\'s setup threw');
  const outcome = setup ??
    stepFault(build, attempt(() => written(codecCall(build, build.effects, () => codec.serialize(build.value)))));
  const teardown = faultOf(attempt(() => build.teardown()), 'the recipe\'s teardown threw');
  const ended = setup ?? teardown ?? outcome;
  ended.effects = build.effects;
  return ended;
}

// A decode in the world a recipe's receiving steps make (null: as it is),
// with what user code and the pool did there as the outcome's effects.
function inWorld(world, effects, decode) {
  if (!world) return decode();
  const setup = faultOf(attempt(() => world.setup()), 'the recipe\'s receiving setup threw');
  const outcome = setup ?? stepFault(world, decode((call) => codecCall(world, effects, call)));
  const teardown = faultOf(attempt(() => world.teardown()), 'the recipe\'s receiving teardown threw');
  const ended = setup ?? teardown ?? outcome;
  ended.effects = effects;
  return ended;
}

// Buffer's pool, as user code sees it: where Buffer.allocUnsafe() would cut
// its next small buffer from. The allocator is the one this process started
// with, not one a step put in its place.
const allocUnsafe = Buffer.allocUnsafe;
const poolMark = () => allocUnsafe(1);

// A codec's own call, under what a recipe watches (`watch`: a build or a
// world): the built-ins a step replaced record their calls only while a
// codec runs, not while the harness copies or describes what came out; and
// with a pool step, how far the call moved Buffer's pool is an effect.
function codecCall(watch, effects, call) {
  return watchingPool(watch.pool, effects, () => {
    effects.codecRunning = true;
    try {
      return call();
    } finally {
      effects.codecRunning = false;
    }
  });
}

// Runs call(), and when `watch`, records in `effects` how far it moved
// Buffer's pool offset ("pool +8"), or that it began a new pool.
function watchingPool(watch, effects, call) {
  if (!watch) return call();
  const before = poolMark();
  const outcome = call();
  const after = poolMark();
  // Each mark takes 8 bytes of the pool itself.
  effects.push(after.buffer !== before.buffer ? 'pool renewed' :
    `pool +${after.byteOffset - before.byteOffset - 8}`);
  return outcome;
}


// Whether user code that ran may have changed what a build made: unless the
// build can tell (recipes/interpret.js), any that ran may have.
const mayHaveChanged = (build, effects) => effects.length > 0 && (build.changed?.() ?? true);

// Two codecs serializing one value, as each would serialize a value of its
// own: the codec under test goes first, on the value as built; the reference
// codec then writes the same value, unless user code ran that may have
// changed it (a getter that runs steps). Setup and teardown are done once,
// around both. Gives the two outcomes in that order, null for one that needs
// a value of its own: the second when the first ran such code, the first when
// only the second did (its input tree must describe the value it wrote).
// described: the input, when the value is to be described.
function serializeShared(build, effects, codecs, described) {
  const outcomes = [null, null];
  const setup = faultOf(attempt(() => build.setup()), 'the recipe\'s setup threw');
  if (setup) {
    attempt(() => build.teardown());
    return [setup, { ...setup }];
  }
  // What user code ran while the value was built, each codec's own build would have run.
  const built = effects.splice(0);
  let changed = false;
  for (const [i, codec] of codecs.entries()) {
    const call = () => written(codecCall(build, effects, () => codec.serialize(build.value)));
    outcomes[i] = stepFault(build, attempt(call));
    const ran = effects.splice(0);
    outcomes[i].effects = built.length ? [...built, ...ran] : ran;
    changed = mayHaveChanged(build, ran);
    if (changed) break;
  }
  const secondChanged = changed && outcomes[1] !== null;
  const teardown = faultOf(attempt(() => build.teardown()), 'the recipe\'s teardown threw');
  // What the teardown ran, each codec's own teardown would have.
  const after = effects.splice(0);
  for (const [i, o] of outcomes.entries()) {
    if (!o) continue;
    o.effects.push(...after);
    if (teardown) outcomes[i] = { ...teardown, effects: o.effects };
  }
  if (secondChanged) outcomes[0] = null;
  const clean = outcomes.filter((o) => o?.kind === Outcome.ok && !o.effects.length);
  if (described && clean.length) {
    describeInput(clean[0], build.value, described, effects);
    for (const o of clean.slice(1)) o.inputTree = clean[0].inputTree;
  }
  return outcomes;
}

// The value that was sent, as the round-trip oracle compares it with what
// comes back; only when no user code ran, and none runs while describing it.
// input: what the value was built from (of a recipe without tampering steps,
// it is plain, see canonicalize); effects: the array the value's user code records in.
function describeInput(outcome, value, input, effects = outcome.effects) {
  if (effects.length) return;
  try {
    const tree = canonicalize(value, { plain: input.recipe !== undefined && !tampered(input.recipe) });
    if (!effects.length) outcome.inputTree = tree;
  } catch {
    // A value whose description throws is still checked for readability.
  } finally {
    effects.length = 0;
  }
}

// Whether what a codec decodes is V8's deserializer's own work, and so plain (see canonicalize).
const isPlain = (codec) => capabilitiesOf(codec).plainDecode;

// around(call): what the codec's call runs under (ops.js codecCall), if anything.
function deserialize(codec, payload, plain = false, around = (call) => call()) {
  const frame = framed(payload);
  return attempt(() => {
    const value = around(() => codec.deserialize(frame.subarray(4)));
    return { kind: Outcome.ok, tree: canonicalize(value, { frame: frame.buffer, plain }) };
  });
}

// Decodes a payload and serializes the result again with the same codec.
function roundtrip(codec, payload) {
  const frame = framed(payload);
  return attempt(() => {
    const value = codec.deserialize(frame.subarray(4));
    return written(codec.serialize(value));
  });
}

// Feeds `data` to one framer in reads of the given sizes (the rest as a last
// read) and records, per read, the messages delivered before any error, the
// error, and the framer's buffering state afterwards. No closure per read: a
// stream cut byte by byte has a hundred reads and more.
function stream(codec, data, chunks, plain = false) {
  const created = attempt(() => ({ kind: Outcome.ok, framer: codec.createFramer() }));
  if (created.kind !== Outcome.ok) return created;
  const { framer } = created;
  const reads = [];
  for (const chunk of cut(data, chunks)) {
    const read = { delivered: [] };
    try {
      for (const message of framer.push(chunk)) {
        read.delivered.push(canonicalize(message, { frame: chunk.buffer, plain }));
      }
    } catch (err) {
      read.error = rejection(err).error;
    }
    try {
      read.buffering = Boolean(framer.buffering());
    } catch (err) {
      rejection(err);  // throws when the harness is at fault
      read.buffering = 'error';
    }
    reads.push(read);
  }
  return { kind: Outcome.ok, reads };
}

// Each read arrives in an ArrayBuffer of its own, as from libuv (and never in
// Buffer's pool, whose offsets would depend on what else was allocated).
function readOf(data, start, end) {
  const chunk = Buffer.alloc(Math.max(0, Math.min(end, data.length) - start));
  // Byte by byte for the short reads that streams are cut into: Buffer#copy's checks cost more.
  if (chunk.length > 64) data.copy(chunk, 0, start, end);
  else for (let i = 0; i < chunk.length; i++) chunk[i] = data[start + i];
  return chunk;
}

function cut(data, sizes = []) {
  const reads = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= data.length) return reads;
    reads.push(readOf(data, at, at + size));
    at += size;
  }
  if (at < data.length || data.length === 0) reads.push(readOf(data, at, data.length));
  return reads;
}

module.exports = {
  createOps, serialize, deserialize, stream, describeError, unfinishedBuild, payloadRequest, frameOf, bytesInput,
  kFrame,
};
