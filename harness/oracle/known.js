'use strict';
// The known-differences list: accepted differences between the JS reference
// and a codec under test, each with a reason and a link. A difference that
// matches an entry is reported as known, not as a finding.
//
// An entry: { id, tier, match: { "<field path>": "text" | "/regex/" }, reason, link,
// scope, reproducer }. Field paths name fields of a difference: op, where,
// signature, detail, a.kind, a.name, a.code, b.kind, b.name, b.code.
//
// scope: the runs an entry was recorded for, { a: codecs, b: codecs, node: range }.
// Codecs are js, native, builtin or an adapter's file name (my-codec.js), one
// or a list; node is a version range for side b's binary, the build under
// test (">=26.4.0", ">=24.19.0 <25.0.0 || >=26.4.0"). An entry without scope is
// { a: "js", b: ["native", "builtin"] }, any node. Only the entries in scope
// of a run apply to it and are judged by the gate's ratchet: an entry about
// js against native says nothing of an adapter, and one that hid differences
// where it is never checked could outlive the bug it describes.

const { tiers } = require('../base/vocabulary');
const fs = require('node:fs');
const path = require('node:path');
const { UsageError } = require('../base/errors');

const defaultFile = path.join(__dirname, '..', '..', 'known-differences.json');
const anyNode = { text: '', test: () => true };
const defaultScope = { a: ['js'], b: ['native', 'builtin'], node: anyNode };
const scopeKeys = ['a', 'b', 'node'];

function matcher(pattern, where) {
  if (typeof pattern !== 'string') throw new UsageError(`${where}: a matcher must be a string`);
  const re = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (!re) return (v) => v === pattern;
  try {
    // A global or sticky regex would remember where it stopped between differences.
    const regex = new RegExp(re[1], re[2].replace(/[gy]/g, ''));
    return (v) => typeof v === 'string' && regex.test(v);
  } catch (err) {
    throw new UsageError(`${where}: ${err.message}`);
  }
}

function field(difference, dotted) {
  return dotted.split('.').reduce((v, k) => (v == null ? undefined : v[k]), difference);
}

const versionOf = (text) => /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text)?.slice(1).map(Number);
const compare = (x, y) => x.map((n, i) => n - y[i]).find((d) => d !== 0) ?? 0;
const comparators = {
  '>=': (c) => c >= 0, '<=': (c) => c <= 0, '>': (c) => c > 0, '<': (c) => c < 0, '=': (c) => c === 0,
};

// A range: alternatives separated by ||, each comparators separated by
// spaces that must all hold.
function parseRange(text, where) {
  if (typeof text !== 'string' || !text.trim()) {
    throw new UsageError(`${where}: "node" must be a range like ">=26.4.0"`);
  }
  const alternatives = text.split('||').map((alt) => alt.trim().split(/\s+/).filter(Boolean).map((part) => {
    const [, op = '=', version] = /^(>=|<=|>|<|=)?(.*)$/.exec(part);
    const parsed = versionOf(version);
    if (!parsed) {
      throw new UsageError(`${where}: "node" has ${JSON.stringify(part)}, not a comparator and version like >=26.4.0`);
    }
    return { op, version: parsed };
  }));
  if (alternatives.some((alt) => !alt.length)) throw new UsageError(`${where}: "node" has an empty alternative`);
  const holds = (v, alt) => alt.every((c) => comparators[c.op](compare(v, c.version)));
  return { text: text.trim(), test: (v) => alternatives.some((alt) => holds(v, alt)) };
}

function parseScope(scope, where) {
  if (scope === undefined) return defaultScope;
  if (scope === null || typeof scope !== 'object' || Array.isArray(scope)) {
    throw new UsageError(`${where}: "scope" must be an object with "a", "b" and "node"`);
  }
  const unknown = Object.keys(scope).find((k) => !scopeKeys.includes(k));
  if (unknown) {
    throw new UsageError(`${where}: "scope" has ${JSON.stringify(unknown)}; it takes ${scopeKeys.join(', ')}`);
  }
  const codecs = (side) => {
    const list = [scope[side] ?? defaultScope[side]].flat();
    if (!list.length || list.some((c) => typeof c !== 'string' || !c || c.includes('/'))) {
      throw new UsageError(`${where}: scope "${side}" must be a codec or a list of codecs ` +
        '(js, native, builtin or an adapter file name)');
    }
    return list;
  };
  const node = scope.node === undefined ? anyNode : parseRange(scope.node, `${where} scope`);
  return { a: codecs('a'), b: codecs('b'), node };
}

// How a scope names a side's codec: adapters by their file name.
const codecName = (codec) => path.basename(codec);

// sides: { a: { codec }, b: { codec, info: { node: 'v26.10.0' } } }.
function inScope(entry, sides) {
  const { scope } = entry;
  if (!scope.a.includes(codecName(sides.a.codec)) || !scope.b.includes(codecName(sides.b.codec))) return false;
  const version = versionOf(sides.b.info?.node ?? '');
  return scope.node === anyNode || (version !== undefined && scope.node.test(version));
}

// The scope as it reads in reports and in the file.
function scopeText(entry) {
  const { a, b, node } = entry.scope;
  return `${a.join('|')} ~ ${b.join('|')}${node.text ? `, node ${node.text}` : ''}`;
}

// The scope of a run's codec pair and build, for entries accepting its findings.
function scopeOf(sides) {
  return { a: codecName(sides.a.codec), b: codecName(sides.b.codec), node: `>=${sides.b.info.node.replace(/^v/, '')}` };
}

function parseKnown(text, file) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`known-differences file ${file} is not valid JSON: ${err.message}`);
  }
  if (!Array.isArray(data?.entries)) throw new UsageError(`known-differences file ${file} has no "entries" array`);
  const ids = new Set();
  return data.entries.map((entry, i) => {
    const where = `${file} entry ${entry?.id ?? i}`;
    if (typeof entry?.id !== 'string' || ids.has(entry.id)) throw new UsageError(`${where}: needs a unique string "id"`);
    ids.add(entry.id);
    if (!tiers.includes(entry.tier)) throw new UsageError(`${where}: "tier" must be one of ${tiers.join(', ')}`);
    if (typeof entry.reason !== 'string' || !entry.reason) throw new UsageError(`${where}: needs a "reason"`);
    const tests = Object.entries(entry.match ?? {}).map(([k, p]) => [k, matcher(p, `${where} match ${k}`)]);
    const scope = parseScope(entry.scope, where);
    return { ...entry, scope, test: (d) => d.tier === entry.tier && tests.every(([k, t]) => t(field(d, k))) };
  });
}

// file: a path, null for no list (--no-known), undefined for the default list.
function loadKnown(file) {
  if (file === null) return [];
  const chosen = file ?? defaultFile;
  let text;
  try {
    text = fs.readFileSync(chosen, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read known-differences file ${chosen}: ${err.code ?? err.message}`);
  }
  return parseKnown(text, chosen);
}

// The entries that apply to a run of these sides, and those that do not.
function splitByScope(known, sides) {
  return { applies: known.filter((e) => inScope(e, sides)), outside: known.filter((e) => !inScope(e, sides)) };
}

// The differences, each a new frozen one with `known`: the id of the first
// entry it matches, if any. What a check found stays as it was found.
function classify(differences, known) {
  return differences.map((d) => Object.freeze({ ...d, known: known.find((k) => k.test(d))?.id }));
}

module.exports = { loadKnown, parseKnown, classify, splitByScope, inScope, scopeText, scopeOf, defaultFile };
