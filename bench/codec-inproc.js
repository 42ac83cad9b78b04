'use strict';
// The codecs alone, in-process, run in the binary under test with
// --expose-internals: serialize the message { payload: '.'.repeat(len) } to a
// frame and decode it again, in a loop, for --ms after a warm-up; no pipe,
// no event loop. Prints one JSON line with operations (serialize + decode)
// per second and the CPU µs of one (this process's, all its threads, as a
// round trip's CPU time is counted), for every codec the binary has and
// every size.
//   node --expose-internals bench/codec-inproc.js [--sizes 64,1024] [--ms 150] [--rotate 0]

const { parseFlags } = require('./flags');
const { framedCodec } = require('./serializations');
const { probe } = require('../harness/codecs/probe');
const { turned } = require('./stats');

// { rate: operations per second, cpuMicros: CPU µs per operation } of one
// codec at one size. The clock is read every `batch` operations, and
// batches grow until one takes about a millisecond.
function timeOperations(codec, message, ms) {
  let sink = 0;
  const once = () => { sink += codec.decode(codec.serialize(message)).payload.length; };
  let batch = 1;
  for (const warmupEnd = Date.now() + ms / 3; Date.now() < warmupEnd;) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) once();
    if (Number(process.hrtime.bigint() - t) < 1e6) batch *= 2;
  }
  let ops = 0;
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const end = start + BigInt(ms * 1e6);
  let now = start;
  while (now < end) {
    for (let i = 0; i < batch; i++) once();
    ops += batch;
    now = process.hrtime.bigint();
  }
  const cpu = process.cpuUsage(cpuStart);
  if (sink === 0) throw new Error('nothing was decoded');
  return { rate: ops / (Number(now - start) / 1e9), cpuMicros: (cpu.user + cpu.system) / ops };
}

function main() {
  const { values } = parseFlags('codec-inproc', { options: {
    sizes: { type: 'string', default: '64,256,1024,4096,16384,65536' },
    ms: { type: 'string', default: '150' },
    rotate: { type: 'string', default: '0' },
  } });
  const info = probe();
  const codecs = turned(['js', ...(info.ipcSerdes ? ['native'] : []), 'builtin', 'json'], Number(values.rotate));
  const results = [];
  for (const len of values.sizes.split(',').map(Number)) {
    const message = { payload: '.'.repeat(len) };
    for (const name of codecs) {
      results.push({ codec: name, len, ...timeOperations(framedCodec(name), message, Number(values.ms)) });
    }
  }
  process.stdout.write(`${JSON.stringify({ node: process.version, builtinUsesNative: info.builtinUsesNative, results })}\n`);
}

main();
