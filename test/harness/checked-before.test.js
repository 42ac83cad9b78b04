'use strict';
// The results a Jazzer.js target remembers: an input checked before, word
// for word, gets its result again without a check, and what is remembered
// stays within its bound.
const assert = require('node:assert/strict');
const { CheckedBefore } = require('../../harness/checked-before');

// A check that counts its runs; its result holds a frame of `bytes` bytes (as hex).
function counting(bytes = 4) {
  const check = () => {
    check.runs++;
    const hex = 'ab'.repeat(bytes);
    const written = { kind: 'ok', bytes: hex };
    return { differences: [], outcomes: { serialize: { a: written, b: { ...written } } } };
  };
  check.runs = 0;
  return check;
}

describe('results checked before', function () {
  it('are given again for the same check of the same input, word for word', function () {
    const memo = new CheckedBefore();
    const check = counting();
    const first = memo.get('value', { recipe: { k: 'number', v: 1 } }, check);
    assert.equal(memo.get('value', { recipe: { k: 'number', v: 1 } }, check), first);
    assert.equal(check.runs, 1);
    memo.get('value', { recipe: { k: 'number', v: 2 } }, check);
    memo.get('roundtrip', { recipe: { k: 'number', v: 1 } }, check);
    assert.equal(check.runs, 3, 'another input or another check is checked');
    assert.equal(memo.hits, 1);
  });

  it('keep no result that holds more than a MiB of frames, and 2,048 results at most', function () {
    const memo = new CheckedBefore();
    const check = counting(600 * 1024);  // 1.2 MiB of hex
    memo.get('value', { recipe: { k: 'null' } }, check);
    memo.get('value', { recipe: { k: 'null' } }, check);
    assert.equal(check.runs, 2);
    assert.equal(memo.results.size, 0);
    const small = counting();
    for (let i = 0; i < 3000; i++) memo.get('value', { recipe: { k: 'number', v: i } }, small);
    assert.equal(memo.results.size, 2048);
  });

  it('forget the least recently used first, and hold about 32 MiB at most', function () {
    const memo = new CheckedBefore();
    const check = counting(128 * 1024);  // 256 KiB of hex a result
    const input = (i) => ({ recipe: { k: 'number', v: i } });
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
