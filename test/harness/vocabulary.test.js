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
