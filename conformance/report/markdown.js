'use strict';
// The Markdown report: binaries, legend, totals, the matrix and the details
// of every cell that is not a plain PASS. matrixMarkdown() alone (no links,
// no details) is what docs/conformance.md shows.

const m = require('./matrix');
const { interopRows } = require('../interop');

const escape = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const row = (cells) => `| ${cells.map(escape).join(' | ')} |`;

function table(header, rows) {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');
}

function header(result) {
  return ['vectors', ...result.columns.map(m.columnName)];
}

function foldName(f) {
  const names = f.rows.map((r) => r.name).join(', ');
  return f.rows.length > 1 ? `${names} (${f.rows.length})` : names;
}

function matrixTables(result, secs, { links }) {
  const out = [];
  for (const section of secs) {
    out.push(`### ${section.verdict}`, '');
    const rows = [];
    for (const group of section.groups) {
      rows.push([`**${group.name || '(top)'}**`, ...result.columns.map(() => '')]);
      for (const f of group.folds) {
        rows.push([foldName(f), ...f.cells.map((cell, i) => {
          const label = m.cellLabel(cell);
          return links && m.hasDetails(cell) ? `[${label}](#${m.anchor(f.id, i)})` : label;
        })]);
      }
    }
    out.push(table(header(result), rows), '');
  }
  return out;
}

function totalsTable(result, counted = m.totals(result)) {
  const labels = m.legend.map(([label]) => label);
  const rows = counted.map(({ column, counts }) =>
    [m.columnName(column), ...labels.map((l) => counts[l] ?? '')]);
  return table(['column', ...labels], rows);
}

// The counts over V8's own vectors, with where they come from.
function v8Markdown(result, heading) {
  const v8 = m.v8Vectors(result);
  if (!v8) return [];
  return [heading, '', `${v8.about}: [${v8.source.path}](${v8.source.url}).`, '', totalsTable(result, v8.totals), ''];
}

function matrixMarkdown(result, { links = false } = {}) {
  return [
    totalsTable(result), '',
    ...v8Markdown(result, '### V8\'s vectors'),
    ...matrixTables(result, m.sections(result), { links }),
  ].join('\n');
}

// Who can talk to whom, and the wire facts behind it.
function interopMarkdown(result) {
  const rows = interopRows(result);
  if (!rows.length) return [];
  const out = ['## Interoperability', '',
    'Every parent ⇄ child pair through child_process, in each serialization: works (every case passes), ' +
    'differs (they talk; some cases fail) or cannot talk (the wire sample does not get through).', '',
    table(['parent', 'child', 'mode', 'result', 'why'],
      rows.map((r) => [r.parent, r.child, r.mode, r.state, r.why])), ''];
  for (const r of rows.filter((x) => x.state === 'cannot talk')) {
    for (const f of r.frames) {
      out.push(`${r.parent} ⇄ ${r.child} ${r.mode}: what ${f.who} writes for the wire sample:`, '',
        '```', m.frameText(f.bytes, r.mode), '```', '');
    }
  }
  const wire = m.wireRows(result);
  out.push('### Wire formats and V8 header versions', '',
    'Measured: a child of each runtime sends the wire sample, read as bytes by a Node parent; a frame under each ' +
    'header version is written into a fresh child\'s channel.', '',
    table(['runtime', 'writes (advanced)', 'reads header versions', 'highest read', 'writes (json)', 'notes'],
      wire.map((w) => [w.label, w.writes, w.reads, w.highest, w.json, w.notes])), '');
  if (result.skipped?.length) {
    out.push(`Not run for lack of time (--budget): ${result.skipped.map(m.columnName).join(', ')}.`, '');
  }
  return out;
}

function reportMarkdown(result, { known, generatedAt, command }) {
  const secs = m.sections(result);
  const lines = [
    '# ipcfuzz conformance report', '',
    `Generated ${generatedAt} by \`${command}\`.`, '',
    ...interopMarkdown(result),
    '## Binaries', '',
    table(['binary', 'node', 'V8', 'ipc_serdes', 'child_process codec', 'path'],
      m.binaryRows(result).map((b) => [b.label, b.node, b.v8, b.ipcSerdes, b.childProcess, b.path])), '',
    'Columns: `BINARY CODEC` runs the codec in process in a worker of the binary (`js` is the',
    'reference, `native` the binary\'s `ipc_serdes`, `builtin` what its child_process runs);',
    '`fork P ⇄ C` is a parent of binary P and a child of binary C exchanging every value both ways (`json`: in',
    'serialization \'json\', against the reference\'s JSON text of the value)',
    'through child_process.fork, and the child writing every frame vector raw into the channel for',
    'the parent to read.', '',
    '## Legend', '',
    table(['cell', 'meaning'], m.legend), '',
    m.sides, '',
    '## Totals', '',
    totalsTable(result), '',
    ...v8Markdown(result, '## V8\'s vectors'),
    '## Matrix', '',
    ...matrixTables(result, secs, { links: true }),
    '## Details', '',
  ];
  for (const d of m.details(result, secs, known)) {
    lines.push(`<a id="${d.id}"></a>`, '', `### ${m.columnName(d.column)}: ${foldName(d.fold)}`, '');
    for (const entry of d.entries) {
      lines.push(`- **${entry.row.id}**: ${m.cellLabel(entry.cell)}${entry.row.file ? ` (\`${entry.row.file}\`)` : ''}`);
      for (const line of entry.lines) {
        lines.push(`  - ${line.startsWith('replay: ') ? `replay: \`${line.slice(8)}\`` : line.replace(/\n/g, ' ')}`);
      }
    }
    lines.push('');
  }
  return lines.join('\n');
}

module.exports = { reportMarkdown, matrixMarkdown };
