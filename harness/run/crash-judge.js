'use strict';
// The known native crash (crash-screen.js), judged rather than run again.
// ipc_serdes, copying a host object's own enumerable keys, reads the value of
// the first and dies when that key is a Smi index key: GetOwnPropertyNames
// lists index keys first, in ascending order. A codec that reaches such a
// host object crashes there, once it has read the key's value: a getter of
// that key runs first (user code), and the crash comes only if it returns.
// Whether the codec under test reaches one is found in this process, without
// the crash:
//  1. V8's serializer walks the value with a host-object hook that notes
//     the host objects with index keys, in the order they are met, up to
//     the first that would crash (probeHosts). User code met on the way (a
//     getter, a setter, a proxy trap: whatever `effects` records) ends the
//     judgment, since what it does may depend on the order of the walk.
//  2. Those host objects lose their index keys and get a marker key, read
//     first by a getter that ends the call; the codec under test then
//     serializes the value. It reached the crash when the first marker it
//     reads is that of the host object that would crash: it walked the same
//     values as it would have on the input itself, in the same state (no
//     user code ran before, as `effects` shows), up to that host object,
//     where it would have read the value of its first key and died. A getter
//     of that key is run there, on the host object given back its own keys
//     (the state in which the codec would run it): one that returns leaves
//     the crash to come; one that throws takes it away.
// Anything else (no marker read, the marker of another host object, user
// code before it, a getter that throws, an error of the walk) is no judgment: the
// input runs in a worker, as before. KnownCrash (below) applies judgments
// only once a worker has shown that crash for an input judged so, and has a
// worker check every kAuditEvery-th: a judgment that ever disagrees with a
// worker is not made again in that run. A side that runs in this process
// (the Jazzer.js targets') is judged here; any other in a worker of the
// codec's binary, where a judgment that crashed would cost only that worker
// (placement.js placeRequest).

const { effectsLog } = require('../recipes/effects');
const v8 = require('node:v8');
const { types: { isProxy, isArrayBufferView } } = require('node:util');
const { isIndex } = require('../recipes/vocabulary');
const { drive } = require('../oracle/drive');
const { Outcome } = require('../base/vocabulary');

const kMaxSmi = 2 ** 31 - 1;
const kMarker = '\u0000ipcfuzz-reached';
const kAuditEvery = 32;

class Stop extends Error {}

const interceptorBacked = (object) => object === process.env ||
  (typeof globalThis.Storage === 'function' && object instanceof globalThis.Storage);

// Walks a value as V8's serializer does, up to the first host object whose
// first own enumerable key (an index key, if it has any) is a Smi index key
// holding a value, noting it and each host object with index keys before it;
// views are host objects it does not enter.
class HostProbe extends v8.Serializer {
  constructor() {
    super();
    this._setTreatArrayBufferViewsAsHostObjects(true);
    this.hosts = [];
  }

  _writeHostObject(object) {
    this.writeUint32(0);
    if (isArrayBufferView(object)) return;
    if (isProxy(object)) throw new Error('a proxy');
    // An interceptor-backed store enumerates its index keys as strings, which
    // the codec copies without the crash; nor can its keys be marked.
    if (interceptorBacked(object)) return this.writeValue({ ...object });
    // Index keys come first, in ascending order: the first is the one the codec reads and then dies on.
    const first = Object.keys(object).find(isIndex);
    if (first === undefined) return this.writeValue({ ...object });
    this.hosts.push({ object });
    if (Number(first) > kMaxSmi) return this.writeValue({ ...object });
    throw new Stop();
  }
}

// The host objects with index keys that serializing `value` meets, up to the
// first that would crash, and whether the walk stopped there (it is then the
// last) or went through the whole value; null when the walk fails or runs
// user code.
function probeHosts(value, effects) {
  const probe = new HostProbe();
  probe.writeHeader();
  let stopped = false;
  try {
    probe.writeValue(value);
  } catch (err) {
    if (!(err instanceof Stop)) return null;
    stopped = true;
  }
  return effects.length ? null : { hosts: probe.hosts, stopped };
}

// Sets an object's own keys to `keys` ([key, descriptor] pairs, in order);
// false when one cannot be taken away.
function setKeys(object, keys) {
  for (const key of Reflect.ownKeys(object)) if (!Reflect.deleteProperty(object, key)) return false;
  for (const [key, descriptor] of keys) Object.defineProperty(object, key, descriptor);
  return true;
}

// Gives a host object a marker key, read by `get`, in place of its index keys
// and before its other keys, so that a codec copying its keys reads the
// marker first. Returns its own keys as they were ([key, descriptor] pairs),
// or null when its keys cannot be changed so.
function mark(object, get) {
  if (!Object.isExtensible(object)) return null;
  const own = Reflect.ownKeys(object).map((key) => [key, Reflect.getOwnPropertyDescriptor(object, key)]);
  const marker = [kMarker, { enumerable: true, configurable: true, get }];
  return setKeys(object, [marker, ...own.filter(([key]) => !isIndex(key))]) ? own : null;
}

// Whether reading the first index key of a host object given back its own
// keys returns (a value, or what its getter returns) rather than throws.
function readReturns(object, own) {
  if (!setKeys(object, own)) return false;
  const [, descriptor] = own.find(([key, { enumerable }]) => enumerable && isIndex(key));
  try {
    descriptor.get?.call(object);
    return true;
  } catch {
    return false;
  }
}

// What `codec` serializing the value of `input` comes to (see above):
// 'crash', the known crash; 'clear', no host object with index keys, so no
// crash of this kind, which holds when the walk found none, or when the codec
// read no marker and ran no user code before it ended (having thrown, if the
// walk stopped at a host object that would crash: it then threw before it);
// null, no judgment. build(input, effects) makes the value, as ops.js does.
// Only a worker may judge an input that changes shared state
// (recipes/steps.js): building its value here would slow the checks of this
// process after it.
function judgeKnownCrash(input, codec, build) {
  if (input.recipe === undefined) return null;
  const effects = effectsLog();
  let built;
  try {
    built = build(input, effects);
    built.setup();
  } catch {
    return null;
  }
  try {
    return judge(built.value, effects, codec);
  } finally {
    try {
      built.teardown();  // closes the value's ports
    } catch { /* a step took a port's close away: nothing to close */ }
  }
}

function judge(value, effects, codec) {
  const probe = probeHosts(value, effects);
  if (!probe) return null;
  const { hosts, stopped } = probe;
  if (!hosts.length) return 'clear';
  let reached = null;
  const crashing = stopped ? hosts.at(-1).object : null;
  for (const { object } of hosts) {
    const own = mark(object, () => {
      reached ??= { object, effects: effects.length, returns: object === crashing && readReturns(object, own) };
      throw new Stop();
    });
    if (!own) return null;
  }
  let threw = false;
  try {
    codec.serialize(value);
  } catch {
    // The marker's Stop, or an error of the codec: `reached` tells which came first.
    threw = true;
  }
  if (reached === null) return !effects.length && (threw || !stopped) ? 'clear' : null;
  return reached.effects === 0 && reached.object === crashing && reached.returns ? Outcome.crash : null;
}

// The outcomes of the known crash, judged for inputs a worker would run.
class KnownCrash {
  // tell(event): 'judged' for an outcome given without a worker, 'misjudged' when a worker disagreed.
  constructor(tell = () => {}) {
    this.tell = tell;
    this.crash = null;     // the outcome a worker gave an input judged to reach the crash
    this.disagreed = false;
    this.judged = 0;       // outcomes given without a worker
    this.runs = 0;         // inputs judged to reach it
  }

  // The outcome of a serialize request of a screened input: the crash's, when
  // reached() (judgeKnownCrash of the codec under test is 'crash') says it
  // reaches the crash and a worker has shown it; else run(), its outcome in a
  // worker. reached() and run() give values, or promises (a judgment made in a
  // worker of the codec's binary, the `judge` request of worker-main.js), and so does this.
  serialize(reached, run) {
    return drive(this.#serialize(reached, run));
  }

  * #serialize(reached, run) {
    if (this.disagreed || !(yield reached())) return yield run();
    return this.#judged() ?? this.#audited(yield run());
  }

  // The crash's outcome for an input judged to reach it, but for every
  // kAuditEvery-th, and until a worker has shown it: null, run it.
  #judged() {
    if (!this.crash || ++this.runs % kAuditEvery === 0) return null;
    this.judged++;
    this.tell('judged');
    return { ...this.crash };
  }

  // What a worker gave an input judged to reach the crash: one that differs
  // from the crash shown before turns judging off for the run.
  #audited(outcome) {
    const same = outcome.kind === Outcome.crash && (!this.crash ||
      (outcome.signal === this.crash.signal && outcome.code === this.crash.code));
    if (same) {
      this.crash ??= { ...outcome };
    } else {
      this.disagreed = true;
      this.tell('misjudged');
    }
    return outcome;
  }
}

module.exports = { KnownCrash, judgeKnownCrash };
