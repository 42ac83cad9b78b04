'use strict';
// One fork() IPC round-trip measurement, run in the binary under test: this
// process forks itself (same execPath) with the chosen serialization, keeps
// --inflight messages { payload: '.'.repeat(len) } in flight, each echoed by
// the child, and counts round trips for --seconds after a warm-up. Prints one
// JSON line. CPU time of both processes is read too, so a figure taken on a
// busy machine can be told from a slow codec.
//   node bench/ipc-roundtrip.js --serialization advanced --len 1024 [--inflight 32] [--seconds 1] [--warmup 0.25]

const fs = require('node:fs');
const { fork } = require('node:child_process');
const { parseFlags } = require('./flags');

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

function measure({ serialization, len, inflight, seconds, warmup }) {
  const child = fork(__filename, ['child'], { serialization, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const message = { payload: '.'.repeat(len) };
  let count = 0;
  let sending = true;
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => sending && reject(new Error(`child exited early (${signal ?? code})`)));
    child.on('message', () => {
      count++;
      if (sending) child.send(message);
    });
    child.once('spawn', () => {
      for (let i = 0; i < inflight; i++) child.send(message);
    });
    // The warm-up starts with the first echo: a child that boots slowly on a
    // busy machine must not eat into the measured window.
    child.once('message', () => {
      setTimeout(() => {
        const start = {
          count, time: process.hrtime.bigint(), parent: parentCpuMicros(), child: childCpuMicros(child.pid),
        };
        setTimeout(() => {
          const end = {
            count, time: process.hrtime.bigint(), parent: parentCpuMicros(), child: childCpuMicros(child.pid),
          };
          sending = false;
          child.kill('SIGKILL');
          const elapsed = Number(end.time - start.time) / 1e9;
          const roundTrips = end.count - start.count;
          resolve({
            node: process.version, serialization, len, inflight, roundTrips, seconds: elapsed,
            rate: roundTrips / elapsed,
            cpuMicrosPerRoundTrip: (end.parent - start.parent + end.child - start.child) / roundTrips,
          });
        }, seconds * 1000);
      }, warmup * 1000);
    });
  });
}

if (process.argv[2] === 'child') {
  process.on('message', (m) => process.send(m));
} else {
  const { values } = parseFlags('ipc-roundtrip', { options: {
    serialization: { type: 'string', default: 'advanced' },
    len: { type: 'string', default: '1024' },
    inflight: { type: 'string', default: '32' },
    seconds: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '0.25' },
  } });
  measure({
    serialization: values.serialization, len: Number(values.len), inflight: Number(values.inflight),
    seconds: Number(values.seconds), warmup: Number(values.warmup),
  }).then((result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  }, (err) => {
    process.stderr.write(`ipc-roundtrip: ${err.message}\n`);
    process.exit(1);
  });
}
