'use strict';
// The conformance stage of `ipcfuzz gate`: every vector through codec b (in
// its binary), judged against the reference's expectation. A vector that
// fails is then checked between codec a and codec b, so its finding carries
// both outcomes like any other.

const { runVector } = require('./outcomes');
const { inProcessDifferences } = require('./judge');
const { classify } = require('../harness/oracle/known');
const { loadCases, describeBinaries } = require('./runner');
const { wireChecks, handshake, skewReason } = require('./interop');
const { Tier } = require('../harness/base/vocabulary');
const { kCallTimeoutMs } = require('../harness/base/defaults');

const checkOf = (vector) => (vector.kind === 'recipe' ? 'value' : vector.kind);

async function gateVectors(collector) {
  const { session, known } = collector;
  const { vectors } = loadCases();
  const request = (r) => session.run('b', r);
  const cases = [];
  for (const vector of vectors) {
    const started = Date.now();
    const name = `vector ${vector.id}`;
    if (vector.verdict === 'implementation-defined') {
      cases.push({ name, skipped: 'implementation-defined: recorded, not judged' });
      continue;
    }
    const actual = await runVector(request, vector, vector.expected);
    const judged = classify(inProcessDifferences(vector, vector.expected, actual), known)
      .filter((d) => d.tier !== Tier.errorIdentity && !d.known);
    if (judged.length) {
      const result = await session.check(checkOf(vector), vector.input);
      await collector.add(result, 'conformance', { vector: vector.id });
    }
    cases.push({
      name, seconds: (Date.now() - started) / 1000,
      failure: judged.length ? {
        message: judged.map((d) => d.signature).join('; '),
        body: judged.map((d) => `${d.where}: ${d.detail}`).join('\n'),
      } : undefined,
    });
  }
  return cases;
}

// The runtimes stage (gate --runtime deno ...): whether codec b's binary and
// each runtime can talk through child_process, parent and child each way, in
// both serializations. One case per pair and mode; a pair that cannot talk fails it.
async function gateRuntimes(collector, specs, { timeoutMs = kCallTimeoutMs } = {}) {
  const binaries = describeBinaries([collector.session.sides.b.node], specs);
  const [node, ...runtimes] = binaries;
  const wire = await wireChecks(binaries, { timeoutMs });
  const cases = [];
  for (const runtime of runtimes) {
    for (const [parent, child] of [[node, runtime], [runtime, node]]) {
      for (const serialization of ['advanced', 'json']) {
        const started = Date.now();
        const silent = await handshake({ binary: parent, child, serialization }, { timeoutMs });
        const reader = silent && (silent.writer === parent ? child : parent);
        cases.push({
          name: `fork ${parent.label} ⇄ ${child.label} ${serialization}`, seconds: (Date.now() - started) / 1000,
          failure: silent ? {
            message: `cannot talk: ${skewReason(wire, silent.writer, reader, serialization)}` +
              `${silent.where}: ${silent.why}`,
            type: 'runtime-interoperability',
          } : undefined,
        });
      }
    }
  }
  return cases;
}

module.exports = { gateVectors, gateRuntimes };
