#!/usr/bin/env node
'use strict';
// ipcfuzz: differential fuzzing and conformance for Node's `advanced` IPC codec.
// Exit codes: 0 no new difference, 1 new difference, 2 usage or environment error.

// First, in syntax any Node parses: an older Node gets one line, not a stack trace.
require('../harness/node-support').requireSupportedNode();

// An npm package that is not installed is the environment's fault: one line
// and exit 2, where the uncaught error would exit 1 and read as a difference.
function missingPackage(err) {
  const name = err?.code === 'MODULE_NOT_FOUND' && /^Cannot find module '([^./][^']*)'/.exec(err.message)?.[1];
  if (!name) throw err;
  console.error(`ipcfuzz: the npm package ${name} is not installed: run make install (npm ci)`);
  process.exitCode = 2;
}

try {
  require('../cli').runCommand(process.argv.slice(2)).catch(missingPackage);
} catch (err) {
  missingPackage(err);
}
