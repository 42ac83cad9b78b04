'use strict';
// The differences of inputs a process checked before, by their text, for the
// Jazzer.js targets (sync-session.js): libFuzzer's mutations often decode to
// an input checked before (62% of the inputs of a 30-second value run, 41% of
// its checking time), and the same input checked by the same codecs in the
// same process gets the same result. It is the reasoning of the requests that
// took a worker down (sync-session.js): a difference that only process
// history causes would not stand in the fresh processes that confirm every
// finding. A result given again holds its type, input and differences, all
// that a fuzz loop reads of it: the outcomes (frames, the trees of what was
// decoded) made the process's heap several times larger, and each major
// collection as much slower (in a 20-second value run, the garbage collector
// had 11 and 18% of the two processes' time, 6 and 8% without them). The
// input is the one asked about: its text is the key, and keeping the object
// too (a recipe's every node) doubled what the entries held.
// The 8,192 inputs used last are kept (59% of a value run's inputs are one
// of them, 55% of the 2,048 last), up to 32 MiB of their text; an input of
// more than a MiB (rare) is checked each time.

const kEntries = 8192;
const kWeight = 32 << 20;
const kMaxWeight = 1 << 20;

class CheckedBefore {
  constructor() {
    this.results = new Map();  // key -> what is kept of its result, the least recently used first
    this.weight = 0;           // the keys' length, all told
    this.hits = 0;
  }

  // The result of the check `type` of `input`: its differences remembered,
  // or the whole result that check() gives.
  get(type, input, check) {
    const key = `${type}\t${JSON.stringify(input)}`;
    const known = this.results.get(key);  // null: nothing to check
    if (known !== undefined) {
      this.hits++;
      this.results.delete(key);
      this.results.set(key, known);
      return known && { ...known, input };
    }
    const result = check();
    if (result === undefined) return result;  // no result: the check's worker crashed or hung
    if (key.length <= kMaxWeight) {
      for (const oldest of this.results.keys()) {
        if (this.weight + key.length <= kWeight && this.results.size < kEntries) break;
        this.results.delete(oldest);
        this.weight -= oldest.length;
      }
      this.results.set(key, result && { type: result.type, differences: result.differences });
      this.weight += key.length;
    }
    return result;
  }
}

module.exports = { CheckedBefore };
