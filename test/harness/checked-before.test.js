'use strict';
// The results a Jazzer.js target remembers: an input checked before, word
// for word, gets its differences again without a check, and what is
// remembered stays within its bound.
const assert = require('node:assert/strict');
const { CheckedBefore } = require('../../harness/run/checked-before');

// A check that counts its runs; its result holds a frame and a difference.
function counting() {
  const check = (input) => {
    check.runs++;
    const written = { kind: 'ok', bytes: 'ab'.repeat(64) };
    return { type: 'value', input, differences: [{ signature: 'value/deserialize/x.y' }],
      outcomes: { serialize: { a: written, b: { ...written } } } };
  };
  check.runs = 0;
  return check;
}

const number = (v) => ({ recipe: { k: 'number', v } });
// An input whose text is about `bytes` long.
const long = (bytes, i = 0) => ({ recipe: { k: 'string', v: `${i}`.padEnd(bytes, '.') } });

describe('results checked before', function () {
  it('give an input checked before, word for word, its differences again, not its outcomes', function () {
    const memo = new CheckedBefore();
    const check = counting();
    const first = memo.get('value', number(1), () => check(number(1)));
    assert.ok(first.outcomes, 'a check gives its whole result');
    const again = memo.get('value', number(1), () => check(number(1)));
    assert.equal(check.runs, 1);
    assert.deepEqual(again, { type: 'value', input: first.input, differences: first.differences });
    memo.get('value', number(2), () => check(number(2)));
    memo.get('roundtrip', number(1), () => check(number(1)));
    assert.equal(check.runs, 3, 'another input or another check is checked');
    assert.equal(memo.hits, 1);
  });

  it('keep no input of more than a MiB of text, and 8,192 inputs at most', function () {
    const memo = new CheckedBefore();
    const check = counting();
    memo.get('value', long(1.2 * 1024 * 1024), check);
    memo.get('value', long(1.2 * 1024 * 1024), check);
    assert.equal(check.runs, 2);
    assert.equal(memo.results.size, 0);
    for (let i = 0; i < 9000; i++) memo.get('value', number(i), check);
    assert.equal(memo.results.size, 8192);
  });

  it('forget the least recently used first, and hold about 32 MiB of text at most', function () {
    const memo = new CheckedBefore();
    const check = counting();
    const input = (i) => long(256 * 1024, i);
    memo.get('value', input(0), check);
    for (let i = 1; i < 200; i++) {
      memo.get('value', input(i), check);
      memo.get('value', input(0), check);  // used again each time: kept
    }
    assert.ok(memo.weight <= 32 << 20, `${memo.weight}`);
    assert.ok(memo.results.size < 200 && memo.results.size > 100, `${memo.results.size} kept`);
    const runs = check.runs;
    memo.get('value', input(0), check);
    memo.get('value', input(199), check);
    assert.equal(check.runs, runs, 'the most recent are kept');
    memo.get('value', input(1), check);
    assert.equal(check.runs, runs + 1, 'the oldest went');
  });
});
