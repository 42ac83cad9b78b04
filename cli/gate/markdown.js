'use strict';
// The gate's Markdown summary, for a GitHub job summary or a PR comment:
// the verdict first, then each new finding (its tiers, a short annotated
// excerpt and the one-line replay), then what the run did, stale entries and
// known differences, folded. A PR comment holds 65,536 characters: the
// summary stays under kLimit whatever the number of findings, the full
// report and repro of each finding being in its folder of the artifacts.

const path = require('node:path');
const { verdictRows } = require('../../harness/findings/report');
const { FindingStore, reductionText } = require('../../harness/findings/recorder');
const { rowsOf, causeOf } = require('../../harness/findings/review');
const { titleLine } = require('../reach');

const kLimit = 60_000;
// Left for what may be appended after (the --bench table is about 2,000).
const kReserve = 6_000;
// Excerpts as long as the room allows every finding, down to the shortest.
const kExcerptLines = [24, 12, 6];
const kLineWidth = 120;

const fence = (text, lang = '') => `\`\`\`${lang}\n${text.replace(/```/g, '`\u200b``')}\n\`\`\``;
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const capitalized = (text) => `${text[0].toUpperCase()}${text.slice(1)}`;
const clip = (text, width) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

// Outcomes and annotated frames of report.txt, cut to a few lines.
function excerpt(report, maxLines) {
  if (report === null) return '(report.txt is missing)';
  const lines = report.split('\n');
  const from = Math.max(0, lines.findIndex((l) => l.startsWith('outcomes')));
  const to = lines.findIndex((l) => l === 'verdict');
  const body = lines.slice(from, to > from ? to : undefined).map((l) => clip(l, kLineWidth));
  while (body.length && body.at(-1) === '') body.pop();
  if (body.length <= maxLines) return body.join('\n');
  return [...body.slice(0, maxLines), `… ${body.length - maxLines} more lines in report.txt`].join('\n');
}

function findingSection(number, f, maxLines) {
  const meta = JSON.parse(FindingStore.readText(f.folder, 'finding.json') ?? '{}');
  const tierRows = verdictRows(meta.differences ?? [f.difference]).filter((row) => !/^\s+\S+\s+same$/.test(row));
  // Relative to --out, the folder of summary.md: findings/<name>.
  const folder = `findings/${path.basename(f.folder)}`;
  return [`### ${number}. ${titleLine(f.folder) ?? `\`${f.difference.signature}\``}`, '', `\`${f.difference.signature}\``, '',
    `**${f.difference.tier}** (found by ${f.stage}): ${clip(`${f.difference.where}: ${f.difference.detail}`, 600)}`, '',
    `Input: ${reductionText(meta.reduction ?? f.reduction)}; met ${f.met ?? 1} time${f.met > 1 ? 's' : ''}.`, '',
    `${capitalized(meta.reachability?.verdict ?? 'reachability not checked')}.`, '',
    'Tiers:', '', fence(tierRows.join('\n')), '',
    'Outcomes and annotated frame (excerpt):', '',
    fence(excerpt(FindingStore.readText(f.folder, 'report.txt'), maxLines)), '',
    `Replay: \`${meta.replay ?? 'see finding.json'}\`  `,
    `Full report and standalone repro in the artifacts: \`${folder}/report.txt\`, ` +
      `\`node --expose-internals ${folder}/repro.js\`; through child_process, public APIs only: ` +
      `\`node ${folder}/repro-fork.js\`; a bug report ready to paste: \`${folder}/issue.md\``, '',
  ].join('\n');
}

// Adds blocks while they fit in `room` characters; returns how many did.
function fill(lines, blocks, room) {
  let used = 0;
  let n = 0;
  for (const block of blocks) {
    if (used + block.length + 1 > room) break;
    lines.push(block);
    used += block.length + 1;
    n++;
  }
  return n;
}

function summaryMarkdown(gate) {
  const { verdict, sides, findings, shared = [], stages, known, stale, seconds } = gate;
  const { skipped = [], historyDependent = [] } = gate;
  const icon = verdict === 'pass' ? '✅' : '❌';
  const side = (s) => `\`${s.codec}\` in node ${s.version}`;
  const staleText = stale.length ? `, ${stale.length} stale known entr${stale.length === 1 ? 'y' : 'ies'}` : '';
  const head = [`## ${icon} ipcfuzz gate: ${verdict === 'pass' ? 'no new difference' :
    `${findings.length} new difference${findings.length === 1 ? '' : 's'}${staleText}`}`,
  '', `Codec **a**: ${side(sides.a)}  \nCodec **b**: ${side(sides.b)}  \nTime: ${seconds.toFixed(0)} s`, ''];

  const tail = ['### What ran', '', '| stage | checks | failed | seconds |', '| --- | --- | --- | --- |'];
  for (const s of stages) {
    const failed = s.cases.filter((c) => c.failure).length;
    tail.push(`| ${s.name} | ${s.cases.length} | ${failed} | ${s.seconds.toFixed(1)} |`);
  }
  tail.push('');
  if (shared.length) {
    tail.push('### Defects both codecs share', '',
      'Frames both codecs write and cannot read back alike: no difference between them, so they do not change ' +
      'the verdict. Each has its folder under findings/ with its repro.', '');
    const rows = shared.map((f) => `- \`${cell(f.difference.signature)}\`: ${cell(clip(f.difference.detail, 200))} ` +
      `(\`findings/${path.basename(f.folder)}\`)`);
    const listed = fill(tail, rows, 4000);
    if (listed < shared.length) tail.push(`- … and ${shared.length - listed} more in results.sarif`);
    tail.push('');
  }
  if (skipped.length) tail.push(clip(`Skipped for lack of time: ${skipped.join('; ')}.`, 2000), '');
  if (historyDependent.length) {
    tail.push(clip('History-dependent, not findings (gone with both sides in fresh processes): ' +
      `${historyDependent.map((sig) => `\`${sig}\``).join(', ')}.`, 2000), '');
  }
  const room = () => kLimit - kReserve - [...head, ...tail].join('\n').length - 400;
  if (stale.length) {
    tail.push('### Stale known differences', '',
      'These entries of the known-differences list no longer reproduce; remove them:', '');
    const shown = fill(tail, stale.map((e) => `- \`${e.id}\` (${e.tier}): ${clip(e.reason, 300)}`), room() / 4);
    if (shown < stale.length) tail.push(`- … and ${stale.length - shown} more: see junit.xml`);
    tail.push('');
  }
  const seen = Object.entries(known);
  tail.push(`<details><summary>Known differences seen (${seen.length})</summary>`, '');
  const shownKnown = fill(tail, seen.map(([id, e]) =>
    `- \`${id}\` ×${e.count}: ${clip(e.reason, 300)}${e.link ? ` ([link](${e.link}))` : ''}`), room() / 4);
  if (shownKnown < seen.length) tail.push(`- … and ${seen.length - shownKnown} more`);
  tail.push('', '</details>', '');

  const body = [];
  if (findings.length) {
    // The causes as review.md has them: one row per cause or family, most severe first.
    const saved = findings.filter((f) => FindingStore.readText(f.folder, 'finding.json'));
    const causes = rowsOf(saved.map((f) => causeOf(f.folder)));
    const rows = causes.map((row, i) => `| ${i + 1} | ${cell(clip(row.title, 300))} | ${row.causes.length} | ` +
      `${row.causes.filter((c) => c.reachable).length} of ${row.causes.length} |`);
    body.push('Each cause, with the heart of its repro, is in `review.md`; `node review-repro.js` checks the ' +
      'reachable ones (PASS on Node.js 26.3.1, FAIL where this build differs).', '',
    '| # | cause | causes | reachable through `child.send()` |', '| --- | --- | --- | --- |');
    const listed = fill(body, rows, room() / 3);
    if (listed < causes.length) body.push(`| … | ${causes.length - listed} more in review.md | | |`);
    body.push('');
    const left = room() - body.join('\n').length;
    const size = (sections) => sections.reduce((n, t) => n + t.length + 1, 0);
    let sections;
    for (const maxLines of kExcerptLines) {
      sections = findings.map((f, i) => findingSection(i + 1, f, maxLines));
      if (size(sections) <= left) break;
    }
    const shown = fill(body, sections, left);
    if (shown < findings.length) {
      body.push(`${findings.length - shown} more finding${findings.length - shown === 1 ? '' : 's'} not shown here ` +
        'for room: each has its folder under findings/ in the artifacts, with report.txt, repro.js and ' +
        'the replay command.', '');
    }
  }
  return [...head, ...body, ...tail].join('\n');
}

module.exports = { summaryMarkdown, kLimit };
