'use strict';
// What a figure was measured on: date, cores, CPU model, memory, load, and
// the node binaries, so that a table pasted elsewhere keeps its context.

const fs = require('node:fs');
const os = require('node:os');
const { probeNode } = require('../harness/base/binaries');

function cpuModel() {
  try {
    return /^model name\s*:\s*(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model;
  } catch {
    return os.cpus()[0]?.model;
  }
}

function machine() {
  return {
    date: new Date().toISOString(),
    cores: os.availableParallelism?.() ?? os.cpus().length,
    cpu: cpuModel(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    kernel: `${os.type()} ${os.release()}`,
    hostNode: process.version,
    loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))),
  };
}

function binary(role, node) {
  const info = probeNode(node);
  return { role, node, version: info.node, v8: info.v8, codec: info.builtinUsesNative ? 'native' : 'JavaScript' };
}

module.exports = { machine, binary };
