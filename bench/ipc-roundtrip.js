'use strict';
// One IPC round-trip measurement, run in the binary under test: this process
// forks --workers children of itself (same execPath) with the chosen
// serialization, keeps --inflight messages { payload: '.'.repeat(len) } in
// flight to each (a send-and-wait cycle each: an echo is answered with the
// next message), each echoed by its child, and counts round trips for
// --seconds after a warm-up. The messages go over the child_process pipe
// (child.send()) or over a unix socket carrying the same frames, written and
// parsed by the same child_process serialization (bench/serializations.js;
// needs --expose-internals). Prints one JSON line. CPU time of all the
// processes is read too, so a figure taken on a busy machine can be told from
// a slow codec.
//   node [--expose-internals] bench/ipc-roundtrip.js --serialization advanced --len 1024 [--workers 1]
//        [--inflight 32] [--transport pipe|unix] [--seconds 1] [--warmup 0.25]

const fs = require('node:fs');
const net = require('node:net');
const { fork } = require('node:child_process');
const { once } = require('node:events');
const { parseFlags } = require('./flags');

const transports = ['pipe', 'unix'];

// Clock ticks per second of /proc/<pid>/stat; 100 on every Linux distribution.
const kTicks = 100;

function childCpuMicros(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1e6 / kTicks);  // utime + stime
}

function parentCpuMicros() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

// A message channel over a connected socket: frames of `serialization` out,
// the messages its framer completes in.
function socketChannel(socket, serialization) {
  const { serializationOf } = require('./serializations');
  const codec = serializationOf(serialization);
  const framer = codec.createFramer();
  return {
    send: (message) => socket.write(codec.serialize(message)),
    onMessage: (fn) => socket.on('data', (chunk) => {
      for (const message of framer.push(chunk)) fn(message);
    }),
  };
}

// A socket on Linux's abstract namespace: nothing on disk to leave behind.
const socketName = (parent) => `\0ipcfuzz-bench-${parent}`;

// The parent's side of each worker, { links: [{ child, send, onMessage }],
// failed, close }, once each child can be sent to. `failed` rejects when a
// child cannot start or exits before close().
async function openWorkers({ serialization, transport, workers }) {
  const server = transport === 'unix' ? net.createServer() : null;
  if (server) await once(server.listen(socketName(process.pid)), 'listening');
  let closing = false;
  let fail;
  const failed = new Promise((resolve, reject) => { fail = reject; });
  failed.catch(() => {});
  const links = [];
  for (let i = 0; i < workers; i++) {
    const child = fork(__filename, ['child', transport, serialization, ...(server ? [String(process.pid)] : [])],
      { serialization, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.on('error', fail);
    child.on('exit', (code, signal) => closing || fail(new Error(`child exited early (${signal ?? code})`)));
    // Children are started one at a time: the next connection is this child's.
    const ready = server ? once(server, 'connection') : once(child, 'spawn');
    const [socket] = await Promise.race([ready, failed]);
    links.push(server ?
      { child, ...socketChannel(socket, serialization) } :
      { child, send: (m) => child.send(m), onMessage: (fn) => child.on('message', fn) });
  }
  const close = () => {
    closing = true;
    for (const { child } of links) child.kill('SIGKILL');
    server?.close();
  };
  return { links, failed, close };
}

const sleep = (s) => new Promise((resolve) => setTimeout(resolve, s * 1000));

async function measure({ serialization, len, workers, inflight, transport, seconds, warmup }) {
  const { links, failed, close } = await openWorkers({ serialization, transport, workers });
  const message = { payload: '.'.repeat(len) };
  let count = 0;
  let sending = true;
  let firstEcho;
  const echoed = new Promise((resolve) => { firstEcho = resolve; });
  for (const link of links) {
    link.onMessage(() => {
      count++;
      firstEcho();
      if (sending) link.send(message);
    });
    for (let i = 0; i < inflight; i++) link.send(message);
  }
  const reading = () => ({
    count, time: process.hrtime.bigint(),
    cpu: parentCpuMicros() + links.reduce((sum, { child }) => sum + childCpuMicros(child.pid), 0),
  });
  // The warm-up starts with the first echo: a child that boots slowly on a
  // busy machine must not eat into the measured window.
  const window = (async () => {
    await echoed;
    await sleep(warmup);
    const start = reading();
    await sleep(seconds);
    return [start, reading()];
  })();
  try {
    const [start, end] = await Promise.race([window, failed]);
    const elapsed = Number(end.time - start.time) / 1e9;
    const roundTrips = end.count - start.count;
    return {
      node: process.version, serialization, transport, workers, inflight, len, roundTrips, seconds: elapsed,
      rate: roundTrips / elapsed, cpuMicrosPerRoundTrip: (end.cpu - start.cpu) / roundTrips,
    };
  } finally {
    sending = false;
    close();
  }
}

function child([transport, serialization, parent]) {
  if (transport === 'pipe') {
    process.on('message', (m) => process.send(m));
    return;
  }
  const socket = net.connect(socketName(parent));
  const channel = socketChannel(socket, serialization);
  channel.onMessage((m) => channel.send(m));
  socket.on('error', () => process.exit(1));
  // The parent ends this process; a parent gone first ends it too.
  process.on('disconnect', () => process.exit(0));
}

function main() {
  const { values } = parseFlags('ipc-roundtrip', { options: {
    serialization: { type: 'string', default: 'advanced' },
    transport: { type: 'string', default: 'pipe' },
    len: { type: 'string', default: '1024' },
    workers: { type: 'string', default: '1' },
    inflight: { type: 'string', default: '32' },
    seconds: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '0.25' },
  } });
  if (!transports.includes(values.transport)) {
    console.error(`ipc-roundtrip: --transport is ${transports.join(' or ')}, not ${values.transport}`);
    process.exit(2);
  }
  measure({
    serialization: values.serialization, transport: values.transport, len: Number(values.len),
    workers: Number(values.workers), inflight: Number(values.inflight),
    seconds: Number(values.seconds), warmup: Number(values.warmup),
  }).then((result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  }, (err) => {
    process.stderr.write(`ipc-roundtrip: ${err.message}\n`);
    process.exit(1);
  });
}

module.exports = { transports };

if (require.main === module) {
  if (process.argv[2] === 'child') child(process.argv.slice(3));
  else main();
}
