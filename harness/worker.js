'use strict';
// Runs inside the node binary under test (started with --expose-internals).
// Reads one JSON request a line on stdin and answers one JSON line each on
// fd 3, in order; stdout and stderr stay free for whatever codecs print.
// A request that crashes or hangs this process is answered by the parent.

const fs = require('node:fs');
const { createOps } = require('./ops');
const { buildInput } = require('./recipes/build');
const { EnvironmentError, UsageError } = require('./errors');

const kReply = 3;
const ops = createOps(buildInput);

function handle(request) {
  try {
    return { id: request.id, outcome: ops[request.op](request) };
  } catch (err) {
    const kind = err instanceof UsageError ? 'usage' : 'environment';
    if (err instanceof EnvironmentError || err instanceof UsageError) {
      return { id: request.id, fault: { kind, message: err.message } };
    }
    return { id: request.id, fault: { kind: 'internal', message: err?.stack ?? String(err) } };
  }
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  pending += text;
  let newline;
  while ((newline = pending.indexOf('\n')) !== -1) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    fs.writeSync(kReply, `${JSON.stringify(handle(JSON.parse(line)))}\n`);
  }
});
