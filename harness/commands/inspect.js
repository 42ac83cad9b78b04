'use strict';
// ipcfuzz inspect FILE.bin [--model]: the frames of a byte stream as an
// annotated hex dump and, with --model, what the C model of the format
// (harness/model.js) says of each frame.

const fs = require('node:fs');
const { parseArgs } = require('node:util');
const { hexdump } = require('../hexdump');
const { UsageError } = require('../errors');

async function run(args) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { model: { type: 'boolean', default: false } }, allowPositionals: true });
  } catch (err) {
    throw new UsageError(err.message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('give one file: ipcfuzz inspect FILE.bin [--model]');
  let bytes;
  try {
    bytes = fs.readFileSync(positionals[0]);
  } catch (err) {
    throw new UsageError(`cannot read ${positionals[0]}: ${err.code ?? err.message}`);
  }
  const lines = [hexdump(bytes)];
  if (values.model) lines.push('', ...require('../model').verdictLines(bytes));
  console.log(lines.join('\n'));
  return 0;
}

module.exports = { run };
