'use strict';
// ipcfuzz conformance: every conformance vector through every codec of every
// binary given, in process and through real child_process channels between
// each pair of them and of the runtimes given (--runtime deno, bun,
// NAME@VERSION), in both serializations; writes the matrix as Markdown, JSON
// and HTML. Exits 1 on any FAIL, CRASH or HANG not covered by the
// known-differences list, or a pair that cannot talk. --budget SECONDS: the
// columns not finished by then are left out, named in the summary.

const path = require('node:path');
const { parse, positiveInteger, knownChoice, checkFolder } = require('..');
const { loadKnown } = require('../../harness/oracle/known');
const { pinnedVersions, root } = require('../../harness/base/binaries');
const { UsageError } = require('../../harness/base/errors');
const { parseRuntime } = require('../../harness/base/runtimes');
const { runConformance, loadCases } = require('../../conformance/runner');
const { writeReports } = require('../../conformance/report');
const { totals, failures, cellLabel, columnName, legend } = require('../../conformance/report/matrix');
const { kCallTimeoutMs } = require('../../harness/base/defaults');

const defaultReportDir = path.join(root, '.ipcfuzz', 'conformance');

const about = 'every conformance vector through every codec of every binary; a matrix in Markdown, JSON and HTML';
const flags = {
  node: { type: 'string', multiple: true, value: 'PATH|VERSION', shown: 'the pinned versions',
    help: 'binaries to run, repeated or comma-separated' },
  codec: { type: 'string', multiple: true, value: 'CODEC', shown: 'every codec a binary has',
    help: 'codecs to run, repeated or comma-separated' },
  report: { type: 'string', default: defaultReportDir, shown: '<ipcfuzz>/.ipcfuzz/conformance', value: 'DIR',
    help: 'reports folder' },
  only: { type: 'string', value: 'REGEX', shown: 'every vector', help: 'run the vectors whose id matches' },
  'no-fork': { type: 'boolean', default: false, help: 'skip the child_process columns' },
  known: { type: 'string', value: 'FILE', shown: 'known-differences.json', help: 'known-differences list' },
  'no-known': { type: 'boolean', default: false, help: 'report every difference, known or not' },
  timeout: { type: 'string', default: String(kCallTimeoutMs), value: 'MS',
    help: 'a codec call taking longer is a hang' },
  runtime: { type: 'string', multiple: true, value: 'deno|bun|NAME@VERSION', shown: 'none',
    help: 'runtimes to fork with, repeated or comma-separated' },
  budget: { type: 'string', value: 'SECONDS', shown: 'no limit',
    help: 'columns not finished by then are killed, left out and named' },
};

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
  const values = parse(args, flags);
  const nodes = listFlag(values.node);
  const codecs = listFlag(values.codec);
  const known = loadKnown(knownChoice(values));
  const timeoutMs = positiveInteger(values.timeout, 'timeout');
  // node@VERSION is a Node binary like --node VERSION, with its in-process columns.
  const named = listFlag(values.runtime).map(parseRuntime);
  nodes.push(...named.filter((r) => r.name === 'node').map((r) => r.version));
  const runtimes = named.filter((r) => r.name !== 'node').map((r) => (r.version ? `${r.name}@${r.version}` : r.name));
  if (runtimes.length && values['no-fork']) throw new UsageError('--runtime runs fork cases only: drop --no-fork');
  const budget = values.budget === undefined ? null : positiveInteger(values.budget, 'budget');
  const report = checkFolder(values.report, 'report');
  const only = onlyPattern(values.only);
  if (only) {
    const { vectors, programRows } = loadCases({ only });
    if (!vectors.length && (values['no-fork'] || !programRows.length)) {
      throw new UsageError(`--only ${values.only} matches no vector`);
    }
  }
  const started = Date.now();
  const result = await runConformance({
    nodes: nodes.length ? nodes : pinnedVersions(),
    runtimes,
    deadline: budget ? started + budget * 1000 : Infinity,
    codecs: codecs.length ? codecs : null,
    fork: !values['no-fork'],
    known,
    only,
    timeoutMs,
    onColumn: (column, ms) => console.error(`  ${columnName(column)}: ${(ms / 1000).toFixed(1)} s`),
  });
  const files = writeReports(result, report, {
    known,
    generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    command: ['ipcfuzz conformance', ...args].join(' '),
  });
  console.log(`conformance: ${result.rows.length} rows × ${result.columns.length} columns in ` +
    `${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  console.log(summary(result, files));
  return failures(result).length ? 1 : 0;
}

module.exports = { run, about, flags };
