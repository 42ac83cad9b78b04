'use strict';
// The report as one static HTML page (no scripts, no external files): the
// matrix with a sticky two-line header (binary, then codec), one colour per
// cell state, folded rows, and every cell with details linking to them.

const m = require('./matrix');
const { interopRows } = require('../interop');
const { Outcome } = require('../../harness/base/vocabulary');

const esc = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const stateClass = {
  'PASS': 'pass', 'FAIL': 'fail', 'CRASH': Outcome.crash, 'HANG': Outcome.hang, 'KNOWN': 'known',
  'IMPL =': 'impl-same', 'IMPL ≠': 'impl-diff', '–': 'na',
};

const style = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px; color: #1d2330; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.meta { color: #5b6475; margin: 0 0 16px; }
table { border-collapse: collapse; }
.info td, .info th { border: 1px solid #d8dde6; padding: 3px 8px; text-align: left; }
.info td:nth-child(-n+3) { white-space: nowrap; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 8px 0 4px; }
.legend span.cell { display: inline-block; min-width: 56px; margin-right: 4px; }
.matrix { font-size: 13px; }
.matrix th, .matrix td { border: 1px solid #d8dde6; padding: 3px 6px; }
.matrix thead th { position: sticky; background: #f3f5f9; z-index: 1; }
.matrix thead tr:first-child th { top: 0; height: 22px; white-space: nowrap; }
.matrix thead tr:nth-child(2) th { top: 29px; font-weight: 500; font-size: 12px; white-space: nowrap; }
.matrix th.first { text-align: left; min-width: 300px; }
.matrix .binary-start { border-left: 3px solid #9aa4b5; }
.matrix tr.verdict th { background: #1d2330; color: #fff; text-align: left; font-size: 14px; letter-spacing: .03em; }
.matrix tr.group th { background: #e9edf3; text-align: left; font-weight: 600; }
.matrix td.name { max-width: 460px; position: sticky; left: 0; background: #fff; z-index: 1; }
.matrix thead th.first { left: 0; z-index: 2; }
.matrix td.name details summary { cursor: pointer; color: #33406a; }
.cell { text-align: center; white-space: nowrap; font-weight: 600; font-size: 12px; min-width: 50px; }
.cell a { color: inherit; }
.pass { background: #dcf3e1; color: #1c5e2c; }
.fail { background: #ffd3d3; color: #8f1010; }
.crash { background: #8f1010; color: #fff; }
.hang { background: #6b3fa0; color: #fff; }
.known { background: #fff0bf; color: #6f5200; }
.impl-same { background: #eef1f5; color: #4a5263; font-weight: 500; }
.impl-diff { background: #d9e6ff; color: #1b3d8a; }
.na { background: #fafbfc; color: #a6adbb; font-weight: 400; }
.detail { border: 1px solid #d8dde6; border-left: 5px solid #9aa4b5; padding: 6px 12px; margin: 10px 0; max-width: 1100px; }
.detail.fail, .detail.crash, .detail.hang { border-left-color: #c01818; background: #fff; color: inherit; }
.detail.known { border-left-color: #d9a400; background: #fff; color: inherit; }
.detail.impl-diff { border-left-color: #3b6bd6; background: #fff; color: inherit; }
.detail h3 { font-size: 14px; margin: 4px 0; }
.detail ul { margin: 4px 0; padding-left: 20px; } .detail li { margin: 2px 0; }
pre { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; background: #f3f5f9; padding: 8px; overflow-x: auto; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; background: #f3f5f9; padding: 0 3px; }
`;

function cellTd(cell, link, first) {
  const label = m.cellLabel(cell);
  const title = cell.why ?? (cell.differences?.[0] ? `${cell.differences[0].tier}: ${cell.differences[0].detail}` : '');
  const body = link ? `<a href="#${link}">${esc(label)}</a>` : esc(label);
  return `<td class="cell ${stateClass[label]}${first ? ' binary-start' : ''}"${title ? ` title="${esc(title)}"` : ''}>${body}</td>`;
}

function nameTd(f) {
  const names = f.rows.map((r) => `<span title="${esc(r.about ? `${r.id}: ${r.about}` : r.id)}">${esc(r.name)}</span>`);
  if (names.length <= 4) return `<td class="name">${names.join(', ')}</td>`;
  return `<td class="name"><details><summary>${names.slice(0, 3).join(', ')} and ${names.length - 3} more</summary>` +
    `${names.join(', ')}</details></td>`;
}

function matrixTable(result, secs) {
  // Columns come in blocks: a binary's codecs in process, then a parent binary's fork columns.
  const mode = (c) => (c.serialization === 'json' ? ' (json)' : '');
  const blockOf = (c) => (c.codec === 'fork' ? `fork${mode(c)}: parent ${c.binary.label}` :
    c.codec === 'reads' ? `${c.binary.label}, parent ${c.prober.label}` : `node ${c.binary.label}`);
  const blocks = [];
  const starts = new Set();
  result.columns.forEach((column, i) => {
    if (blocks.at(-1)?.title !== blockOf(column)) {
      blocks.push({ title: blockOf(column), span: 0 });
      starts.add(i);
    }
    blocks.at(-1).span++;
  });
  const width = result.columns.length + 1;
  const out = ['<table class="matrix"><thead><tr><th class="first" rowspan="2">vector</th>',
    ...blocks.map((b) => `<th class="binary-start" colspan="${b.span}">${esc(b.title)}</th>`),
    '</tr><tr>',
    ...result.columns.map((c, i) => `<th${starts.has(i) ? ' class="binary-start"' : ''}>${esc(m.columnTitle(c))}</th>`),
    '</tr></thead><tbody>'];
  for (const section of secs) {
    out.push(`<tr class="verdict"><th colspan="${width}">${esc(section.verdict)}</th></tr>`);
    for (const group of section.groups) {
      out.push(`<tr class="group"><th colspan="${width}">${esc(group.name || '(top)')}</th></tr>`);
      for (const f of group.folds) {
        out.push('<tr>', nameTd(f), ...f.cells.map((cell, i) =>
          cellTd(cell, m.hasDetails(cell) ? m.anchor(f.id, i) : null, starts.has(i))), '</tr>');
      }
    }
  }
  out.push('</tbody></table>');
  return out.join('\n');
}

function infoTable(header, rows) {
  return `<table class="info"><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>` +
    rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('') + '</table>';
}

function detailSection(d) {
  const label = m.cellLabel(d.entries[0].cell);
  const items = d.entries.map((e) => `<li><b>${esc(e.row.id)}</b>${e.row.file ? ` <code>${esc(e.row.file)}</code>` : ''}<ul>` +
    e.lines.map((line) => `<li>${line.startsWith('replay: ') ? `replay: <code>${esc(line.slice(8))}</code>` : esc(line)}</li>`).join('') +
    '</ul></li>').join('');
  return `<section class="detail ${stateClass[label]}" id="${d.id}"><h3>${esc(label)} — ${esc(m.columnName(d.column))}</h3>` +
    `<ul>${items}</ul></section>`;
}

const interopClass = { 'works': 'pass', 'differs': 'fail', 'cannot talk': Outcome.crash };

function interopHtml(result) {
  const rows = interopRows(result);
  if (!rows.length) return '';
  // Folded, so that the table stays short at the top of the page.
  const frames = rows.filter((r) => r.state === 'cannot talk').flatMap((r) => r.frames.map((f) =>
    `<details><summary>${esc(`${r.parent} ⇄ ${r.child} ${r.mode}`)}: what ${esc(f.who)} writes for the wire sample ` +
    `(${esc(f.header)})</summary><pre>${esc(m.frameText(f.bytes, r.mode))}</pre></details>`));
  const wire = m.wireRows(result);
  return `<h2>Interoperability</h2>
<p>Every parent ⇄ child pair through child_process, in each serialization: works (every case passes),
differs (they talk; some cases fail) or cannot talk (the wire sample does not get through).</p>
${infoTable(['parent', 'child', 'mode', 'result', 'why'], rows.map((r) => [esc(r.parent), esc(r.child), esc(r.mode),
    `<span class="cell ${interopClass[r.state]}">&nbsp;${esc(r.state)}&nbsp;</span>`, esc(r.why)]))}
${frames.join('\n')}
<h3>Wire formats and V8 header versions (measured)</h3>
${infoTable(['runtime', 'writes (advanced)', 'reads header versions', 'highest read', 'writes (json)', 'notes'],
    wire.map((w) => [w.label, w.writes, w.reads, w.highest, w.json, w.notes].map(esc)))}
${result.skipped?.length ?
    `<p>Not run for lack of time (--budget): ${esc(result.skipped.map(m.columnName).join(', '))}.</p>` : ''}`;
}

function reportHtml(result, { known, generatedAt, command }) {
  const secs = m.sections(result);
  const labels = m.legend.map(([label]) => label);
  const totalsRows = (counted) => counted.map(({ column, counts }) =>
    [esc(m.columnName(column)),
      ...labels.map((l) => (counts[l] ? `<span class="cell ${stateClass[l]}">&nbsp;${counts[l]}&nbsp;</span>` : ''))]);
  const v8 = m.v8Vectors(result);
  const v8Html = v8 ? `<h2>V8's vectors</h2>
<p>${esc(v8.about)}: <a href="${esc(v8.source.url)}">${esc(v8.source.path)}</a>.</p>
${infoTable(['column', ...labels], totalsRows(v8.totals))}` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ipcfuzz conformance</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${style}</style></head>
<body>
<h1>ipcfuzz conformance</h1>
<p class="meta">Generated ${esc(generatedAt)} by <code>${esc(command)}</code>.
${result.rows.length} rows × ${result.columns.length} columns. ${esc(m.sides)}</p>
${interopHtml(result)}
<div class="legend">${m.legend.map(([l, meaning]) => `<span><span class="cell ${stateClass[l]}">${esc(l)}</span>${esc(meaning)}</span>`).join('')}</div>
<h2>Binaries</h2>
${infoTable(['binary', 'node', 'V8', 'ipc_serdes', 'child_process codec', 'path'],
    m.binaryRows(result).map((b) => [b.label, b.node, b.v8, b.ipcSerdes, b.childProcess, `<code>${esc(b.path)}</code>`].map((v, i) => (i === 5 ? v : esc(v)))))}
<h2>Matrix</h2>
${matrixTable(result, secs)}
<h2>Totals</h2>
${infoTable(['column', ...labels], totalsRows(m.totals(result)))}
${v8Html}
<h2>Details</h2>
${m.details(result, secs, known).map(detailSection).join('\n')}
</body></html>
`;
}

module.exports = { reportHtml };
