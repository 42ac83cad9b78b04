'use strict';
// The Node.js version check that bin/ipcfuzz.js runs before anything else:
// it agrees with package.json's engines range, and an older Node gets one
// line naming the needed version and exit 2.
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { satisfies, range } = require('../../harness/base/node-support');
const { engines } = require('../../package.json');

const cli = path.join(__dirname, '..', '..', 'bin', 'ipcfuzz.js');

describe('Node.js version check', function () {
  it('reads the range from package.json engines', function () {
    assert.equal(range, engines.node);
  });

  it('accepts exactly the versions of ^20.17.0 || >=22.9.0', function () {
    const range20 = '^20.17.0 || >=22.9.0';
    for (const v of ['20.17.0', '20.20.2', '22.9.0', '22.12.0', '24.0.0', '26.12.1']) {
      assert.ok(satisfies(v, range20), v);
    }
    for (const v of ['18.20.4', '20.16.9', '20.9.0', '21.7.3', '22.8.0', '16.0.0']) {
      assert.ok(!satisfies(v, range20), v);
    }
  });

  it('accepts the Node.js running these tests', function () {
    assert.ok(satisfies(process.versions.node, range));
  });

  it('prints one line and exits 2 on an older Node', function () {
    const run = spawnSync(process.execPath, ['-e',
      `Object.defineProperty(process.versions, 'node', { value: '18.20.4' }); require(${JSON.stringify(cli)})`],
    { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, `ipcfuzz: needs Node.js ${engines.node} (this is v18.20.4)\n`);
  });
});
