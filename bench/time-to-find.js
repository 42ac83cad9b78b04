'use strict';
// Time to find each mutant adapter (harness/mutants), per engine, from an
// empty working corpus (the seed corpus allowed) and no known differences,
// over several seeds: the seconds until the first difference in one of the
// mutant's expected tiers, capped. Jazzer.js runs through
// scripts/mutant-hunt.js, fast-check through the properties engine with `until`.
//   node bench/time-to-find.js [--seeds 1,2,3,4,5] [--cap 60] [--only name,...] [--json FILE]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { Session } = require('../harness/run/session');
const { FindingStore } = require('../harness/findings/recorder');
const { catalog } = require('../harness/mutants/catalog');
const { runProperties } = require('../properties/engine');
const { summarize } = require('./stats');
const { checkTime } = require('./deadline');
const fmt = require('./format');
const { kCallTimeoutMs } = require('../harness/base/defaults');

const run = promisify(execFile);
const mutantsDir = path.join(__dirname, '..', 'harness', 'mutants');
const engines = ['fast-check', 'jazzer'];

async function fastCheckHunt(name, { seed, cap }) {
  const { base, expect } = catalog[name];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `ipcfuzz-bench-hunt-${name}-`));
  const session = new Session({ a: { codec: base }, b: { codec: path.join(mutantsDir, `${name}.js`) }, timeoutMs: kCallTimeoutMs });
  const started = Date.now();
  let found = null;
  try {
    await runProperties({
      session, known: [], store: new FindingStore(path.join(scratch, 'findings')), seed, seconds: cap,
      until: (s) => {
        const hit = s.findings.find((f) => expect.includes(f.difference.tier));
        if (hit) found = { signature: hit.difference.signature, seconds: (Date.now() - started) / 1000 };
        return Boolean(hit);
      },
    });
  } finally {
    session.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return found;
}

// One run of scripts/mutant-hunt.js hunts every mutant with one seed.
async function jazzerHunts(names, { seed, cap }) {
  const json = path.join(os.tmpdir(), `ipcfuzz-bench-hunt-${process.pid}-${seed}.json`);
  try {
    await run(process.execPath, [path.join(__dirname, '..', 'scripts', 'mutant-hunt.js'), '--seconds', String(cap),
      '--seed', String(seed), '--only', names.join(','), '--json', json], { maxBuffer: 1 << 20 })
      .catch((err) => { if (err.code !== 1) throw err; });  // 1: a mutant was not found within the cap
    return JSON.parse(fs.readFileSync(json, 'utf8'));
  } finally {
    fs.rmSync(json, { force: true });
  }
}

// Returns [{ name, expect, engine, seed, seconds (Infinity when not found), signature }].
// None starts that would end past `until` (bench/deadline.js): a fast-check
// hunt is given a tenth of the cap (most end in a few seconds), the
// Jazzer.js hunts of a seed the cap.
async function timeToFind({ names = Object.keys(catalog), seeds, cap, until, onResult = () => {} }) {
  const results = [];
  const add = (r) => {
    results.push(r);
    onResult(r);
  };
  for (const seed of seeds) {
    for (const name of names) {
      checkTime(until, cap / 10, `the fast-check hunt of ${name}`);
      const found = await fastCheckHunt(name, { seed, cap });
      add({
        name, engine: 'fast-check', seed, seconds: found?.seconds ?? Infinity, signature: found?.signature ?? null,
      });
    }
    checkTime(until, cap, `the Jazzer.js hunts of seed ${seed}`);
    for (const r of await jazzerHunts(names, { seed, cap })) {
      add({ name: r.name, engine: 'jazzer', seed, seconds: r.seconds ?? Infinity, signature: r.signature });
    }
  }
  return results;
}

function summarizeTimes(results) {
  const names = [...new Set(results.map((r) => r.name))];
  return names.map((name) => ({
    name, expect: catalog[name].expect, bug: catalog[name].bug,
    ...Object.fromEntries(engines.map((engine) => {
      const runs = results.filter((r) => r.name === name && r.engine === engine);
      return [engine, { ...summarize(runs.map((r) => r.seconds)), found: runs.filter((r) => r.signature).length }];
    })),
  }));
}

function markdown(rows, cap) {
  const seconds = (x) => (Number.isFinite(x) ? `${x.toFixed(1)} s` : `> ${cap} s`);
  const cell = (s) => (s.n ? `${fmt.range(s, seconds)} (${s.found}/${s.n})` : '—');
  return fmt.table(['mutant', 'expected tier', 'fast-check', 'Jazzer.js'],
    rows.map((r) => [r.name, r.expect.join(' or '), cell(r['fast-check']), cell(r.jazzer)]));
}

module.exports = { timeToFind, summarizeTimes, markdown };

if (require.main === module) {
  const { parseFlags } = require('./flags');
  const { values } = parseFlags('time-to-find', { options: {
    seeds: { type: 'string', default: '1,2,3,4,5' }, cap: { type: 'string', default: '60' },
    only: { type: 'string' }, json: { type: 'string' },
  } });
  const cap = Number(values.cap);
  timeToFind({
    names: values.only?.split(','), seeds: values.seeds.split(',').map(Number), cap,
    onResult: (r) => console.error(`${r.engine.padEnd(10)} seed ${r.seed} ${r.name.padEnd(26)} ${r.signature ? `${r.seconds.toFixed(1)} s` : 'not found'}`),
  }).then((results) => {
    console.log(markdown(summarizeTimes(results), cap));
    if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
  });
}
