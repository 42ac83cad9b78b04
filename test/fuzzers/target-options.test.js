'use strict';
// A Jazzer.js target is a function of its options (fuzzers/jazzer/target.js
// createTarget): requiring it does nothing, and its options are read once
// from the environment (options.js), an unknown IPCFUZZ_* variable warned about.
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { targetOptions, kVariables } = require('../../fuzzers/jazzer/options');
const { root, node26 } = require('../fixtures/helpers');

describe('the options of a Jazzer.js target', function () {
  it('are read from the environment once, each with its type', function () {
    const { options, warnings } = targetOptions({ IPCFUZZ_B: '/x/mutant.js', IPCFUZZ_TIMEOUT: '2500',
      IPCFUZZ_CRASHED: 'aa,,bb', IPCFUZZ_SKIP_SCREENED: '1', IPCFUZZ_STARTER: '42', PATH: '/bin' });
    assert.deepEqual(options, { codecB: '/x/mutant.js', timeoutMs: 2500, crashed: ['aa', 'bb'], starter: 42,
      skipScreened: true });
    assert.ok(Object.isFrozen(options));
    assert.deepEqual(warnings, []);
  });

  it('warn, in one line each, of an IPCFUZZ_* variable no target reads', function () {
    const { warnings } = targetOptions({ IPCFUZZ_SCREENED: 'skip', IPCFUZZ_NODE_CACHE: '/n' });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^ipcfuzz: IPCFUZZ_SCREENED is set but no Jazzer\.js target reads it/);
    assert.ok(Object.keys(kVariables).every((name) => name.startsWith('IPCFUZZ_')));
  });

  it('are the only thing that makes a target: requiring it starts no process and reads no variable', function () {
    // A getter on process.env that records each read, then the target module required.
    const script = `
      const reads = [];
      const env = process.env;
      Object.defineProperty(process, 'env', { get() { return new Proxy(env, { get(t, k) { if (typeof k === 'string' &&
        k.startsWith('IPCFUZZ_')) reads.push(k); return t[k]; } }); } });
      const before = process.getActiveResourcesInfo().length;
      const target = require(${JSON.stringify(path.join(root, 'fuzzers', 'jazzer', 'target.js'))});
      console.log(JSON.stringify({ reads, exports: Object.keys(target), started: process.getActiveResourcesInfo().length - before }));`;
    const run = spawnSync(node26, ['--expose-internals', '--no-warnings', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout),
      { reads: [], exports: ['createTarget', 'targetOfThisProcess'], started: 0 });
  });
});
