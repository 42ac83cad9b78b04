'use strict';
// Compares two codecs' outcomes and names each difference by tier:
//   crash           one codec crashed or hung and the other did not, or not
//                   alike (both ending the same way is agreement: the report
//                   still shows it)
//   acceptance      one accepted what the other rejected
//   roundtrip       a codec cannot read back what it wrote, or reads back a
//                   different value (see roundtrip.js); found even when both agree
//   error-identity  both rejected, with a different error class or code
//   bytes           both serialized, to different frames
//   classification  decoded values differ in type, prototype or Buffer-ness
//   value           decoded values differ in anything else
//   effects         serializing ran different user code (getters, setters)
//   framing         a framer delivered a different number of messages or
//                   reported a different buffering state
// A difference carries a signature (tier, operation, outcome kinds, the first
// differing field) so that many inputs hitting one problem count once.

const { annotateFrame, fieldsAround, objectKeys } = require('../wire/annotate');
const { sameBytes, sameRun, kRun } = require('./canonical');
const { frameOf } = require('./ops');
const { patchOwnerNames } = require('../recipes/tampering');
const { viewTypes } = require('../wire/tags');
const { isIndex } = require('../recipes/vocabulary');
const { Outcome, Tier, endedProcess } = require('../base/vocabulary');

const classificationFields = new Set(['t', 'kind', 'isBuffer', 'proto']);

function errorLabel(error) {
  return error.code ? `${error.name}[${error.code}]` : error.name;
}

function outcomeLabel(outcome) {
  if (outcome.kind === Outcome.reject) return `reject ${errorLabel(outcome.error)}`;
  if (outcome.kind === Outcome.crash) return `crash ${outcome.signal ?? `exit ${outcome.code}`}`;
  return outcome.kind;
}

// First difference between two canonical trees: { path, field, a, b } or null.
// `lossy` (the round-trip oracle's, see roundtrip.js) leaves out of the
// comparison the fields for which skip(node, key) holds, on either side, and
// matches a node of `a` for which matchesAll(node) holds with whatever `b` has
// there, and a node of `b` with nothing. The path is spelled out only once a
// difference is found.
function treeDiff(a, b, lossy) {
  const found = firstDifference(a, b, lossy);
  if (!found) return null;
  const { up } = found;  // [key, a, b] of each array and object, from the difference up to the root
  let path = '$';
  for (let i = up.length - 3; i >= 0; i -= 3) path += typeof up[i] === 'number' ? `[${up[i]}]` : `.${up[i]}`;
  // Named after the nearest field, not an index: "$.proto[0]" differs in proto.
  const d = { path, field: found.shape ? 'shape' : path.split('.').at(-1).replace(/\[\d+\]/g, ''), a: found.a,
    b: found.b };
  // The node type decides what the field means: the outermost node holding it names it.
  for (let i = 0; i < up.length; i += 3) {
    if (up[i] === d.field) d.node = up[i + 1].t ?? up[i + 2].t;
  }
  // The pair of nodes whose own field differs, the innermost.
  const at = up.findIndex((key, i) => i % 3 === 0 && key === d.field);
  if (at !== -1) d.holders = [up[at + 1], up[at + 2]];
  return d;
}

const kept = (node, key, lossy) => Object.hasOwn(node, key) && !lossy?.skip(node, key);
// A long byte run held alike by both nodes is not spelled out to be compared.
// Nor a long run of numbers: only the other props of the two arrays are.
const alike = (a, b, key, lossy) => (key === 'bytes' && sameBytes(a, b)) ||
  (key === 'props' && sameRun(a, b) && firstDifference(a[kRun].named, b[kRun].named, lossy) === null);
const isNode = (x) => typeof x === 'object' && x !== null && !Array.isArray(x);

// How a pair compares on its own: null when alike, { a, b } (and shape) when
// not, or `kContainers` when both are arrays or both nodes, to compare below.
const kContainers = Symbol('containers');
function compareHere(a, b, lossy) {
  if (a === b) return null;
  if (lossy && isNode(a) && lossy.matchesAll(a)) return null;
  if (lossy && isNode(b) && lossy.matchesAll(b)) return a === undefined ? null : { a, b };
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return { a, b };
  if (Array.isArray(a) !== Array.isArray(b)) return { a, b, shape: true };
  return kContainers;
}

// The keys below a pair of containers, in the order they are compared: array
// indices; or the node type first (it decides what the other fields mean),
// then a's fields, then those only b has.
function keysBelow(a, b, lossy) {
  if (Array.isArray(a)) return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => i);
  const keys = ['t'];
  for (const key in a) if (key !== 't' && kept(a, key, lossy)) keys.push(key);
  for (const key in b) if (key !== 't' && !kept(a, key, lossy) && kept(b, key, lossy)) keys.push(key);
  return keys;
}

// A part of a tree, as JSON for a difference's detail; made by `make`, whose
// walk may also go deeper than the harness's stack (deeply nested values):
// such a part is named, not printed.
function printed(make) {
  try {
    return JSON.stringify(make());
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return '(nested too deep to print)';
  }
}

// Depth first, in the order above. Recursion is the fast way; a tree deeper
// than the JS stack (deeply nested values) is walked again with a stack of
// its own.
function firstDifference(a, b, lossy) {
  try {
    return descend(a, b, lossy);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return walk(a, b, lossy);
  }
}

const samePair = (x, y) => Array.isArray(x) && Array.isArray(y) && x.length === 2 && y.length === 2 &&
  x[0] === y[0] && x[1] === y[1];

function descend(a, b, lossy) {
  const here = compareHere(a, b, lossy);
  if (here !== kContainers) {
    if (here) here.up = [];
    return here;
  }
  // Below, a pair that is the same string, number or node is alike without a
  // call, and so is a [key, node] pair of two such (leaf nodes are shared, see canonical.js).
  if (Array.isArray(a)) {
    const length = Math.max(a.length, b.length);
    for (let i = 0; i < length; i++) {
      const d = a[i] === b[i] || samePair(a[i], b[i]) ? null : descend(a[i], b[i], lossy);
      if (d) return up(d, i, a, b);
    }
    return null;
  }
  let d = a.t === b.t ? null : descend(a.t, b.t, lossy);
  if (d) return up(d, 't', a, b);
  for (const key in a) {
    if (key === 't' || !kept(a, key, lossy) || alike(a, b, key, lossy)) continue;
    const x = a[key];
    const y = kept(b, key, lossy) ? b[key] : undefined;
    d = x === y ? null : descend(x, y, lossy);
    if (d) return up(d, key, a, b);
  }
  for (const key in b) {
    if (key === 't' || kept(a, key, lossy) || !kept(b, key, lossy)) continue;
    d = descend(undefined, b[key], lossy);
    if (d) return up(d, key, a, b);
  }
  return null;
}

function up(d, key, a, b) {
  d.up.push(key, a, b);
  return d;
}

// Pair i is xs[i] and ys[i], held under keys[i] by pair parents[i].
function walk(a, b, lossy) {
  const xs = [a];
  const ys = [b];
  const keys = [undefined];
  const parents = [-1];
  const todo = [0];
  while (todo.length) {
    const i = todo.pop();
    const x = xs[i];
    const y = ys[i];
    const here = compareHere(x, y, lossy);
    if (here === null) continue;
    if (here !== kContainers) {
      here.up = [];
      for (let at = i; parents[at] !== -1; at = parents[at]) here.up.push(keys[at], xs[parents[at]], ys[parents[at]]);
      return here;
    }
    const below = keysBelow(x, y, lossy);
    for (let k = below.length - 1; k >= 0; k--) {
      const key = below[k];
      if (alike(x, y, key, lossy)) continue;
      todo.push(xs.length);
      xs.push(Array.isArray(x) || kept(x, key, lossy) || key === 't' ? x[key] : undefined);
      ys.push(Array.isArray(y) || kept(y, key, lossy) || key === 't' ? y[key] : undefined);
      keys.push(key);
      parents.push(i);
    }
  }
  return null;
}

const bothFailedAlike = (oa, ob) => endedProcess(oa) && endedProcess(ob) && outcomeLabel(oa) === outcomeLabel(ob);

function sameEnd(oa, ob) {
  return oa.kind === ob.kind && (oa.kind !== Outcome.reject ||
    (errorLabel(oa.error) === errorLabel(ob.error) && oa.error.message === ob.error.message));
}

function difference(tier, op, where, a, b, key, detail) {
  return { tier, op, where, a, b, signature: `${tier}/${op}/${key}`, detail };
}

function sideSummary(outcome) {
  const s = { kind: outcome.kind };
  if (outcome.error) Object.assign(s, { name: outcome.error.name, code: outcome.error.code });
  if (outcome.kind === Outcome.crash) Object.assign(s, { signal: outcome.signal, code: outcome.code });
  return s;
}

// Differences between two outcomes of the same operation; both may carry
// `bytes` (serialize), `tree` (deserialize) or `effects`.
function compareOutcomes(op, where, oa, ob) {
  const a = sideSummary(oa);
  const b = sideSummary(ob);
  const out = [];
  if (oa.kind === Outcome.crash || oa.kind === Outcome.hang || ob.kind === Outcome.crash || ob.kind === Outcome.hang) {
    if (bothFailedAlike(oa, ob)) return [];
    const side = endedProcess(oa) ? 'a' : 'b';
    const failed = side === 'a' ? oa : ob;
    return [difference(Tier.crash, op, where, a, b, `${side}:${outcomeLabel(failed)}`,
      `${side} ${outcomeLabel(failed)}`)];
  }
  if (oa.kind !== ob.kind) {
    const rejected = oa.kind === Outcome.reject ? oa : ob;
    out.push(difference(Tier.acceptance, op, where, a, b,
      `${oa.kind === Outcome.reject ? 'a' : 'b'}-rejects:${errorLabel(rejected.error)}`,
      `a ${outcomeLabel(oa)}, b ${outcomeLabel(ob)}`));
  } else if (oa.kind === Outcome.reject) {
    const la = errorLabel(oa.error);
    const lb = errorLabel(ob.error);
    if (la !== lb) out.push(difference(Tier.errorIdentity, op, where, a, b, `${la}~${lb}`, `a ${la}, b ${lb}`));
  } else if (oa.bytes !== undefined && oa.bytes !== ob.bytes) {
    const { offset, field, numbers } = bytesDifference(frameOf(oa), frameOf(ob));
    out.push(numbers ?
      difference('bytes', op, where, a, b, 'number-representation', `the same numbers, written as another type from ` +
        `offset 0x${offset.toString(16)}: a ${numbers.a}, b ${numbers.b}`) :
      difference('bytes', op, where, a, b, field, `frames differ from offset 0x${offset.toString(16)} (${field})`));
  } else if (oa.tree !== undefined) {
    const d = treeDiff(oa.tree, ob.tree);
    if (d) {
      const tier = classificationFields.has(d.field) ? Tier.classification : 'value';
      out.push(difference(tier, op, where, a, b, `${d.node ?? 'node'}.${d.field}`,
        `${d.path}: ${printed(() => d.a)} vs ${printed(() => d.b)}`));
    }
  }
  const effects = oa.effects && ob.effects ? effectsDifference(oa, ob) : null;
  if (effects) {
    out.push(difference('effects', op, where, a, b, effects,
      `a ran [${oa.effects.join(', ')}], b ran [${ob.effects.join(', ')}]`));
  }
  return out;
}

// Where two sides' effects part, as `side class` (effectClass), or null:
// `a X, b Y` when each side ran a class of user code the other never ran.
// Compared whole when both ended alike; user code names the difference
// before the pool, whose moves follow from what was written.
function effectsDifference(oa, ob) {
  if (!sameEnd(oa, ob)) return effectsBeforeEnds(oa, ob);
  if (JSON.stringify(oa.effects) === JSON.stringify(ob.effects)) return null;
  const [ea, eb] = [oa.effects, ob.effects].map((effects) => effects.filter((e) => !isPoolEffect(e)));
  const [xa, xb] = JSON.stringify(ea) !== JSON.stringify(eb) ? [ea, eb] : [oa.effects, ob.effects];
  const apart = classesApart(xa, xb, xa, xb);
  if (apart) return apart;
  let i = 0;
  while (xa[i] === xb[i]) i++;
  return `${xa[i] !== undefined ? 'a' : 'b'} ${effectClass(xa[i] ?? xb[i])}`;
}

// The first class of user code among `ra` (a's) that b never ran in `eb`,
// and the same of b: named by both when each has one, by one when only it
// has; null when neither has.
function classesApart(ra, rb, ea, eb) {
  const [ca, cb] = [new Set(ea.map(effectClass)), new Set(eb.map(effectClass))];
  const onlyA = ra.map(effectClass).find((c) => !cb.has(c));
  const onlyB = rb.map(effectClass).find((c) => !ca.has(c));
  if (onlyA && onlyB) return `a ${onlyA}, b ${onlyB}`;
  return onlyA ? `a ${onlyA}` : onlyB ? `b ${onlyB}` : null;
}

// The same for two sides that ended apart. Where each stopped decides the
// order and number of its reads, and a side that failed did not run what
// came after: only a class of user code the other side never ran tells
// them apart, among what a side that failed ran (all of it ran before it
// stopped), and among what a side that went on ran as far as the read the
// failed side made last (its k-th read of that effect, the other's k-th;
// the reads after it may be ones the failed side never got to). A side that
// went on and never made that read cannot be lined up so: all it ran counts
// only where the failed side, too, ran a class it never did, so that both
// are named, two parts the recorder checks one by one. The JS codec runs a
// symbol-keyed getter that deletes a key whose getter throws, the native
// codec runs that getter and rejects: `a get (symbol key), b get (named
// key)`; where the JS codec stops at a view and the native one goes on to a
// later getter, the native one's alone is no difference. A failed call does
// not move the pool.
function effectsBeforeEnds(oa, ob) {
  const [ea, eb] = [oa.effects, ob.effects].map((effects) => effects.filter((e) => !isPoolEffect(e)));
  const [okA, okB] = [oa.kind === Outcome.ok, ob.kind === Outcome.ok];
  const asFar = (mine, theirs, theirsFailed, whole) =>
    (theirsFailed ? mine.slice(0, readsUpTo(mine, theirs, whole)) : mine);
  const lined = classesApart(asFar(ea, eb, !okB, false), asFar(eb, ea, !okA, false), ea, eb);
  const whole = classesApart(asFar(ea, eb, !okB, okA), asFar(eb, ea, !okA, okB), ea, eb);
  return whole?.includes(', b ') ? whole : lined;
}

// How many of `mine` came up to the read `theirs` made last: through my k-th
// read of it where it was their k-th, or my last where I made it fewer
// times; where I never made it, all of them with `whole`, else none; none
// where they made none (nothing to line up).
function readsUpTo(mine, theirs, whole) {
  const last = theirs.at(-1);
  if (last !== undefined && !mine.includes(last)) return whole ? mine.length : 0;
  let k = theirs.filter((e) => e === last).length;
  let upTo = 0;
  for (let i = 0; i < mine.length && k > 0; i++) {
    if (mine[i] === last) [upTo, k] = [i + 1, k - 1];
  }
  return upTo;
}

const isPoolEffect = (effect) => /^pool /.test(effect);

// The owners of built-ins a recipe may replace (a `patch` step), longest
// first so that v8.Serializer is not taken for a global v8; the views'
// (%TypedArray%, DataView, each view type) are one owner: the JS codec reads
// any view's fields through them, the same way.
const patchOwners = [...patchOwnerNames].sort((x, y) => y.length - x.length);
const viewOwners = new Set(['TypedArray', 'DataView', ...viewTypes]);

// Keys a codec reads for its own ends (a view's layout, a Buffer's class):
// a getter or setter of one keeps its name in a signature.
const codecKeys = new Set(['byteLength', 'byteOffset', 'buffer', 'length', 'BYTES_PER_ELEMENT', 'constructor',
  'Symbol.toStringTag', 'Symbol.species', 'Symbol.iterator']);

// A key the codecs only copy, by its class: which key a getter is on is the
// value's choice, not the cause's.
function keyClass(label) {
  if (codecKeys.has(label)) return label;
  if (/^Symbol[.(]/.test(label)) return '(symbol key)';
  return isIndex(label) ? '(index key)' : '(named key)';
}

// What a signature calls an effect: the user code that ran, not which of
// its reads came first, which depends on the value (a Buffer's `buffer`, a
// DataView's `byteLength`). Reads through a recorded prototype are one
// class; the methods or accessors of one replaced built-in one class; the
// getters or setters of the value one class per verb and key class; how
// far Buffer's pool moved one.
function effectClass(effect) {
  const text = String(effect);
  if (/^pool \+\d+$/.test(text)) return 'pool moved';
  if (text.startsWith('proto get ')) return 'proto get *';
  const [, verb, label] = /^(get|set|call) (.*)$/s.exec(text) ?? [];
  if (!verb) return text;
  for (const owner of patchOwners) {
    if (label.startsWith(`${owner}.prototype.`)) {
      return `${verb} ${viewOwners.has(owner) ? 'ArrayBufferView' : owner}.prototype.*`;
    }
    // Only a call: a getter of the value's own well-known-symbol key reads "get Symbol.toStringTag".
    if (verb === 'call' && label.startsWith(`${owner}.`)) return `call ${owner}.*`;
  }
  return verb === 'call' ? text : `${verb} ${keyClass(label)}`;
}

// Tiers of what a codec did with a value, which user code run on one side
// alone can change: whether it accepted it, how it failed, what it wrote or read back.
const consequenceTiers = new Set([Tier.acceptance, Tier.errorIdentity, 'bytes', Tier.classification, 'value']);

// The effects difference among `differences` that explains `d`: user code
// (not the pool) that one codec ran and the other did not, while writing or
// reading (the same operation) or while writing what was read. Null for none.
function effectsCause(differences, d) {
  if (!consequenceTiers.has(d.tier)) return null;
  return differences.find((e) => e.tier === Tier.effects && (e.op === d.op || e.op === 'serialize') &&
    !/^[ab] pool /.test(e.signature.slice(`effects/${e.op}/`.length))) ?? null;
}

// A bytes difference of serializing named by what the reference codec reads
// back from the two frames, where that is an object's keys: which keys one
// frame holds and the other does not is the cause's, the wire field where
// the frames part is the key's name's (its length, its first byte, the
// object's end). `readA` and `readB` are the trees read back from a's frame
// and b's; where either cannot be read back (a host object that refers to
// itself), the keys of each object as written (objectKeys) tell the same.
// The difference as it was where the frames do not part in keys.
function bytesAsReadBack(d, readA, readB, frames = null) {
  if (d?.tier !== 'bytes' || d.signature.endsWith('/number-representation')) return d;
  if (!readA || !readB) return frames ? keysAsWritten(d, ...frames) : d;
  const read = treeDiff(readA, readB);
  if (read?.field !== 'props' || !read.holders) return d;
  const keys = (node) => new Set((Array.isArray(node?.props) ? node.props : []).map((p) => String(p[0])));
  const node = read.holders[0]?.t ?? read.holders[1]?.t;
  return { ...d, signature: `bytes/${d.op}/${node}.props ${keysApart(...read.holders.map(keys))}`,
    detail: `${d.detail}; read back, the frames differ in keys at ${read.path}: ${printed(() => read.a)} vs ` +
      `${printed(() => read.b)}` };
}

// The same, from the keys of the objects the two frames hold, in the order
// they begin: the first object whose keys differ names it.
function keysAsWritten(d, fa, fb) {
  const [oa, ob] = [objectKeys(fa), objectKeys(fb)];
  if (oa.length !== ob.length) return d;
  const at = oa.findIndex((keys, i) => keys.join('\0') !== ob[i].join('\0'));
  if (at === -1) return d;
  return { ...d, signature: `bytes/${d.op}/object.props ${keysApart(new Set(oa[at]), new Set(ob[at]))}`,
    detail: `${d.detail}; as written, object ${at + 1} holds keys [${oa[at].join(', ')}] in a, ` +
      `[${ob[at].join(', ')}] in b` };
}

// The classes of the keys only one side holds, and which side: a key left
// out (js) and a key written (native) are apart; `(order)` when both hold the same.
function keysApart(ka, kb) {
  const onlyIn = (side, mine, theirs) => [...new Set([...mine].filter((k) => !theirs.has(k)).map(keyClass))]
    .sort().map((c) => `${c.replace(/^\((.*)\)$/, '$1')} only in ${side}`);
  const only = [...onlyIn('a', ka, kb), ...onlyIn('b', kb, ka)];
  return only.length ? `(${only.join(', ')})` : '(order)';
}

// The differences of a value whose host object has a getter that changes its
// other keys (steps.js getterChangesKeys), named by that mechanism: the
// named keys one frame holds and the other does not, whichever they are
// and whichever side holds them, are `keys a getter changed`, beside any
// other class of key apart, and the named getters one codec ran because it
// copied such a key are part of it, not a difference of their own. In place.
const namedKeysApart = /^named key only in [ab]$/;
const propsParts = /^(bytes\/serialize\/object\.props) \((.+)\)$/;
function keysAGetterChanged(differences) {
  const at = differences.findIndex((d) => propsParts.exec(d.signature)?.[2].split(', ')
    .some((part) => namedKeysApart.test(part)));
  if (at === -1) return;
  const [, place, list] = propsParts.exec(differences[at].signature);
  const others = list.split(', ').filter((part) => !namedKeysApart.test(part));
  differences[at] = { ...differences[at], signature: `${place} (${[...others, 'keys a getter changed'].join(', ')})` };
  for (let i = differences.length - 1; i >= 0; i--) {
    if (/^effects\/serialize\/[ab] get \(named key\)$/.test(differences[i].signature)) differences.splice(i, 1);
  }
}

// The causes a signature names: one, or the parts of a difference named by
// two (keys of two classes apart, user code each side ran and the other did
// not), each as a signature of its own.
const keysPart = /^(?:.+ only in [ab]|keys a getter changed)$/;
function partsOf(signature) {
  const keys = /^(bytes\/\w+\/\w+\.props) \((.+, .+)\)$/.exec(signature);
  if (keys && keys[2].split(', ').every((part) => keysPart.test(part))) {
    return keys[2].split(', ').map((part) => `${keys[1]} (${part})`);
  }
  const effects = /^(effects\/\w+\/)(a .+?), (b .+)$/.exec(signature);
  if (effects) return [`${effects[1]}${effects[2]}`, `${effects[1]}${effects[3]}`];
  return [signature];
}

// Where two frames that are not the same part: { offset, field }, and
// `numbers` ({ a, b }: the tag each wrote there) when they differ only in
// how numbers are written (numbersAsWritten): V8 writes an integral number
// as int32 or double by the field representation of the object's hidden
// class, which may depend on the codec (a copy of a host object) or on what
// the process ran before, which the fresh-process confirmation rules out.
// Where either frame holds anything but a number at the first differing
// byte, the two differ beyond that, and neither whole frame needs reading again.
function bytesDifference(fa, fb) {
  const offset = firstByteDifference(fa, fb);
  const around = [fa, fb].map((frame) => fieldsAround(frame, offset));
  if (around.every(({ at }) => numberFields.has(at)) && numbersAsWritten(fa) === numbersAsWritten(fb)) {
    const [a, b] = around.map(({ at }) => at.replace(/^tag\.|\.value$/g, ''));
    return { offset, field: 'number-representation', numbers: { a, b } };
  }
  return { offset, field: differingField(around) };
}

const numberFields = new Set(['tag.int32', 'int32.value', 'tag.double', 'double.value']);

// A frame with every int32 and double written as its numeric value.
function numbersAsWritten(bytes) {
  const { values } = annotateFrame(bytes, 0, { describe: false });
  const numbers = values.filter((v) => v.tag === 'int32' || v.tag === 'double').sort((x, y) => x.start - y.start);
  if (!numbers.length) return bytes.toString('hex');
  let out = '';
  let at = 4;  // after the length prefix, which counts the bytes of each representation
  for (const { start, end, tag } of numbers) {
    const n = tag === 'double' ? bytes.readDoubleLE(start + 1) : zigzag(bytes.subarray(start + 1, end));
    out += `${bytes.subarray(at, start).toString('hex')}<${Object.is(n, -0) ? '-0' : n}>`;
    at = end;
  }
  return out + bytes.subarray(at).toString('hex');
}

function zigzag(varint) {
  let n = 0;
  for (let i = 0; i < varint.length; i++) n += (varint[i] & 0x7f) * 2 ** (7 * i);
  return n % 2 ? -(n + 1) / 2 : n / 2;
}

// The wire field where two frames part, given the fields around that offset
// in each (fieldsAround). A host-object field at the offset,
// or right before it in either frame, names the cause best (a view that wrote
// more or fewer bytes shifts everything after it).
function differingField(fields) {
  for (const { at } of fields) if (at.startsWith('host.')) return at;
  for (const { before } of fields) if (before?.startsWith('host.')) return before;
  return fields[0].at === 'beyond-value' || fields[0].at === 'unread' ? fields[1].at : fields[0].at;
}

// The first differing byte of the payloads, or of the prefixes when only they differ.
function firstByteDifference(fa, fb) {
  const from = (start) => {
    const end = Math.min(fa.length, fb.length);
    let i = start;
    // Long runs compared natively first: a large frame may differ only near its end.
    const run = 4096;
    while (i + run <= end && fa.compare(fb, i, i + run, i, i + run) === 0) i += run;
    while (i < end && fa[i] === fb[i]) i++;
    return i < Math.max(fa.length, fb.length) ? i : -1;
  };
  const inPayload = from(4);
  return inPayload === -1 ? from(0) : inPayload;
}

// Differences between two framers' reads of the same chunks.
function compareReads(ra, rb) {
  const out = [];
  for (let i = 0; i < Math.max(ra.length, rb.length); i++) {
    const x = ra[i];
    const y = rb[i];
    // Most reads of a stream cut byte by byte deliver nothing and fail on
    // neither side: such a pair differs at most in buffering.
    if (!x.delivered.length && !y.delivered.length && !x.error && !y.error && x.buffering === y.buffering) continue;
    const where = `read ${i + 1}`;
    for (let m = 0; m < Math.min(x.delivered.length, y.delivered.length); m++) {
      out.push(...compareOutcomes('stream', `${where}, message ${m + 1}`,
        { kind: Outcome.ok, tree: x.delivered[m] }, { kind: Outcome.ok, tree: y.delivered[m] }));
    }
    const ea = x.error ? { kind: Outcome.reject, error: x.error } : { kind: Outcome.ok };
    const eb = y.error ? { kind: Outcome.reject, error: y.error } : { kind: Outcome.ok };
    out.push(...compareOutcomes('stream', where, ea, eb));
    if (x.delivered.length !== y.delivered.length) {
      out.push(difference(Tier.framing, 'stream', where, ea, eb, 'delivered',
        `a delivered ${x.delivered.length} messages, b ${y.delivered.length}`));
    }
    if (x.buffering !== y.buffering) {
      out.push(difference(Tier.framing, 'stream', where, ea, eb, 'buffering',
        `buffering: a ${x.buffering}, b ${y.buffering}`));
    }
  }
  return out;
}

module.exports = {
  printed, effectClass, effectsCause, bytesAsReadBack, keysAGetterChanged, partsOf, numbersAsWritten,
  compareOutcomes, compareReads, treeDiff, outcomeLabel, errorLabel, bothFailedAlike, sideSummary, difference,
};
