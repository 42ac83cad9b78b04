'use strict';
// The launcher's Jazzer.js flags: libFuzzer's fork, merge and minimize modes
// run the launcher's command line again, and Jazzer.js refuses a flag such as
// --timeout given twice.
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { withJazzerFlags, nodeScript } = require('../../fuzzers/jazzer/launch');

// The files a command line has Jazzer.js instrument.
const includedBy = (args) => args.filter((a) => a.startsWith('--includes=')).map((a) => a.slice('--includes='.length));

describe('Jazzer.js launcher', function () {
  const argv = ['node', '/x/launch.js', '/x/value.js', 'corpus', '--sync', '--', '-timeout=25', '-runs=10'];

  it('passes libFuzzer\'s -timeout on as Jazzer.js\'s and instruments the value target\'s own files', function () {
    const once = withJazzerFlags(argv);
    const ours = once.slice(0, once.indexOf('--'));
    assert.deepEqual(ours.filter((a) => a.startsWith('--timeout=')), ['--timeout=25000']);
    assert.ok(ours.includes('--disable_bug_detectors=.*'));
    assert.ok(ours.some((a) => a.startsWith('--includes=') && a.endsWith('harness/codecs/js.js')));
    assert.deepEqual(once.slice(once.indexOf('--')), ['--', '-timeout=25', '-runs=10']);
  });

  it('instruments the classes of the value target\'s values, not the walk that finds them', function () {
    const included = includedBy(withJazzerFlags(argv));
    assert.ok(included.some((file) => file.endsWith('harness/observe/value-classes.js')));
    assert.ok(included.some((file) => file.endsWith('harness/wire/annotate.js')));
    assert.ok(!included.some((file) => file.endsWith('harness/observe/coverage.js')));
  });

  it('adds its flags once, however often the command line is run again', function () {
    const once = withJazzerFlags(argv);
    assert.deepEqual(withJazzerFlags(withJazzerFlags(once)), once);
  });

  it('instruments what reads the frame and stream targets\' bytes, not the check around them', function () {
    for (const target of ['/x/frame.js', '/x/stream.js']) {
      const args = withJazzerFlags(['node', '/x/launch.js', target, 'corpus', '--sync']);
      const included = includedBy(args);
      assert.ok(included.some((file) => file.endsWith('harness/codecs/framing.js')));
      assert.ok(included.some((file) => file.endsWith('fuzzers/jazzer/inputs.js')));
      assert.ok(!included.some((file) => file.endsWith('harness/oracle/compare.js') ||
        file.endsWith('harness/oracle/canonical.js')));
      assert.ok(!args.some((a) => a.startsWith('--timeout=')));
    }
  });

  it('keeps one node script per binary, which runs that binary with the internals exposed', function () {
    const script = nodeScript();
    // In the project's state folder: a launcher killed, or ended by libFuzzer's exit(), leaves no temporary file.
    assert.equal(path.dirname(script), path.join(__dirname, '..', '..', '.ipcfuzz', 'launchers'));
    assert.equal(nodeScript(), script);
    const other = nodeScript('/other/node');
    fs.rmSync(other);
    assert.notEqual(other, script);
    const out = execFileSync(script, ['-p', "typeof require('internal/test/binding').internalBinding"],
      { encoding: 'utf8' });
    assert.equal(out.trim(), 'function');
    fs.writeFileSync(script, '#!/bin/sh\nexit 3\n');
    assert.equal(nodeScript(), script);
    assert.match(fs.readFileSync(script, 'utf8'), /--expose-internals/);
  });
});
describe('the Jazzer.js target\'s environment', function () {
  const { targetEnv } = require('../../fuzzers/jazzer/engine');
  const sides = { a: { codec: 'js', node: '/a/node' }, b: { codec: 'native', node: '/b/node' } };

  it('carries --timeout to the target, and no limit left over from the caller\'s environment', function () {
    assert.equal(targetEnv({ sides, outDir: '/o', timeoutMs: 2500 }).IPCFUZZ_TIMEOUT, '2500');
    const saved = process.env.IPCFUZZ_TIMEOUT;
    process.env.IPCFUZZ_TIMEOUT = '1';
    try {
      assert.equal(targetEnv({ sides, outDir: '/o' }).IPCFUZZ_TIMEOUT, undefined);
    } finally {
      if (saved === undefined) delete process.env.IPCFUZZ_TIMEOUT;
      else process.env.IPCFUZZ_TIMEOUT = saved;
    }
  });

  it('names the sides, the findings folder and the known list', function () {
    const env = targetEnv({ sides, outDir: '/o', knownFile: null });
    assert.deepEqual([env.IPCFUZZ_A, env.IPCFUZZ_A_NODE, env.IPCFUZZ_B, env.IPCFUZZ_OUT, env.IPCFUZZ_KNOWN],
      ['js', '/a/node', 'native', '/o', '']);
  });
});
