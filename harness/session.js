'use strict';
// Two sides under comparison, each a codec in a node binary, and the checks
// that run one input through both. Each binary gets one worker process.

const path = require('node:path');
const { WorkerProcess } = require('./worker-process');
const { resolveNode, probeNode } = require('./binaries');
const { runAsync } = require('./checks');
const { confirmAsync } = require('./confirm');
const { builtinCodecs } = require('./codecs');
const { EnvironmentError, UsageError } = require('./errors');
const fs = require('node:fs');

function resolveCodec(spec) {
  if (builtinCodecs.includes(spec)) return spec;
  const file = path.resolve(spec);
  if (!fs.existsSync(file)) {
    throw new UsageError(`codec ${JSON.stringify(spec)} is neither ${builtinCodecs.join(', ')} nor an adapter file`);
  }
  return file;
}

function checkSide(side) {
  const info = probeNode(side.node);
  if (side.codec === 'native' && !info.ipcSerdes) {
    throw new EnvironmentError(`node ${info.node} (${side.node}) has no internalBinding('ipc_serdes'): codec native needs 26.4.0+ or 24.19.0+`);
  }
  if (side.codec === 'builtin' && !info.builtin) {
    throw new EnvironmentError(`node ${info.node} has no internal/child_process/serialization`);
  }
  return { ...side, info };
}

class Session {
  // sides: { a: { codec, node }, b: { codec, node } }, node as a path or version.
  constructor({ a, b, timeoutMs }) {
    this.sides = {};
    for (const [name, side] of Object.entries({ a, b })) {
      this.sides[name] = checkSide({ codec: resolveCodec(side.codec), node: resolveNode(side.node) });
    }
    this.timeoutMs = timeoutMs;
    this.workers = new Map();
    this.freshWorkers = new Set();
    this.closed = false;
  }

  worker(nodePath) {
    if (!this.workers.has(nodePath)) {
      const worker = new WorkerProcess(nodePath, { timeoutMs: this.timeoutMs });
      if (this.closed) worker.close();
      this.workers.set(nodePath, worker);
    }
    return this.workers.get(nodePath);
  }

  run(sideName, request) {
    const side = this.sides[sideName];
    return this.worker(side.node).request({ ...request, codec: side.codec });
  }

  check(type, input) {
    return runAsync(type, (side, request) => this.run(side, request), input);
  }

  // Whether a difference of this input stands with both sides in fresh
  // processes (see confirm.js); false means it depends on process history.
  confirm(type, input, difference) {
    return confirmAsync({
      type, input, difference, sides: this.sides,
      startWorker: (nodePath) => {
        for (const w of this.freshWorkers) if (w.closed) this.freshWorkers.delete(w);
        const worker = new WorkerProcess(nodePath, { timeoutMs: this.timeoutMs });
        if (this.closed) worker.close();
        this.freshWorkers.add(worker);
        return worker;
      },
    });
  }

  stats() {
    const total = { requests: 0, crashes: 0, hangs: 0, restarts: 0 };
    for (const w of this.workers.values()) for (const k of Object.keys(total)) total[k] += w.stats[k];
    return total;
  }

  // Ends every worker; checks still running end with a StoppedError.
  close() {
    this.closed = true;
    for (const w of [...this.workers.values(), ...this.freshWorkers]) w.close();
  }
}

module.exports = { Session, resolveCodec };
