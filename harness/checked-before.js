'use strict';
// The results of inputs a process checked before, by their text, for the
// Jazzer.js targets (sync-session.js): libFuzzer's mutations often decode to
// an input checked before (62% of the inputs of a 30-second value run, 41% of
// its checking time), and the same input checked by the same codecs in the
// same process gets the same result. It is the reasoning of the requests that
// took a worker down (sync-session.js): a difference that only process
// history causes would not stand in the fresh processes that confirm every
// finding. The 2,048 results used last are kept (they catch 55% of a value
// run's inputs, against 59% for 8,192 and about 280 MiB more of the target's peak
// RSS), up to 32 MiB of the frames they hold; one that holds more than a MiB
// (a heavy value, rare) is checked each time.

const kEntries = 2048;
const kWeight = 32 << 20;
const kMaxWeight = 1 << 20;

// About how much memory a result holds: its input's text and the frames
// written (what was decoded from them is about as large).
function weightOf(key, result) {
  const { a, b } = result?.outcomes?.serialize ?? {};
  const length = (outcome) => (typeof outcome?.bytes === 'string' ? outcome.bytes.length : 0);
  return key.length + length(a) + (b?.bytes === a?.bytes ? 0 : length(b));
}

class CheckedBefore {
  constructor() {
    this.results = new Map();  // key -> { result, weight }, the least recently used first
    this.weight = 0;
    this.hits = 0;
  }

  // The result of the check `type` of `input`: remembered, or what check() gives.
  get(type, input, check) {
    const key = `${type}\t${JSON.stringify(input)}`;
    const known = this.results.get(key);
    if (known) {
      this.hits++;
      this.results.delete(key);
      this.results.set(key, known);
      return known.result;
    }
    const result = check();
    if (result === undefined) return result;  // no result: the check's worker crashed or hung
    const weight = weightOf(key, result);
    if (weight <= kMaxWeight) {
      for (const [oldest, { weight: w }] of this.results) {
        if (this.weight + weight <= kWeight && this.results.size < kEntries) break;
        this.results.delete(oldest);
        this.weight -= w;
      }
      this.results.set(key, { result, weight });
      this.weight += weight;
    }
    return result;
  }
}

module.exports = { CheckedBefore };
