'use strict';
// Which files of a build directory ClusterFuzz takes as fuzz targets, by its
// own rules (clusterfuzz src/clusterfuzz/_internal/bot/fuzzers/utils.py,
// is_fuzz_target and get_fuzz_targets_local; OSS-Fuzz's base-runner adds
// that a target is executable): every file below the directory, except in
// `__extra_build`, whose name without extension matches VALID_TARGET_NAME_REGEX
// and not the Jazzer blocklist, whose extension is allowed, that is a regular
// executable file, and that is named *_fuzzer (or *_fuzztest) or holds one of
// the marker strings. OSS-Fuzz's compile_javascript_fuzzer writes
// `# LLVMFuzzerTestOneInput for fuzzer detection.` into its wrappers for that.

const fs = require('node:fs');
const path = require('node:path');

const allowedExtensions = ['', '.exe', '.par'];
const markers = ['LLVMFuzzerTestOneInput', 'LLVMFuzzerRunDriver'].map((m) => Buffer.from(m));
const validName = /^[a-zA-Z0-9@_.-]+$/;
const blocklisted = /^(jazzer_driver.*|jazzerjs)$/;
const extraBuildDir = '__extra_build';

// Why `file` is not a fuzz target, or null when it is one.
function whyNotTarget(file) {
  const base = path.basename(file);
  // Names with @ keep their dots: they are not extensions there.
  const extension = file.includes('@') ? '' : path.extname(base);
  const name = extension ? base.slice(0, -extension.length) : base;
  if (!validName.test(name)) return `name ${JSON.stringify(name)} does not match ${validName}`;
  if (blocklisted.test(name)) return 'name is blocklisted';
  if (!allowedExtensions.includes(extension)) return `extension ${extension}`;
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return 'does not exist';
  }
  if (!stat.isFile()) return 'not a regular file';
  if (!(stat.mode & 0o111)) return 'not executable';
  if (/_(fuzzer|fuzztest|fuzz_test)$/.test(name)) return null;
  const bytes = fs.readFileSync(file);
  return markers.some((m) => bytes.includes(m)) ? null : 'holds neither LLVMFuzzerTestOneInput nor LLVMFuzzerRunDriver';
}

// Every file below `dir`, as ClusterFuzz walks it.
function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== extraBuildDir) yield* walk(file);
    } else {
      yield file;
    }
  }
}

function discoverTargets(dir) {
  return [...walk(dir)].filter((file) => whyNotTarget(file) === null).sort();
}

module.exports = { whyNotTarget, discoverTargets, walk };
