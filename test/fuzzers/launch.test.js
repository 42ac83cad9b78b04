'use strict';
// The launcher's Jazzer.js flags: libFuzzer's fork, merge and minimize modes
// run the launcher's command line again, and Jazzer.js refuses a flag such as
// --timeout given twice.
const assert = require('node:assert/strict');
const { withJazzerFlags } = require('../../fuzzers/jazzer/launch');

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

  it('adds its flags once, however often the command line is run again', function () {
    const once = withJazzerFlags(argv);
    assert.deepEqual(withJazzerFlags(withJazzerFlags(once)), once);
  });

  it('instruments everything of the frame and stream targets, as Jazzer.js does by default', function () {
    const frame = withJazzerFlags(['node', '/x/launch.js', '/x/frame.js', 'corpus', '--sync']);
    assert.ok(!frame.some((a) => a.startsWith('--includes=')));
    assert.ok(!frame.some((a) => a.startsWith('--timeout=')));
  });
});
