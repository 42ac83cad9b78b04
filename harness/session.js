'use strict';
// Two sides under comparison, each a codec in a node binary, and the checks
// that run one input through both. Each binary gets one worker process.

const path = require('node:path');
const { WorkerProcess } = require('./pool');
const { resolveNode, probeNode } = require('./nodes');
const { compareOutcomes, compareReads } = require('./compare');
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
  }

  worker(nodePath) {
    if (!this.workers.has(nodePath)) {
      this.workers.set(nodePath, new WorkerProcess(nodePath, { timeoutMs: this.timeoutMs }));
    }
    return this.workers.get(nodePath);
  }

  run(sideName, request) {
    const side = this.sides[sideName];
    return this.worker(side.node).request({ ...request, codec: side.codec });
  }

  both(request) {
    return Promise.all([this.run('a', request), this.run('b', request)]);
  }

  // input: { recipe } or { module }. Serializes with both codecs, then decodes
  // every frame that came out with both.
  async checkValue(input) {
    const [sa, sb] = await this.both({ op: 'serialize', input });
    const outcomes = { serialize: { a: sa, b: sb }, decode: [] };
    const differences = compareOutcomes('serialize', 'serialize', sa, sb);
    const frames = [['a', sa], ['b', sb]].filter(([, o]) => o.kind === 'ok');
    if (frames.length === 2 && sa.bytes === sb.bytes) frames.pop();
    for (const [producer, outcome] of frames) {
      const [da, db] = await this.both({ op: 'deserialize', bytes: outcome.bytes.slice(8) });
      outcomes.decode.push({ producer, a: da, b: db });
      differences.push(...compareOutcomes('deserialize', `decode ${producer}'s frame`, da, db));
    }
    return { type: 'value', input, outcomes, differences };
  }

  // A whole frame (length prefix included), fed to a fresh framer as one read.
  async checkFrame(bytes) {
    const result = await this.checkStream(bytes, []);
    return { ...result, type: 'frame' };
  }

  // A byte stream cut into reads of the given sizes, the rest as a last read.
  async checkStream(bytes, chunks) {
    const hex = Buffer.from(bytes).toString('hex');
    const [oa, ob] = await this.both({ op: 'stream', bytes: hex, chunks });
    const differences = oa.kind === 'ok' && ob.kind === 'ok' ?
      compareReads(oa.reads, ob.reads) :
      compareOutcomes('stream', 'framer', oa, ob);
    return { type: 'stream', input: { bytes: hex, chunks }, outcomes: { stream: { a: oa, b: ob } }, differences };
  }

  stats() {
    const total = { requests: 0, crashes: 0, hangs: 0, restarts: 0 };
    for (const w of this.workers.values()) for (const k of Object.keys(total)) total[k] += w.stats[k];
    return total;
  }

  close() {
    for (const w of this.workers.values()) w.close();
  }
}

module.exports = { Session, resolveCodec };
