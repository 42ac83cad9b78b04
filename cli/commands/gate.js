'use strict';
// ipcfuzz gate: the CI check for codec pull requests. Writes junit.xml,
// results.sarif, summary.md and findings/ to --out; exits 0 on pass, 1 on a
// new difference, a stale known entry or (with --runtime) a runtime that
// cannot talk to codec b's binary, 2 on a usage or environment error.

const fs = require('node:fs');
const path = require('node:path');
const { parse, sideFlags, sessionOptions, positiveInteger, checkFolder, checkNewFile } = require('..');
const { Session } = require('../../harness/run/session');
const { FindingStore } = require('../../harness/findings/recorder');
const { loadKnown, splitByScope, scopeOf, defaultFile } = require('../../harness/oracle/known');
const { runGate } = require('../gate/stages');
const { junitXml } = require('../gate/junit');
const { sarifLog } = require('../gate/sarif');
const { summaryMarkdown } = require('../gate/markdown');
const { parseRuntime } = require('../../harness/base/runtimes');
const { version } = require('../../package.json');
const { reachLine, reachabilityOf, reviewRun, titleLine } = require('../reach');

// A known-differences file: the list in use plus an entry accepting each new
// finding, for a reviewer to give reasons to (or to shrink) before committing it.
function emitKnown(file, gate, knownFile, sides) {
  const base = knownFile === null ? { entries: [] } : JSON.parse(fs.readFileSync(knownFile ?? defaultFile, 'utf8'));
  for (const f of gate.findings) {
    // A target's end that did not come again in a worker has no reproducer to accept.
    if (!fs.existsSync(path.join(f.folder, 'finding.json'))) continue;
    const meta = FindingStore.read(f.folder);
    base.entries.push({
      id: path.basename(f.folder),
      tier: f.difference.tier,
      scope: scopeOf(sides),
      match: { signature: f.difference.signature },
      reason: `Accepted by a reviewer: ${f.difference.where}: ${f.difference.detail}`,
      reproducer: { type: meta.type, input: meta.input },
    });
  }
  fs.writeFileSync(file, `${JSON.stringify(base, null, 2)}\n`, { flag: 'wx' });
}

const about = 'the CI check for codec pull requests: JUnit, SARIF, summary.md and findings in --out';
const flags = {
  budget: { type: 'string', default: '240', value: 'SECONDS', help: 'wall-clock budget; fuzzing gets what is left' },
  out: { type: 'string', default: 'gate-out', value: 'DIR', help: 'reports folder' },
  'emit-known': { type: 'string', value: 'FILE',
    help: 'write the list in use plus an entry per new finding (a new file)' },
  bench: { type: 'boolean', default: false, help: 'append the codec speed table of base against head' },
  runtime: { type: 'string', multiple: true, value: 'deno|bun|NAME@VERSION', shown: 'none',
    help: "check that codec b's binary and each runtime can talk through child_process" },
  'no-fuzz': { type: 'boolean', default: false, help: 'only the deterministic stages (no fuzzing)' },
  ...sideFlags,
};

async function run(args) {
  const values = parse(args, flags);
  const runtimes = (values.runtime ?? []).flatMap((r) => r.split(',')).filter(Boolean);
  runtimes.forEach(parseRuntime);
  const budget = positiveInteger(values.budget, 'budget', 86_400);
  const options = sessionOptions(values);
  const known = loadKnown(options.knownFile);
  const out = checkFolder(values.out, 'out');
  if (values['emit-known'] !== undefined) checkNewFile(values['emit-known'], 'emit-known');
  const session = new Session(options);
  fs.mkdirSync(out, { recursive: true });
  try {
    const { applies, outside } = splitByScope(known, session.sides);
    const gate = await runGate({
      session, known: applies, outside, knownFile: options.knownFile, out, budget, runtimes,
      fuzz: !values['no-fuzz'],
    });
    const sides = Object.fromEntries(Object.entries(session.sides)
      .map(([k, s]) => [k, { codec: s.codec, node: s.node, version: s.info.node }]));
    fs.writeFileSync(path.join(out, 'junit.xml'), junitXml(gate.stages));
    fs.writeFileSync(path.join(out, 'results.sarif'), `${JSON.stringify(sarifLog([...gate.findings, ...gate.shared].map((f) => ({
      ...f, inputFile: ['input.bin', 'input.json'].map((n) => path.join(f.folder, n)).find((p) => fs.existsSync(p)),
      reachability: reachabilityOf(f.folder), title: titleLine(f.folder),
    })), { base: out, version, sides }), null, 2)}\n`);
    const review = reviewRun(out, gate.findings.map((f) => f.folder), session.sides);
    fs.writeFileSync(path.join(out, 'summary.md'), summaryMarkdown({ ...gate, sides }));
    if (values.bench) {
      // The codec table of base against head, appended to the summary; timing never changes the verdict.
      const bench = await require('../../bench/gate').benchSection({
        baseNode: values['base-node'] === undefined ? undefined : session.sides.a.node, headNode: session.sides.b.node,
      });
      fs.appendFileSync(path.join(out, 'summary.md'), `\n${bench.markdown}`);
      console.log(bench.line);
    }
    if (values['emit-known'] !== undefined) emitKnown(values['emit-known'], gate, options.knownFile, session.sides);
    console.log(`ipcfuzz gate: ${gate.verdict.toUpperCase()}: ${gate.findings.length} new difference(s), ` +
      `${gate.stale.length} stale known entr${gate.stale.length === 1 ? 'y' : 'ies'} in ${gate.seconds.toFixed(0)}s`);
    for (const f of gate.findings) {
      console.log(`  ${titleLine(f.folder) ?? f.difference.signature}\n    ${f.difference.signature}  (${f.stage})\n` +
        `    ${reachLine(f.folder)}`);
    }
    for (const e of gate.stale) console.log(`  stale known entry: ${e.id}`);
    for (const f of gate.shared) console.log(`  defect both codecs share (no difference): ${f.difference.signature}`);
    for (const c of gate.stages.find((s) => s.name === 'runtimes')?.cases ?? []) {
      if (c.failure) console.log(`  ${c.name}: ${c.failure.message}`);
    }
    if (gate.skipped.length) console.log(`skipped for lack of time: ${gate.skipped.join('; ')}`);
    if (gate.historyDependent.length) {
      console.log(`history-dependent, not findings: ${gate.historyDependent.join(', ')}`);
    }
    console.log(`reports: ${path.relative(process.cwd(), out)}/{summary.md,review.md,junit.xml,results.sarif,findings/}`);
    console.log(review);
    return gate.verdict === 'pass' ? 0 : 1;
  } finally {
    session.close();
  }
}

module.exports = { run, about, flags };
