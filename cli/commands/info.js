'use strict';
const { parse } = require('..');
const { resolveNode, probeNode, defaultVersion } = require('../../harness/base/binaries');

const about = 'node and V8 version, codecs and framer of a node binary';
const flags = {
  node: { type: 'string', value: 'PATH|VERSION', shown: defaultVersion, help: 'the node binary' },
  json: { type: 'boolean', default: false, help: 'print as JSON' },
};

async function run(args) {
  const values = parse(args, flags);
  const nodePath = resolveNode(values.node);
  const info = probeNode(nodePath);
  if (values.json) {
    console.log(JSON.stringify({ path: nodePath, ...info }, null, 2));
    return 0;
  }
  const yes = (v) => (v ? 'yes' : 'no');
  console.log([
    `node        ${info.node} (${nodePath})`,
    `v8          ${info.v8}`,
    `ipc_serdes  ${info.ipcSerdes ? `yes: ${info.ipcSerdesExports.join(', ')}` : 'no'}`,
    `framer      ${yes(info.framer)} (IPCChannelFramer)`,
    `builtin     ${info.builtin ? (info.builtinUsesNative ? 'native glue' : 'JS codec') : 'missing'}`,
    `codecs      js${info.ipcSerdes ? ', native' : ''}${info.builtin ? ', builtin' : ''}`,
    `Float16Array ${yes(info.float16Array)}`,
  ].join('\n'));
  return 0;
}

module.exports = { run, about, flags };
