'use strict';
// ipcfuzz report FINDING_DIR: checks a saved finding through child_process
// again, on the binaries as they are now (the build it was found with, or
// --node, and the reference release), writes its verdict, short repro
// scripts and issue.md anew, and prints issue.md; with --full, also the full
// round trip through child_process, both sides described as canonical trees.
// An issue.md edited by hand is kept beside the new one. Exit 0 when the
// difference does not show through child_process, 1 when it does, 2 when the
// folder holds no finding or the check could not run.

const fs = require('node:fs');
const path = require('node:path');
const { parse, positiveInteger } = require('..');
const { FindingStore } = require('../../harness/findings/recorder');
const { checkFinding, referenceVersion } = require('../../harness/findings/reach');
const { fullComparison } = require('../../harness/findings/reach/full');
const { resolveNode, probeNode } = require('../../harness/base/binaries');
const { UsageError, EnvironmentError } = require('../../harness/base/errors');
const { kCallTimeoutMs } = require('../../harness/base/defaults');

const about = 'check a saved finding through child_process again, on the current binaries, and print its issue.md';
const synopsis = 'FINDING_DIR [--node PATH|VERSION] [--full]';
const flags = {
  node: { type: 'string', value: 'PATH|VERSION', shown: 'the build the finding was found with',
    help: 'the build under test' },
  timeout: { type: 'string', default: String(kCallTimeoutMs), value: 'MS',
    help: 'a round trip taking longer is a hang' },
  full: { type: 'boolean', default: false,
    help: 'also print the full round trip through child_process, what each side received as a canonical tree' },
};

const checkTypes = ['value', 'roundtrip', 'frame', 'stream'];

// The folder and its finding.json, or a one-line error.
function readFinding(dir) {
  const folder = path.resolve(dir);
  let stat;
  try {
    stat = fs.statSync(folder);
  } catch {
    throw new UsageError(`${dir} does not exist`);
  }
  if (!stat.isDirectory()) throw new UsageError(`${dir} is not a folder`);
  if (!fs.existsSync(path.join(folder, 'finding.json'))) {
    throw new UsageError(`${dir} is not a finding folder: it has no finding.json`);
  }
  let meta;
  try {
    meta = FindingStore.read(folder);
  } catch (err) {
    throw new UsageError(`${path.join(dir, 'finding.json')} cannot be read: ${err.message.split('\n')[0]}`);
  }
  if (!checkTypes.includes(meta?.type) || !meta.input || !meta.signature) {
    throw new UsageError(`${path.join(dir, 'finding.json')} is not a finding ipcfuzz saved: it names no input of a check`);
  }
  try {
    fs.accessSync(folder, fs.constants.W_OK);
  } catch {
    throw new UsageError(`${dir} cannot be written`);
  }
  return { folder, meta };
}

function buildOf(spec, recorded) {
  try {
    const build = resolveNode(spec);
    probeNode(build);
    return build;
  } catch (err) {
    if (!(err instanceof EnvironmentError) || !recorded) throw err;
    throw new EnvironmentError(`${err.message} (the build the finding was found with): give --node`);
  }
}

async function run(args) {
  const { values, positionals } = parse(args, flags, { positionals: true });
  if (positionals.length !== 1) throw new UsageError(`give one finding folder: ipcfuzz report ${synopsis}`);
  const timeoutMs = positiveInteger(values.timeout, 'timeout');
  const { folder, meta } = readFinding(positionals[0]);
  const spec = values.node ?? meta.sides?.b?.node;
  if (!spec) throw new UsageError(`${positionals[0]}: finding.json names no build; give --node`);
  const build = buildOf(spec, values.node === undefined);
  const reference = resolveNode(referenceVersion);
  const reachability = await checkFinding(folder, { build, reference, timeoutMs });
  process.stdout.write(fs.readFileSync(path.join(folder, 'issue.md'), 'utf8'));
  if (values.full) console.log(`\n${(await fullComparison(folder, meta, { build, reference, timeoutMs })).join('\n')}`);
  const kept = reachability.editedIssue;
  if (kept) console.error(`ipcfuzz report: issue.md had been edited by hand: kept as ${path.join(positionals[0], kept)}`);
  console.error(`ipcfuzz report: ${reachability.verdict}`);
  if (!reachability.checked) return 2;
  return reachability.reachable ? 1 : 0;
}

module.exports = { run, about, synopsis, flags };
