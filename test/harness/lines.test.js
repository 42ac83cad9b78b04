'use strict';
const assert = require('node:assert');
const { spawn } = require('node:child_process');
const { onLines, onJsonLines, afterOutput } = require('../../harness/base/json-lines');

describe('lines', function () {
  it('gives each line once, whole, however the text is cut', function () {
    const { PassThrough } = require('node:stream');
    const stream = new PassThrough();
    const seen = [];
    onLines(stream, (line) => seen.push(line));
    for (const piece of ['a', 'b\ncd', '\n\n', 'e'.repeat(70000), 'f\ng']) stream.write(piece);
    assert.deepEqual(seen, ['ab', 'cd', '', `${'e'.repeat(70000)}f`]);
  });

  it('gives each JSON line as its value, and nothing for a blank line', function () {
    const { PassThrough } = require('node:stream');
    const stream = new PassThrough();
    const seen = [];
    onJsonLines(stream, (message) => seen.push(message));
    stream.write('{"id":1}\n\n  \n[2]\n');
    assert.deepEqual(seen, [{ id: 1 }, [2]]);
  });

  // 'exit' can come before the last lines are read: here they are written
  // late, by a process the child left behind, as a target's workers can.
  it('reports how a child ended only after its last lines', async function () {
    const child = spawn('sh', ['-c', '(sleep 0.2; echo "last words" >&2) & kill -SEGV $$'],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    const lines = [];
    onLines(child.stderr, (line) => lines.push(line));
    const [, signal] = await new Promise((resolve) => afterOutput(child, (...how) => resolve(how)));
    assert.equal(signal, 'SIGSEGV');
    assert.deepEqual(lines, ['last words']);
  });

  it('does not wait for a pipe a grandchild keeps open', async function () {
    const child = spawn('sh', ['-c', 'sleep 5 & echo $! >&2'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let sleeper;
    onLines(child.stderr, (line) => { sleeper = +line; });
    const started = Date.now();
    const [code] = await new Promise((resolve) => afterOutput(child, (...how) => resolve(how), 200));
    process.kill(sleeper);
    assert.equal(code, 0);
    assert.ok(Date.now() - started < 2000);
  });
});
