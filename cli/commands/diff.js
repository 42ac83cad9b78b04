'use strict';
// ipcfuzz diff: one input through two codecs, both outcomes side by side.

const fs = require('node:fs');
const path = require('node:path');
const { parse, sideFlags, sessionOptions, checkNewFile } = require('..');
const { Session } = require('../../harness/run/session');
const { loadKnown, classify, splitByScope } = require('../../harness/oracle/known');
const { renderResult, differs } = require('../../harness/findings/report');
const { codecRepro } = require('../../harness/findings/repro/codec');
const { recordCodec } = require('../../harness/findings/reach');
const { titleOf } = require('../../harness/findings/words');
const { UsageError } = require('../../harness/base/errors');
const model = require('../../fuzzers/native/model');
const { streamBytes } = require('../../conformance/vectors');

const about = 'one input through two codecs, both outcomes side by side';
const synopsis = '(--value F.js | --recipe F.json | --frame F.bin | --stream F.bin|F.stream.json) [flags]';
const flags = {
  value: { type: 'string', value: 'F.js', help: 'a module exporting (effects) => value' },
  recipe: { type: 'string', value: 'F.json', help: 'a value recipe (docs/recipes.md)' },
  frame: { type: 'string', value: 'F.bin', help: 'one frame, length prefix included, read in one read' },
  stream: { type: 'string', value: 'F.bin|F.stream.json',
    help: 'a byte stream: raw bytes, or a conformance .stream.json with its parts and read sizes' },
  chunks: { type: 'string', value: 'N,N,...', shown: 'one read, or the .stream.json\'s',
    help: 'with --stream: the sizes of the reads, the rest in a last read' },
  ...sideFlags,
  json: { type: 'boolean', default: false, help: 'print the whole result as JSON' },
  repro: { type: 'string', value: 'FILE',
    help: 'write the short repro.js of the first new difference (a new file): the codec under test called directly' },
};

const inputFlags = ['value', 'recipe', 'frame', 'stream'];

function readInput(values) {
  const given = inputFlags.filter((f) => values[f] !== undefined);
  if (given.length !== 1) throw new UsageError(`give exactly one of ${inputFlags.map((f) => `--${f}`).join(', ')}`);
  const [flag] = given;
  const file = path.resolve(values[flag]);
  if (values.chunks !== undefined && flag !== 'stream') throw new UsageError('--chunks goes with --stream');
  const chunks = parseChunks(values.chunks);
  let data;
  try {
    data = fs.readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${values[flag]}: ${err.code ?? err.message}`);
  }
  // No bytes is no frame: read as one, it would make both codecs agree on nothing.
  if (!data.length && flag !== 'value') throw new UsageError(`--${flag} ${values[flag]} is empty`);
  switch (flag) {
    case 'value': return ['value', { module: file }];
    case 'recipe': return ['value', { recipe: parseJson(data, values.recipe) }];
    case 'frame': return ['frame', { bytes: data.toString('hex') }];
    default: {
      if (!file.endsWith('.stream.json')) return ['stream', { bytes: data.toString('hex'), chunks: chunks ?? [] }];
      const spec = streamBytes(parseJson(data, values.stream), values.stream);
      return ['stream', { bytes: spec.bytes, chunks: chunks ?? spec.chunks }];
    }
  }
}

function parseJson(data, name) {
  try {
    return JSON.parse(data.toString('utf8'));
  } catch (err) {
    throw new UsageError(`${name} is not valid JSON: ${err.message}`);
  }
}

function parseChunks(text) {
  if (text === undefined) return undefined;
  const sizes = text.split(',').map((s) => (s.trim() === '' ? NaN : Number(s)));
  if (sizes.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new UsageError(`--chunks must be a comma-separated list of sizes, got ${JSON.stringify(text)}`);
  }
  return sizes;
}

function writeRepro(file, script) {
  try {
    fs.writeFileSync(file, script, { flag: 'wx', mode: 0o755 });
  } catch (err) {
    throw new UsageError(`cannot write --repro ${file}: ${err.code ?? err.message}`);
  }
}

// The short repro.js of a result's first new difference (else of its first operation), with what codec a did recorded.
async function reproOf(result, sides, command) {
  const difference = result.differences.find((d) => !d.known) ??
    { signature: `same/${result.type === 'value' ? 'serialize' : 'stream'}/-`, tier: 'same', where: '', detail: '' };
  const side = (s) => ({ codec: s.codec, node: s.node, version: s.info.node });
  const meta = { ...difference, type: result.type, input: result.input, outcomes: result.outcomes,
    sides: { a: side(sides.a), b: side(sides.b) } };
  const recorded = await recordCodec(meta, { build: sides.b.node });
  const title = difference.tier === 'same' ? `${command}: the codecs agree` : titleOf(meta);
  return codecRepro(meta, { title, expected: recorded.expected ?? null });
}

async function run(args) {
  const values = parse(args, flags);
  const options = sessionOptions(values);
  const known = loadKnown(options.knownFile);
  const [type, input] = readInput(values);
  if (values.repro !== undefined) checkNewFile(values.repro, 'repro');
  const session = new Session(options);
  try {
    const checked = await session.check(type, input);
    if (checked.skipped) throw new UsageError(`the value could not be built: ${checked.skipped.split('\n')[0]}`);
    const applies = splitByScope(known, session.sides).applies;
    const result = { ...checked, differences: classify(checked.differences, applies) };
    if (type !== 'value' && model.available()) result.model = model.verdictLines(Buffer.from(input.bytes, 'hex'));
    if (values.json) console.log(JSON.stringify({ sides: session.sides, ...result }, null, 2));
    else console.log(renderResult(result, session.sides));
    if (values.repro !== undefined) {
      const given = inputFlags.find((f) => values[f] !== undefined);
      writeRepro(values.repro, await reproOf(result, session.sides, `ipcfuzz diff --${given} ${values[given]}`));
    }
    return differs(result.differences) ? 1 : 0;
  } finally {
    session.close();
  }
}

module.exports = { run, about, synopsis, flags };
