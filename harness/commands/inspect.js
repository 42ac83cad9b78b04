'use strict';
// ipcfuzz inspect FILE.bin [--model]: the frames of a byte stream as an
// annotated hex dump and, with --model, what the C model of the format
// (harness/model.js) says of each frame.

const fs = require('node:fs');
const { parse } = require('../cli');
const { hexdump } = require('../hexdump');
const { UsageError } = require('../errors');

const about = 'annotated hex dump of the frames of a file';
const synopsis = 'FILE.bin [--model]';
const flags = {
  model: { type: 'boolean', default: false, help: "add the C model's verdict on each frame" },
};

async function run(args) {
  const { values, positionals } = parse(args, flags, { positionals: true });
  if (positionals.length !== 1) throw new UsageError('give one file: ipcfuzz inspect FILE.bin [--model]');
  let bytes;
  try {
    bytes = fs.readFileSync(positionals[0]);
  } catch (err) {
    throw new UsageError(`cannot read ${positionals[0]}: ${err.code ?? err.message}`);
  }
  if (!bytes.length) throw new UsageError(`${positionals[0]} is empty`);
  const lines = [hexdump(bytes)];
  if (values.model) lines.push('', ...require('../model').verdictLines(bytes));
  console.log(lines.join('\n'));
  return 0;
}

module.exports = { run, about, synopsis, flags };
