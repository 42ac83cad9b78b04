'use strict';
// ipcfuzz diff: one input through two codecs, both outcomes side by side.

const fs = require('node:fs');
const path = require('node:path');
const { parse, sideFlags, sessionOptions } = require('../cli');
const { Session } = require('../session');
const { loadKnown, classify } = require('../known');
const { renderResult } = require('../report');
const { reproScript } = require('../repro');
const { UsageError } = require('../errors');
const model = require('../model');

const inputFlags = ['value', 'recipe', 'frame', 'stream'];

function readInput(flags) {
  const given = inputFlags.filter((f) => flags[f] !== undefined);
  if (given.length !== 1) throw new UsageError(`give exactly one of ${inputFlags.map((f) => `--${f}`).join(', ')}`);
  const [kind] = given;
  const file = path.resolve(flags[kind]);
  if (flags.chunks !== undefined && kind !== 'stream') throw new UsageError('--chunks goes with --stream');
  let data;
  try {
    data = fs.readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${flags[kind]}: ${err.code ?? err.message}`);
  }
  switch (kind) {
    case 'value': return ['value', { module: file }];
    case 'recipe': {
      try {
        return ['value', { recipe: JSON.parse(data.toString('utf8')) }];
      } catch (err) {
        throw new UsageError(`${flags.recipe} is not valid JSON: ${err.message}`);
      }
    }
    case 'frame': return ['frame', { bytes: data.toString('hex') }];
    default: return ['stream', { bytes: data.toString('hex'), chunks: parseChunks(flags.chunks) }];
  }
}

function parseChunks(text) {
  if (text === undefined) return [];
  const sizes = text.split(',').map((s) => (s.trim() === '' ? NaN : Number(s)));
  if (sizes.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new UsageError(`--chunks must be a comma-separated list of sizes, got ${JSON.stringify(text)}`);
  }
  return sizes;
}

function checkReproTarget(file) {
  if (fs.existsSync(file)) throw new UsageError(`--repro ${file} exists; ipcfuzz does not overwrite files`);
  const dir = path.dirname(path.resolve(file));
  if (!fs.existsSync(dir)) throw new UsageError(`--repro ${file}: folder ${dir} does not exist`);
}

function writeRepro(file, script) {
  try {
    fs.writeFileSync(file, script, { flag: 'wx', mode: 0o755 });
  } catch (err) {
    throw new UsageError(`cannot write --repro ${file}: ${err.code ?? err.message}`);
  }
}

async function run(args) {
  const flags = parse(args, {
    ...sideFlags,
    value: { type: 'string' },
    recipe: { type: 'string' },
    frame: { type: 'string' },
    stream: { type: 'string' },
    chunks: { type: 'string' },
    json: { type: 'boolean', default: false },
    repro: { type: 'string' },
  });
  const options = sessionOptions(flags);
  const known = loadKnown(options.knownFile);
  const [type, input] = readInput(flags);
  if (flags.repro !== undefined) checkReproTarget(flags.repro);
  const session = new Session(options);
  try {
    const result = await session.check(type, input);
    if (type !== 'value' && model.available()) result.model = model.verdictLines(Buffer.from(input.bytes, 'hex'));
    if (result.skipped) throw new UsageError(`the value could not be built: ${result.skipped.split('\n')[0]}`);
    classify(result.differences, known);
    if (flags.json) console.log(JSON.stringify({ sides: session.sides, ...result }, null, 2));
    else console.log(renderResult(result, session.sides));
    if (flags.repro !== undefined) {
      const given = inputFlags.find((f) => flags[f] !== undefined);
      writeRepro(flags.repro, reproScript(result, {
        a: session.sides.a.codec, b: session.sides.b.codec, title: `ipcfuzz diff --${given} ${flags[given]}`,
      }));
    }
    return result.differences.some((d) => !d.known) ? 1 : 0;
  } finally {
    session.close();
  }
}

module.exports = { run };
