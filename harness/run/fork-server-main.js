'use strict';
// A fork server for the synchronous workers of one node binary (see
// blocking-driver.js). Started once, it loads and warms up what a worker runs,
// then forks a worker for each `requests<TAB>answers` line on its stdin, so
// that a codec crash costs a fuzz target a fork, not a node start.
// The worker answers worker-main.js's requests, read without the event loop, and
// goes when its requests end. Started with forkserver.node preloaded and
// V8's --single-threaded (argv[2] is that file; forkserver.c says why).

const fs = require('node:fs');
const { StringDecoder } = require('node:string_decoder');
const { handle, reply, warmUp } = require('./worker-main');
const { lineSplitter, jsonLines } = require('../base/json-lines');

const forkServer = { exports: {} };
process.dlopen(forkServer, process.argv[2]);
const { spawn, exit, pid, preloaded } = forkServer.exports;
if (!preloaded()) throw new Error(`${process.argv[2]} is not preloaded: no worker can be forked safely`);

// Calls onLine for each line read from fd 0, blocking, until it ends.
function readLines(onLine) {
  const buffer = Buffer.alloc(65536);
  const decoder = new StringDecoder('utf8');
  const split = lineSplitter(onLine);
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, buffer);
    } catch (err) {
      if (err.code === 'EAGAIN' || err.code === 'EINTR') continue;
      throw err;
    }
    if (n === 0) return;
    split(decoder.write(buffer.subarray(0, n)));
  }
}

// In a forked worker. Anything left unhandled ends it at once: a process
// exit of the usual kind would wait for the zygote's threads. A fork shares
// the zygote's memory until it writes to it: the warm-up copies the pages a
// request writes while the worker waits, rather than during its first request.
function serve() {
  try {
    reply({ pid: pid() });
    warmUp();
    readLines(jsonLines((request) => reply(handle(request))));
    exit(0);
  } catch (err) {
    fs.writeSync(2, `${err?.stack ?? err}\n`);
    exit(70);
  }
}

warmUp();
reply({ ready: true });
// A fork that failed (its worker's answer FIFO says so) ends the fork server:
// its target then starts workers afresh.
readLines((line) => {
  const [requests, answers] = line.split('\t');
  const forked = spawn(requests, answers);
  if (forked === 0) serve();
  if (forked < 0) process.exit(1);
});
