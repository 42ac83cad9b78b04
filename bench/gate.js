'use strict';
// `ipcfuzz gate --bench`: the fork() IPC round-trip table of the base build
// against the build under test, for summary.md. A cell is flagged as a
// slowdown only when the head was slower in every repetition and its median
// is below the base's by more than the spread of repeated runs measured
// here, in either binary (the json rows, whose codec a codec change leaves
// alone, show how far the machine alone moves). Timing never fails the gate.

const path = require('node:path');
const { resolveNode, root } = require('../harness/base/binaries');
const { binary } = require('./machine');
const codecTable = require('./codec-table');
const fmt = require('./format');

const kReps = 3;
const kSeconds = 0.5;

function isSlowdown(row) {
  return row.ratio.max < 1 && row.ratio.median < 1 - codecTable.noiseOf(row);
}

// baseNode: the base build's path, or undefined to compare with 26.3.1 (the
// last release with the JavaScript codec); headNode: the build under test.
async function benchSection({ baseNode, headNode, reps = kReps, seconds = kSeconds }) {
  const binaries = [binary('base', baseNode ?? resolveNode('26.3.1')), binary('head', headNode)];
  const rows = codecTable.summarizeFork(await codecTable.forkRoundTrips({ binaries, reps, seconds, warmup: 0.2 }));
  const slow = rows.filter(isSlowdown);
  const [base, head] = binaries;
  const label = (r) => `${r.serialization} ${fmt.bytes(r.len)}`;
  const verdict = slow.length ?
    `**Slower beyond the measured noise:** ${slow.map((r) => `${label(r)} (${fmt.ratio(r.ratio.median)})`).join(', ')}.` :
    'No slowdown beyond the measured noise.';
  const table = fmt.table(
    ['serialization', 'payload', `base ${base.version} round trips/s`, `head ${head.version} round trips/s`, 'head / base',
      'run-to-run spread', 'CPU µs per round trip base → head', ''],
    rows.map((r) => [r.serialization, fmt.bytes(r.len), fmt.range(r.base), fmt.range(r.head),
      fmt.range(r.ratio, fmt.ratio), `${(codecTable.noiseOf(r) * 100).toFixed(0)}%`, `${r.baseCpu.median.toFixed(1)} → ${r.headCpu.median.toFixed(1)}`,
      isSlowdown(r) ? '**slower**' : '']));
  const markdown = [
    '## Codec performance', '',
    verdict, '',
    `fork() IPC round trips per second, 32 messages \`{ payload: '.'.repeat(n) }\` in flight, ${seconds} s per run, ` +
    `${reps} interleaved repetitions; median [min–max]. Base: node ${base.version} (${base.codec} codec, \`${path.relative(root, base.node)}\`); ` +
    `head: node ${head.version} (${head.codec} codec, \`${path.relative(root, head.node)}\`). Run-to-run spread: ` +
    '(max − min) / median of the runs of either binary, the larger; a cell is flagged when the head was slower ' +
    'in every repetition and its median by more than that spread. Timing never changes the verdict.', '',
    table, '',
  ].join('\n');
  const line = `ipcfuzz gate --bench: ${slow.length ? `slower than base: ${slow.map(label).join(', ')}` : 'no slowdown beyond noise'}`;
  return { markdown, line, rows, slowdowns: slow.map(label) };
}

module.exports = { benchSection, isSlowdown };
