'use strict';
// Runs inside the node binary under test (started with --expose-internals).
// Reads one JSON request a line on stdin and answers one JSON line each on
// fd 3, in order; stdout and stderr stay free for whatever codecs print.
// A request that crashes or hangs this process is answered by the parent.

const fs = require('node:fs');
const { createOps } = require('./ops');
const { onJsonLines } = require('./lines');
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

onJsonLines(process.stdin, (request) => fs.writeSync(kReply, `${JSON.stringify(handle(request))}\n`));
