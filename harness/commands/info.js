'use strict';
const { parse } = require('../cli');
const { resolveNode, probeNode } = require('../nodes');

async function run(args) {
  const flags = parse(args, { node: { type: 'string' }, json: { type: 'boolean', default: false } });
  const nodePath = resolveNode(flags.node);
  const info = probeNode(nodePath);
  if (flags.json) {
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

module.exports = { run };
