'use strict';
// Every mutant adapter (one deliberate bug each) is caught by the properties
// within the test budget, in a tier that names its kind of bug. Each runs
// against the codec it was derived from, so only its own bug differs.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { runPair } = require('../../properties/helpers');
const { catalog } = require('../../harness/mutants/catalog');

const dir = path.join(__dirname, '..', '..', 'harness', 'mutants');
const kRuns = 4000;

describe('properties catch every mutant adapter', function () {
  this.timeout(180_000);

  it('lists every mutant adapter in the catalog', function () {
    const helpers = ['catalog.js', 'variant.js'];
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.js') && !helpers.includes(f));
    assert.deepEqual(files.map((f) => path.basename(f, '.js')).sort(), Object.keys(catalog).sort());
  });

  for (const [name, { base, expect, bug }] of Object.entries(catalog)) {
    const file = `${name}.js`;
    it(`${name}: ${bug}`, async function () {
      const caught = (s) => s.findings.some((f) => expect.includes(f.difference.tier));
      const summary = await runPair({
        a: { codec: base }, b: { codec: path.join(dir, file) }, runs: kRuns, known: [], until: caught,
      });
      assert.ok(caught(summary),
        `not caught in ${summary.runs} runs; expected a ${expect.join(' or ')} difference, found: ` +
        `${summary.findings.map((f) => f.difference.signature).join(', ') || 'nothing'}`);
    });
  }
});
