'use strict';
// No false alarms: a codec compared with itself, and the reference compared
// with the JS codec that 26.3.1 really runs, show no difference.
const assert = require('node:assert/strict');
const { runPair, describeFindings } = require('../../properties/helpers');

describe('properties: no false alarms', function () {
  this.timeout(180_000);

  for (const [a, b, node] of [['js', 'js', '26.12.1'], ['builtin', 'builtin', '26.3.1'], ['js', 'builtin', '26.3.1']]) {
    it(`${a} against ${b} in ${node}`, async function () {
      const summary = await runPair({ a: { codec: a, node }, b: { codec: b, node }, runs: 1200, known: [] });
      // What both sides get wrong alike (a frame neither reads back) is the
      // round-trip oracle's finding, not a false alarm.
      assert.deepEqual(describeFindings(summary).filter((f) => !f.startsWith('roundtrip/deserialize/a+b:')), []);
      assert.equal(summary.runs, 1200);
    });
  }

  it('native against native in 26.12.1: only crashes, of both sides at once', async function () {
    const summary = await runPair({ a: { codec: 'native' }, b: { codec: 'native' }, runs: 1200, known: [] });
    for (const { difference: d } of summary.findings.filter((f) => !f.difference.signature.includes('/a+b:'))) {
      assert.equal(d.tier, 'crash', d.signature);
      assert.equal(d.a.kind, d.b.kind, `${d.signature}: one side alone crashed`);
    }
  });
});
