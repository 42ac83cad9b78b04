'use strict';
// Every option of a Jazzer.js target in one object, read once from the
// environment its orchestrator (engine.js), OSS-Fuzz's wrapper (oss-fuzz.js),
// the bench or a test gives it, as Jazzer.js reads its own options: each
// variable with its key in the options, how it is read, and what it is for.
// A variable named IPCFUZZ_* that no target reads is warned about, as AFL++
// warns about a mistyped AFL_* one.

const kVariables = Object.freeze({
  IPCFUZZ_A: { key: 'codecA', why: 'codec a (default js)' },
  IPCFUZZ_A_NODE: { key: 'nodeA', why: 'codec a\'s binary (default this one)' },
  IPCFUZZ_B: { key: 'codecB', why: 'the codec under test (default native)' },
  IPCFUZZ_OUT: { key: 'out', why: 'the findings folder (none: nothing saved)' },
  IPCFUZZ_KNOWN: { key: 'known', why: 'the known-differences file; empty: none' },
  IPCFUZZ_TIMEOUT: { key: 'timeoutMs', read: Number, why: 'a codec call taking longer is a hang' },
  IPCFUZZ_ON_DIFFERENCE: { key: 'onDifference', why: 'throw: a new difference is raised as a crash (OSS-Fuzz)' },
  IPCFUZZ_ONLY_SIGNATURE: { key: 'onlySignature', why: 'while a crash is minimized, the one difference that counts' },
  IPCFUZZ_CRASHED: { key: 'crashed', read: (text) => text.split(',').filter(Boolean),
    why: 'the SHA-1s of inputs that ended an earlier process of this run' },
  IPCFUZZ_STARTER: { key: 'starter', read: (text) => Number(text) || null,
    why: 'the pid whose end makes the target end its process group' },
  IPCFUZZ_COVERAGE_DIR: { key: 'coverageDir', why: 'where the value-class counts go' },
  IPCFUZZ_TRACE: { key: 'trace', why: 'the bench\'s trace of codec calls' },
  IPCFUZZ_CRASH_SCREEN: { key: 'crashScreen', why: 'off: no input is screened (the tests)' },
  IPCFUZZ_SKIP_SCREENED: { key: 'skipScreened', read: (text) => text === '1',
    why: '1: the screened inputs are left out (the bench)' },
});

// Variables of the harness and the tools that a target's process inherits and does not read.
const kInherited = new Set(['IPCFUZZ_NODE_CACHE', 'IPCFUZZ_FORK_SERVER', 'IPCFUZZ_SEED', 'IPCFUZZ_NO_SKIP',
  'IPCFUZZ_RECORD']);

// The options of a target from `env`, and the one-line warnings of variables
// it does not know: { options, warnings }.
function targetOptions(env = process.env) {
  const options = {};
  for (const [name, { key, read = (text) => text }] of Object.entries(kVariables)) {
    if (env[name] !== undefined) options[key] = read(env[name]);
  }
  const warnings = Object.keys(env).filter((name) => name.startsWith('IPCFUZZ_') && !Object.hasOwn(kVariables, name) &&
    !kInherited.has(name)).map((name) => `ipcfuzz: ${name} is set but no Jazzer.js target reads it ` +
      `(did you mean one of ${Object.keys(kVariables).join(', ')}?)`);
  return { options: Object.freeze(options), warnings };
}

module.exports = { targetOptions, kVariables };
