'use strict';
// review.md and review-repro.js of a run: the comment a reviewer would post
// on a codec pull request. One row per cause, or per family of causes that
// share one mechanism of the codec under test (words.js), most severe
// first, each with its title, whether it shows through child.send(), and the
// heart of its short repro folded; review-repro.js runs the short fork check
// of every reachable cause, as a reviewer's repro would: PASS or FAIL each,
// exit 1 when one fails.

const fs = require('node:fs');
const path = require('node:path');
const { FindingStore, writeAtomic } = require('./recorder');
const { reachabilityOf } = require('./reach');
const { forkCheck, reviewRepro, observations, kArrived, valueSource } = require('./repro/fork');
const { codecObservations } = require('./repro/codec');
const { pieces } = require('../oracle/channel');
const { compileWorld } = require('../recipes/codegen');
const { helpers } = require('../recipes/helpers');
const { titleOf, familyOf, severityRank } = require('./words');

const kSeenWidth = 120;
const clip = (text, width = kSeenWidth) => (String(text).length > width ? `${String(text).slice(0, width - 1)}…` : String(text));
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const fromValue = (meta) => meta.type === 'value' || meta.type === 'roundtrip';

// What a run's folder holds of a cause: its finding, its check, its title and family.
function causeOf(folder) {
  const meta = FindingStore.read(folder);
  const reach = reachabilityOf(folder) ?? { checked: false, verdict: 'reachability not checked' };
  const reachable = Boolean(reach.checked && reach.reachable);
  return { folder, meta, reach, reachable, title: reach.title ?? titleOf(meta, { reachable }),
    family: familyOf(meta), rank: severityRank(meta, { reachable }) };
}

// The short fork check of a reachable cause, as review-repro.js runs it (none where only the full round trip shows it).
function checkOf(cause) {
  const { meta, reach } = cause;
  if (!cause.reachable || reach.by !== 'repro-fork.js') return null;
  const expected = reach.reference.seen;
  if (!fromValue(meta)) return forkCheck({ name: cause.title, expected, bytes: pieces(meta.input) });
  return forkCheck({ name: cause.title, observe: reach.observe, expected: reach.reference.seen, input: meta.input });
}

// The rows of the review: causes alone, and families, most severe first.
function rowsOf(causes) {
  const rows = [];
  const families = new Map();
  for (const cause of causes) {
    if (!cause.family) rows.push({ causes: [cause], title: cause.title });
    else if (!families.has(cause.family.id)) families.set(cause.family.id, { causes: [cause], family: cause.family });
    else families.get(cause.family.id).causes.push(cause);
  }
  for (const row of families.values()) {
    if (row.causes.length === 1) rows.push({ causes: row.causes, title: row.causes[0].title });
    else rows.push({ ...row, title: row.family.heading });
  }
  const rank = (row) => Math.min(...row.causes.map((c) => c.rank));
  return rows.sort((x, y) => rank(x) - rank(y) || y.causes.length - x.causes.length);
}

const reachText = (cause) => (!cause.reach.checked ? 'not checked' : cause.reachable ? 'yes' :
  /not observable/.test(cause.reach.verdict) ? 'not observable by child_process' : 'no');

// What the cause's short repro builds and what it expects, as in the file
// the summary names; `folded` false names the file alone (a review short of room).
function reproExcerpt(cause, base, folded = true) {
  const { meta, reach } = cause;
  const file = path.relative(base, path.join(cause.folder, cause.reachable ? 'repro-fork.js' : 'repro.js'));
  const run = cause.reachable ? `node ${file}` : `node --expose-internals ${file}`;
  if (!folded) return [`Repro: \`${run}\`.`];
  const what = cause.reachable ? (fromValue(meta) ? observations[reach.observe] : kArrived) :
    codecObservations[reach.repro?.observe] ?? 'what the codec does';
  const expected = cause.reachable ? reach.reference?.seen : reach.repro?.expected;
  const lines = [];
  const recipe = meta.input?.recipe;
  if (fromValue(meta)) {
    lines.push(`function makeValue(effects) {\n${indentBy(valueSource(meta.input))}\n}`);
    const world = recipe && compileWorld(recipe);
    if (world) lines.push(`function makeWorld(effects) {\n${indentBy(world)}\n}`);
  } else if (meta.input?.bytes !== undefined) {
    lines.push(`const bytes = ${JSON.stringify(clip(meta.input.bytes, 600))};`);
  }
  const recorded = expected === undefined || expected === null ? 'null' : JSON.stringify(clip(expected, kExcerptWidth));
  lines.push(`const expected = ${recorded}; // ${what}, in Node.js 26.3.1`);
  return [`<details><summary><code>${run}</code></summary>`, '', '```js', ...lines, '```', '', '</details>'];
}

// The printed code of a value, its helper functions named, not spelled out,
// and a long line cut: the whole is in the script.
const kExcerptWidth = 140;
const indentBy = (text) => text.split('\n').map((l) => {
  const helper = /^const (\w+) = \(/.exec(l)?.[1];
  return `  ${helper && Object.hasOwn(helpers, helper) ? `const ${helper} = …; // as in the script` : clip(l, kExcerptWidth)}`;
}).join('\n');

function causeLines(cause, base, folded) {
  const { reach, meta } = cause;
  const what = fromValue(meta) ? observations[reach.observe] : kArrived;
  const seen = cause.reachable && reach.build?.seen !== undefined ? `: ${what}: node ${reach.build.version} ` +
    `\`${clip(reach.build.seen)}\`, Node.js 26.3.1 \`${clip(reach.reference.seen)}\`` : '';
  return [`Reachable through \`child.send()\`: **${reachText(cause)}**${seen}. \`${cause.meta.signature}\`.`, '',
    ...reproExcerpt(cause, base, folded)];
}

function rowSection(number, row, base, folded) {
  if (!row.family) return [`### ${number}. ${row.title}`, '', ...causeLines(row.causes[0], base, folded), ''];
  const lines = [`### ${number}. ${row.title}`, '', `${row.family.why[0].toUpperCase()}${row.family.why.slice(1)}:`, ''];
  for (const cause of row.causes) {
    lines.push(`- ${cause.title}: reachable **${reachText(cause)}**, \`${path.relative(base, cause.folder)}/\``);
  }
  return [...lines, '', 'The first of them:', '', ...reproExcerpt(row.causes[0], base, folded), ''];
}

// A review a PR comment holds in a glance: past this, the least severe rows name their repro instead of folding it.
const kReviewLimit = 20_000;

// review.md's text. sides: { a, b } each { codec, version }.
function reviewMarkdown(causes, { sides, base, reproFile }) {
  const rows = rowsOf(causes);
  const reachable = causes.filter((c) => c.reachable).length;
  const codec = (s) => (s.codec.includes('/') ? `\`${path.basename(s.codec)}\`` : `the \`${s.codec}\` codec`);
  const lead = !causes.length ?
    `ipcfuzz found no difference between ${codec(sides.b)} in Node.js ${sides.b.version} and ${codec(sides.a)} ` +
      '(the reference, Node.js 26.3.1\'s JavaScript codec).' :
    `ipcfuzz found ${causes.length} cause${causes.length === 1 ? '' : 's'} where ${codec(sides.b)} in Node.js ` +
      `${sides.b.version} behaves otherwise than ${codec(sides.a)} (the reference, Node.js 26.3.1's JavaScript codec), ` +
      `in ${rows.length} row${rows.length === 1 ? '' : 's'} below, most severe first; ${reachable} show through ` +
      `\`child.send()\`. \`node ${reproFile}\` checks each of those: PASS on Node.js 26.3.1, FAIL where a build ` +
      'differs.';
  const table = ['| # | cause | causes | reachable through `child.send()` |', '| --- | --- | --- | --- |',
    ...rows.map((row, i) => `| ${i + 1} | ${cell(row.title)} | ${row.causes.length} | ` +
      `${row.causes.filter((c) => c.reachable).length} of ${row.causes.length} |`)];
  const head = ['## Review: the `advanced` IPC codec against Node.js 26.3.1', '', lead, ''];
  if (!causes.length) return head.join('\n');
  const folded = rows.map(() => true);
  const text = () => [...head, ...table, '', ...rows.flatMap((row, i) => rowSection(i + 1, row, base, folded[i]))]
    .join('\n');
  for (let i = rows.length - 1; i >= 0 && text().length > kReviewLimit; i--) folded[i] = false;
  return text();
}

// Writes review.md and review-repro.js into `dir` for the causes in
// `folders`; gives { review, repro } (their paths) and the rows' count.
function writeReview(dir, folders, { sides }) {
  const causes = [...new Set(folders)].filter((f) => fs.existsSync(path.join(f, 'finding.json'))).map(causeOf);
  const checks = rowsOf(causes).flatMap((row) => row.causes).map(checkOf).filter(Boolean);
  const review = path.join(dir, 'review.md');
  const repro = path.join(dir, 'review-repro.js');
  writeAtomic(repro, reviewRepro(checks, { lead: [`The reachable causes of ${path.basename(review)}, one check each.`] }),
    0o755);
  writeAtomic(review, `${reviewMarkdown(causes, { sides, base: dir, reproFile: path.basename(repro) })}\n`);
  return { review, repro, rows: rowsOf(causes).length, causes };
}

module.exports = { writeReview, reviewMarkdown, rowsOf, causeOf, checkOf };
