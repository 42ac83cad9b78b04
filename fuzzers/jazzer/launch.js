'use strict';
// Starts Jazzer.js so that the node processes libFuzzer spawns (fork and
// merge modes) keep --expose-internals: Jazzer.js re-runs process.argv, which
// has no node flags, so argv[0] is pointed at a script that adds them.
// Jazzer.js's bug detectors are turned off: they look for command injection,
// path traversal and prototype pollution in the code under test, which a
// codec differential does not look for, and they cost a snapshot of every
// builtin prototype per input and a hook on every fs and child_process call.
// Each target instruments only the code whose branches follow what an input
// is. The value target: the byte grammar, the kinds and host objects it
// builds and the planner that builds them, the reference codec, the classes
// of the values built (value-classes.js, not the walk of coverage.js that
// finds them) and the tags of the frames written (annotate.js). The frame and stream
// targets: how their bytes are read, the reference framer and codec, and the
// operation that cuts a stream into reads and feeds them. The check's own
// code (canonical forms, comparisons) has compares and branches on every
// input that say little of it: instrumented, it took much of the value
// target's time and most of the stream target's (docs/benchmarks-log.md).
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const framing = ['fuzzers/jazzer/inputs.js', 'harness/codecs/framing.js', 'harness/codecs/js.js',
  'harness/oracle/ops.js'];
const instrumented = {
  // How a recipe is decoded and built: the grammar, the kind table with its
  // definitions (`kinds` names kinds.js and kinds/ alike), the steps, the planner.
  'value.js': ['harness/recipes/bytes.js', 'harness/recipes/kinds', 'harness/recipes/tampering.js',
    'harness/recipes/props.js', 'harness/recipes/validate.js', 'harness/recipes/runtime.js',
    'harness/recipes/interpret.js', 'harness/recipes/hosts.js',
    'harness/codecs/js.js', 'harness/wire/annotate.js', 'harness/observe/value-classes.js'],
  'frame.js': framing,
  'stream.js': framing,
};

// The Jazzer.js flags this launcher adds before libFuzzer's (after `--`).
// libFuzzer's fork, merge and minimize modes run the same command line
// again, this launcher included: a flag already there is not added twice
// (Jazzer.js refuses a second --timeout).
function withJazzerFlags(argv) {
  const includes = instrumented[path.basename(argv[2] ?? '')] ?? [];
  const libFuzzerArgs = argv.indexOf('--');
  const ours = libFuzzerArgs === -1 ? argv : argv.slice(0, libFuzzerArgs);
  // Jazzer.js gives libFuzzer a -timeout of its own (5 s unless told) after the
  // flags given to it, so libFuzzer's -timeout is passed on as Jazzer.js's.
  const timeout = libFuzzerArgs === -1 ? undefined :
    argv.slice(libFuzzerArgs + 1).map((a) => /^-timeout=(\d+)$/.exec(a)?.[1]).findLast(Boolean);
  const present = (flag) => ours.includes(flag) ||
    (flag.startsWith('--timeout=') && ours.some((a) => a.startsWith('--timeout=')));
  const flags = ['--disable_bug_detectors=.*',
    ...includes.map((file) => `--includes=${path.join(__dirname, '..', '..', file)}`),
    ...(timeout ? [`--timeout=${timeout * 1000}`] : [])].filter((flag) => !present(flag));
  const at = libFuzzerArgs === -1 ? argv.length : libFuzzerArgs;
  return [...argv.slice(0, at), ...flags, ...argv.slice(at)];
}

// Where the node scripts are kept: the project's own state folder, not a
// temporary one, which a launcher killed, or ended by libFuzzer's exit(),
// would leave them in; the temporary folder only where the project's is read-only.
function scriptFolder() {
  const folder = path.join(__dirname, '..', '..', '.ipcfuzz', 'launchers');
  try {
    fs.mkdirSync(folder, { recursive: true });
    fs.accessSync(folder, fs.constants.W_OK);
    return folder;
  } catch {
    return os.tmpdir();
  }
}

// The script that stands for node in Jazzer.js's command line. There is one
// per node binary, named by its path and kept: a target killed by a signal runs
// no exit handler, so a script per process would be left behind by every
// crash. It is written (atomically, for targets starting side by side) only
// when missing or different.
function nodeScript(execPath = process.execPath, folder = scriptFolder()) {
  const id = crypto.createHash('sha1').update(execPath).digest('hex').slice(0, 16);
  const file = path.join(folder, `ipcfuzz-node-${id}.sh`);
  const text = `#!/bin/sh\nexec ${JSON.stringify(execPath)} --expose-internals --no-warnings "$@"\n`;
  let current;
  try { current = fs.readFileSync(file, 'utf8'); } catch { /* not written yet */ }
  if (current !== text) {
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, text, { mode: 0o755 });
    fs.renameSync(tmp, file);
  }
  return file;
}

// Runs Jazzer.js's command line on process.argv: [node, launch.js, target, ...].
function launch() {
  process.argv = withJazzerFlags(process.argv);
  process.argv[0] = nodeScript();
  require('@jazzer.js/core/dist/cli.js');
}

if (require.main === module) launch();

module.exports = { withJazzerFlags, nodeScript, launch };
