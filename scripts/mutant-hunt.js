#!/usr/bin/env node
'use strict';
// How fast the Jazzer.js targets alone find each mutant adapter: from an empty
// working corpus (the seed corpus allowed), no conformance vectors, no known
// differences, until a difference in one of the mutant's expected tiers.
// Prints a table; exits 1 when a mutant is not found within the budget.
//   node scripts/mutant-hunt.js [--seconds 60] [--only name,...] [--json FILE]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { runJazzer, availableCores } = require('../fuzzers/jazzer/engine');
const { Session } = require('../harness/run/session');
const { FindingStore } = require('../harness/findings/recorder');
const { catalog } = require('../harness/mutants/catalog');

async function hunt(name, { seconds, seed }) {
  const { base, expect } = catalog[name];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `ipcfuzz-hunt-${name}-`));
  const session = new Session({ a: { codec: base }, b: { codec: path.join(__dirname, '..', 'harness', 'mutants', `${name}.js`) } });
  const started = Date.now();
  let found = null;
  try {
    await runJazzer({
      sides: session.sides, session, known: [], knownFile: null, seed,
      store: new FindingStore(path.join(scratch, 'findings')), workDir: path.join(scratch, 'work'),
      seconds, parallel: availableCores(),
      stopWhen: (signature) => {
        if (found || !expect.includes(signature.split('/')[0])) return false;
        found = { signature, seconds: (Date.now() - started) / 1000 };
        return true;
      },
    });
  } finally {
    session.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return { name, expect, ...(found ?? { signature: null, seconds: null }) };
}

async function main() {
  const { values } = parseArgs({ options: {
    seconds: { type: 'string', default: '60' }, only: { type: 'string' }, json: { type: 'string' },
    seed: { type: 'string', default: '1' },
  } });
  const names = values.only ? values.only.split(',') : Object.keys(catalog);
  const unknown = names.filter((n) => !catalog[n]);
  if (unknown.length) throw new Error(`no mutant named ${unknown.join(', ')}`);
  const results = [];
  for (const name of names) {
    const result = await hunt(name, { seconds: Number(values.seconds), seed: Number(values.seed) });
    results.push(result);
    console.log(`${name.padEnd(26)} ${result.seconds === null ? `NOT FOUND in ${values.seconds}s` :
      `${result.seconds.toFixed(1).padStart(5)}s  ${result.signature}`}`);
  }
  if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
  process.exitCode = results.every((r) => r.signature) ? 0 : 1;
}

main().catch((err) => {
  console.error(`mutant-hunt: ${err.message.split('\n')[0]}`);
  process.exitCode = 2;
});
