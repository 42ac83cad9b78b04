#!/usr/bin/env node
'use strict';
// ipcfuzz: differential fuzzing and conformance for Node's `advanced` IPC codec.
// Exit codes: 0 no new difference, 1 new difference, 2 usage or environment error.

// First, in syntax any Node parses: an older Node gets one line, not a stack trace.
require('../harness/node-support').requireSupportedNode();
require('../cli').runCommand(process.argv.slice(2));
