#!/usr/bin/env node
'use strict';
// How much of the wire format a corpus reaches, as the annotator reads it:
// distinct serialization tags, tag pairs (each tag with the one before it in
// its frame, '^' for the first) and IPC host-object tag / view index values.
// Prints the frame target's corpus before and after adding the native corpus.
//
// Usage: node scripts/tag-coverage.js [--frame-target DIR ...] [--native DIR ...] [--json]
//   --frame-target  inputs of the Jazzer.js frame target (default corpus/jazzer/frame)
//   --native        raw frames of the native fuzzers (default corpus/native)

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { annotateStream } = require('../harness/wire/annotate');
const { frame: frameTargetInput } = require('../fuzzers/jazzer/inputs');
const { root } = require('../harness/base/binaries');

function filesOf(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile());
}

function reach(streams) {
  const tags = new Set();
  const pairs = new Set();
  const host = new Set();
  for (const bytes of streams) {
    for (const frame of annotateStream(bytes)) {
      let previous = '^';
      for (const seg of frame.segments) {
        if (seg.field.startsWith('tag.')) {
          tags.add(seg.field);
          pairs.add(`${previous}>${seg.field}`);
          previous = seg.field;
        } else if (seg.field === 'host.tag' || seg.field === 'host.index') {
          host.add(`${seg.field}=${seg.label.split(' ')[3]}`);  // "IPC host tag 0 (...)", "view type index 4 (...)"
        }
      }
    }
  }
  return { tags: tags.size, pairs: pairs.size, hostValues: host.size };
}

function main() {
  const { values } = parseArgs({ options: {
    'frame-target': { type: 'string', multiple: true, default: [path.join(root, 'corpus', 'jazzer', 'frame')] },
    native: { type: 'string', multiple: true, default: [path.join(root, 'corpus', 'native')] },
    json: { type: 'boolean', default: false },
  } });
  const before = values['frame-target'].flatMap(filesOf)
    .map((f) => Buffer.from(frameTargetInput(fs.readFileSync(f)).bytes, 'hex'));
  const added = values.native.flatMap(filesOf).map((f) => fs.readFileSync(f));
  const result = {
    before: { files: before.length, ...reach(before) },
    after: { files: before.length + added.length, ...reach([...before, ...added]) },
  };
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const row = (label, r) => `${label.padEnd(28)} ${String(r.files).padStart(6)} files  ` +
    `${String(r.tags).padStart(3)} tags  ${String(r.pairs).padStart(4)} tag pairs  ${String(r.hostValues).padStart(3)} host tag/index values`;
  console.log(row('frame target corpus', result.before));
  console.log(row('  + native corpus', result.after));
}

try {
  main();
} catch (err) {
  console.error(`tag-coverage: ${err.message.split('\n')[0]}`);
  process.exitCode = 2;
}
