'use strict';
// The conformance stage of `ipcfuzz gate`: every vector through codec b (in
// its binary), judged against the reference's expectation. A vector that
// fails is then checked between codec a and codec b, so its finding carries
// both outcomes like any other.

const { runVector } = require('./outcomes');
const { inProcessDifferences } = require('./judge');
const { classify } = require('../harness/known');
const { loadCases } = require('./run');

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
      .filter((d) => d.tier !== 'error-identity' && !d.known);
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

module.exports = { gateVectors };
