'use strict';
// Renders a check result for people: both outcomes side by side, the
// annotated frames involved, and a verdict per tier.

const { hexdump } = require('../wire/hexdump');
const { outcomeLabel, bothFailedAlike } = require('../oracle/compare');
const { isSharedDefect } = require('../oracle/roundtrip');
const { Outcome, Tier, tiers } = require('../base/vocabulary');

const kColumn = 58;

// A one-line description of a canonical tree.
function describe(tree, depth = 0) {
  if (depth > 3) return '…';
  const inner = (t) => describe(t, depth + 1);
  const props = (list) => list.map(([k, v]) => `${k}: ${inner(v)}`);
  switch (tree.t) {
    case 'undefined': case 'null': return tree.t;
    case 'number': case 'boolean': return tree.v;
    case 'bigint': return `${tree.v}n`;
    case 'string': return JSON.stringify(tree.v.length > 24 ? `${tree.v.slice(0, 24)}…` : tree.v);
    case 'ref': return `[ref #${tree.id}]`;
    case 'view': {
      const bytes = tree.bytes.length > 24 ? `${tree.bytes.slice(0, 24)}…` : tree.bytes;
      return `${tree.proto[0]}(${tree.length ?? tree.byteLength}) <${bytes}> ` +
        `{isBuffer: ${tree.isBuffer}, kind: ${tree.kind}, backing: ${tree.backing}}`;
    }
    case 'array': return `[${props(tree.props).join(', ')}] (length ${tree.length})`;
    case 'map': return `Map {${tree.entries.map(([k, v]) => `${inner(k)} => ${inner(v)}`).join(', ')}}`;
    case 'set': return `Set {${tree.values.map(inner).join(', ')}}`;
    case 'date': return `Date(${tree.v})`;
    case 'regexp': return `/${tree.source}/${tree.flags}`;
    case 'boxed': return `[${tree.proto[0]}: ${inner(tree.v)}]`;
    case 'error': return `[${tree.proto[0]}: ${tree.message}]`;
    case 'arraybuffer': return `${tree.shared ? 'SharedArrayBuffer' : 'ArrayBuffer'}(${tree.byteLength})`;
    default: return `${tree.proto?.[0] ?? 'Object'} {${props(tree.props ?? []).join(', ')}}`;
  }
}

function describeOutcome(o) {
  if (o.kind === Outcome.ok && o.bytes !== undefined) return `ok, ${o.bytes.length / 2} bytes: ${o.bytes}`;
  if (o.kind === Outcome.ok && o.tree !== undefined) return `ok: ${describe(o.tree)}`;
  if (o.kind === Outcome.reject) return `${outcomeLabel(o)}: ${o.error.message.split('\n')[0]}`;
  if (o.kind === Outcome.crash) return `${outcomeLabel(o)}${o.stderr ? `\n${o.stderr}` : ''}`;
  if (o.kind === Outcome.hang) return `hang: no answer within ${o.ms} ms`;
  return o.kind;
}

function wrap(text, width) {
  const out = [];
  for (const line of String(text).split('\n')) {
    for (let i = 0; i < line.length || i === 0; i += width) out.push(line.slice(i, i + width));
  }
  return out;
}

function sideBySide(label, a, b) {
  const left = wrap(a, kColumn);
  const right = wrap(b, kColumn);
  const rows = [`  ${label}`];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    rows.push(`    ${(left[i] ?? '').padEnd(kColumn)} │ ${right[i] ?? ''}`);
  }
  return rows;
}

function outcomeRows(result) {
  const rows = [];
  const { outcomes } = result;
  if (outcomes.serialize) {
    const { a, b } = outcomes.serialize;
    rows.push(...sideBySide('serialize', describeOutcome(a), describeOutcome(b)));
    if (a.effects?.length || b.effects?.length) {
      // A side that crashed reports no effects.
      const effects = (o) => o.effects?.join(', ') || 'none';
      rows.push(...sideBySide('side effects', effects(a), effects(b)));
    }
    for (const d of outcomes.decode) {
      rows.push(...sideBySide(`decode ${d.producer}'s frame`, describeOutcome(d.a), describeOutcome(d.b)));
    }
  }
  if (outcomes.roundtrip) {
    rows.push(...sideBySide('decode and re-encode',
      describeOutcome(outcomes.roundtrip.a), describeOutcome(outcomes.roundtrip.b)));
  }
  if (outcomes.stream) {
    const { a, b } = outcomes.stream;
    if (a.kind !== Outcome.ok || b.kind !== Outcome.ok) {
      rows.push(...sideBySide('framer', describeOutcome(a), describeOutcome(b)));
    } else {
      for (let i = 0; i < Math.max(a.reads.length, b.reads.length); i++) {
        rows.push(...sideBySide(`read ${i + 1}`, describeRead(a.reads[i]), describeRead(b.reads[i])));
      }
    }
  }
  return rows;
}

function describeRead(read) {
  if (!read) return '(no read)';
  const lines = read.delivered.map((t, i) => `message ${i + 1}: ${describe(t)}`);
  if (read.error) lines.push(describeOutcome({ kind: Outcome.reject, error: read.error }));
  lines.push(`buffering: ${read.buffering}`);
  return lines.join('\n');
}

function framesOf(result) {
  if (result.type === 'frame' || result.type === 'stream') return [['input', result.input.bytes]];
  const { a, b } = result.outcomes.serialize;
  if (a.kind === Outcome.ok && b.kind === Outcome.ok && a.bytes === b.bytes) return [['a and b', a.bytes]];
  return [['a', a], ['b', b]].filter(([, o]) => o.kind === Outcome.ok).map(([s, o]) => [s, o.bytes]);
}

// Operations where both codecs crashed or hung the same way: no difference, but worth seeing.
function bothFailed(outcomes) {
  const pairs = [['serialize', outcomes.serialize], ['roundtrip', outcomes.roundtrip], ['framer', outcomes.stream],
    ...(outcomes.decode ?? []).map((d) => [`decode ${d.producer}'s frame`, d])];
  return pairs.filter(([, p]) => p?.a && p.b && p.a !== p.b && bothFailedAlike(p.a, p.b))
    .map(([where, p]) => `${where}: both ${outcomeLabel(p.a)}`);
}

// outcomes, when given, name the operations where both codecs failed alike.
function verdictRows(differences, outcomes = {}) {
  const alike = bothFailed(outcomes);
  return tiers.map((tier) => {
    const found = differences.filter((d) => d.tier === tier);
    const fresh = found.filter((d) => !d.known && !isSharedDefect(d.signature));
    const shared = found.filter((d) => !d.known && isSharedDefect(d.signature));
    const same = tier === Tier.crash && alike.length ? `same (${alike.join('; ')})` : 'same';
    const knownIds = [...new Set(found.map((d) => d.known).filter(Boolean))].join(', ');
    const status = fresh.length ? 'DIFF' : shared.length ? 'shared defect' : found.length ? `known (${knownIds})` : same;
    const detail = (fresh[0] ?? found[0]);
    return `  ${tier.padEnd(15)} ${status}${detail ? `  ${detail.where}: ${detail.detail}` : ''}`;
  });
}

// The last line of a verdict. A defect both codecs share is no difference
// between them: listed, it leaves the verdict SAME (and the exit code 0), as
// it does for fuzz and gate.
function verdictLine(differences) {
  const plural = (n, word) => `${n} ${word}${n > 1 ? 's' : ''}`;
  const shared = differences.filter((d) => !d.known && isSharedDefect(d.signature)).length;
  const fresh = differences.filter((d) => !d.known).length - shared;
  const known = differences.filter((d) => d.known).length;
  const also = [known && `${plural(known, 'known difference')}`, shared && `${plural(shared, 'defect')} both share`]
    .filter(Boolean);
  if (fresh) return `DIFF: ${plural(fresh, 'difference')}${also.length ? ` (+${also.join(', ')})` : ''}`;
  return also.length ? `SAME except ${also.join(' and ')}` : 'SAME';
}

// Whether a result holds a difference that is no known one nor a defect both codecs share.
const differs = (differences) => differences.some((d) => !d.known && !isSharedDefect(d.signature));

// Outcomes, annotated frames and verdict of a result.
function renderBody(result) {
  const lines = ['outcomes (a │ b)', ...outcomeRows(result)];
  for (const [who, hex] of framesOf(result)) {
    lines.push('', `frame ${who === 'input' ? '' : `from ${who} `}(annotated)`, hexdump(Buffer.from(hex, 'hex')));
  }
  // A third opinion, where the C model of the format was consulted.
  if (result.model) lines.push('', 'what the format says (the C model)', ...result.model.map((l) => `  ${l}`));
  lines.push('', 'verdict', ...verdictRows(result.differences, result.outcomes), '', verdictLine(result.differences));
  return lines.join('\n');
}

// The value as JavaScript that builds it, for results of value recipes.
function inputRows(result) {
  if (result.input.recipe === undefined) return [];
  const { compileRecipe } = require('../recipes/codegen');
  return ['input (the code that builds the value)', ...compileRecipe(result.input.recipe).split('\n').map((l) => `  ${l}`), ''];
}

function renderResult(result, sides) {
  const name = (s) => `${s.codec} in node ${s.info.node}`;
  return [`a: ${name(sides.a)}`, `b: ${name(sides.b)}`, '', ...inputRows(result), renderBody(result)].join('\n');
}

module.exports = { renderResult, renderBody, verdictRows, verdictLine, differs, describe, describeOutcome };
