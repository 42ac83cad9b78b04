'use strict';
// Runs inside the node binary under test (started with --expose-internals).
// Reads one JSON request a line on stdin and answers one JSON line each on
// fd 3, in order; stdout and stderr stay free for whatever codecs print.
// A request that crashes or hangs this process is answered by the parent,
// which is told when a value module has been built, so that a module that
// never returns is blamed on itself, not on the codec.

const fs = require('node:fs');
const { createOps } = require('./ops');
const { onJsonLines } = require('./lines');
const { buildInput } = require('./recipes/build');
const { EnvironmentError, UsageError } = require('./errors');

const kReply = 3;
const reply = (message) => fs.writeSync(kReply, `${JSON.stringify(message)}\n`);
const ops = createOps(buildInput, {
  built: (request) => { if (request.input.module !== undefined) reply({ id: request.id, built: true }); },
});

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

onJsonLines(process.stdin, (request) => reply(handle(request)));
