'use strict';
// The matrix as the Markdown and HTML writers show it: rows are vectors
// grouped by verdict and folder, rows whose cells all read the same are
// folded into one, and every cell that is not a plain PASS or N/A has details.

const path = require('node:path');
const { summarize, failing } = require('../judge');
const { defaultVersion } = require('../../harness/base/binaries');
const { hexdump } = require('../../harness/wire/hexdump');
const v8 = require('../v8-vectors');

const legend = [
  ['PASS', 'the codec did what the reference does'],
  ['FAIL', 'it did something else, not listed as a known difference'],
  ['CRASH', 'the process died (abort, CHECK failure, segfault)'],
  ['HANG', 'no answer in time'],
  ['KNOWN', 'it differs only in ways listed as known differences (known-differences.json)'],
  ['IMPL =', 'implementation-defined: recorded, not judged; same as the reference'],
  ['IMPL ≠', 'implementation-defined: recorded, not judged; differs from the reference'],
  ['–', 'does not apply'],
];

// How details name the two sides of a difference.
const sides = 'In the details, a is the reference (the js codec, whose outcomes are the vector\'s ' +
  'expectation) and b the column.';

function cellLabel(cell) {
  if (cell.state === 'IMPL') return cell.same ? 'IMPL =' : 'IMPL ≠';
  return cell.state === 'N/A' ? '–' : cell.state;
}

const hasDetails = (cell) => !['PASS', 'N/A'].includes(cell.state) && !(cell.state === 'IMPL' && cell.same);

// The column's own header under its block (HTML), and its full name elsewhere.
const modeSuffix = (column) => (column.serialization === 'json' ? ' json' : '');

function columnTitle(column) {
  return column.codec === 'fork' ? `child ${column.child.label}${modeSuffix(column)}` : column.codecLabel;
}

// A skipped part that is not a column (the wire check) carries its own name.
function columnName(column) {
  if (column.name) return column.name;
  return column.codec === 'fork' ? `fork ${column.binary.label} ⇄ ${column.child.label}${modeSuffix(column)}` :
    `${column.binary.label} ${column.codecLabel}`;
}

// Rows with the same cell labels in every column, as { rows, cells }.
function fold(rows, columns) {
  const folds = new Map();
  for (const row of rows) {
    const cells = columns.map((c) => row.cells[c.id]);
    const key = cells.map(cellLabel).join('|');
    if (!folds.has(key)) folds.set(key, { rows: [], cells });
    folds.get(key).rows.push(row);
  }
  return [...folds.values()];
}

// [{ verdict, groups: [{ name, folds }] }], folds numbered across the page.
function sections(result) {
  const out = [];
  let n = 0;
  for (const row of result.rows) {
    let section = out.at(-1);
    if (section?.verdict !== row.verdict) out.push(section = { verdict: row.verdict, groups: [] });
    let group = section.groups.at(-1);
    if (group?.name !== row.group) section.groups.push(group = { name: row.group, rows: [] });
    group.rows.push(row);
  }
  for (const section of out) {
    for (const group of section.groups) {
      group.folds = fold(group.rows, result.columns).map((f) => ({ ...f, id: `f${++n}` }));
      delete group.rows;
    }
  }
  return out;
}

function anchor(foldId, columnIndex) {
  return `${foldId}-c${columnIndex}`;
}

function totals(result, rows = result.rows) {
  return result.columns.map((column) => {
    const counts = {};
    for (const row of rows) {
      const label = cellLabel(row.cells[column.id]);
      counts[label] = (counts[label] ?? 0) + 1;
    }
    return { column, counts };
  });
}

// V8's own test vectors among the rows (conformance/v8-vectors.js): their
// source, how many of each verdict, and each column's counts over them; null
// when none was run.
function v8Vectors(result) {
  const rows = result.rows.filter((r) => r.group === v8.group);
  if (!rows.length) return null;
  const { source } = v8.loadSource();
  const byVerdict = {};
  for (const row of rows) byVerdict[row.verdict] = (byVerdict[row.verdict] ?? 0) + 1;
  const tests = new Set(rows.map((r) => v8.v8VectorOf(r.id)?.test ?? r.name));
  return {
    source, vectors: rows.length, tests: tests.size, byVerdict, totals: totals(result, rows),
    about: `${rows.length} vectors (${Object.entries(byVerdict).map(([v, n]) => `${n} ${v}`).join(', ')}) from ` +
      `${tests.size} test${tests.size === 1 ? '' : 's'} of V8's ${source.path} at ${source.commit.slice(0, 12)}, each named after its test; ` +
      'the verdict is what V8\'s test asserts, as Node\'s IPC layer sees it (docs/conformance.md)',
  };
}

// A fork pair that cannot talk is one failure, not one per case.
function failures(result) {
  const out = result.columns.filter((c) => c.silent).map((column) => ({
    row: { id: 'interoperability' }, column,
    cell: { state: 'FAIL', differences: [{ where: column.silent.where, detail: column.silent.why }] },
  }));
  for (const row of result.rows) {
    for (const column of result.columns) {
      const cell = row.cells[column.id];
      if (failing.has(cell.state)) out.push({ row, column, cell });
    }
  }
  return out;
}

// The command that replays an in-process cell with the harness's own diff:
// the reference (js in the default binary) against the column's codec.
function replayCommand(row, column) {
  if (column.codec === 'fork' || !['recipe', 'frame'].includes(row.kind)) return null;
  const codec = path.isAbsolute(column.codec) ? path.relative(process.cwd(), column.codec) : column.codec;
  return `npx ipcfuzz diff --a js --base-node ${defaultVersion} --b ${codec} --node ${column.binary.spec} ` +
    `--${row.kind} ${row.file}`;
}

// Lines describing one cell: its differences, notes and outcomes.
function cellLines(row, column, cell, knownById) {
  const lines = [];
  if (row.about) lines.push(row.about);
  if (cell.why) lines.push(cell.why);
  for (const d of cell.differences ?? []) {
    const known = d.known ? ` — known: ${d.known}${knownById.get(d.known)?.link ? ` (${knownById.get(d.known).link})` : ''}` : '';
    lines.push(`${d.tier} in ${d.where}: ${d.detail}${known}`);
  }
  for (const d of cell.notes ?? []) lines.push(`error class differs (not judged) in ${d.where}: ${d.detail}`);
  for (const [op, outcome] of Object.entries(cell.actual ?? {})) {
    if (op === 'type') continue;
    const where = {
      toChild: 'parent → child', toParent: 'child → parent', record: 'parent received', inject: 'child received',
    }[op] ?? op;
    lines.push(`${where}: ${summarize(outcome)}${outcome?.at ? ` (at the ${outcome.at})` : ''}`);
  }
  const replay = replayCommand(row, column);
  if (replay) lines.push(`replay: ${replay}`);
  return lines;
}

// Every fold cell with details: { id (its anchor), fold, column, entries: [{ row, cell, lines }] }.
function details(result, secs, known) {
  const knownById = new Map(known.map((k) => [k.id, k]));
  const out = [];
  for (const section of secs) {
    for (const group of section.groups) {
      for (const f of group.folds) {
        result.columns.forEach((column, columnIndex) => {
          if (!hasDetails(f.cells[columnIndex])) return;
          const entries = f.rows.map((row) => {
            const cell = row.cells[column.id];
            return { row, cell, lines: cellLines(row, column, cell, knownById) };
          });
          out.push({ id: anchor(f.id, columnIndex), fold: f, column, entries });
        });
      }
    }
  }
  return out;
}

function binaryRows(result) {
  return result.binaries.map((b) => ({
    label: b.label,
    node: b.info.node ?? `${b.info.runtime} ${b.info.version}`,
    v8: b.info.v8 ?? b.info.engine,
    ipcSerdes: b.info.ipcSerdes ? `yes${b.info.framer ? ', IPCChannelFramer' : ''}` : 'no',
    childProcess: b.info.runtime ? `${b.info.runtime}'s own` :
      b.info.builtinUsesNative ? 'native (ipc_serdes)' : 'JavaScript',
    path: path.relative(process.cwd(), b.path) || b.path,
  }));
}

// The wire check of every binary: what it writes in each mode, which header versions it reads.
function wireRows(result) {
  return Object.entries(result.wire ?? {}).map(([label, w]) => ({
    label,
    writes: w.writes.advanced.header,
    reads: w.highest === null ? 'no V8 header version' :
      Object.entries(w.reads).filter(([, r]) => r.accepted).map(([v]) => v).join(', '),
    highest: w.highest ?? '–',
    json: w.writes.json.header,
    frame: w.writes.advanced.bytes,
    notes: [w.writes.advanced.failure, ...w.writes.advanced.errors.slice(0, 1).map((e) => `a Node parent: ${e}`)]
      .filter(Boolean).join('; '),
  }));
}

// What a runtime wrote for the wire sample: JSON text, or an annotated dump, short.
function frameText(hex, mode, maxLines = 14) {
  if (mode === 'json') return Buffer.from(hex, 'hex').toString('utf8').trim();
  const lines = hexdump(Buffer.from(hex, 'hex')).split('\n');
  const more = lines.length > maxLines ? [`… ${lines.length - maxLines} more lines`] : [];
  return [...lines.slice(0, maxLines), ...more].join('\n');
}

module.exports = {
  legend, sides, cellLabel, hasDetails, columnTitle, columnName, sections, anchor, totals, v8Vectors, failures, details,
  binaryRows,
  wireRows, frameText,
};
