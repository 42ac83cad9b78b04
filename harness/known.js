'use strict';
// The known-differences list: accepted differences between the JS reference
// and a codec under test, each with a reason and a link. A difference that
// matches an entry is reported as known, not as a finding.
//
// An entry: { id, tier, match: { "<field path>": "text" | "/regex/" }, reason, link }.
// Field paths name fields of a difference: op, where, signature, detail,
// a.kind, a.name, a.code, b.kind, b.name, b.code.

const fs = require('node:fs');
const path = require('node:path');
const { tiers } = require('./compare');
const { UsageError } = require('./errors');

const defaultFile = path.join(__dirname, '..', 'known-differences.json');

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
    return { ...entry, test: (d) => d.tier === entry.tier && tests.every(([k, t]) => t(field(d, k))) };
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

// Marks each difference with the id of the first entry it matches, if any.
function classify(differences, known) {
  for (const d of differences) d.known = known.find((k) => k.test(d))?.id;
  return differences;
}

module.exports = { loadKnown, parseKnown, classify, defaultFile };
