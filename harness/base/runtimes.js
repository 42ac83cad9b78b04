'use strict';
// Other JavaScript runtimes that implement node:child_process (Deno, Bun),
// pinned from npm like the Node binaries: package.json's `deno-<version>` and
// `bun-<version>` dependencies, or added with `ipcfuzz node add NAME@VERSION`
// into the cache folder. A runtime is named `deno`, `bun` (the pinned version)
// or `NAME@VERSION`; `node@VERSION` is a Node binary as --node names it.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { EnvironmentError, UsageError } = require('./errors');
const { root, cacheDir, resolveNode } = require('./binaries');

// Where each runtime's npm package keeps its binary, and how it runs a script:
// Deno runs .cjs files with its Node compatibility given every permission.
const kinds = {
  deno: { package: '@deno/linux-x64-glibc', binary: 'deno', run: ['run', '-A'] },
  bun: { package: '@oven/bun-linux-x64', binary: path.join('bin', 'bun'), run: [] },
};

const specPattern = /^(node|deno|bun)(?:@v?(\d+\.\d+\.\d+))?$/;

function pinnedRuntimes() {
  const { dependencies } = require(path.join(root, 'package.json'));
  return Object.keys(dependencies)
    .map((name) => /^(deno|bun)-(\d+\.\d+\.\d+)$/.exec(name))
    .filter(Boolean)
    .map(([, name, version]) => ({ name, version }));
}

function runtimeCandidates(name, version) {
  const { package: pkg, binary } = kinds[name];
  return [
    path.join(root, 'node_modules', `${name}-${version}`, binary),
    path.join(cacheDir(), `${name}-${version}`, 'node_modules', pkg, binary),
  ];
}

function parseRuntime(spec) {
  const match = specPattern.exec(spec);
  if (!match) {
    throw new UsageError(`--runtime ${JSON.stringify(spec)}: name deno, bun or NAME@VERSION (e.g. deno@2.9.6)`);
  }
  const [, name, version] = match;
  if (name === 'node' && !version) throw new UsageError('--runtime node needs a version (node@26.12.1), or use --node');
  return { name, version };
}

// { name, version, path, command }: `command` runs a script given after it.
function resolveRuntime(spec) {
  const { name, version: asked } = parseRuntime(spec);
  if (name === 'node') {
    const nodePath = resolveNode(asked);
    return { name, version: asked, path: nodePath, command: [nodePath] };
  }
  const pinned = pinnedRuntimes().filter((r) => r.name === name).map((r) => r.version);
  const version = asked ?? pinned.at(-1);
  const found = version && runtimeCandidates(name, version).find((p) => fs.existsSync(p));
  if (!found) {
    throw new EnvironmentError(`${name} ${version ?? ''} is not installed `.replace('  ', ' ') +
      `(run \`npm ci\` for pinned versions or \`ipcfuzz node add ${name}@${version ?? 'VERSION'}\`)`);
  }
  return { name, version, path: found, command: [found, ...kinds[name].run] };
}

// What the runtime says of itself; a binary that does not run is an environment error.
function probeRuntime({ name, path: file }) {
  const result = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) {
    const why = result.error?.code ?? `exit ${result.status}`;
    throw new EnvironmentError(`${file} is not a usable ${name} binary (${why})`);
  }
  const text = result.stdout.trim();
  const version = /(\d+\.\d+\.\d+)/.exec(text)?.[1];
  // Bun runs on JavaScriptCore; its process.versions.v8 names the API it mimics.
  const v8 = name === 'deno' ? /v8 (\S+)/.exec(text)?.[1] : null;
  return { runtime: name, version, v8, engine: name === 'bun' ? 'JavaScriptCore' : 'V8' };
}

// Installs NAME@VERSION's npm package into the cache folder; returns its binary.
function installRuntime(name, version) {
  const prefix = path.join(cacheDir(), `${name}-${version}`);
  console.error(`installing ${kinds[name].package}@${version} into ${path.relative(process.cwd(), prefix) || prefix}`);
  const npm = spawnSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund',
    `${kinds[name].package}@${version}`], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (npm.error) throw new EnvironmentError(`cannot run npm: ${npm.error.code ?? npm.error.message}`);
  if (npm.status !== 0) {
    throw new EnvironmentError(`npm could not install ${kinds[name].package}@${version} (exit ${npm.status})`);
  }
  return resolveRuntime(`${name}@${version}`);
}

module.exports = { kinds, parseRuntime, pinnedRuntimes, resolveRuntime, probeRuntime, installRuntime };
