'use strict';
const assert = require('node:assert');
const { spawn } = require('node:child_process');
const { onLines, onJsonLines, afterOutput, stringifyDeep } = require('../../harness/base/json-lines');

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
  it('writes a message as JSON.stringify does, BigInts as their digits and n', function () {
    const messages = [
      { a: 1, b: 'x"y\n', c: [1, undefined, null, () => 1, Symbol('s')], d: undefined, e: NaN, f: -0, g: true },
      [{ t: 'view', bytes: Buffer.from('ab') }, new Date(0), {}, [], [[]], ''],
      { id: 3, parts: [{ outcome: { kind: 'ok', tree: { t: 'map', entries: [[{ t: 'number', v: 1 }, null]] } } }] },
    ];
    for (const message of messages) assert.equal(stringifyDeep(message), JSON.stringify(message));
    assert.equal(stringifyDeep({ v: 12n, list: [-3n] }), '{"v":"12n","list":["-3n"]}');
  });

  // The tree of a value nested past the stack limit, as a worker's answer may hold.
  it('writes a message nested deeper than JSON.stringify reaches, which JSON.parse reads back', function () {
    const depth = 100_000;
    const root = { t: 'object', props: [] };
    let node = root;
    for (let i = 0; i < depth; i++) {
      const inner = { t: 'object', props: [] };
      node.props.push(['a', inner]);
      node = inner;
    }
    assert.throws(() => JSON.stringify(root), RangeError);
    let back = JSON.parse(stringifyDeep(root));
    let levels = 0;
    while (back.props.length) {
      back = back.props[0][1];
      levels++;
    }
    assert.equal(levels, depth);
  });

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
