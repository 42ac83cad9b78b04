'use strict';
// ipcfuzz inspect FILE.bin [--model]: the frames of a byte stream as an
// annotated hex dump after its format (the V8 header version and the known
// readers that accept it, or that it is not V8's format) and, with --model, what the C model of the format
// (fuzzers/native/model.js) says of each frame.

const fs = require('node:fs');
const { parse } = require('..');
const { hexdump } = require('../../harness/wire/hexdump');
const { wireFormat } = require('../../harness/wire/annotate');
const { readersOf } = require('../../harness/wire/tags');
const { UsageError } = require('../../harness/base/errors');

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
  const format = wireFormat(bytes);
  const lines = [];
  // hexdump names any other format itself.
  if (format.format === 'v8' && format.version !== null) {
    lines.push(`format: V8 header version ${format.version} (${readersOf(format.version)})`);
  }
  lines.push(hexdump(bytes));
  if (values.model) lines.push('', ...require('../../fuzzers/native/model').verdictLines(bytes));
  console.log(lines.join('\n'));
  return 0;
}

module.exports = { run, about, synopsis, flags };
