'use strict';
// The synchronous worker (what the Jazzer.js targets drive the codec under
// test with) hands back replies whole, whatever the pipe reads cut.
const assert = require('node:assert/strict');
const { SyncWorker } = require('../../harness/sync-worker');
const { node26 } = require('../fixtures/helpers');

describe('synchronous worker', function () {
  this.timeout(60_000);

  it('keeps characters that a pipe read cuts in two', function () {
    const worker = new SyncWorker(node26, { timeoutMs: 20_000 });
    try {
      // A two-byte character (U+0320 is cc a0 in UTF-8) across reads of 64 KiB:
      // padding of 0 to 5 characters moves the cut through both of its bytes.
      for (let pad = 0; pad < 6; pad++) {
        const recipe = {
          k: 'array', items: [{ k: 'string', v: 'x'.repeat(pad) }, { k: 'string', v: '\u0320', repeat: 30000 }],
        };
        const outcome = worker.request({ op: 'serialize', codec: 'js', input: { recipe }, tree: true });
        assert.equal(outcome.inputTree.props[1][1].v, '\u0320'.repeat(30000), `padding ${pad}`);
      }
    } finally {
      worker.close();
    }
  });
});
