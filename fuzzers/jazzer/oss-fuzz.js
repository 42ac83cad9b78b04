'use strict';
// How the OSS-Fuzz and ClusterFuzzLite wrappers (scripts/oss-fuzz-build.sh)
// start a Jazzer.js target: a new difference is a crash there, so that the
// platform files it with its input. libFuzzer's -minimize_crash=1 keeps any
// crash, so while it runs only the testcase's own difference counts
// (IPCFUZZ_ONLY_SIGNATURE): the minimized input raises the same first line.
//   node --expose-internals fuzzers/jazzer/oss-fuzz.js fuzzers/jazzer/TARGET.js [libFuzzer flags and inputs]
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { headlineIn } = require('./crash-line');

const [target, ...args] = process.argv.slice(2);
process.env.IPCFUZZ_ON_DIFFERENCE = 'throw';
if (args.includes('-minimize_crash=1') && !process.env.IPCFUZZ_ONLY_SIGNATURE) {
  const testcase = args.filter((a) => !a.startsWith('-')).at(-1);
  const run = spawnSync(process.execPath, [...process.execArgv, __filename, target, '-runs=1', testcase],
    { encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' });
  const head = headlineIn(`${run.stdout}${run.stderr}`);
  if (head) process.env.IPCFUZZ_ONLY_SIGNATURE = head.signature;
}
process.argv = [process.argv[0], path.join(__dirname, 'launch.js'), target, '--sync', '--', ...args];
require('./launch').launch();
