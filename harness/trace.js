'use strict';
// A trace of the checks and codec requests a run made, one JSON line each,
// for the bench's bare cost (bench/bare-cost.js times their codec calls
// alone). Lines are written a megabyte at a time, or once a second: a write
// per line would cost the run itself as much as a batch worker's reply does,
// and a Jazzer.js target interrupted by libFuzzer ends without running its
// exit handlers, so what it holds at the end is lost (its lines are numbered
// for that, see bench/engine-run.js). None is made for a trace nobody reads.

const fs = require('node:fs');
const os = require('node:os');
const { onRecipes, mapRecipes } = require('./recipe-checks');

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

  // Whether the next record is one to write.
  drawn() {
    return !this.discard && !this.paused && (this.every <= 1 || Math.random() * this.every < 1);
  }

  write(record) {
    if (this.drawn()) this.add(`${JSON.stringify(record)}\n`);
  }

  // A check of a batch.
  writeCheck(check, input, codecs) {
    if (this.drawn()) this.add(this.checkLine(check, input, codecs));
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
