'use strict';
// Which classes of values a run met, and how often: recipe kinds, tampering
// steps (and what getters do), the value classes the codecs branch on, and
// the V8 tags of the frames written. The engines inject it as an observer of
// the checks (oracle/checks.js observeChecks), in their own process and in
// the workers of their sessions (observe below); a process that counts keeps
// its counts in a file of the run's folder, so that the fuzz command can add
// up all engines. A class never met shows as zero.
// This module walks recipes and keeps the counts; which classes a node is
// of, value-classes.js says.

const fs = require('node:fs');
const path = require('node:path');
const { kinds } = require('../recipes/kinds');
const { hostTypes } = require('../recipes/hosts');
const { steps, getterSteps, worldVariants } = require('../recipes/tampering');
const { tags } = require('../wire/tags');
const { annotateFrame } = require('../wire/annotate');
const { frameOf } = require('../oracle/ops');
const { observeChecks } = require('../oracle/checks');
const { integerKeyClasses } = require('../recipes/vocabulary');
const { kindClasses, stepClasses, lengthClasses } = require('./value-classes');

const stepOps = Object.keys(steps);
const getterEffects = [...getterSteps, 'throw'];
// The world steps the grammar and the arbitraries draw, by side.
const worldRows = [...new Set(Object.values(worldVariants).flatMap(({ op, sides }) => sides.map((side) => `${op} ${side}`)))];

// Tags that Node's advanced serializer writes for no value a recipe builds:
// legacy formats V8 only reads, transfers and shared memory (which the IPC
// codec has no delegate for), immutable buffers (behind a V8 flag), views
// (written as host objects), and the hole (an array emptied while it is
// being written). Listed apart, and only when a frame held one: so far only
// frames that read out of step do, such as the reference codec's frame of a
// view whose `buffer` or `length` a recipe replaced.
const unwrittenTags = new Set(['the-hole', 'verify-object-count', 'immutable-array-buffer', 'utf8-string', 'uint32',
  'array-buffer-view', 'wasm-memory-transfer', 'shared-object', 'array-buffer-transfer', 'shared-array-buffer',
  'wasm-module-transfer']);

// Every row the view prints, so that what was never met shows as zero.
const groups = {
  kind: Object.keys(kinds),
  step: stepOps,
  'getter effect': getterEffects,
  world: worldRows,
  'integer key': integerKeyClasses,
  host: ['port', ...Object.keys(hostTypes)],
  'prototype of': ['view type', 'Object', 'Array', 'null', 'Proxy'],
  'string length': lengthClasses.map(String),
  'string shape': ['literal', 'cons', 'sliced', 'external', 'thin', 'two-byte', 'lone surrogate'],
  message: ['primitive'],
  depth: ['nest 2-100', 'nest 1000', 'nest 10000+'],
  array: ['long packed', 'long holey'],
  view: ['around 64 KiB', 'MiB'],
  'hidden class': ['shared', 'changed'],
  // Tags that start a value (end tags, the header and padding are not values).
  tag: [...new Set(Object.values(tags))].filter((t) => !t.startsWith('end-') && t !== 'version' && t !== 'padding' &&
    !unwrittenTags.has(t)),
};

// Counts by group, then by name; a count's key outside this process is `group\tname`.
const counts = new Map();
let flushedAt = 0;
// Where this process keeps its counts (collectInto, observe).
let folder = null;

function add(group, name, n = 1) {
  let names = counts.get(group);
  if (!names) counts.set(group, names = new Map());
  names.set(name, (names.get(name) ?? 0) + n);
}

function flatCounts() {
  const flat = new Map();
  for (const [group, names] of counts) for (const [name, n] of names) flat.set(`${group}\t${name}`, n);
  return flat;
}

// Each node's fields are read once and only those of its kind: in the
// workers that check the inputs changing built-in prototypes, every property
// read meets its inline cache emptied by the last check's change (see
// recipes/steps.js), so each read site counts.
function countNode(node, top) {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) countNode(node[i], false);
    return;
  }
  const { k, op } = node;
  if (typeof k === 'string') kindClasses(node, k, top, add);
  if (typeof op === 'string') stepClasses(node, op, add);
  for (const key in node) {
    const child = node[key];
    if (typeof child === 'object') countNode(child, false);
  }
}

// The tags of the frames met lately, each with how often: a frame written
// again is counted without reading it again. Of a Jazzer.js run's frames,
// seven in ten had been met before; a thousand remembered caught six.
const frameTags = new Map();
const kRememberedHexChars = 1 << 23;
let rememberedHexChars = 0;
const kAnnotatedHex = 1 << 15;

// outcome: a serialize outcome; its frame is read from the bytes it carries, if any.
function countFrame(outcome) {
  const hex = outcome?.bytes;
  // Large frames (long arrays, MiB strings) would cost more to annotate than
  // to fuzz; the tags they hold, small frames hold too.
  if (typeof hex !== 'string' || hex.length > kAnnotatedHex) return;
  let tally = frameTags.get(hex);
  if (!tally) {
    tally = new Map();
    for (const { tag } of annotateFrame(frameOf(outcome), 0, { describe: false }).values) {
      tally.set(tag, (tally.get(tag) ?? 0) + 1);
    }
    if (rememberedHexChars + hex.length > kRememberedHexChars) {
      frameTags.clear();
      rememberedHexChars = 0;
    }
    frameTags.set(hex, tally);
    rememberedHexChars += hex.length;
  }
  for (const [tag, n] of tally) add('tag', tag, n);
}

// Counts one value check's input and the frames both codecs wrote.
function countValue(result) {
  countNode(result.input?.recipe, true);
  const { a, b } = result.outcomes?.serialize ?? {};
  countFrame(a);
  if (b?.bytes !== a?.bytes) countFrame(b);
  if (folder && Date.now() - flushedAt > 2000) flush(folder);
}

// Into the folder collectInto() made: one a run has removed as it ended stays
// removed, when a worker that outlived the run writes its counts on exit.
function flush(dir) {
  flushedAt = Date.now();
  try {
    fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(Object.fromEntries(flatCounts())));
  } catch {
    // Coverage is a view of the run, never a reason to stop it.
  }
}

process.on('exit', () => {
  if (folder && counts.size) flush(folder);
});

// The observer of the checks: each value check's result (not one that was skipped) is counted.
function countCheck(type, result) {
  if (result?.type === 'value' && result.skipped === undefined) countValue(result);
}

// Counts the value checks this process runs into `dir`, a run's folder; the
// worker processes of a session given the observer this returns count there too
// (the session's `observers`, which each worker passes to observe()).
function observe({ dir }) {
  folder = dir;
  observeChecks(countCheck);
  return { module: __filename, options: { dir } };
}

// Starts a run's coverage folder afresh and counts into it (see observe).
function collectInto(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return observe({ dir });
}

// All processes' counts, added up.
function gather(dir = folder) {
  const total = flatCounts();
  if (!dir) return total;
  for (const file of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (file === `${process.pid}.json` || !file.endsWith('.json')) continue;
    try {
      for (const [k, n] of Object.entries(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')))) {
        total.set(k, (total.get(k) ?? 0) + n);
      }
    } catch {
      // A file being written as the run ends is left out.
    }
  }
  return total;
}

// The view printed at the end of a run: one line per group, zeros first.
function renderCoverage(total = gather()) {
  const lines = ['value classes met (× times; 0 = never):'];
  for (const [group, names] of Object.entries(groups)) {
    const cells = names.map((name) => [name, total.get(`${group}\t${name}`) ?? 0]).sort((x, y) => x[1] - y[1]);
    lines.push(`  ${group}: ${cells.map(([name, n]) => `${name} ${n}`).join(', ')}`);
  }
  const unwritten = [...unwrittenTags].map((name) => [name, total.get(`tag\t${name}`) ?? 0]).filter(([, n]) => n > 0);
  if (unwritten.length) {
    const cells = unwritten.map(([name, n]) => `${name} ${n}`).join(', ');
    lines.push(`  tags no value should make a serializer write (read out of step?): ${cells}`);
  }
  return lines.join('\n');
}

module.exports = { countValue, observe, collectInto, gather, renderCoverage, groups };
