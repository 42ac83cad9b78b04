'use strict';
// The codec performance table of the native-codec pull request, on the
// binaries at hand: fork() IPC round trips per second by payload size,
// `advanced` and `json`, in a base binary and a head binary, interleaved and
// repeated so that a ratio survives a noisy machine; and the same codecs
// in-process (serialize + decode only), which separates codec cost from pipe
// cost. Each measurement runs in a fresh process of its binary.
//   node bench/codec-table.js [--base 26.3.1] [--head 26.10.0] [--reps 5] [--quick] [--json FILE]

const path = require('node:path');
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { summarize, spread, turned } = require('./stats');
const fmt = require('./format');

const run = promisify(execFile);
const sizes = [64, 256, 1024, 4096, 16384, 65536];
const serializations = ['advanced', 'json'];

async function nodeJson(node, args) {
  const { stdout } = await run(node, args, { maxBuffer: 1 << 20, timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop());
}

// binaries: [{ role: 'base' | 'head', node, version }]
async function forkRoundTrips({ binaries, reps, seconds, warmup, inflight = 32, lens = sizes }) {
  const cells = binaries.flatMap((binary) => serializations.map((serialization) => ({ binary, serialization })));
  const samples = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const [i, len] of lens.entries()) {
      for (const { binary, serialization } of turned(cells, rep + i)) {
        const r = await nodeJson(binary.node, [path.join(__dirname, 'ipc-roundtrip.js'),
          '--serialization', serialization, '--len', String(len), '--inflight', String(inflight),
          '--seconds', String(seconds), '--warmup', String(warmup)]);
        samples.push({
          role: binary.role, serialization, len, rep, rate: r.rate, cpuMicrosPerRoundTrip: r.cpuMicrosPerRoundTrip,
        });
      }
    }
  }
  return samples;
}

async function inProcess({ binaries, reps, ms, lens = sizes }) {
  const samples = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const binary of turned(binaries, rep)) {
      const r = await nodeJson(binary.node, ['--expose-internals', '--no-warnings',
        path.join(__dirname, 'codec-inproc.js'),
        '--sizes', lens.join(','), '--ms', String(ms), '--rotate', String(rep)]);
      for (const { codec, len, rate } of r.results) samples.push({ role: binary.role, codec, len, rep, rate });
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

function summarizeInProcess(samples) {
  const columns = [...new Map(samples.map((s) => [`${s.role}/${s.codec}`, { role: s.role, codec: s.codec }])).values()];
  const rows = [...new Set(samples.map((s) => s.len))].map((len) => ({
    len,
    cells: Object.fromEntries(columns.map(({ role, codec }) => [`${role}/${codec}`, summarize(pick(samples, { role, codec, len }).map((s) => s.rate))])),
  }));
  return { columns, rows };
}

const versionOf = (binaries, role) => binaries.find((b) => b.role === role).version;

function forkMarkdown(rows, binaries) {
  const [base, head] = ['base', 'head'].map((r) => versionOf(binaries, r));
  return fmt.table(
    ['serialization', 'payload', `${base} round trips/s`, `${head} round trips/s`, `${head} / ${base}`, `CPU µs per round trip ${base} → ${head}`],
    rows.map((r) => [r.serialization, fmt.bytes(r.len), fmt.range(r.base), fmt.range(r.head),
      fmt.range(r.ratio, fmt.ratio), `${r.baseCpu.median.toFixed(1)} → ${r.headCpu.median.toFixed(1)}`]));
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
  sizes, serializations, forkRoundTrips, inProcess, summarizeFork, summarizeInProcess,
  forkMarkdown, inProcessMarkdown, noiseOf,
};

if (require.main === module) {
  const fs = require('node:fs');
  const { parseFlags } = require('./flags');
  const { resolveNode } = require('../harness/binaries');
  const { binary } = require('./machine');
  const { values } = parseFlags('codec-table', { options: {
    base: { type: 'string', default: '26.3.1' }, head: { type: 'string', default: '26.10.0' },
    reps: { type: 'string' }, quick: { type: 'boolean', default: false }, json: { type: 'string' },
  } });
  const binaries = ['base', 'head'].map((role) => binary(role, resolveNode(values[role])));
  const reps = Number(values.reps ?? (values.quick ? 1 : 5));
  (async () => {
    const fork = summarizeFork(await forkRoundTrips({ binaries, reps, seconds: values.quick ? 0.3 : 1, warmup: 0.2 }));
    console.log(forkMarkdown(fork, binaries));
    const inproc = summarizeInProcess(await inProcess({ binaries, reps, ms: values.quick ? 40 : 150 }));
    console.log(`\n${inProcessMarkdown(inproc, binaries)}`);
    if (values.json) fs.writeFileSync(values.json, `${JSON.stringify({ binaries, reps, fork, inproc }, null, 2)}\n`);
  })();
}
