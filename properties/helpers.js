'use strict';
// Shared set-up of the property suites: a session per codec pair, and a
// fixed-seed run of the properties on it.
const { Session } = require('../harness/run/session');
const { loadKnown } = require('../harness/oracle/known');
const { runProperties } = require('./engine');
const { kCallTimeoutMs } = require('../harness/base/defaults');

// The seed is fixed so that `make test` is repeatable; IPCFUZZ_SEED varies it.
const seed = Number(process.env.IPCFUZZ_SEED ?? 20261121);

async function runPair({ a, b, runs, known = loadKnown(), only, until, store }) {
  const session = new Session({ a, b, timeoutMs: kCallTimeoutMs });
  try {
    const summary = await runProperties({ session, known, seed, runs, only, until, store });
    return { ...summary, stats: session.stats(), sides: session.sides };
  } finally {
    session.close();
  }
}

function describeFindings(summary) {
  return summary.findings.map((f) => `${f.difference.signature} (${f.property}: ${f.difference.detail})`);
}

module.exports = { runPair, describeFindings, seed };
