'use strict';
// The codec performance table of the native-codec pull request, on the
// binaries at hand: fork() IPC round trips per second by payload size,
// `advanced` and `json`, in a base binary and a head binary, interleaved and
// repeated so that a ratio survives a noisy machine; and the same codecs
// in-process (serialize + decode only), which separates codec cost from pipe
// cost. Each measurement runs in a fresh process of its binary.
//   node bench/codec-table.js [--base 26.3.1] [--head the default binary] [--reps 5] [--quick] [--json FILE]

const path = require('node:path');
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { summarize, spread, turned } = require('./stats');
const { checkTime } = require('./deadline');
const fmt = require('./format');

const run = promisify(execFile);
const sizes = [64, 256, 1024, 4096, 16384, 65536];
const serializations = ['advanced', 'json'];
// What a measurement process takes beyond its timed seconds, at most: start-up, children, warm-up of the code.
const kStartSeconds = 1;

async function nodeJson(node, args) {
  const { stdout } = await run(node, args, { maxBuffer: 1 << 20, timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop());
}

// Round trips over IPC (bench/ipc-roundtrip.js), one fresh process per
// measurement, interleaved: in each repetition, at each point the runs go in
// a turned order. runs: [{ binary: { role, node }, serialization, transport }],
// points: [{ workers, inflight, len }]. Each sample is given to onSample as it
// is taken; none starts that would end past `until` (bench/deadline.js).
async function roundTrips({ runs, points, reps, seconds, warmup, until, onSample = () => {} }) {
  const samples = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const [i, point] of points.entries()) {
      for (const { binary, serialization, transport } of turned(runs, rep + i)) {
        checkTime(until, warmup + seconds + kStartSeconds, 'a round-trip run');
        const r = await nodeJson(binary.node, ['--expose-internals', '--no-warnings',
          path.join(__dirname, 'ipc-roundtrip.js'), '--serialization', serialization, '--transport', transport,
          '--workers', String(point.workers), '--inflight', String(point.inflight), '--len', String(point.len),
          '--seconds', String(seconds), '--warmup', String(warmup)]);
        const sample = {
          role: binary.role, serialization, transport, ...point, rep,
          rate: r.rate, cpuMicrosPerRoundTrip: r.cpuMicrosPerRoundTrip,
        };
        samples.push(sample);
        onSample(sample);
      }
    }
  }
  return samples;
}

// The codec table's runs: one child, `inflight` messages in flight, over the
// child_process pipe. binaries: [{ role: 'base' | 'head', node, version }]
function forkRoundTrips({ binaries, inflight = 32, lens = sizes, ...timing }) {
  return roundTrips({
    runs: binaries.flatMap((binary) => serializations.map((serialization) => ({
      binary, serialization, transport: 'pipe',
    }))),
    points: lens.map((len) => ({ workers: 1, inflight, len })), ...timing,
  });
}

async function inProcess({ binaries, reps, ms, lens = sizes, until, onSample = () => {} }) {
  const samples = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const binary of turned(binaries, rep)) {
      checkTime(until, (lens.length * 4 * ms * 4) / 3 / 1000 + kStartSeconds, 'an in-process run');
      const r = await nodeJson(binary.node, ['--expose-internals', '--no-warnings',
        path.join(__dirname, 'codec-inproc.js'),
        '--sizes', lens.join(','), '--ms', String(ms), '--rotate', String(rep)]);
      for (const { codec, len, rate, cpuMicros } of r.results) {
        const sample = { role: binary.role, codec, len, rep, rate, cpuMicros };
        samples.push(sample);
        onSample(sample);
      }
    }
  }
  return samples;
}

const pick = (samples, where) => samples.filter((s) => Object.entries(where).every(([k, v]) => s[k] === v));

// Per size and serialization: each binary's rates and CPU cost, and the
// head/base ratio of the runs of one repetition (taken minutes apart at most).
function summarizeFork(samples) {
  const rows = [];
  for (const serialization of serializations) {
    for (const len of [...new Set(samples.map((s) => s.len))]) {
      const of = (role) => pick(samples, { role, serialization, len });
      const base = of('base');
      const head = of('head');
      const ratios = head.map((h) => h.rate / base.find((b) => b.rep === h.rep)?.rate).filter(Number.isFinite);
      rows.push({
        serialization, len,
        base: summarize(base.map((s) => s.rate)), head: summarize(head.map((s) => s.rate)),
        baseCpu: summarize(base.map((s) => s.cpuMicrosPerRoundTrip)),
        headCpu: summarize(head.map((s) => s.cpuMicrosPerRoundTrip)),
        ratio: summarize(ratios),
      });
    }
  }
  return rows;
}

// Per size: each binary's and codec's rate (cells) and CPU µs per operation
// (cpu), keyed `role/codec`. Samples saved before the CPU was read have none.
function summarizeInProcess(samples) {
  const columns = [...new Map(samples.map((s) => [`${s.role}/${s.codec}`, { role: s.role, codec: s.codec }])).values()];
  const of = (len, field) => Object.fromEntries(columns.map(({ role, codec }) => [`${role}/${codec}`,
    summarize(pick(samples, { role, codec, len }).map((s) => s[field]).filter(Number.isFinite))]));
  const rows = [...new Set(samples.map((s) => s.len))]
    .map((len) => ({ len, cells: of(len, 'rate'), cpu: of(len, 'cpuMicros') }));
  return { columns, rows };
}

const versionOf = (binaries, role) => binaries.find((b) => b.role === role).version;

function forkMarkdown(rows, binaries) {
  const [base, head] = ['base', 'head'].map((r) => versionOf(binaries, r));
  return fmt.table(
    ['serialization', 'payload', `${base} round trips/s`, `${head} round trips/s`, `${head} / ${base}`, `CPU µs per round trip ${base} → ${head}`],
    rows.map((r) => [r.serialization, fmt.bytes(r.len), fmt.range(r.base), fmt.range(r.head),
      fmt.range(r.ratio, fmt.ratio), `${fmt.median(r.baseCpu)} → ${fmt.median(r.headCpu)}`]));
}

function inProcessMarkdown({ columns, rows }, binaries) {
  const label = ({ role, codec }) => `${codec} ${versionOf(binaries, role)}`;
  return fmt.table(['payload', ...columns.map(label)],
    rows.map((r) => [fmt.bytes(r.len), ...columns.map((c) => fmt.range(r.cells[`${c.role}/${c.codec}`]))]));
}

// The largest relative spread of repeated runs of a cell in either binary:
// a head/base difference within it is not told from noise.
function noiseOf(row) {
  return Math.max(spread(row.base), spread(row.head));
}

module.exports = {
  sizes, serializations, roundTrips, forkRoundTrips, inProcess, summarizeFork, summarizeInProcess,
  forkMarkdown, inProcessMarkdown, noiseOf,
};

if (require.main === module) {
  const fs = require('node:fs');
  const { values, binaries } = require('./flags').parseTableFlags('codec-table');
  const reps = Number(values.reps ?? (values.quick ? 1 : 5));
  (async () => {
    const fork = summarizeFork(await forkRoundTrips({ binaries, reps, seconds: values.quick ? 0.3 : 1, warmup: 0.2 }));
    console.log(forkMarkdown(fork, binaries));
    const inproc = summarizeInProcess(await inProcess({ binaries, reps, ms: values.quick ? 40 : 150 }));
    console.log(`\n${inProcessMarkdown(inproc, binaries)}`);
    if (values.json) fs.writeFileSync(values.json, `${JSON.stringify({ binaries, reps, fork, inproc }, null, 2)}\n`);
  })();
}
