'use strict';
// Writes the conformance report into a folder: report.md, report.html,
// report.json (everything, for tools) and matrix.md (the matrix of docs/conformance.md).

const fs = require('node:fs');
const path = require('node:path');
const { reportMarkdown, matrixMarkdown } = require('./markdown');
const { reportHtml } = require('./html');
const m = require('./matrix');
const { interopRows } = require('../interop');

function v8Json(v8) {
  if (!v8) return null;
  const { source, vectors, tests, byVerdict, totals } = v8;
  const counts = totals.map(({ column, counts: c }) => ({ column: column.id, counts: c }));
  return { source, vectors, tests, byVerdict, totals: counts };
}

function reportJson(result, meta) {
  const columns = result.columns.map((c) => ({
    id: c.id, binary: c.binary.label, codec: c.codecLabel,
    ...(c.child && { child: c.child.label, serialization: c.serialization }),
  }));
  const rows = result.rows.map((row) => ({
    ...row,
    cells: Object.fromEntries(Object.entries(row.cells).map(([id, cell]) => {
      const { actual, ...rest } = cell;
      return [id, m.hasDetails(cell) ? cell : rest];
    })),
  }));
  return {
    generatedAt: meta.generatedAt,
    command: meta.command,
    binaries: result.binaries.map(({ label, path: p, info }) => ({ label, path: p, info })),
    columns,
    interoperability: interopRows(result),
    wire: result.wire,
    skipped: (result.skipped ?? []).map((c) => c.id),
    totals: m.totals(result).map(({ column, counts }) => ({ column: column.id, counts })),
    v8Vectors: v8Json(m.v8Vectors(result)),
    failures: m.failures(result)
      .map(({ row, column, cell }) => ({ vector: row.id, column: column.id, state: cell.state })),
    rows,
  };
}

function writeReports(result, dir, meta) {
  fs.mkdirSync(dir, { recursive: true });
  const files = {
    markdown: path.join(dir, 'report.md'),
    html: path.join(dir, 'report.html'),
    json: path.join(dir, 'report.json'),
    matrix: path.join(dir, 'matrix.md'),
  };
  fs.writeFileSync(files.markdown, reportMarkdown(result, meta));
  fs.writeFileSync(files.html, reportHtml(result, meta));
  fs.writeFileSync(files.json, `${JSON.stringify(reportJson(result, meta), null, 1)}\n`);
  fs.writeFileSync(files.matrix, `${matrixMarkdown(result)}\n`);
  return files;
}

module.exports = { writeReports };
