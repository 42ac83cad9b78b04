#!/usr/bin/env node
'use strict';
// Smoke test for Jazzer.js: fuzz fuzzers/jazzer-smoke/planted.js and succeed
// only if Jazzer reports the planted crash.
//
// Usage: node scripts/jazzer-smoke.js [--root DIR] [--node BIN] [--time SECS]
//   --root  directory whose node_modules holds @jazzer.js/core (default: repo)
//   --node  node binary that runs Jazzer (default: the one running this script)
//   --time  libFuzzer -max_total_time (default 60)
// Exit: 0 crash found, 1 no crash / Jazzer failed, 2 bad usage / setup.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const TARGET = path.resolve(__dirname, '..', 'fuzzers', 'jazzer-smoke', 'planted.js');
const MARKER = 'planted bug: input starts with IPC!';

function die(msg) {
  process.stderr.write(`jazzer-smoke: error: ${msg}\n`);
  process.exit(2);
}

const opts = { root: path.resolve(__dirname, '..'), node: process.execPath, time: 60 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const m = /^--(root|node|time)(?:=(.*))?$/.exec(argv[i]);
  if (!m) die(`unknown argument ${argv[i]}`);
  const v = m[2] !== undefined ? m[2] : argv[++i];
  if (v === undefined) die(`--${m[1]} needs a value`);
  opts[m[1]] = m[1] === 'time' ? Number(v) : path.resolve(v);
}
if (!(opts.time > 0)) die('--time must be a positive number of seconds');

let cli;
try {
  cli = require.resolve('@jazzer.js/core/dist/cli.js', { paths: [opts.root] });
} catch {
  die(`@jazzer.js/core is not installed under ${opts.root}`);
}

// Fresh corpus and artifact dir, so old inputs cannot make the run trivial
// and crash files do not land in the working tree.
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'jazzer-smoke-'));
const corpus = path.join(work, 'corpus');
fs.mkdirSync(corpus);

const args = [
  cli, TARGET, corpus,
  '--sync', // the target is synchronous; sync mode is several times faster
  '--',
  `-max_total_time=${opts.time}`,
  `-artifact_prefix=${work}${path.sep}`,
  '-print_final_stats=1',
];
const start = process.hrtime.bigint();
const r = spawnSync(opts.node, args, {
  cwd: work,
  encoding: 'utf8',
  maxBuffer: 64 << 20,
  timeout: (opts.time + 60) * 1000, // guard against a hung fuzzer
  killSignal: 'SIGKILL',
});
const secs = (Number(process.hrtime.bigint() - start) / 1e9).toFixed(1);
const out = `${r.stdout || ''}${r.stderr || ''}`;
const runs = (/Done (\d+) runs/.exec(out) || [])[1] || '?';

if (r.status !== 0 && out.includes(MARKER)) {
  fs.rmSync(work, { recursive: true, force: true });
  console.log(`jazzer-smoke: planted crash found in ${secs}s (${runs} runs, exit ${r.status}, node ${opts.node})`);
  process.exit(0);
}
const why = r.error ? r.error.message
  : /GLIBC_2\.38|GLIBCXX_3\.4\.32/.test(out) ? 'native addon does not load: run scripts/jazzer-compat.js'
  : `exit ${r.status === null ? r.signal : r.status}, no planted crash reported`;
fs.writeFileSync(path.join(work, 'jazzer.log'), out);
process.stderr.write(`${out.split('\n').slice(-20).join('\n')}\n`);
console.log(`jazzer-smoke: FAILED after ${secs}s (${why}); log in ${path.join(work, 'jazzer.log')}`);
process.exit(1);
