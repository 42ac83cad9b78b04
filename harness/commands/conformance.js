'use strict';
// ipcfuzz conformance: every conformance vector through every codec of every
// binary given, in process and through real child_process channels between
// each pair of them and of the runtimes given (--runtime deno, bun,
// NAME@VERSION), in both serializations; writes the matrix as Markdown, JSON
// and HTML. Exits 1 on any FAIL, CRASH or HANG not covered by the
// known-differences list, or a pair that cannot talk. --budget SECONDS: the
// columns not finished by then are left out, named in the summary.

const path = require('node:path');
const { parse, positiveInteger } = require('../cli');
const { loadKnown } = require('../known');
const { pinnedVersions, root } = require('../nodes');
const { UsageError } = require('../errors');
const { parseRuntime } = require('../runtimes');
const { runConformance } = require('../../conformance/run');
const { writeReports } = require('../../conformance/report');
const { totals, failures, cellLabel, columnName, legend } = require('../../conformance/report/matrix');

const defaultReportDir = path.join(root, '.ipcfuzz', 'conformance');

function listFlag(values) {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

function onlyPattern(text) {
  if (text === undefined) return undefined;
  try {
    return new RegExp(text);
  } catch (err) {
    throw new UsageError(`--only: ${err.message}`);
  }
}

function summary(result, files) {
  const labels = legend.map(([l]) => l);
  const width = Math.max(...result.columns.map((c) => columnName(c).length));
  const lines = [`${'column'.padEnd(width)}  ${labels.map((l) => l.padStart(6)).join(' ')}`];
  for (const { column, counts } of totals(result)) {
    lines.push(`${columnName(column).padEnd(width)}  ${labels.map((l) => String(counts[l] ?? '').padStart(6)).join(' ')}`);
  }
  if (result.skipped.length) {
    lines.push('', `not run for lack of time (--budget): ${result.skipped.map(columnName).join(', ')}`);
  }
  const failed = failures(result);
  lines.push('', failed.length ? `${failed.length} new failure${failed.length > 1 ? 's' : ''}:` : 'no new failures');
  for (const { row, column, cell } of failed) {
    const first = cell.differences?.find((d) => !d.known);
    lines.push(`  ${cellLabel(cell).padEnd(5)} ${row.id}  [${columnName(column)}]${first ? `  ${first.where}: ${first.detail}` : ''}`);
  }
  const rel = (f) => path.relative(process.cwd(), f);
  lines.push('', `report: ${rel(files.html)} (also ${[files.markdown, files.json, files.matrix].map(rel).join(', ')})`);
  return lines.join('\n');
}

async function run(args) {
  const flags = parse(args, {
    node: { type: 'string', multiple: true },
    codec: { type: 'string', multiple: true },
    report: { type: 'string', default: defaultReportDir },
    known: { type: 'string' },
    'no-known': { type: 'boolean', default: false },
    'no-fork': { type: 'boolean', default: false },
    only: { type: 'string' },
    timeout: { type: 'string', default: '10000' },
    runtime: { type: 'string', multiple: true },
    budget: { type: 'string' },
  });
  if (flags.known !== undefined && flags['no-known']) throw new UsageError('--known and --no-known exclude each other');
  const nodes = listFlag(flags.node);
  const codecs = listFlag(flags.codec);
  const known = loadKnown(flags['no-known'] ? null : flags.known);
  // node@VERSION is a Node binary like --node VERSION, with its in-process columns.
  const named = listFlag(flags.runtime).map(parseRuntime);
  nodes.push(...named.filter((r) => r.name === 'node').map((r) => r.version));
  const runtimes = named.filter((r) => r.name !== 'node').map((r) => (r.version ? `${r.name}@${r.version}` : r.name));
  if (runtimes.length && flags['no-fork']) throw new UsageError('--runtime runs fork cases only: drop --no-fork');
  const budget = flags.budget === undefined ? null : positiveInteger(flags.budget, 'budget');
  const started = Date.now();
  const result = await runConformance({
    nodes: nodes.length ? nodes : pinnedVersions(),
    runtimes,
    deadline: budget ? started + budget * 1000 : Infinity,
    codecs: codecs.length ? codecs : null,
    fork: !flags['no-fork'],
    known,
    only: onlyPattern(flags.only),
    timeoutMs: positiveInteger(flags.timeout, 'timeout'),
    onColumn: (column, ms) => console.error(`  ${columnName(column)}: ${(ms / 1000).toFixed(1)} s`),
  });
  const files = writeReports(result, path.resolve(flags.report), {
    known,
    generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    command: ['ipcfuzz conformance', ...args].join(' '),
  });
  console.log(`conformance: ${result.rows.length} rows × ${result.columns.length} columns in ` +
    `${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  console.log(summary(result, files));
  return failures(result).length ? 1 : 0;
}

module.exports = { run };
