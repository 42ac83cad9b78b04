#!/usr/bin/env node
'use strict';
// Merges what fuzzing grew in the working corpus (.ipcfuzz/work/corpus/<target>)
// into the seed corpus (corpus/jazzer/<target>, corpus/native), minimized by
// libFuzzer's -merge=1: only inputs that add coverage are copied; nothing is
// deleted.
//   node scripts/corpus-merge.js [--node PATH|VERSION] [--work DIR]

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { targets, defaultWorkDir } = require('../fuzzers/jazzer/engine');
const { resolveNode, root } = require('../harness/base/binaries');

function main() {
  const { values } = parseArgs({ options: { node: { type: 'string' }, work: { type: 'string' } } });
  const node = resolveNode(values.node);
  const work = path.resolve(values.work ?? defaultWorkDir());
  // The native model's fuzzers already merged against corpus/native: copy.
  const grownNative = path.join(work, 'corpus', 'native');
  if (fs.existsSync(grownNative)) {
    const seeds = path.join(root, 'corpus', 'native');
    const added = fs.readdirSync(grownNative).filter((f) => !fs.existsSync(path.join(seeds, f)));
    for (const f of added) fs.copyFileSync(path.join(grownNative, f), path.join(seeds, f));
    console.log(`native: ${added.length} new seeds`);
  }
  for (const target of targets) {
    const grown = path.join(work, 'corpus', target);
    const seeds = path.join(root, 'corpus', 'jazzer', target);
    if (!fs.existsSync(grown)) {
      console.log(`${target}: nothing grown in ${grown}`);
      continue;
    }
    fs.mkdirSync(seeds, { recursive: true });
    const before = fs.readdirSync(seeds).length;
    const launcher = path.join(root, 'fuzzers', 'jazzer', 'launch.js');
    const run = spawnSync(node, ['--expose-internals', '--no-warnings', launcher,
      path.join(root, 'fuzzers', 'jazzer', `${target}.js`), seeds, grown, '--sync', '--', '-merge=1'],
    { encoding: 'utf8', env: { ...process.env, IPCFUZZ_B: 'js' } });
    if (run.status !== 0) throw new Error(`${target}: libFuzzer merge failed: ${run.stderr.trim().split('\n').at(-1)}`);
    console.log(`${target}: ${fs.readdirSync(seeds).length - before} new seeds (from ${fs.readdirSync(grown).length} grown inputs)`);
  }
}

try {
  main();
} catch (err) {
  console.error(`corpus-merge: ${err.message.split('\n')[0]}`);
  process.exitCode = 2;
}
