'use strict';
// Reduces a failing input to a 1-minimal one (Zeller and Hildebrandt's delta
// debugging, as C-Reduce applies it to trees): one-step reductions are tried,
// biggest first, and the first that keeps the difference is taken, until none
// does. A recipe's steps remove one element (array item, map entry, set value,
// property, tampering step, getter effect) or put a node in the place of a
// node above it, and then drop optional fields and halve counts (a count of
// thousands first of all, since it makes each check slow); a frame's
// remove bytes (its length prefix kept right); a stream's remove bytes or a
// read boundary. The reduction is a generator that yields the inputs to check
// and gets their results back, so that one definition runs against a
// blocking session or an async one (oracle/drive.js).

const { recipeNodes } = require('../recipes/nodes');
const { worldSteps } = require('../recipes/tampering');
const { compileRecipe } = require('../recipes/codegen');
const { RecipeError } = require('../recipes/errors');
const { Outcome } = require('../base/vocabulary');

// Lists whose elements can each be left out; the shapes kind's `keys` are
// not among them (each row holds one value per key).
const kLists = new Set(['props', 'items', 'entries', 'values', 'tamper', 'then', 'rows']);
// Fields a recipe node or step can do without; a list among them goes whole first.
const kOptional = ['tamper', 'props', 'then', 'id', 'cause', 'buffer', 'leaf', 'returns', 'throws', 'repeat',
  'shape', 'offset', 'slack', 'subclass', 'lengthTracking', 'pooled', 'stack', 'length', 'maxByteLength', 'shared',
  'proxy', 'enumerable', 'writable', 'every', 'double'];
const kCounts = ['depth', 'repeat', 'n', 'length'];

const isNode = (x) => x !== null && typeof x === 'object' && !Array.isArray(x) && typeof x.k === 'string';
const isObject = (x) => x !== null && typeof x === 'object';
const clone = (recipe) => JSON.parse(JSON.stringify(recipe));
const pathText = (path) => `$${path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}`;

// A copy of `root` with the value at `path` passed through `change(parent, key)`.
function edited(root, path, change) {
  if (!path.length) return change(null, null, clone(root));
  const copy = clone(root);
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key];
  change(parent, path.at(-1), copy);
  return copy;
}

// The objects of a recipe (nodes, steps, getters) with their paths, parents first.
function objectsOf(recipe) {
  const found = [];
  const stack = [[recipe, []]];
  while (stack.length) {
    const [value, path] = stack.pop();
    if (!isObject(value)) continue;
    if (!Array.isArray(value)) found.push([value, path]);
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = Array.isArray(value) ? Number(keys[i]) : keys[i];
      stack.push([value[key], [...path, key]]);
    }
  }
  return found;
}

// A count this large makes each check of the recipe slow (a view repeated
// to megabytes): halving it is tried before anything else.
const kLargeCount = 4096;

// The world steps of the nodes of `object` outside `inner`: a world step
// changes the process, not its node, so the node put in the place of one
// above it carries those its place drops.
function worldStepsDropped(object, inner) {
  const kept = new Set(recipeNodes(inner));
  return recipeNodes(object).filter((node) => !kept.has(node) && Array.isArray(node.tamper))
    .flatMap((node) => node.tamper.filter((step) => worldSteps.has(step?.op)));
}

// The steps that set a node's count (kCounts) to 1 or to half.
function* countSteps(recipe, object, path, at, large) {
  for (const field of kCounts) {
    const n = object[field];
    if (!Number.isInteger(n) || n <= 1 || (n >= kLargeCount) !== large) continue;
    for (const smaller of new Set([1, Math.floor(n / 2)])) {
      yield { step: `${at}.${field}: ${smaller}`, make: () => edited(recipe, [...path, field], (parent, key, copy) => {
        parent[key] = smaller;
        return copy;
      }) };
    }
  }
}

// The one-step reductions of a recipe, each { step, make() }: made only when tried.
function* recipeSteps(recipe) {
  const objects = objectsOf(recipe);
  for (const [object, path] of objects) {
    if (isNode(object)) yield* countSteps(recipe, object, path, pathText(path), true);
  }
  for (const [object, path] of objects) {
    const at = pathText(path);
    if (isNode(object)) {
      for (const inner of recipeNodes(Object.values(object))) {
        if (inner === object) continue;
        yield { step: `${at}: the ${inner.k} inside it in its place`, make: () => {
          const replacement = clone(inner);
          const carried = worldStepsDropped(object, inner);
          if (carried.length) replacement.tamper = [...replacement.tamper ?? [], ...clone(carried)];
          // A world step's own value, carried with the step, can be the node it replaces again.
          if (recipeNodes(replacement).length >= recipeNodes(object).length) return null;
          return edited(recipe, path, (parent, key, copy) => {
            if (parent === null) return replacement;
            parent[key] = replacement;
            return copy;
          });
        } };
      }
    }
    for (const field of kOptional) {
      if (!Object.hasOwn(object, field) || (field === 'then' && !Array.isArray(object.then))) continue;
      yield { step: `${at}: without ${field}`, make: () => edited(recipe, [...path, field], (parent, key, copy) => {
        delete parent[key];
        return copy;
      }) };
    }
    for (const field of Object.keys(object)) {
      if (!kLists.has(field) || !Array.isArray(object[field])) continue;
      for (let i = 0; i < object[field].length; i++) {
        yield { step: `${at}.${field}: without [${i}]`, make: () => edited(recipe, [...path, field], (parent, key, copy) => {
          parent[key].splice(i, 1);
          return copy;
        }) };
      }
    }
    if (!isNode(object)) continue;
    yield* countSteps(recipe, object, path, at, false);
    for (const field of ['v', 'bytes']) {
      const text = object[field];
      if (typeof text !== 'string' || !text.length || (field === 'v' && object.k !== 'string')) continue;
      // Hex stays whole bytes.
      const half = field === 'bytes' ? text.slice(0, Math.floor(text.length / 4) * 2) : text.slice(0, text.length >> 1);
      for (const shorter of new Set(['', half])) {
        yield { step: `${at}.${field}: ${shorter.length} characters`, make: () => edited(recipe, [...path, field],
          (parent, key, copy) => {
            parent[key] = shorter;
            return copy;
          }) };
      }
    }
  }
}

// Byte ranges to remove, halves first, down to single bytes.
function* cuts(length) {
  for (let size = 2 ** Math.floor(Math.log2(Math.max(1, length))); size >= 1; size >>= 1) {
    for (let at = 0; at < length; at += size) yield [at, Math.min(length, at + size)];
  }
}

const without = (bytes, [from, to]) => Buffer.concat([bytes.subarray(0, from), bytes.subarray(to)]);

// A frame's reductions remove payload bytes; a length prefix that told the
// payload's length is made to tell the new one, any other is kept as it is.
function* frameSteps(input) {
  const bytes = Buffer.from(input.bytes, 'hex');
  const told = bytes.length >= 4 && bytes.readUInt32BE(0) === bytes.length - 4;
  const start = told ? 4 : 0;
  for (const [from, to] of cuts(bytes.length - start)) {
    yield { step: `without bytes ${start + from}..${start + to - 1}`, make: () => {
      const out = without(bytes, [start + from, start + to]);
      if (told) out.writeUInt32BE(out.length - 4, 0);
      return { bytes: out.toString('hex') };
    } };
  }
}

// A stream's reductions join two reads, then remove bytes (the reads that held them shrink).
function* streamSteps(input) {
  const bytes = Buffer.from(input.bytes, 'hex');
  const chunks = input.chunks ?? [];
  for (let i = 0; i < chunks.length; i++) {
    yield { step: `read ${i + 1} joined to the next`, make: () => {
      const joined = [...chunks];
      if (i + 1 < joined.length) joined.splice(i, 2, joined[i] + joined[i + 1]);
      else joined.pop();
      return { bytes: input.bytes, chunks: joined };
    } };
  }
  for (const range of cuts(bytes.length)) {
    yield { step: `without bytes ${range[0]}..${range[1] - 1}`, make: () => ({
      bytes: without(bytes, range).toString('hex'), chunks: shrunkReads(chunks, range),
    }) };
  }
}

// The read sizes after bytes [from, to) are removed; a read left empty goes.
function shrunkReads(chunks, [from, to]) {
  const out = [];
  let at = 0;
  for (const size of chunks) {
    const overlap = Math.max(0, Math.min(at + size, to) - Math.max(at, from));
    if (size - overlap > 0) out.push(size - overlap);
    at += size;
  }
  return out;
}

// The input with a reduced recipe, or null when the recipe no longer means
// anything (a `ref` whose node went, a row without its key): not a candidate.
function validRecipe(input, recipe) {
  try {
    compileRecipe(recipe);
  } catch (err) {
    if (err instanceof RecipeError) return null;
    throw err;
  }
  return { ...input, recipe };
}

// The one-step reductions of a check's input, each { step, make() }, make
// giving null for a step that leaves no valid input; none for a value module.
function* stepsOf(type, input) {
  if (type === 'frame') yield* frameSteps(input);
  else if (type === 'stream') yield* streamSteps(input);
  else if (input.recipe !== undefined) {
    for (const { step, make } of recipeSteps(input.recipe)) yield { step, make: () => validRecipe(input, make()) };
  }
}

// How big an input is, in the words a report uses.
function sizeOf(type, input) {
  if (type === 'frame') return `${input.bytes.length / 2} bytes`;
  if (type === 'stream') return `${input.bytes.length / 2} bytes in ${(input.chunks?.length ?? 0) + 1} reads`;
  if (input.recipe === undefined) return 'a value module';
  return `${recipeNodes(input.recipe).length} recipe nodes`;
}

// Yields { type, input } to be checked and gets its result back; returns
// { input, result (null when no step was taken), steps, checks, complete,
// parts: the one-step reductions of the input given back, with their
// results, when complete }. keeps(result) says whether a result still shows
// the difference; `until` (a time) and `maxChecks` bound the work.
function* reduce(type, input, { keeps, until = Infinity, maxChecks = Infinity }) {
  let current = input;
  let result = null;
  let steps = 0;
  let checks = 0;
  let from = 0;  // where the last step was found: the next pass starts there
  let parts = [];
  for (;;) {
    const all = [...stepsOf(type, current)];
    parts = [];
    let taken = false;
    for (let n = 0; n < all.length; n++) {
      if (Date.now() >= until || checks >= maxChecks) {
        return { input: current, result, steps, checks, complete: false, parts: [] };
      }
      const i = (from + n) % all.length;
      const candidate = all[i].make();
      if (candidate === null) continue;
      const checked = yield { type, input: candidate };
      checks++;
      if (checked && keeps(checked)) {
        [current, result, from, taken] = [candidate, checked, i, true];
        steps++;
        break;
      }
      parts.push({ step: all[i].step, input: candidate, result: checked });
    }
    if (!taken) return { input: current, result, steps, checks, complete: true, parts };
  }
}

// Where one side of a value check ended: the first of its outcomes that
// failed (writing, or reading a frame back), or null when none did.
function sideEnd(result, side) {
  const { outcomes } = result ?? {};
  if (!outcomes) return null;
  const own = result.type === 'roundtrip' ? [outcomes.roundtrip?.[side]] :
    [outcomes.serialize?.[side], ...(outcomes.decode ?? []).map((d) => d[side])];
  return own.find((o) => o && o.kind !== Outcome.ok) ?? null;
}

const errorKey = (e) => `${e.name}[${e.code ?? ''}]`;

// Whether two outcomes failed the same way.
function sameFailure(x, y) {
  if (!x || !y || x.kind !== y.kind) return false;
  if (x.kind === Outcome.reject) return errorKey(x.error) === errorKey(y.error);
  if (x.kind === Outcome.crash) return x.signal === y.signal && x.code === y.code;
  return x.kind === Outcome.hang;
}

// A difference that a reduced value shows only because each codec stopped
// at another of its parts: each side failed as it fails on some one-step
// reduction of the value, and some of those show differences of their own.
// Such a difference names a pairing of causes, not a cause: its parts are
// the causes. A difference where either side did not fail, or failed as on
// no part (a cause that shows only in combination), is never a pairing,
// whatever its parts show. Frames and streams are not split so: removing
// bytes makes new errors, not parts.
function isPairing(result, parts) {
  if (result?.type !== 'value' && result?.type !== 'roundtrip') return false;
  const explained = (side) => {
    const end = sideEnd(result, side);
    return end !== null && parts.some((p) => sameFailure(sideEnd(p.result, side), end));
  };
  return explained('a') && explained('b') && parts.some((p) => p.result?.differences?.length > 0);
}

module.exports = { reduce, stepsOf, sizeOf, isPairing };
