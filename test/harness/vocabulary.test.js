'use strict';
// One home for each list: what keeps a deliberate copy honest.
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const wire = require('../../harness/wire/tags');
const { root, node26 } = require('../fixtures/helpers');

describe('vocabulary', function () {
  it("the reference codec's frozen list of view types is harness/wire/tags.js's, index for index", function () {
    // The reference needs --expose-internals, as in its workers.
    const js = path.join(root, 'harness', 'codecs', 'js.js');
    const run = spawnSync(node26, ['--expose-internals', '--no-warnings', '-e',
      `const { viewTypes } = require(${JSON.stringify(js)});
       process.stdout.write(JSON.stringify({ viewTypes, frozen: Object.isFrozen(viewTypes) }));`],
    { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const reference = JSON.parse(run.stdout);
    assert.deepEqual(reference.viewTypes, wire.viewTypes);
    assert.equal(reference.frozen, true);
    assert.equal(wire.viewTypes.indexOf('Buffer'), 10);
  });
});

describe('the vocabulary of outcomes, tiers and statuses', function () {
  const vocabulary = require('../../harness/base/vocabulary');

  it("is docs/findings.md's table of tiers, in order, meaning for meaning", function () {
    const doc = require('node:fs').readFileSync(path.join(root, 'docs', 'findings.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| (.+) \|$/gm)]
      .filter(([, name]) => vocabulary.tiers.includes(name));
    assert.deepEqual(rows.map(([, name, meaning]) => ({ name, meaning })),
      vocabulary.tierTable.map(({ name, meaning }) => ({ name, meaning })));
  });

  it('names each tier, kind, status and place once, and freezes every table', function () {
    const { Outcome, Tier, Settled, Place, tierTable, tiers, explainedBy } = vocabulary;
    for (const table of [Outcome, Tier, Settled, Place, tierTable, tiers, explainedBy]) {
      assert.ok(Object.isFrozen(table));
    }
    assert.deepEqual(Object.values(vocabulary.Tier), vocabulary.tiers);
    assert.equal(vocabulary.Tier.errorIdentity, 'error-identity');
    const crash = { kind: vocabulary.Outcome.crash };
    assert.equal(vocabulary.endedProcess(crash), true);
    assert.equal(vocabulary.endedProcess({ kind: vocabulary.Outcome.reject }), false);
  });
});
