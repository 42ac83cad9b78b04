'use strict';
// A trace of the checks and codec requests a run made, one JSON line each,
// for the bench's bare cost (bench/bare-cost.js times their codec calls
// alone). Lines are written a megabyte at a time, or once a second: a write
// per line would cost the run itself as much as a batch worker's reply does,
// and a Jazzer.js target interrupted by libFuzzer ends without running its
// exit handlers, so what it holds at the end is lost (its lines are numbered
// for that, see bench/engine-run.js). None is made for a trace nobody reads.
// A record drawn one time in `every` is weighted so (`w`): it stands for
// that many. A heavy value (recipes/weight.js) is written every time, with
// weight 1: a few of them make most of a run's codec cost, and drawn one in
// ten they made the bare cost of one target swing from run to run.

const fs = require('node:fs');
const os = require('node:os');
const { onRecipes, serializedRecipe, mapRecipes } = require('../oracle/from-recipes');
const { isHeavyValue } = require('../recipes/weight');

class Trace {
  static kFlush = 1 << 20;
  static kFlushMs = 1000;
  // Where a recipe goes in the JSON of a frame or stream check, pasted in after.
  static kRecipe = '\u0000recipe';

  // every: one record in `every`, drawn at random (a fixed stride could
  // follow fast-check's bias, which grows along a turn), is written.
  constructor(file, { every = 1 } = {}) {
    this.fd = fs.openSync(file, 'w');
    this.discard = file === os.devNull;
    this.every = every;
    this.pending = [];
    this.size = 0;
    this.flushedAt = Date.now();
    this.recipes = new WeakMap();  // recipe -> its JSON
    this.paused = false;  // while true, nothing is written
  }

  // The weight of the next record, whose value is made from `recipe` (if
  // any): 0 when it is not to be written, 1 for a heavy value, else `every`
  // for the one record in `every` drawn at random.
  weight(recipe) {
    if (this.discard || this.paused) return 0;
    if (this.every <= 1 || isHeavyValue(recipe ?? null)) return 1;
    return Math.random() * this.every < 1 ? this.every : 0;
  }

  // The weight of the next record of a check on `input`.
  checkWeight(check, input) {
    return this.weight(serializedRecipe(check, input));
  }

  // A codec request.
  write(record) {
    const w = this.weight(record.op === 'serialize' ? record.input?.recipe : undefined);
    if (w) this.add(`${JSON.stringify({ w, ...record })}\n`);
  }

  // A check of a batch.
  writeCheck(check, input, codecs) {
    const w = this.checkWeight(check, input);
    if (w) this.add(this.checkLine(check, input, codecs, { w }));
  }

  // The line of a check, after `fields`. The recipes of a frame or stream
  // check come from a small pool, each turned into JSON once, as the batch
  // workers are sent them.
  checkLine(check, input, codecs, fields = {}) {
    if (!onRecipes(check)) return `${JSON.stringify({ ...fields, check, input, codecs })}\n`;
    const texts = [];
    const shell = mapRecipes(check, input, (recipe) => {
      if (!this.recipes.has(recipe)) this.recipes.set(recipe, JSON.stringify(recipe));
      texts.push(this.recipes.get(recipe));
      return Trace.kRecipe;
    });
    const json = JSON.stringify({ ...fields, check, input: shell, codecs });
    return `${json.replaceAll(JSON.stringify(Trace.kRecipe), () => texts.shift())}\n`;
  }

  add(line) {
    this.pending.push(line);
    this.size += line.length;
    if (this.size >= Trace.kFlush || Date.now() - this.flushedAt >= Trace.kFlushMs) this.flush();
  }

  flush() {
    fs.writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.size = 0;
    this.flushedAt = Date.now();
  }

  close() {
    this.flush();
    fs.closeSync(this.fd);
  }
}

module.exports = { Trace };
