'use strict';
// The child end of the fork cases (plan.js), started by parent.cjs in the
// child runtime (a .cjs file, so that Deno runs it as CommonJS too).
// Commands arrive as JSON lines on stdin and reports leave as JSON lines on
// stdout, so that the IPC channel carries nothing but what is tested.
//   { op: 'send', recipe } | { op: 'send', program }: send the value(s)
//   { op: 'raw', pieces }: write each piece into the channel once the parent
//     has read everything before it, then send the sentinel and disconnect
//   { op: 'read', n }: the parent's channel read n bytes
// Reports: message (a value arrived), receive-error, sent, send-error, unbuildable.

const fs = require('node:fs');
const { describeError } = require('../../harness/oracle/ops');
const { channelTree } = require('../../harness/oracle/channel');
const { SENTINEL, buildValues, writeAll } = require('./plan');
const { onJsonLines } = require('../../harness/base/json-lines');

const report = (line) => fs.writeSync(1, `${JSON.stringify(line)}\n`);

process.on('message', (message) => report({ event: 'message', tree: channelTree(message) }));
process.on('uncaughtException', (err) => report({ event: 'receive-error', error: describeError(err) }));
process.on('disconnect', () => process.exit(0));

function sendValues(command) {
  const effects = [];
  let built;
  try {
    built = buildValues(command, effects);
  } catch (err) {
    return report({ event: 'unbuildable', error: describeError(err) });
  }
  let result;
  try {
    built.setup();
    for (const value of built.values) process.send(value);
    result = { event: 'sent', count: built.values.length, effects };
  } catch (err) {
    result = { event: 'send-error', error: describeError(err), effects };
  } finally {
    built.teardown();
  }
  report(result);
}

let acked = 0;
let wake = () => {};

// Deno and Bun do not show the channel's descriptor; the parent puts it at 3.
const channelFd = () => process.channel?.fd ?? 3;

async function writeRaw({ pieces }) {
  let written = 0;
  for (const hex of pieces) {
    const bytes = Buffer.from(hex, 'hex');
    writeAll(channelFd(), bytes);
    written += bytes.length;
    // Each piece must reach the parent as reads of its own.
    while (acked < written) await new Promise((resolve) => { wake = resolve; });
  }
  process.send(SENTINEL, () => process.disconnect());
}

const commands = {
  send: sendValues,
  raw: writeRaw,
  read({ n }) {
    acked += n;
    wake();
  },
};

onJsonLines(process.stdin, (command) => commands[command.op](command));
