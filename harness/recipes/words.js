'use strict';
// A recipe in words, for the titles of findings: one short noun phrase for
// the whole value ("an object whose `b` is an empty Float64Array"). Each kind
// (kinds/) and each step (tampering.js) says its own part, `words`, beside
// its check, print and plan; this walk joins the parts, the props of any node
// and the steps after its noun. A kind or step without words still gets a
// plain one, so that a title never fails for want of it.
const { kinds } = require('./kinds');
const { steps, worldSteps } = require('./tampering');
const { recipeNodes } = require('./nodes');
const { isIndex } = require('./vocabulary');

// Reduced recipes are small; a longer list is summed up past this many.
const kListed = 3;
const kLiteralLength = 24;

// "an" before a vowel sound: an Int8Array, an X509Certificate, an own key;
// a Uint8Array, a URIError (a capital U says "you").
const withArticle = (noun) => `${/^[aeiouAEIOX8]/.test(noun) ? 'an' : 'a'} ${noun}`;

// "x", "x and y", "x, y and z"; ", and" after an item whose own clause would run on.
function listOf(items) {
  if (items.length < 2) return items[0] ?? '';
  const last = items.at(-1);
  const glue = items.slice(0, -1).some((item) => / (and|with|that) /.test(item)) ? ', and ' : ' and ';
  return `${items.slice(0, -1).join(', ')}${glue}${last}`;
}

const quoted = (text) => `\`${text}\``;

// V8 keeps an index key below 2^31 as a Smi and the others as heap numbers:
// host objects are copied by code that tells them apart.
const kSmiIndex = 'a Smi index';
const kHeapNumberIndex = 'a heap-number index';
function keyWords(k) {
  if (typeof k === 'string') {
    if (k === '') return quoted("''");
    if (!isIndex(k)) return quoted(k);
    return `${quoted(k)} (${Number(k) < 2 ** 31 ? kSmiIndex : kHeapNumberIndex})`;
  }
  if (typeof k?.symbol === 'string') return quoted(`Symbol(${k.symbol})`);
  if (typeof k?.wellKnown === 'string') return quoted(`Symbol.${k.wellKnown}`);
  return 'a key';
}

// A primitive as its literal, or null for anything a literal would not say shortly.
function literalOf(r) {
  if (r === null || typeof r !== 'object' || r.tamper !== undefined) return null;
  switch (r.k) {
    case 'undefined': case 'null': return quoted(r.k);
    case 'bool': case 'number': return quoted(Object.is(r.v, -0) ? '-0' : String(r.v));
    case 'bigint': return quoted(`${r.v}n`);
    case 'string': {
      const short = typeof r.v === 'string' && r.v.length <= kLiteralLength && (r.repeat ?? 1) === 1 && !r.shape;
      return short ? quoted(`'${r.v}'`) : null;
    }
    default: return null;
  }
}

// Where a world step acts.
const sideWords = (step) => ({ receive: 'in the receiving process', both: 'in both processes' })[step?.side] ??
  'in the sending process';

// Consecutive "with" phrases share one "with": "a MessagePort with own keys
// `x` and `y`, and a getter on `x` that deletes `y`".
function compose(noun, phrases) {
  const groups = [];
  for (const phrase of phrases) {
    const last = groups.at(-1);
    if (last && phrase.startsWith('with ') && last[0].startsWith('with ')) last.push(phrase.slice('with '.length));
    else groups.push([phrase]);
  }
  return [noun, groups.map(listOf).join(', ')].filter(Boolean).join(' ');
}

const stepsOf = (r) => (Array.isArray(r?.tamper) ? r.tamper : []);
const isWorldStep = (step) => worldSteps.has(step?.op);

// The props of an object, array, port or host object: keys whose value is a
// primitive by their name (which key it is, not what it holds, is what the
// codecs tell apart); the others by what they hold. A key a step defines
// anew is said by that step alone.
function propsWords(r, say) {
  const redefined = new Set(stepsOf(r).filter((step) => step?.op === 'define').map((step) => JSON.stringify(step.key)));
  const props = (Array.isArray(r.props) ? r.props : [])
    .filter((p) => Array.isArray(p) && p.length === 2 && !redefined.has(JSON.stringify(p[0])));
  const keys = props.filter(([, v]) => literalOf(v) !== null).map(([k]) => keyWords(k));
  const held = props.filter(([, v]) => literalOf(v) === null);
  const phrases = [];
  if (keys.length > kListed) phrases.push(`with ${keys.length} own keys`);
  else if (keys.length) phrases.push(`with ${keys.length === 1 ? 'an own key' : 'own keys'} ${listOf(keys)}`);
  if (held.length > kListed) phrases.push(`with ${held.length} own properties holding more than primitives`);
  else for (const [k, v] of held) phrases.push(`whose ${keyWords(k)} is ${say.node(v)}`);
  return phrases;
}

const fallbackKind = (r) => `a value of kind ${quoted(String(r?.k))}`;
const fallbackStep = (step) => `with a ${quoted(String(step?.op))} step`;

// The phrase of one step, on the node `say.holder`, or inside a getter (`say.acting`).
function sayStep(step, say) {
  const def = step && Object.hasOwn(steps, step.op) ? steps[step.op] : null;
  return def?.words ? def.words(step, say) : fallbackStep(step);
}

// A node with its props and the steps on it; world steps are said once for
// the whole recipe (recipeWords), whichever node carries them. Less detail
// says the nodes below the top (`brief`), or every node (`noun`), by its kind alone.
function nodeWords(r, say) {
  if (r === null || typeof r !== 'object') return 'a value';
  const kind = Object.hasOwn(kinds, r.k) ? kinds[r.k] : null;
  say.within.push(r.id);
  try {
    const noun = kind?.words ? kind.words(r, say) : fallbackKind(r);
    if (say.detail === 'noun' || (say.detail === 'brief' && say.within.length > 1)) return noun;
    const own = { ...say, holder: r };
    const steps = stepsOf(r).filter((step) => !isWorldStep(step)).map((step) => sayStep(step, own));
    return compose(noun, [...propsWords(r, say), ...steps]);
  } finally {
    say.within.pop();
  }
}

// What the words of kinds and steps are given: the walk itself, for their
// children, and the words they share.
function speaker({ world = true, detail = 'full' } = {}) {
  const say = {
    world: world && detail === 'full',
    detail,
    within: [],
    holder: null,
    acting: false,
    on: null,
    node: (r) => nodeWords(r, say),
    key: keyWords,
    literal: literalOf,
    a: withArticle,
    list: listOf,
    // Items by what they are, or more than a few by how many.
    items: (list, what) => (list.length > kListed ? `${list.length} ${what}` : listOf(list.map(say.node))),
    side: sideWords,
    bytes: (n) => `${n} byte${n === 1 ? '' : 's'}`,
    // The steps a getter runs, as verbs: "deletes `visible` and defines a getter on `a`".
    then(list) {
      const acting = (step) => sayStep(step, { ...say, acting: true, on: step?.on === undefined ? null : step.on });
      return listOf((Array.isArray(list) ? list : []).map(acting));
    },
    // A reference: to the node it stands in (the ref itself is on top of `within`), one further
    // out, or one met before. Said without the node's words, which may hold the reference again.
    ref(to) {
      const at = say.within.lastIndexOf(to);
      if (at !== -1 && at === say.within.length - 2) return 'itself';
      return at === -1 ? 'a second reference to an earlier value' : 'a reference to a value it is in';
    },
  };
  return say;
}

// One phrase for a recipe, nested parts included. `world: false` leaves out
// the steps that change a process rather than the value (replaced built-ins,
// Buffer's pool): where a title names them already. `detail` ('full',
// 'brief', 'noun') makes it shorter, world steps left out, for a title that
// would run long.
function recipeWords(recipe, options) {
  const say = speaker(options);
  const value = nodeWords(recipe, say);
  if (!say.world) return value;
  const world = recipeNodes(recipe).flatMap(stepsOf).filter(isWorldStep).map((step) => sayStep(step, say));
  return world.length ? `${value}, ${compose('', world)}` : value;
}

// The phrase of one step of `node`'s, as recipeWords says it there ("with an own `byteLength` of `0`").
function stepWords(step, node) {
  return sayStep(step, { ...speaker(), holder: node });
}

module.exports = { recipeWords, stepWords, keyWords, withArticle, listOf };
