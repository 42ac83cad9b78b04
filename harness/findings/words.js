'use strict';
// A finding in the words of a Node.js maintainer: a title that says what was
// sent (the recipe's words, recipes/words.js, or what the annotator reads in
// the bytes), what went differently and with which codec, named as a
// reviewer knows it ("26.3.1", "the native codec"), never in the oracle's
// vocabulary of signatures; the families of findings that share one
// mechanism of the codec under test; and the order a review takes them in.

const path = require('node:path');
const { recipeWords, stepWords, withArticle, listOf } = require('../recipes/words');
const { recipeNodes } = require('../recipes/nodes');
const { annotateStream } = require('../wire/annotate');
const { effectClass, treeDiff } = require('../oracle/compare');
const { Outcome, Tier } = require('../base/vocabulary');
const { capabilitiesOf } = require('../codecs');

// The release whose JavaScript codec the reference is a frozen copy of.
const kReference = '26.3.1';
// What a title keeps to: past the first it leaves out an error's message,
// past the second it says the value in less detail (recipes/words.js).
const kTitleLength = 160;
const kTitleLimit = 200;
const kDetails = ['full', 'brief', 'noun'];
const kMessageLength = 60;
// A prototype's reads are many: the first says which they are.
const kReadsShown = 1;

const capitalized = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const quoted = (text) => `\`${text}\``;
const clipped = (text, length) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);
const otherSide = (side) => (side === 'a' ? 'b' : 'a');
const times = (n) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);
const unique = (list) => [...new Set(list)];
const countOf = (list, item) => list.filter((x) => x === item).length;

// The first candidate that fits a title, or the last (the shortest).
const fitting = (...candidates) => candidates.find((title) => title.length <= kTitleLength) ?? candidates.at(-1);

// tier/op/key: the op is what the codecs were doing, the key what told them apart.
function parseSignature(signature) {
  const [tier = '', op = '', ...rest] = String(signature ?? '').split('/');
  return { tier, op, key: rest.join('/') };
}

const isReference = (codec) => capabilitiesOf(codec ?? '').reference;

// A codec as a reviewer names it: `full` when called directly, `short`
// through child_process (where a side is its release) and on second mention.
function codecNames(codec) {
  const { words } = capabilitiesOf(codec ?? '');
  if (words) return words;
  const file = quoted(path.basename(String(codec ?? 'the codec under test')));
  return { full: file, short: file };
}

// What the codecs were doing.
const kDoing = {
  serialize: 'serializing', deserialize: 'decoding', roundtrip: 'decoding and re-encoding', stream: 'reading',
  fork: 'sending',
};

// "a TypeError", "an Error (ERR_INVALID_STATE)": from a side's summary, or an error label.
function errorWords(error) {
  if (typeof error === 'string') {
    const [, name, code] = /^([^[]*)(?:\[(.*)\])?$/.exec(error) ?? [];
    return errorWords({ name, code });
  }
  return `${withArticle(error?.name || 'error')}${error?.code ? ` (${error.code})` : ''}`;
}

// The recipe's steps, wherever they stand, and a step's key as an effect names it.
const stepsIn = (recipe) => recipeNodes(recipe ?? null).flatMap((n) => (Array.isArray(n.tamper) ? n.tamper : []));
const keyLabel = (k) => (typeof k === 'string' ? k : k?.wellKnown ? `Symbol.${k.wellKnown}` : '');

// A property a program can put on a view, or a prototype it can put under
// one, which the JavaScript codec reads where the native one reads the
// view's internal slots: the first such step of a view, with its node.
const kViewKinds = new Set(['view', 'resizable']);
const kShadowedKeys = new Set(['byteLength', 'byteOffset', 'buffer', 'length', 'constructor', 'Symbol.toStringTag']);

function shadowingOf(recipe) {
  for (const node of recipeNodes(recipe ?? null)) {
    if (!kViewKinds.has(node.k) || !Array.isArray(node.tamper)) continue;
    const step = node.tamper.find((s) => s?.op === 'prototype' ||
      ((s?.op === 'define' || s?.op === 'set') && kShadowedKeys.has(keyLabel(s.key))));
    if (step) return { node, step };
  }
  return null;
}

// The bytes of a frame or stream input, frame by frame as the annotator
// reads them: where a frame stops being readable says what it is.
const kStops = [
  [/^bad-host-tag: (\d+)/, (m) => `a frame whose host-object tag is ${m[1]}`],
  [/^bad-view-index: (\d+)/, (m) => `a frame whose view type index is ${m[1]}`],
  [/^bad-tag: error sub-tag (0x[0-9a-f]+)/, (m) => `a frame with an error of unknown sub-tag ${m[1]}`],
  [/^bad-tag: (0x[0-9a-f]+)/, (m) => `a frame with the unknown tag ${m[1]}`],
  [/^bad-header: no version header/, () => 'a frame without a version header'],
  [/^bad-header: version (\d+)/, (m) => `a frame of version ${m[1]}`],
  [/^depth/, () => "a frame nested past any reader's depth"],
  [/^truncated-length/, () => 'a partial length prefix'],
];

function frameWords(frame, bytes, start) {
  const reason = frame.stop?.reason;
  if (reason === undefined) return 'a well-formed frame';
  for (const [pattern, words] of kStops) {
    const m = pattern.exec(reason);
    if (m) return words(m);
  }
  const announced = bytes.readUInt32BE(start);
  const present = bytes.length - start - 4;
  if (announced <= present) return 'a frame that ends inside a value';
  const sign = announced === 2 ** 31 ? ' (2^31)' : announced > 2 ** 31 ? ' (over 2^31)' : '';
  return `a length prefix of ${announced}${sign} with ${present} byte${present === 1 ? '' : 's'} after it`;
}

function bytesWords({ bytes, chunks }) {
  const buffer = Buffer.from(bytes, 'hex');
  // Alike frames in a row are counted, not repeated.
  const runs = [];
  let start = 0;
  for (const frame of annotateStream(buffer)) {
    const words = frameWords(frame, buffer, start);
    const last = runs.at(-1);
    if (last?.words === words) last.count++;
    else runs.push({ words, count: 1 });
    start = frame.end;
  }
  const frames = runs.map(({ words, count }) => (count === 1 ? words : `${count} × ${words.replace(/^an? /, '')}`));
  const reads = chunks?.length ? ` in reads of ${listOf(chunks.map(String))} bytes and the rest` : '';
  return `${frames.join(', then ')}${reads}`;
}

// What was sent: the value's words, or the bytes'.
function inputWords(meta, options) {
  const input = meta.input ?? {};
  if (input.recipe !== undefined) return recipeWords(input.recipe, options);
  if (typeof input.bytes === 'string') return bytesWords(input);
  if (input.module !== undefined) return 'the value a module builds';
  return 'the input';
}

// Everything a title is made from, the value said in `detail`.
function contextOf(meta, reachable, detail) {
  const { tier, op, key } = parseSignature(meta.signature);
  const names = { a: codecNames(meta.sides?.a?.codec ?? 'js'), b: codecNames(meta.sides?.b?.codec ?? 'native') };
  const name = (side) => (reachable ? names[side].short : names[side].full);
  const bytes = typeof meta.input?.bytes === 'string';
  return {
    meta, tier, op, key, reachable, bytes, detail,
    difference: (meta.differences ?? []).find((d) => d.signature === meta.signature) ?? {},
    what: inputWords(meta, { detail }),
    name,
    short: (side) => names[side].short,
    // "in 26.3.1", "with the native codec".
    by: (side) => `${reachable && names[side].short === kReference ? 'in' : 'with'} ${name(side)}`,
    // The receiving end: a decode, a framer's read, or bytes a peer wrote.
    receiving: bytes || op === 'deserialize' || op === 'roundtrip' || op === 'stream',
  };
}

// What was sent, leading a title whose verbs follow a colon.
const leadOf = (ctx, what = ctx.what) => {
  if (!ctx.reachable) return capitalized(what);
  return ctx.bytes ? `${capitalized(what)} written on the IPC channel by a peer` : `\`child.send()\` of ${what}`;
};

function crashTitle(ctx) {
  const [, side, verb, rest] = /^([ab]):(crash|hang)\s*(.*)$/.exec(ctx.key) ?? [null, 'b', Outcome.crash, ''];
  const how = verb === Outcome.hang ? '' : `: ${rest.replace(/^exit (\d+)/, 'exit code $1') || 'killed'}`;
  const does = verb === Outcome.hang ? 'hangs' : 'crashes';
  if (!ctx.reachable) return `${capitalized(ctx.name(side))} ${does} ${kDoing[ctx.op] ?? 'handling'} ${ctx.what}${how}`;
  const whom = ctx.receiving ? 'the receiving process' : 'the sender';
  return `${leadOf(ctx)} ${does} ${whom} ${ctx.by(side)}${how}`;
}

// The error a side's outcome of the difference's operation carries, if recorded.
function errorOf(ctx, side) {
  const outcomes = ctx.meta.outcomes ?? {};
  if (ctx.op === 'serialize') return outcomes.serialize?.[side]?.error;
  if (ctx.op === 'roundtrip') return outcomes.roundtrip?.[side]?.error;
  if (ctx.op === 'stream') return outcomes.stream?.[side]?.reads?.find((read) => read.error)?.error;
  return (outcomes.decode ?? []).map((d) => d[side]?.error).find(Boolean);
}

function acceptanceTitle(ctx) {
  const [, side, label] = /^([ab])-rejects:(.*)$/.exec(ctx.key) ?? [null, 'a', 'Error'];
  const other = otherSide(side);
  const error = errorWords(ctx.difference[side]?.name ? ctx.difference[side] : label);
  const message = errorOf(ctx, side)?.message;
  const errors = message ? [`${error} ("${clipped(message.split('\n')[0], kMessageLength)}")`, error] : [error];
  const accepts = { serialize: 'serializes', deserialize: 'decodes' }[ctx.op] ?? 'accepts';
  return fitting(...errors.map((e) => {
    if (!ctx.reachable) {
      return `${capitalized(ctx.name(side))} throws ${e} ${kDoing[ctx.op] ?? 'handling'} ${ctx.what}; ` +
        `${ctx.short(other)} ${accepts} it`;
    }
    if (ctx.receiving) {
      return `${leadOf(ctx)}: the receiving process throws ${e} ${ctx.by(side)}; ${ctx.short(other)} reads it`;
    }
    return `${leadOf(ctx)} throws ${e} ${ctx.by(side)}; ${ctx.short(other)} sends it`;
  }));
}

function roundtripTitle(ctx) {
  const [sides, reason, name = 'Error'] = ctx.key.split(':');
  const both = sides.includes('+');
  const side = sides.split('+')[0];
  if (reason !== 'unreadable') {
    const field = (reason ?? '').split('.').at(-1) || 'value';
    return `${capitalized(ctx.name(side))} reads its own frame of ${ctx.what} back as another value ` +
      `(its ${quoted(field)} differs)`;
  }
  const [, message] = /cannot read: reject [^:]+: (.*)$/s.exec(ctx.difference.detail ?? '') ?? [];
  const error = message ? `${name}: ${clipped(message.split('\n')[0], kMessageLength)}` : name;
  if (ctx.reachable) {
    const writer = both ? 'either codec writes' : `${ctx.name(side)} writes`;
    return `${leadOf(ctx)}: the receiving process cannot read the frame ${writer} (${error})`;
  }
  if (both) return `Both codecs write a frame for ${ctx.what} that neither can read back (${error})`;
  return `${capitalized(ctx.name(side))} writes a frame for ${ctx.what} that it cannot read back (${error})`;
}

function errorIdentityTitle(ctx) {
  const [la, lb] = ctx.key.split('~');
  const ea = errorWords(ctx.difference.a?.name ? ctx.difference.a : la);
  const eb = errorWords(ctx.difference.b?.name ? ctx.difference.b : lb);
  if (ctx.reachable) {
    const throws = ctx.receiving ? ': the receiving process throws' : ' throws';
    return `${leadOf(ctx)}${throws} ${ea} ${ctx.by('a')}, ${eb} with ${ctx.short('b')}`;
  }
  const refuse = { serialize: 'refuse to serialize', deserialize: 'reject the frame of' }[ctx.op] ?? Outcome.reject;
  const what = `${refuse} ${ctx.what}`;
  return `Both codecs ${what}: ${ctx.name('a')} with ${ea}, ${ctx.short('b')} with ${eb}`;
}

// bytes: what the value's own keys, own properties or getters made the frames differ in.

// The keys one side's frame holds and the other's not, as the reference read both back.
function keysApart(meta) {
  const decode = meta.outcomes?.decode ?? [];
  const [readA, readB] = ['a', 'b'].map((producer) => decode.find((d) => d.producer === producer)?.a?.tree);
  const d = readA && readB ? treeDiff(readA, readB) : null;
  if (d?.field !== 'props' || !d.holders) return null;
  const props = (node) => new Map((Array.isArray(node?.props) ? node.props : []).map(([k, v]) => [String(k), v]));
  const [pa, pb] = d.holders.map(props);
  return { onlyA: [...pa.keys()].filter((k) => !pb.has(k)), onlyB: [...pb.keys()].filter((k) => !pa.has(k)), pb };
}

function keysTitle(ctx) {
  const apart = keysApart(ctx.meta);
  if (!apart || (!apart.onlyA.length && !apart.onlyB.length)) {
    return `${leadOf(ctx)}: ${ctx.name('b')} writes its keys in another order than ${ctx.short('a')}`;
  }
  const { onlyA, onlyB, pb } = apart;
  const keys = (list) => listOf(list.map(quoted));
  const it = (list) => (list.length === 1 ? 'it' : 'them');
  const asUndefined = onlyB.every((k) => pb.get(k)?.t === 'undefined') ? ' as `undefined`' : '';
  const b = [onlyA.length ? `leaves out ${keys(onlyA)}` : '', onlyB.length ? `sends ${keys(onlyB)}${asUndefined}` : '']
    .filter(Boolean).join(' and ');
  const a = onlyA.length && onlyB.length ? 'the reverse' :
    onlyA.length ? `sends ${it(onlyA)}` : `leaves ${it(onlyB)} out`;
  return `${leadOf(ctx)}: ${ctx.name('b')} ${b}; ${ctx.short('a')} ${a}`;
}

// The view's fields the IPC codec writes, by the annotator's names.
const kHostFields = {
  'host.byteLength': 'byte length', 'host.bytes': 'bytes', 'host.index': 'view type', 'host.tag': 'host-object tag',
};

// A field of a view the JavaScript codec took from a property the value
// shadows: "An own `byteLength` of `0` on a BigInt64Array changes the byte length …".
function hostFieldTitle(ctx) {
  const field = kHostFields[ctx.key];
  const shadow = shadowingOf(ctx.meta.input?.recipe);
  const reader = ['a', 'b'].find((side) => isReference(ctx.meta.sides?.[side]?.codec));
  if (!shadow || !reader || shadow.step.op === 'prototype') {
    return `${leadOf(ctx)}: ${ctx.name('b')} writes another ${field} than ${ctx.short('a')}`;
  }
  const { node, step } = shadow;
  const own = stepWords(step, node).replace(/^with /, '');
  const view = recipeWords({ ...node, tamper: node.tamper.filter((s) => s !== step) });
  const writes = ctx.reachable ? `\`child.send()\` sends ${ctx.by(reader)}` : `${ctx.name(reader)} writes`;
  return `${capitalized(own)} on ${view} changes the ${field} ${writes}; ${ctx.short(otherSide(reader))} ignores it`;
}

function bytesTitle(ctx) {
  if (/\.props( \(|$)/.test(ctx.key)) return keysTitle(ctx);
  if (Object.hasOwn(kHostFields, ctx.key)) return hostFieldTitle(ctx);
  if (ctx.key === 'number-representation') {
    const [, na, nb] = /: a ([\w-]+), b ([\w-]+)/.exec(ctx.difference.detail ?? '') ?? [null, 'one type', 'another'];
    return `${leadOf(ctx)}: ${ctx.name('b')} writes an integral number as ${withArticle(nb)}, ${ctx.short('a')} as ` +
      `${withArticle(na)}`;
  }
  const [, tag] = /^tag\.(.+)$/.exec(ctx.key) ?? [];
  const from = tag ? ` from ${withArticle(tag.replace(/-/g, ' '))} on` : '';
  return `${leadOf(ctx)}: ${ctx.name('b')} writes another frame than ${ctx.short('a')}${from}`;
}

// classification and value: what a decoded value is, by the field of its
// canonical tree that differs, with the preposition each takes after
// "decodes …" and "arrives …".
const kTreeTypes = {
  view: 'a view', object: 'an object', array: 'an array', map: 'a Map', set: 'a Set', arraybuffer: 'an ArrayBuffer',
  error: 'an Error', date: 'a Date', regexp: 'a RegExp', boxed: 'a boxed primitive', string: 'a string',
  number: 'a number', bigint: 'a bigint', boolean: 'a boolean', undefined: '`undefined`', null: '`null`',
};
const kBackings = {
  slice: "a slice of Buffer's pool", exact: 'an ArrayBuffer of its own', frame: "the frame's memory",
};
const kFields = {
  proto: { decodes: 'as', arrives: 'as', words: (v) => (v === 'Object' ? 'a plain object' : withArticle(String(v))) },
  t: { decodes: 'as', arrives: 'as', words: (v) => kTreeTypes[v] ?? withArticle(String(v)) },
  kind: { decodes: 'as', arrives: 'as', words: (v) => withArticle(String(v)) },
  isBuffer: { decodes: 'as', arrives: 'as', words: (v) => (v ? 'a Buffer' : 'a view that is not a Buffer') },
  backing: { decodes: 'into', arrives: 'in', words: (v) => kBackings[v] ?? quoted(String(v)) },
};
const otherField = (field) => ({
  decodes: 'with', arrives: 'with', words: (v) => `${quoted(field)} ${quoted(JSON.stringify(v) ?? 'undefined')}`,
});

// A value of a difference's detail, printed as JSON (or as words it could not be printed in).
function printedValue(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function decodedTitle(ctx) {
  const field = ctx.key.split('.').at(-1);
  const [, a, b] = /: (.*) vs (.*)$/s.exec(ctx.difference.detail ?? '') ?? [];
  const said = kFields[field] ?? otherField(field);
  const [wa, wb] = [a, b].map((v) => said.words(printedValue(v)));
  if (ctx.reachable) {
    const sent = `${ctx.what} ${ctx.bytes ? 'written on the IPC channel by a peer' : 'sent with `child.send()`'}`;
    return `With ${ctx.name('b')}, ${sent} arrives ${said.arrives} ${wb}; with ${ctx.short('a')} ${said.arrives} ${wa}`;
  }
  const verb = ctx.bytes ? 'reads' : ctx.op === 'roundtrip' ? 'decodes and re-encodes' : 'decodes';
  return `${capitalized(ctx.name('b'))} ${verb} ${ctx.what} ${said.decodes} ${wb}; ${ctx.short('a')} ` +
    `${said.decodes} ${wa}`;
}

// effects: the user code one codec runs and the other does not.

// A side's effects in the difference's operation.
function effectsOf(ctx, side) {
  const outcomes = ctx.meta.outcomes ?? {};
  if (ctx.op === 'serialize') return outcomes.serialize?.[side]?.effects ?? [];
  const [, producer] = /decode (\w)'s frame/.exec(ctx.meta.where ?? ctx.difference.where ?? '') ?? [];
  const decode = outcomes.decode ?? [];
  const entry = decode.find((d) => d.producer === producer) ?? decode.find((d) => d[side]?.effects?.length);
  return entry?.[side]?.effects ?? [];
}

// An effect's key or built-in as the program spells it: Symbol.toStringTag, not Symbol(Symbol.toStringTag).
const labelOf = (effect) => effect.replace(/^(proto get|get|set|call) /, '')
  .replace(/^Symbol\(Symbol\.(\w+)\)$/, 'Symbol.$1');

// What one side ran of a class more often than the other: the labels, and
// the counts of the first where the other ran it too (else null).
function beyond(mine, theirs) {
  const more = unique(mine).filter((e) => countOf(mine, e) > countOf(theirs, e));
  const counts = more.length && countOf(theirs, more[0]) ?
    { mine: countOf(mine, more[0]), theirs: countOf(theirs, more[0]) } : null;
  return { labels: unique(more.map(labelOf)), counts };
}

// Why the JavaScript codec takes from Buffer's pool, where it does.
const kPoolReasons = { serialize: 'the length prefix', deserialize: 'the copy of an unaligned view' };

function poolWords(ctx, runner) {
  const moved = (effects) => {
    const move = effects.map((e) => /^pool (\+\d+|renewed)$/.exec(e)?.[1]).find(Boolean);
    if (move === 'renewed') return "renews Buffer's pool";
    const n = Number(move ?? 0);
    return n ? `takes ${n} bytes from Buffer's pool` : 'takes none';
  };
  const reason = isReference(ctx.meta.sides?.[runner]?.codec) && kPoolReasons[ctx.op] ? ` (${kPoolReasons[ctx.op]})` : '';
  return { does: `${moved(effectsOf(ctx, runner))}${reason}`, nots: [moved(effectsOf(ctx, otherSide(runner)))] };
}

// A getter or setter of the value's own keys, one on Object.prototype, or a
// prototype's value that a receiving world watches.
function accessorWords(label, effect, steps) {
  const watched = steps.find((s) => s?.op === 'proto' && keyLabel(s.key) === label);
  if (watched) return `reads the ${quoted(label)} set on ${quoted(`${watched.of}.prototype`)}`;
  const setter = effect.startsWith('set ');
  const inherited = setter && steps.some((s) => s?.op === 'inherited-setter' && keyLabel(s.key) === label);
  return `runs the ${setter ? 'setter' : 'getter'} of ${quoted(label)}${inherited ? ' on `Object.prototype`' : ''}`;
}

// What the side that ran a class of user code did ("calls a replaced
// `Buffer.allocUnsafe`"), and the other side's part ("does not call it",
// or shorter, "does not").
function effectWords(ctx, runner, cls) {
  if (cls === 'pool moved') return poolWords(ctx, runner);
  const mine = effectsOf(ctx, runner).filter((e) => effectClass(e) === cls);
  const theirs = effectsOf(ctx, otherSide(runner)).filter((e) => effectClass(e) === cls);
  const { labels, counts } = beyond(mine, theirs);
  const named = listOf(labels.map(quoted));
  let does;
  let verb;
  if (cls === 'proto get *') {
    const more = labels.length > kReadsShown + 1 ? labels.length - kReadsShown : 0;
    const reads = more ? [...labels.slice(0, kReadsShown).map(quoted), `${more} more keys`] : labels.map(quoted);
    const proxy = stepsIn(ctx.meta.input?.recipe).some((s) => s?.op === 'prototype' && s.proxy) ? 'Proxy ' : '';
    [does, verb] = [`reads ${listOf(reads)} through its ${proxy}prototype`, 'read'];
  } else if (cls.startsWith('call ')) {
    [does, verb] = [`calls ${labels.length === 1 ? 'a replaced' : 'replaced'} ${named}`, 'call'];
  } else if (/^get .*\.prototype\.\*$/.test(cls)) {
    [does, verb] = [`runs the replaced getter${labels.length === 1 ? '' : 's'} ${named}`, 'run'];
  } else {
    const steps = stepsIn(ctx.meta.input?.recipe);
    const said = labels.map((label) => accessorWords(label, mine.find((e) => labelOf(e) === label) ?? '', steps));
    [does, verb] = [listOf(said), said.every((s) => s.startsWith('reads')) ? 'read' : 'run'];
  }
  if (counts) return { does: `${does} ${times(counts.mine)}`, nots: [times(counts.theirs)] };
  return { does, nots: [`does not ${verb} ${labels.length === 1 ? 'it' : 'them'}`, 'does not'] };
}

// A title that names the replaced built-in, the pool or the watched
// prototype value does not say again the steps that set it up.
const namesItsCause = (ctx, cls) => /^(call |get .*\.prototype\.\*$)|^pool moved$/.test(cls) ||
  stepsIn(ctx.meta.input?.recipe).some((s) => s?.op === 'proto' && `get ${keyLabel(s.key)}` === cls);

function effectsTitle(ctx) {
  const runner = ctx.key.startsWith('b ') ? 'b' : 'a';
  const cls = ctx.key.slice(2);
  const what = namesItsCause(ctx, cls) ? inputWords(ctx.meta, { world: false, detail: ctx.detail }) : ctx.what;
  const { does, nots } = effectWords(ctx, runner, cls);
  // The user code it ran made it throw, where the other went on.
  const failed = ctx.difference[runner]?.kind === Outcome.reject && ctx.difference[otherSide(runner)]?.kind === 'ok' ?
    ' and throws' : '';
  const ran = ctx.reachable && ctx.receiving ? `${leadOf(ctx, what)}: the receiving process ${does} ${ctx.by(runner)}` :
    `${ctx.reachable ? leadOf(ctx, what) : `${capitalized(kDoing[ctx.op] ?? 'handling')} ${what}`}: ` +
    `${ctx.name(runner)} ${does}`;
  return fitting(...nots.map((not) => `${ran}${failed}; ${ctx.short(otherSide(runner))} ${not}`));
}

function framingTitle(ctx) {
  const detail = ctx.difference.detail ?? '';
  const [, read] = /^read (\d+)/.exec(ctx.difference.where ?? '') ?? [];
  const reads = (ctx.meta.input?.chunks?.length ?? 0) + 1;
  const at = reads > 1 && read ? ` (read ${read} of ${reads})` : '';
  const buffering = ctx.key === 'buffering';
  const [, a = '?', b = '?'] = (buffering ? /a (\w+), b (\w+)/ : /a delivered (\d+) messages?, b (\d+)/).exec(detail) ??
    [];
  const says = buffering ? (v) => `\`buffering\` ${v}` :
    (n) => (n === '0' ? 'no message' : n === '1' ? '1 message' : `${n} messages`);
  if (ctx.reachable) {
    return `${leadOf(ctx)}${at}: the receiving process gets ${says(b)} ${ctx.by('b')}, ${says(a)} ${ctx.by('a')}`;
  }
  const verb = buffering ? 'reports' : 'delivers';
  return `Reading ${ctx.what}${at}, ${ctx.name('b')} ${verb} ${says(b)}; ${ctx.short('a')} ${verb} ${says(a)}`;
}

const kTitles = {
  crash: crashTitle, acceptance: acceptanceTitle, roundtrip: roundtripTitle, [Tier.errorIdentity]: errorIdentityTitle,
  bytes: bytesTitle, classification: decodedTitle, value: decodedTitle, effects: effectsTitle, framing: framingTitle,
};

const untitled = (ctx) =>
  `${capitalized(ctx.name('a'))} and ${ctx.short('b')} differ ${kDoing[ctx.op] ?? 'handling'} ${ctx.what}`;

// One line for a finding (finding.json, parsed): `reachable` says the
// difference shows through child.send(), and the title says it so. The
// value is said in the most detail that keeps the title within
// kTitleLimit, or in the least.
function titleOf(meta, { reachable = false } = {}) {
  const titles = kDetails.map((detail) => {
    const ctx = contextOf(meta, Boolean(reachable), detail);
    const title = (kTitles[ctx.tier] ?? untitled)(ctx);
    return capitalized(title.replace(/\s+/g, ' ').trim());
  });
  return titles.find((title) => title.length <= kTitleLimit) ?? titles.at(-1);
}

// Families: findings that share one mechanism of the codec under test, each
// still a finding of its own, listed under one heading ({b}: the codec under test).
const families = Object.freeze({
  'sending-builtins': Object.freeze({
    heading: '{b} no longer calls built-ins a program can replace while sending',
    why: 'the JavaScript codec wrote through v8.Serializer, Buffer.allocUnsafe and the view accessors, which a ' +
      "program can replace, and took the length prefix from Buffer's pool; the native codec does neither",
  }),
  'receiving-builtins': Object.freeze({
    heading: '{b} no longer calls built-ins a program can replace while receiving',
    why: 'the JavaScript codec read through v8.Deserializer, Buffer.from, TypedArray#set and a prototype\'s ' +
      "BYTES_PER_ELEMENT, which a program can replace, and copied unaligned views into Buffer's pool; the native " +
      'codec does neither',
  }),
  'view-slots': Object.freeze({
    heading: "{b} reads a view's internal slots, not the properties a program can shadow",
    why: "the JavaScript codec read a view's byteLength, byteOffset, buffer, constructor and Symbol.toStringTag as " +
      'properties, own or through its prototype; the native codec reads the view itself',
  }),
});

// The effect classes of built-ins a `patch` step replaces, and of Buffer's pool.
const isBuiltinClass = (cls) => /^call .+\*$|^get .+\.prototype\.\*$|^pool moved$/.test(cls);
const onSide = (step, side) => (step.side ?? 'send') === side || step.side === 'both';

// The JavaScript codec (side a) ran a built-in the recipe replaced, or read
// a value the receiving world put on a prototype; the other side did not.
function builtinsFamily(tier, op, key, recipe) {
  if (tier !== Tier.effects || !key.startsWith('a ') || (op !== 'serialize' && op !== 'deserialize')) return null;
  const cls = key.slice(2);
  const side = op === 'serialize' ? 'send' : 'receive';
  const steps = stepsIn(recipe).filter((s) => s && onSide(s, side));
  const replaced = isBuiltinClass(cls) && steps.some((s) => s.op === 'patch' || s.op === 'pool');
  const watched = side === 'receive' && steps.some((s) => s.op === 'proto' && cls === `get ${keyLabel(s.key)}`);
  if (!replaced && !watched) return null;
  return side === 'send' ? 'sending-builtins' : 'receiving-builtins';
}

// A view whose property or prototype the recipe shadows, and a difference
// such a read makes: the view's fields in the frame, what is accepted, a
// frame the reference cannot read back, or the reads themselves.
function viewSlotsFamily(tier, key, recipe) {
  if (!shadowingOf(recipe)) return null;
  const [, read] = /^a (?:get|set) (.+)$/.exec(key) ?? [];
  const shows = (tier === Tier.bytes && key.startsWith('host.')) || tier === Tier.acceptance ||
    (tier === Tier.roundtrip && key.startsWith('a:')) ||
    (tier === Tier.effects && (key === 'a proto get *' || kShadowedKeys.has(read)));
  return shows ? 'view-slots' : null;
}

// The family a finding belongs to, { id, heading }, or null: from its
// signature and its reduced recipe, as a signature alone can be met both ways
// (an acceptance difference of a detached view is no view's shadowed slot).
function familyOf(meta) {
  const { tier, op, key } = parseSignature(meta?.signature);
  const recipe = meta?.input?.recipe;
  const id = recipe === undefined ? null : builtinsFamily(tier, op, key, recipe) ?? viewSlotsFamily(tier, key, recipe);
  if (!id) return null;
  const b = codecNames(meta.sides?.b?.codec ?? 'native').full;
  return { id, heading: capitalized(families[id].heading.replace('{b}', b)), why: families[id].why };
}

// The order of a review, lower first: what breaks a program before what it
// can observe, what arrives before how it was written; within a tier, a
// difference seen through child_process before one seen calling the codecs.
const kSeverity = {
  [Tier.crash]: 0, [Tier.acceptance]: 1, [Tier.roundtrip]: 2, [Tier.errorIdentity]: 3, [Tier.classification]: 4,
  [Tier.value]: 4, [Tier.bytes]: 5, [Tier.effects]: 6, [Tier.framing]: 7,
};

function severityRank(meta, { reachable = false } = {}) {
  const tier = meta?.tier ?? parseSignature(meta?.signature).tier;
  const rank = Object.hasOwn(kSeverity, tier) ? kSeverity[tier] : Object.keys(kSeverity).length;
  return rank + (reachable ? 0 : 0.5);
}

module.exports = { titleOf, familyOf, severityRank, families };
