'use strict';
// The conformance runner: every vector through every codec of every binary
// given (in process, in a worker of that binary), and through real
// child_process.fork channels between every pair of those binaries. Returns
// the matrix as data; conformance/report/ renders it.
//
// Columns: { id, binary, codec } for a codec in process, and
// { id, binary, child, codec: 'fork' } for a parent of `binary` forking a
// child of `child`. Rows: the vectors by verdict, with the fork-only programs
// among the accept rows.

const os = require('node:os');
const path = require('node:path');
const { WorkerProcess } = require('../harness/pool');
const { resolveNode, probeNode } = require('../harness/nodes');
const { resolveCodec } = require('../harness/session');
const { UsageError } = require('../harness/errors');
const { loadVectors, readExpectation, verdicts } = require('./vectors');
const { runVector } = require('./outcomes');
const { inProcessDifferences, channelDifferences, expectedArrival, cell } = require('./judge');
const { programs } = require('./e2e/plan');
const { runForkColumn, programExpectation } = require('./e2e/driver');

// Recipes of top-level values child_process.send refuses before any codec sees them.
const unsendable = new Set(['undefined', 'bigint', 'symbol', 'function']);

function describeBinaries(specs) {
  const seen = new Map();
  return specs.map((spec) => {
    const nodePath = resolveNode(spec);
    const info = probeNode(nodePath);
    const version = info.node.replace(/^v/, '');
    const count = (seen.get(version) ?? 0) + 1;
    seen.set(version, count);
    return { label: count > 1 ? `${version}#${count}` : version, spec, path: nodePath, info };
  });
}

function availableCodecs(info) {
  return ['js', ...(info.ipcSerdes ? ['native'] : []), ...(info.builtin ? ['builtin'] : [])];
}

function codecLabel(codec) {
  return path.isAbsolute(codec) ? path.basename(codec, '.js') : codec;
}

// codecs: null for every codec a binary has; otherwise names or adapter paths,
// each given to every binary that can run it.
function planColumns(binaries, { codecs = null, fork = true } = {}) {
  const columns = [];
  for (const binary of binaries) {
    const have = availableCodecs(binary.info);
    const chosen = codecs ? codecs.map(resolveCodec).filter((c) => path.isAbsolute(c) || have.includes(c)) : have;
    for (const codec of chosen) {
      columns.push({ id: `${binary.label}/${codecLabel(codec)}`, binary, codec, codecLabel: codecLabel(codec) });
    }
  }
  if (fork) {
    for (const binary of binaries) {
      for (const child of binaries) {
        columns.push({ id: `${binary.label}/fork:${child.label}`, binary, child, codec: 'fork', codecLabel: 'fork' });
      }
    }
  }
  return columns;
}

function loadCases({ only } = {}) {
  const vectors = loadVectors().filter((v) => !only || only.test(v.id));
  for (const v of vectors) {
    v.expected = readExpectation(v);
    if (!v.expected) throw new UsageError(`${v.id} has no expectation: run node conformance/generate.js`);
  }
  const programRows = Object.entries(programs)
    .map(([name, p]) => ({ id: `fork-only/${name}`, verdict: 'accept', group: 'fork-only', name, kind: 'program', about: p.about }))
    .filter((p) => !only || only.test(p.id));
  return { vectors, programRows };
}

async function runCodecColumn(column, vectors, { known, timeoutMs }) {
  const worker = new WorkerProcess(column.binary.path, { timeoutMs });
  const request = (r) => worker.request({ ...r, codec: column.codec });
  try {
    const cells = await Promise.all(vectors.map(async (vector) => {
      const actual = await runVector(request, vector, vector.expected);
      const differences = inProcessDifferences(vector, vector.expected, actual);
      return [vector.id, { ...cell({ vector, column, differences, outcomes: Object.values(actual), known }), actual }];
    }));
    return new Map(cells);
  } finally {
    worker.close();
  }
}

// The fork cases of a column: sendable values, raw bytes of every frame and
// stream vector, and the programs.
function forkCases(vectors, programRows) {
  const cases = [];
  for (const v of vectors) {
    if (v.kind === 'recipe') {
      if (!unsendable.has(v.input.recipe.k)) cases.push({ type: 'value', id: v.id, recipe: v.input.recipe });
    } else {
      cases.push({ type: 'raw', id: v.id, input: v.input });
    }
  }
  for (const p of programRows) cases.push({ type: 'program', id: p.id, program: p.name });
  return cases;
}

function judgeFork(row, column, outcome, known) {
  if (outcome.type === 'raw') {
    const differences = channelDifferences('child writes, parent reads', row.expected.fork, outcome.record);
    return { ...cell({ vector: row, column, differences, outcomes: [outcome.record], known }), actual: outcome };
  }
  const expected = row.kind === 'program' ? programExpectation(row.name) : expectedArrival(row.expected);
  const differences = [['parent → child', outcome.toChild], ['child → parent', outcome.toParent]]
    .filter(([, o]) => o.kind !== 'unbuildable')
    .flatMap(([where, o]) => channelDifferences(where, expected, o));
  return { ...cell({ vector: row, column, differences, outcomes: [outcome.toChild, outcome.toParent], known }), actual: outcome };
}

async function runForkColumnCells(column, rows, programRows, { known, timeoutMs }) {
  const cases = forkCases(rows, programRows);
  const outcomes = await runForkColumn({
    parentNode: column.binary.path, childNode: column.child.path, cases, timeoutMs,
  });
  const byId = new Map([...rows, ...programRows].map((r) => [r.id, r]));
  return new Map(cases.map((c) => [c.id, judgeFork(byId.get(c.id), column, outcomes.get(c.id), known)]));
}

function notApplicable(row) {
  if (row.kind === 'program') return { state: 'N/A', why: 'runs through child_process only' };
  return { state: 'N/A', why: `child_process.send refuses a top-level ${row.input.recipe.k} before any codec sees it` };
}

// Runs `fn` on every item, at most `limit` at a time.
async function inParallel(items, limit, fn) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

// options: { nodes: [path or version], codecs, fork, known, timeoutMs, only: RegExp,
//            parallel, onColumn(column, ms) }
async function runConformance(options) {
  const { known, timeoutMs = 10_000, onColumn = () => {} } = options;
  const parallel = options.parallel ?? os.availableParallelism();
  const binaries = describeBinaries(options.nodes);
  const { vectors, programRows } = loadCases(options);
  const columns = planColumns(binaries, options);
  const cellsByColumn = new Map();
  // In-process columns are light and fork columns heavy: each kind gets the cores in turn.
  for (const kind of ['codec', 'fork']) {
    const chosen = columns.filter((c) => (c.codec === 'fork') === (kind === 'fork'));
    await inParallel(chosen, parallel, async (column) => {
      const started = Date.now();
      const cells = kind === 'fork' ?
        await runForkColumnCells(column, vectors, programRows, { known, timeoutMs }) :
        await runCodecColumn(column, vectors, { known, timeoutMs });
      cellsByColumn.set(column.id, cells);
      onColumn(column, Date.now() - started);
    });
  }
  // Programs are accept rows: they go after the accept vectors.
  const programsShown = columns.some((c) => c.codec === 'fork') ? programRows : [];
  const ordered = [...vectors, ...programsShown].sort((a, b) => verdicts.indexOf(a.verdict) - verdicts.indexOf(b.verdict));
  const rows = ordered.map((row) => ({
    id: row.id, verdict: row.verdict, group: row.group, name: row.name, kind: row.kind, about: row.about,
    file: row.file && path.relative(path.join(__dirname, '..'), row.file),
    cells: Object.fromEntries(columns.map((c) => [c.id, cellsByColumn.get(c.id).get(row.id) ?? notApplicable(row)])),
  }));
  return { binaries, columns, rows };
}

module.exports = { runConformance, runCodecColumn, describeBinaries, loadCases };
