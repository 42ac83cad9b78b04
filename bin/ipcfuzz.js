#!/usr/bin/env node
'use strict';
// ipcfuzz: differential fuzzing and conformance for Node's `advanced` IPC codec.
// Exit codes: 0 no new difference, 1 new difference, 2 usage or environment
// error, 3 a fault of ipcfuzz itself.

// First, in syntax any Node parses: an older Node gets one line, not a stack trace.
require('../harness/base/node-support').requireSupportedNode();

// An error nobody caught is a fault of ipcfuzz, never a difference: node's
// own exit 1 for it would read as one to a gate or a CI job. It is named in
// a line of its own, its stack after it for a bug report, and ends the run.
// An npm package that is not installed is the environment's fault: one line
// and exit 2.
function fault(err) {
  const name = err?.code === 'MODULE_NOT_FOUND' && /^Cannot find module '([^./][^']*)'/.exec(err.message)?.[1];
  if (name) {
    console.error(`ipcfuzz: the npm package ${name} is not installed: run make install (npm ci)`);
    process.exit(2);
  }
  console.error(`ipcfuzz: internal error, a fault of ipcfuzz and no difference: ${String(err?.message ?? err).split('\n')[0]}`);
  console.error(err?.stack ?? String(err));
  process.exit(3);
}
process.on('uncaughtException', fault);
process.on('unhandledRejection', fault);

// Its temporary files, and those of every process it starts, in a folder of its own.
require('../cli/run-folder').useRunFolder();

require('../cli').runCommand(process.argv.slice(2)).catch(fault);
