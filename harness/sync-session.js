'use strict';
// The synchronous sibling of session.js, for the Jazzer.js targets, whose
// fuzz function must return before the next input. The sides come resolved
// (the orchestrator checked them); each binary gets one SyncWorker, and a js
// side in this very binary runs in this process, where Jazzer.js instruments
// the reference codec, so coverage follows the tags and views it decodes.

const { SyncWorker } = require('./sync-worker');
const { runSync } = require('./checks');
const { confirmSync } = require('./confirm');
const { createOps } = require('./ops');
const { buildInput } = require('./recipes/build');

class SyncSession {
  // sides: { a, b } each { codec, node, info }; onLoss(kind): a worker crashed or hung.
  constructor({ sides, timeoutMs, onLoss = () => {} }) {
    Object.assign(this, { sides, timeoutMs, onLoss });
    this.ops = createOps(buildInput);
    this.workers = new Map();
  }

  worker(nodePath) {
    if (!this.workers.has(nodePath)) {
      this.workers.set(nodePath, new SyncWorker(nodePath, { timeoutMs: this.timeoutMs }));
    }
    return this.workers.get(nodePath);
  }

  inProcess(sideName) {
    return this.sides[sideName].codec === 'js' && this.sides[sideName].node === process.execPath;
  }

  run(sideName, request) {
    const withCodec = { ...request, codec: this.sides[sideName].codec };
    if (this.inProcess(sideName)) return this.ops[request.op](withCodec);
    const outcome = this.worker(this.sides[sideName].node).request(withCodec);
    if (outcome.kind === 'crash' || outcome.kind === 'hang') this.onLoss(outcome.kind);
    return outcome;
  }

  check(type, input) {
    return runSync(type, (side, request) => this.run(side, request), input);
  }

  // As Session.confirm, in fresh synchronous workers.
  confirm(type, input, difference) {
    return confirmSync({
      type, input, difference, sides: this.sides,
      startWorker: (nodePath) => new SyncWorker(nodePath, { timeoutMs: this.timeoutMs }),
    });
  }
}

module.exports = { SyncSession };
