'use strict';
// Command dispatch, the flag tables every command parses with (its --help is
// printed from the same table), and the checks of flag values. Any problem
// with the tool's input or environment ends in one line on stderr and exit
// code 2, before any work is done and before anything is created.

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { EnvironmentError, UsageError } = require('../harness/base/errors');
const { defaultVersion } = require('../harness/base/binaries');
const { kCallTimeoutMs } = require('../harness/base/defaults');

const commands = {
  info: './commands/info',
  diff: './commands/diff',
  fuzz: './commands/fuzz',
  gate: './commands/gate',
  inspect: './commands/inspect',
  conformance: './commands/conformance',
  node: './commands/node',
  report: './commands/report',
};

// A flag: { type, default?, multiple?, value (the placeholder in help), help,
// shown? (the default as help states it, when `default` is not it) }.
// Flags shared by the commands that compare two codecs.
const sideFlags = {
  a: { type: 'string', default: 'js', value: 'CODEC', help: 'codec a, the reference' },
  b: { type: 'string', default: 'native', value: 'CODEC', help: 'codec b, the codec under test' },
  node: { type: 'string', value: 'PATH|VERSION', shown: defaultVersion, help: 'node binary for codec b (and a)' },
  'base-node': { type: 'string', value: 'PATH|VERSION', shown: 'as --node', help: 'node binary for codec a' },
  known: { type: 'string', value: 'FILE', shown: 'known-differences.json', help: 'known-differences list' },
  'no-known': { type: 'boolean', default: false, help: 'report every difference, known or not' },
  timeout: { type: 'string', default: String(kCallTimeoutMs), value: 'MS',
    help: 'a codec call taking longer is a hang' },
};

const codecHelp = 'CODEC is js, native, builtin, or the path of an adapter module (see docs/adapters.md).';

// parseArgs takes a negative number after a string flag for a flag of its
// own ("ambiguous"); joined as --flag=-1 it reaches the check that names the problem.
function joinNegativeNumbers(args, table) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const name = /^--([^=]+)$/.exec(args[i])?.[1];
    if (table[name]?.type === 'string' && /^-\d/.test(args[i + 1] ?? '')) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

// Returns the flag values, or with `positionals: true` { values, positionals }.
function parse(args, table, { positionals = false } = {}) {
  const options = Object.fromEntries(Object.entries(table).map(([name, f]) => [name,
    { type: f.type, ...(f.multiple && { multiple: true }), ...(f.default !== undefined && { default: f.default }) }]));
  try {
    const parsed = parseArgs({
      args: joinNegativeNumbers(args, table), options, strict: true, allowPositionals: positionals,
    });
    return positionals ? parsed : parsed.values;
  } catch (err) {
    throw new UsageError(err.message.split('\n')[0]);
  }
}

// One command's help: its synopsis, then every flag with its default.
function helpText(name, { about, synopsis, flags }) {
  const shown = (f) => f.shown ?? (f.default === undefined ? 'none' : String(f.default));
  const rows = Object.entries(flags).map(([flag, f]) => [
    `--${flag}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}${f.multiple ? ' ...' : ''}`,
    `${f.help} (default: ${shown(f)})`,
  ]);
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  const lines = [`usage: ipcfuzz ${name} ${synopsis ?? '[flags]'}`, '', about];
  if (rows.length) lines.push('', 'flags:', ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`));
  if (flags.a || flags.codec) lines.push('', codecHelp);
  return lines.join('\n');
}

function usage() {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  return ['usage: ipcfuzz <command> [flags]', '', 'commands:',
    ...Object.entries(commands).map(([name, file]) => `  ${name.padEnd(width)}  ${require(file).about}`),
    '', 'ipcfuzz <command> --help lists its flags and their defaults; ipcfuzz --version prints the version.',
  ].join('\n');
}

// Whole numbers up to what a timer can wait for (ms) or a day (s).
function positiveInteger(text, flag, max = 2 ** 31 - 1) {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0 || n > max) {
    throw new UsageError(`--${flag} must be a whole number from 1 to ${max}, got ${JSON.stringify(text)}`);
  }
  return n;
}

// The nearest part of `file`'s path that exists, and what it is.
function nearestExisting(file) {
  let at = path.resolve(file);
  for (;;) {
    try {
      return { at, stat: fs.statSync(at) };
    } catch (err) {
      if (!['ENOENT', 'ENOTDIR'].includes(err.code) || path.dirname(at) === at) throw err;
      at = path.dirname(at);
    }
  }
}

// A folder the command will create or add to: it may exist as a folder, or
// not yet, under a folder that can be written.
function checkFolder(text, flag) {
  const { at, stat } = nearestExisting(text);
  if (!stat.isDirectory()) {
    throw new UsageError(`--${flag} ${text}${at === path.resolve(text) ? '' : `: ${at}`} is a file, not a folder`);
  }
  try {
    fs.accessSync(at, fs.constants.W_OK);
  } catch {
    throw new UsageError(`--${flag} ${text}: folder ${at} cannot be written`);
  }
  return path.resolve(text);
}

// A file the command will write: it must not exist (nothing is overwritten),
// and its folder must.
function checkNewFile(text, flag) {
  if (fs.existsSync(text)) throw new UsageError(`--${flag} ${text} exists; ipcfuzz does not overwrite files`);
  const dir = path.dirname(path.resolve(text));
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new UsageError(`--${flag} ${text}: folder ${dir} does not exist`);
  }
  return path.resolve(text);
}

function knownChoice(flags) {
  if (flags.known !== undefined && flags['no-known']) throw new UsageError('--known and --no-known exclude each other');
  return flags['no-known'] ? null : flags.known;
}

// The session options the shared flags describe.
function sessionOptions(flags) {
  return {
    a: { codec: flags.a, node: flags['base-node'] ?? flags.node },
    b: { codec: flags.b, node: flags.node },
    timeoutMs: positiveInteger(flags.timeout, 'timeout'),
    knownFile: knownChoice(flags),
  };
}

async function runCommand(argv) {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    console.log(`ipcfuzz ${require('../package.json').version}`);
    return;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    (name ? console.log : console.error)(usage());
    process.exitCode = name ? 0 : 2;
    return;
  }
  try {
    if (!Object.hasOwn(commands, name)) throw new UsageError(`unknown command ${JSON.stringify(name)} (try ipcfuzz --help)`);
    const command = require(commands[name]);
    if (rest.includes('--help') || rest.includes('-h')) {
      console.log(helpText(name, command));
      process.exitCode = 0;
      return;
    }
    process.exitCode = await command.run(rest);
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof EnvironmentError)) throw err;
    console.error(`ipcfuzz ${name}: ${err.message.split('\n')[0]}`);
    process.exitCode = 2;
  }
}

module.exports = {
  runCommand, parse, sideFlags, sessionOptions, knownChoice, positiveInteger, checkFolder, checkNewFile,
};
