#!/usr/bin/env node
'use strict';
// Checks the findings of a folder for what reduction promises: every one-step
// reduction of a finding reduced to a 1-minimal input loses its difference,
// and no finding is a pairing of causes (each codec stopping at another part
// of it). A finding whose reduction was cut by the time budget fails too,
// unless --allow-unreduced. Prints a line per finding; exit 0 when all hold,
// 1 when one does not, 2 on a usage error.
//   node scripts/check-minimal.js [--node VERSION|PATH] [--a js] [--b native] [--allow-unreduced] FINDINGS_DIR

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { Session } = require('../harness/run/session');
const { FindingStore } = require('../harness/findings/recorder');
const { stepsOf, isPairing } = require('../harness/findings/reduce');
const { UsageError } = require('../harness/base/errors');
const { kCallTimeoutMs } = require('../harness/base/defaults');

async function checkFolder(session, folder, allowUnreduced) {
  const meta = FindingStore.read(folder);
  const name = path.basename(folder);
  // A value module is code, and a shared defect's input is as found: neither is reduced.
  const reducible = meta.type === 'frame' || meta.type === 'stream' || meta.input.recipe !== undefined;
  if (meta.reduction?.status !== 'reduced') {
    return { name, ok: allowUnreduced || !reducible, text: meta.reduction?.status ?? 'not reduced' };
  }
  const keeping = [];
  const parts = [];
  for (const { step, make } of stepsOf(meta.type, meta.input)) {
    const input = make();
    if (input === null) continue;
    const result = await session.check(meta.type, input);
    parts.push({ step, input, result });
    if (result.differences.some((d) => d.signature === meta.signature)) keeping.push(step);
  }
  const whole = await session.check(meta.type, meta.input);
  if (!whole.differences.some((d) => d.signature === meta.signature)) {
    return { name, ok: false, text: 'its input no longer shows its difference' };
  }
  if (keeping.length) return { name, ok: false, text: `not 1-minimal: ${keeping.join('; ')} keeps it` };
  if (isPairing(whole, parts)) return { name, ok: false, text: 'a pairing of causes its parts show' };
  return { name, ok: true, text: `1-minimal (${parts.length} one-step reductions tried)` };
}

async function main(argv) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: {
    node: { type: 'string' }, a: { type: 'string', default: 'js' }, b: { type: 'string', default: 'native' },
    'allow-unreduced': { type: 'boolean', default: false },
  } });
  if (positionals.length !== 1) throw new UsageError('usage: check-minimal.js [--node V] [--a A] [--b B] FINDINGS_DIR');
  const dir = path.resolve(positionals[0]);
  if (!fs.existsSync(dir)) throw new UsageError(`no findings folder ${positionals[0]}`);
  const session = new Session({ a: { codec: values.a, node: values.node }, b: { codec: values.b, node: values.node },
    timeoutMs: kCallTimeoutMs });
  let failed = 0;
  try {
    for (const folder of FindingStore.list(dir)) {
      const { name, ok, text } = await checkFolder(session, folder, values['allow-unreduced']);
      if (!ok) failed++;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${text}`);
    }
  } finally {
    session.close();
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
  console.error(`check-minimal: ${err instanceof UsageError ? err.message : err.stack}`);
  process.exitCode = err instanceof UsageError ? 2 : 3;
});
