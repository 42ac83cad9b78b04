'use strict';
// A worker's fault comes back as what it was: the input's or the
// environment's said in a line, a bug of ipcfuzz as an internal error with
// the worker's stack, never as the environment's fault.
const assert = require('node:assert/strict');
const { faultOf, faultError } = require('../../harness/run/protocol');
const { UsageError, EnvironmentError } = require('../../harness/base/errors');

// What a worker would answer for err, and what the host then throws.
const across = (err) => faultError(JSON.parse(JSON.stringify(faultOf(err))));

describe('worker faults', function () {
  it('keeps a usage or environment fault as one, with its message', function () {
    const usage = across(new UsageError('recipe at $: no kind'));
    assert.ok(usage instanceof UsageError);
    assert.equal(usage.message, 'recipe at $: no kind');
    const environment = across(new EnvironmentError('cannot start node'));
    assert.ok(environment instanceof EnvironmentError);
    assert.equal(environment.message, 'cannot start node');
  });

  it('gives an internal fault as an internal error, with the worker\'s stack', function () {
    let thrown;
    try {
      (function deep() { deep(); })();
    } catch (err) {
      thrown = err;
    }
    const err = across(thrown);
    assert.ok(!(err instanceof UsageError) && !(err instanceof EnvironmentError),
      'said as the tool\'s input or environment');
    assert.equal(err.message, 'in a worker: RangeError: Maximum call stack size exceeded');
    assert.match(err.stack, /^Error: in a worker: RangeError: Maximum call stack size exceeded\n\s+at deep /);
  });
});
