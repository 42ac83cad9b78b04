'use strict';
// ipcfuzz fuzz: runs an engine against two codecs for a time budget, with
// live progress, and saves each distinct new finding to the findings folder.

const path = require('node:path');
const { parse, sideFlags, sessionOptions, positiveInteger } = require('../cli');
const { Session } = require('../session');
const { loadKnown } = require('../known');
const { FindingStore } = require('../findings');
const { UsageError } = require('../errors');
const { root } = require('../nodes');

const engines = {
  'fast-check': runFastCheck,
};

async function runFastCheck({ flags, options, known, store }) {
  const { runProperties } = require('../../properties/runner');
  const session = new Session(options);
  const only = flags.property ? flags.property.split(',') : undefined;
  const { properties } = require('../../properties/definitions');
  for (const name of only ?? []) {
    if (!properties[name]) throw new UsageError(`unknown property ${JSON.stringify(name)}; one of ${Object.keys(properties).join(', ')}`);
  }
  try {
    const seed = flags.seed !== undefined ? Number(flags.seed) : undefined;
    if (seed !== undefined && !Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got ${flags.seed}`);
    const progress = progressPrinter();
    const summary = await runProperties({
      session, known, store, seed, only,
      seconds: positiveInteger(flags.seconds, 'seconds'),
      onProgress: progress,
    });
    progress.done();
    return { engine: 'fast-check', ...summary, sides: session.sides, stats: session.stats() };
  } finally {
    session.close();
  }
}

function progressPrinter() {
  const live = process.stderr.isTTY;
  let last = 0;
  const print = (p) => {
    const now = Date.now();
    if (!live && now - last < 5000) return;
    last = now;
    const line = `fast-check ${p.property.padEnd(9)} runs ${p.runs} (${p.runsPerSecond.toFixed(0)}/s)  ` +
      `findings ${p.findings.length}  known ${Object.values(p.known).reduce((a, b) => a + b, 0)}  ${p.seconds.toFixed(0)}s`;
    process.stderr.write(live ? `\r${line}\x1b[K` : `${line}\n`);
  };
  print.done = () => { if (live) process.stderr.write('\n'); };
  return print;
}

function printSummary(summary, storeDir) {
  const lines = [
    '',
    `${summary.engine}: ${summary.runs} runs in ${summary.seconds.toFixed(1)}s ` +
      `(${summary.runsPerSecond.toFixed(0)} runs/s), seed ${summary.seed}`,
    `  a: ${summary.sides.a.codec} in node ${summary.sides.a.info.node}`,
    `  b: ${summary.sides.b.codec} in node ${summary.sides.b.info.node}`,
    `  worker crashes ${summary.stats.crashes}, hangs ${summary.stats.hangs}`,
  ];
  const known = Object.entries(summary.known);
  lines.push(`  known differences seen: ${known.length ? known.map(([id, n]) => `${id} ×${n}`).join(', ') : 'none'}`);
  if (!summary.findings.length) {
    lines.push('  no new findings');
  } else {
    lines.push(`  ${summary.findings.length} new finding${summary.findings.length > 1 ? 's' : ''} in ${storeDir}:`);
    for (const f of summary.findings) {
      lines.push(`    ${f.difference.signature.padEnd(52)} ${path.relative(process.cwd(), f.folder ?? '')}`);
      lines.push(`      ${f.difference.where}: ${f.difference.detail}`);
    }
  }
  console.log(lines.join('\n'));
}

async function run(args) {
  const flags = parse(args, {
    ...sideFlags,
    engine: { type: 'string', default: 'fast-check' },
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string' },
    property: { type: 'string' },
    out: { type: 'string', default: path.join(root, 'findings') },
  });
  const engine = engines[flags.engine];
  if (!engine) throw new UsageError(`unknown engine ${JSON.stringify(flags.engine)}; one of ${Object.keys(engines).join(', ')}`);
  const options = sessionOptions(flags);
  const known = loadKnown(options.knownFile);
  const store = new FindingStore(flags.out);
  const summary = await engine({ flags, options, known, store });
  printSummary(summary, store.dir);
  return summary.findings.length ? 1 : 0;
}

module.exports = { run };
