'use strict';
// The differences of inputs a process checked before, by their text, for a
// blocking session (session.js): libFuzzer's mutations often decode to an
// input checked before, and the same input checked by the same codecs in the
// same process gets the same result; a difference that only process history
// causes would not stand in the fresh processes that confirm every finding.
// A result given again holds its type, input and differences, all that a fuzz
// loop reads of it: keeping the outcomes too made every garbage collection
// slower. The input's text is the key; the object is not kept. The inputs
// used last are kept, up to a weight of their text; a very large one is
// checked each time.

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
