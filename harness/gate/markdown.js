'use strict';
// The gate's Markdown summary, for a GitHub job summary or a PR comment:
// the verdict first, then each new finding with both outcomes, the annotated
// frame and its repro script, then what the run did, then known differences
// and stale known entries, folded.

const fs = require('node:fs');
const path = require('node:path');

const fence = (text, lang = '') => `\`\`\`${lang}\n${text.replace(/```/g, '`\u200b``')}\n\`\`\``;

function read(folder, file) {
  try {
    return fs.readFileSync(path.join(folder, file), 'utf8');
  } catch {
    return '(missing)';
  }
}

function summaryMarkdown(gate) {
  const { verdict, sides, findings, stages, known, stale, seconds, skipped = [], historyDependent = [] } = gate;
  const lines = [];
  const icon = verdict === 'pass' ? '✅' : '❌';
  const side = (s) => `\`${s.codec}\` in node ${s.version}`;
  lines.push(`## ${icon} ipcfuzz gate: ${verdict === 'pass' ? 'no new difference' :
    `${findings.length} new difference${findings.length === 1 ? '' : 's'}${stale.length ? `, ${stale.length} stale known entr${stale.length === 1 ? 'y' : 'ies'}` : ''}`}`);
  lines.push('', `Codec **a**: ${side(sides.a)}  \nCodec **b**: ${side(sides.b)}  \nTime: ${seconds.toFixed(0)} s`, '');
  if (findings.length) {
    lines.push('| tier | signature | where | found by |', '| --- | --- | --- | --- |');
    for (const f of findings) {
      lines.push(`| ${f.difference.tier} | \`${f.difference.signature}\` | ${f.difference.where}: ${f.difference.detail.replace(/\|/g, '\\|')} | ${f.stage} |`);
    }
    lines.push('');
    for (const [i, f] of findings.entries()) {
      lines.push(`### ${i + 1}. \`${f.difference.signature}\``, '', `${f.difference.where}: ${f.difference.detail}`, '',
        'Both outcomes and the annotated frame:', '', fence(read(f.folder, 'report.txt').trim()), '',
        '<details><summary>Standalone repro (<code>node --expose-internals repro.js</code>)</summary>', '',
        fence(read(f.folder, 'repro.js').trim(), 'js'), '', '</details>', '');
    }
  }
  lines.push('### What ran', '', '| stage | checks | failed | seconds |', '| --- | --- | --- | --- |');
  for (const s of stages) {
    lines.push(`| ${s.name} | ${s.cases.length} | ${s.cases.filter((c) => c.failure).length} | ${s.seconds.toFixed(1)} |`);
  }
  lines.push('');
  if (skipped.length) lines.push(`Skipped for lack of time: ${skipped.join('; ')}.`, '');
  if (historyDependent.length) {
    lines.push(`History-dependent, not findings (gone with both sides in fresh processes): ` +
      `${historyDependent.map((s) => `\`${s}\``).join(', ')}.`, '');
  }
  if (stale.length) {
    lines.push('### Stale known differences', '', 'These entries of the known-differences list no longer reproduce; remove them:', '');
    for (const entry of stale) lines.push(`- \`${entry.id}\` (${entry.tier}): ${entry.reason}`);
    lines.push('');
  }
  const seen = Object.entries(known);
  lines.push(`<details><summary>Known differences seen (${seen.length})</summary>`, '');
  for (const [id, entry] of seen) lines.push(`- \`${id}\` ×${entry.count}: ${entry.reason}${entry.link ? ` ([link](${entry.link}))` : ''}`);
  lines.push('', '</details>', '');
  return lines.join('\n');
}

module.exports = { summaryMarkdown };
