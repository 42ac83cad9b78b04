'use strict';
// The conformance runner: every vector through every codec of every binary
// given (in process, in a worker of that binary), and through real
// child_process.fork channels between every pair of those binaries. Returns
// the matrix as data; conformance/report/ renders it.
//
// Columns: { id, binary, codec } for a codec in process (Node binaries only),
// and { id, binary, child, codec: 'fork', serialization } for a parent of
// `binary` forking a child of `child` in either serialization; binaries are
// Node binaries and other runtimes (harness/base/runtimes.js). Rows: the vectors by
// verdict, with the fork-only programs among the accept rows.

const os = require('node:os');
const path = require('node:path');
const { AsyncWorker } = require('../harness/run/async-driver');
const { resolveNode, probeNode } = require('../harness/base/binaries');
const { resolveRuntime, probeRuntime } = require('../harness/base/runtimes');
const { effectsLog } = require('../harness/recipes/effects');
const { buildInput } = require('../harness/recipes/build');
const { describeError } = require('../harness/oracle/ops');
const { channelTree } = require('../harness/oracle/channel');
const { wireChecks, handshake } = require('./interop');
const { resolveCodec } = require('../harness/run/session');
const { UsageError } = require('../harness/base/errors');
const { loadVectors, readExpectation, verdicts } = require('./vectors');
const { runVector } = require('./outcomes');
const { inProcessDifferences, expectedArrival, cell } = require('./judge');
const { channelDifferences } = require('../harness/oracle/channel-differences');
const { programs } = require('./e2e/plan');
const { runForkColumn, programExpectation, stopAll } = require('./e2e/driver');
const { Outcome } = require('../harness/base/vocabulary');
const { kCallTimeoutMs } = require('../harness/base/defaults');

// Recipes of top-level values child_process.send refuses before any codec sees them.
const unsendable = new Set(['undefined', 'bigint', 'symbol', 'function']);

function describeBinaries(specs, runtimeSpecs = []) {
  const seen = new Map();
  const label = (name) => {
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count > 1 ? `${name}#${count}` : name;
  };
  const nodes = specs.map((spec) => {
    const nodePath = resolveNode(spec);
    const info = probeNode(nodePath);
    const runtime = { name: 'node', command: [nodePath] };
    return { label: label(info.node.replace(/^v/, '')), spec, path: nodePath, info, runtime };
  });
  const others = runtimeSpecs.map((spec) => {
    const runtime = resolveRuntime(spec);
    const info = probeRuntime(runtime);
    return { label: label(`${runtime.name}-${info.version}`), spec, path: runtime.path, info, runtime };
  });
  return [...nodes, ...others];
}

const isNode = (binary) => binary.runtime.name === 'node';

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
  for (const binary of binaries.filter(isNode)) {
    const have = availableCodecs(binary.info);
    const chosen = codecs ? codecs.map(resolveCodec).filter((c) => path.isAbsolute(c) || have.includes(c)) : have;
    for (const codec of chosen) {
      columns.push({ id: `${binary.label}/${codecLabel(codec)}`, binary, codec, codecLabel: codecLabel(codec) });
    }
  }
  if (fork) {
    // Raw frames into a child of each other runtime, from a Node parent: how its reader takes them.
    const prober = binaries.find(isNode);
    for (const binary of binaries.filter((b) => !isNode(b))) {
      columns.push({ id: `${binary.label}/reads`, binary, prober, codec: 'reads', codecLabel: 'reads raw' });
    }
    for (const serialization of ['advanced', 'json']) {
      const kind = serialization === 'json' ? 'fork-json' : 'fork';
      for (const binary of binaries) {
        for (const child of binaries) {
          const id = `${binary.label}/${kind}:${child.label}`;
          columns.push({ id, binary, child, codec: 'fork', codecLabel: kind, serialization });
        }
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

// Workers of the codec columns running now, to stop at the deadline.
const workers = new Set();

async function runCodecColumn(column, vectors, { known, timeoutMs }) {
  const worker = new AsyncWorker(column.binary.path, { timeoutMs });
  workers.add(worker);
  const request = (r) => worker.request({ ...r, codec: column.codec });
  try {
    const cells = await Promise.all(vectors.map(async (vector) => {
      const actual = await runVector(request, vector, vector.expected);
      const differences = inProcessDifferences(vector, vector.expected, actual);
      return [vector.id, { ...cell({ vector, column, differences, outcomes: Object.values(actual), known }), actual }];
    }));
    return new Map(cells);
  } finally {
    workers.delete(worker);
    worker.close();
  }
}

// The fork cases of a column: sendable values, raw bytes of every frame and
// stream vector, and the programs. Raw bytes are V8 frames read through a
// Node parent's channel handle, and the programs' MiB of values are no case
// for JSON: those are advanced-mode cases of Node parents.
function forkCases(vectors, programRows, column) {
  const advanced = column.serialization === 'advanced';
  const cases = [];
  for (const v of vectors) {
    if (v.kind === 'recipe') {
      if (!unsendable.has(v.input.recipe.k)) cases.push({ type: 'value', id: v.id, recipe: v.input.recipe });
    } else if (advanced && isNode(column.binary)) {
      cases.push({ type: 'raw', id: v.id, input: v.input });
    }
  }
  if (advanced) for (const p of programRows) cases.push({ type: 'program', id: p.id, program: p.name });
  return cases;
}

// What a value must arrive as through a JSON channel: the reference (this
// process) turned to JSON text and back, with the effects that had.
function jsonArrival(recipe) {
  const effects = effectsLog();
  let built;
  try {
    built = buildInput({ recipe }, effects);
  } catch (err) {
    return { kind: Outcome.unbuildable, error: describeError(err) };
  }
  const { value, setup, teardown } = built;
  try {
    setup();
    return { kind: Outcome.ok, messages: [channelTree(JSON.parse(JSON.stringify(value)))], effects };
  } catch (err) {
    return { kind: Outcome.reject, error: describeError(err), at: 'sender', effects };
  } finally {
    teardown();
  }
}

function judgeFork(row, column, outcome, known) {
  if (outcome.type === 'raw') {
    const differences = channelDifferences('child writes, parent reads', row.expected.fork, outcome.record);
    return { ...cell({ vector: row, column, differences, outcomes: [outcome.record], known }), actual: outcome };
  }
  const expected = row.kind === 'program' ? programExpectation(row.name) :
    column.serialization === 'json' ? jsonArrival(row.input.recipe) : expectedArrival(row.expected);
  if (expected.kind === Outcome.unbuildable) {
    return { state: 'N/A', why: `the reference cannot build the value here: ${expected.error.message.split('\n')[0]}` };
  }
  const differences = [['parent → child', outcome.toChild], ['child → parent', outcome.toParent]]
    .filter(([, o]) => o.kind !== Outcome.unbuildable)
    .flatMap(([where, o]) => channelDifferences(where, expected, o));
  const outcomes = [outcome.toChild, outcome.toParent];
  return { ...cell({ vector: row, column, differences, outcomes, known }), actual: outcome };
}

// Frame and stream vectors written raw by a Node parent into children of a
// runtime; one that reads no V8 frame at all (the wire check) gets no cases.
async function runReaderColumnCells(column, rows, { known, timeoutMs, wire }) {
  if (wire?.[column.binary.label]?.highest === null) {
    column.skipWhy = `${column.binary.label} reads no V8 frame (see the wire check)`;
    return new Map();
  }
  const raws = rows.filter((r) => r.kind !== 'recipe');
  const cases = raws.map((r) => ({ type: 'inject', id: r.id, parts: ['inject'], input: r.input }));
  const outcomes = await runForkColumn({
    parent: column.prober.runtime, child: column.binary.runtime, cases, timeoutMs,
  });
  return new Map(raws.map((row) => {
    const outcome = outcomes.get(row.id).inject;
    const differences = channelDifferences('parent writes, child reads', row.expected.fork, outcome);
    const judged = cell({ vector: row, column, differences, outcomes: [outcome], known });
    return [row.id, { ...judged, actual: { inject: outcome } }];
  }));
}

// A pair that cannot exchange the wire sample gets no cases: one
// interoperability row says why (column.silent), not a failure per case.
async function runForkColumnCells(column, rows, programRows, { known, timeoutMs }) {
  column.silent = await handshake(column, { timeoutMs });
  if (column.silent) return new Map();
  const cases = forkCases(rows, programRows, column);
  const outcomes = await runForkColumn({
    parent: column.binary.runtime, child: column.child.runtime, serialization: column.serialization, cases, timeoutMs,
  });
  const byId = new Map([...rows, ...programRows].map((r) => [r.id, r]));
  return new Map(cases.map((c) => [c.id, judgeFork(byId.get(c.id), column, outcomes.get(c.id), known)]));
}

function notApplicable(row, column) {
  const { silent } = column;
  if (silent) return { state: 'N/A', why: `the pair cannot talk (${silent.where}: ${silent.why})` };
  if (column.skipWhy) return { state: 'N/A', why: column.skipWhy };
  if (column.codec === 'reads') return { state: 'N/A', why: 'values and programs run in the fork columns' };
  if (column.codec === 'fork' && row.kind !== 'recipe') {
    return { state: 'N/A', why: 'raw frames and programs run in advanced mode with a Node parent only' };
  }
  if (row.kind === 'program') return { state: 'N/A', why: 'runs through child_process only' };
  return { state: 'N/A', why: `child_process.send refuses a top-level ${row.input.recipe.k} before any codec sees it` };
}

// Runs `fn` on every item, at most `limit` at a time, starting none after
// `deadline`; resolves by the deadline with the items not finished.
async function inParallel(items, limit, deadline, fn) {
  let next = 0;
  const finished = new Set();
  const lane = async () => {
    while (next < items.length && Date.now() < deadline) {
      const item = items[next++];
      await fn(item);
      finished.add(item);
    }
  };
  let timer;
  const late = new Promise((resolve) => {
    if (deadline !== Infinity) timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
  });
  await Promise.race([Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane)), late]);
  clearTimeout(timer);
  return items.filter((item) => !finished.has(item));
}

// options: { nodes: [path or version], runtimes: [deno, bun, NAME@VERSION], codecs, fork, known,
//            timeoutMs, only: RegExp, parallel, deadline (ms since the epoch), onColumn(column, ms) }
// Columns not finished by the deadline are left out and listed in `skipped`;
// their processes are killed.
async function runConformance(options) {
  const { known, timeoutMs = kCallTimeoutMs, onColumn = () => {}, deadline = Infinity } = options;
  const parallel = options.parallel ?? os.availableParallelism();
  const binaries = describeBinaries(options.nodes, options.runtimes);
  const { vectors, programRows } = loadCases(options);
  const planned = planColumns(binaries, options);
  const cellsByColumn = new Map();
  const skipped = [];
  let timer;
  const late = new Promise((resolve) => {
    if (deadline !== Infinity) timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()));
  });
  const wire = options.fork === false ? {} : await Promise.race([wireChecks(binaries, { timeoutMs }), late]);
  clearTimeout(timer);
  if (!wire) skipped.push({ id: 'wire-check', name: 'the wire check' });
  // In-process columns are light and fork columns heavy: each kind gets the cores in turn.
  for (const kind of ['codec', 'fork']) {
    const chosen = planned.filter((c) => (c.codec === 'fork' || c.codec === 'reads') === (kind === 'fork'));
    skipped.push(...await inParallel(chosen, parallel, deadline, async (column) => {
      const started = Date.now();
      const run = {
        fork: () => runForkColumnCells(column, vectors, programRows, { known, timeoutMs }),
        reads: () => runReaderColumnCells(column, vectors, { known, timeoutMs, wire }),
      }[column.codec] ?? (() => runCodecColumn(column, vectors, { known, timeoutMs }));
      const cells = await run();
      cellsByColumn.set(column.id, cells);
      onColumn(column, Date.now() - started);
    }));
  }
  if (skipped.length) {
    stopAll();
    for (const worker of workers) worker.close();
  }
  const columns = planned.filter((c) => !skipped.includes(c));
  // Programs are accept rows: they go after the accept vectors.
  const programsShown = columns.some((c) => c.codec === 'fork') ? programRows : [];
  const ordered = [...vectors, ...programsShown]
    .sort((a, b) => verdicts.indexOf(a.verdict) - verdicts.indexOf(b.verdict));
  const rows = ordered.map((row) => ({
    id: row.id, verdict: row.verdict, group: row.group, name: row.name, kind: row.kind, about: row.about,
    file: row.file && path.relative(path.join(__dirname, '..'), row.file),
    cells: Object.fromEntries(columns.map((c) => [c.id, cellsByColumn.get(c.id).get(row.id) ?? notApplicable(row, c)])),
  }));
  return { binaries, columns, rows, wire: wire ?? {}, skipped };
}

module.exports = { runConformance, runCodecColumn, describeBinaries, loadCases };
