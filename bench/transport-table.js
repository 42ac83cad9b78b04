'use strict';
// The transport table: IPC round trips per second over a grid of W workers ×
// C concurrent send-and-wait cycles per worker × payload P (labelled
// `WxC payload = P`, as in the study of IPC in Node the grid comes from),
// for `advanced` in the base binary and in the head binary and `json` in the
// head binary, each over the child_process pipe and over a unix socket
// carrying the same frames (bench/ipc-roundtrip.js), interleaved and
// repeated as the codec table is; and per cell the share of a round trip's
// CPU time that the codec takes, from the in-process CPU cost of the same
// codec at the same payload (bench/codec-inproc.js): two serializations and
// two decodes per round trip.
//   node bench/transport-table.js [--quick] [--reps 3] [--base 26.3.1] [--head the default binary] [--json FILE]

const os = require('node:os');
const { roundTrips, inProcess, summarizeInProcess, sizes } = require('./codec-table');
const { transports } = require('./ipc-roundtrip');
const { summarize } = require('./stats');
const fmt = require('./format');
const { roleColors, kPanelWidth } = require('./chart');

const concurrencies = [1, 4, 32];

// One worker, half and all of the cores less one: the study keeps its
// processes fewer than the cores, the parent being one of them.
function workerCounts(cores = os.availableParallelism()) {
  const most = Math.max(1, cores - 1);
  return [...new Set([1, Math.ceil(most / 2), most])];
}

// The codecs of the table, by the binary that runs them.
const codecs = [
  { role: 'base', serialization: 'advanced' },
  { role: 'head', serialization: 'advanced' },
  { role: 'head', serialization: 'json' },
];
const codecKey = ({ role, serialization }) => `${role}/${serialization}`;

// { runs, points } for roundTrips: every codec over every transport, at every W × C × P.
function grid({ binaries, cores, lens = sizes }) {
  const binaryOf = (role) => binaries.find((b) => b.role === role);
  return {
    runs: codecs.flatMap((c) => transports.map((transport) => ({ binary: binaryOf(c.role), ...c, transport }))),
    points: workerCounts(cores).flatMap((workers) => concurrencies.flatMap((inflight) =>
      lens.map((len) => ({ workers, inflight, len })))),
  };
}

const workload = ({ workers, inflight, len }) => `${workers}x${inflight} payload = ${fmt.bytes(len)}`;

function measure({ binaries, cores, lens, ...timing }) {
  return roundTrips({ ...grid({ binaries, cores, lens }), ...timing });
}

const samePoint = (a, b) => a.workers === b.workers && a.inflight === b.inflight && a.len === b.len;

// One row per point and transport, in the grid's order: each codec's rate and
// CPU µs per round trip, and the head/base ratio of `advanced` within a repetition.
function summarizeTransport(samples) {
  const rows = [];
  for (const s of samples) {
    if (!rows.some((r) => samePoint(r, s) && r.transport === s.transport)) {
      rows.push({ workers: s.workers, inflight: s.inflight, len: s.len, transport: s.transport });
    }
  }
  rows.sort((a, b) => a.workers - b.workers || a.inflight - b.inflight || a.len - b.len ||
    transports.indexOf(a.transport) - transports.indexOf(b.transport));
  return rows.map((row) => {
    const of = (c) => samples.filter((s) =>
      samePoint(s, row) && s.transport === row.transport && codecKey(s) === codecKey(c));
    const cells = Object.fromEntries(codecs.map((c) => [codecKey(c), {
      rate: summarize(of(c).map((s) => s.rate)), cpu: summarize(of(c).map((s) => s.cpuMicrosPerRoundTrip)),
    }]));
    const [base, head] = codecs.slice(0, 2).map(of);
    const ratios = head.map((h) => h.rate / base.find((b) => b.rep === h.rep)?.rate).filter(Number.isFinite);
    return { ...row, cells, headOverBase: summarize(ratios) };
  });
}

// The codec's share of a round trip's CPU time in a row, per codec: the
// in-process CPU µs of two serializations and two decodes (the builtin codec
// for `advanced`, json for json) over the CPU µs per round trip of all the
// processes: CPU time over CPU time, which a busy machine, stretching the
// wall clock of both, moves less. null where either was not measured.
function codecShares(row, inproc) {
  const operation = inproc?.rows.find((r) => r.len === row.len)?.cpu;
  return Object.fromEntries(codecs.map((c) => {
    const codec = operation?.[`${c.role}/${c.serialization === 'advanced' ? 'builtin' : 'json'}`]?.median;
    const roundTrip = row.cells[codecKey(c)].cpu?.median;
    return [codecKey(c), codec && roundTrip ? (2 * codec) / roundTrip : null];
  }));
}

const versionOf = (binaries, role) => binaries.find((b) => b.role === role);
const codecLabel = (binaries, c) => {
  const b = versionOf(binaries, c.role);
  return c.serialization === 'json' ? `json ${b.version}` : `advanced ${b.version} (${b.codec})`;
};
const transportLabel = (transport) => (transport === 'unix' ? 'unix socket' : 'pipe');
const percent = (x) => (x === null ? '—' : `${(x * 100).toFixed(0)}%`);

// inproc: the in-process summary ({ rows }) the shares come from, if measured.
function markdown(rows, binaries, inproc) {
  const [base, head] = ['base', 'head'].map((role) => versionOf(binaries, role).version);
  return fmt.table(
    ['workload', 'transport', ...codecs.map((c) => `${codecLabel(binaries, c)} round trips/s`), `advanced ${head} / ${base}`,
      `codec's share of the CPU: ${codecs.map((c) => codecLabel(binaries, c).split(' (')[0]).join(' · ')}`],
    rows.map((r) => {
      const shares = codecShares(r, inproc);
      return [workload(r), transportLabel(r.transport), ...codecs.map((c) => fmt.range(r.cells[codecKey(c)].rate)),
        fmt.range(r.headOverBase, fmt.ratio), codecs.map((c) => percent(shares[codecKey(c)])).join(' · ')];
    }));
}

// Per codec, the unix socket's rate over the pipe's at each point: their
// median over the points, with min and max.
function socketOverPipe(rows) {
  return codecs.map((c) => {
    const ratios = rows.filter((r) => r.transport === 'unix').map((u) => {
      const pipe = rows.find((p) => p.transport === 'pipe' && samePoint(p, u));
      return u.cells[codecKey(c)].rate?.median / pipe?.cells[codecKey(c)].rate?.median;
    }).filter(Number.isFinite);
    return { ...c, ratio: summarize(ratios) };
  });
}

function socketMarkdown(rows, binaries) {
  return fmt.table(['codec', 'unix socket / pipe, over the workloads'],
    socketOverPipe(rows).map((r) => [codecLabel(binaries, r), fmt.range(r.ratio, fmt.ratio)]));
}

// The chart panel (bench/chart.js): a tick per payload, grouped by W×C; a
// line per codec and transport, the unix socket's thin, with hollow squares.
// As wide as two panels, or more for a grid of more workers.
function panel(rows, binaries) {
  const points = [...new Map(rows.map((r) => [workload(r), r])).values()];
  const x = points.map((p) => ({ key: workload(p), label: fmt.bytes(p.len), group: `${p.workers}x${p.inflight}` }));
  return {
    width: Math.max(2 * kPanelWidth, 80 + 26 * x.length),
    title: 'WxC payload = P: round trips per second, pipe and unix socket', yLabel: 'round trips/s (log scale)',
    xLabel: 'W workers x C messages in flight each, payload P', x,
    series: codecs.flatMap((c) => transports.map((transport) => ({
      label: `${codecLabel(binaries, c).split(' (')[0]} ${transportLabel(transport)}`,
      color: roleColors[c.role], dash: c.serialization === 'json' ? '6 4' : null,
      marker: transport === 'unix' ? 'square' : 'circle', thin: transport === 'unix',
      points: rows.filter((r) => r.transport === transport && r.cells[codecKey(c)].rate)
        .map((r) => ({ x: workload(r), ...r.cells[codecKey(c)].rate })),
    }))),
  };
}

module.exports = {
  concurrencies, workerCounts, codecs, grid, workload, measure, summarizeTransport, codecShares, markdown,
  socketOverPipe, socketMarkdown, panel,
};

// Standalone: the grid and the in-process costs its shares come from, printed.
if (require.main === module) {
  const fs = require('node:fs');
  const { values, binaries } = require('./flags').parseTableFlags('transport-table');
  const { settings } = require('./settings');
  const s = settings[values.quick ? 'quick' : 'full'];
  const reps = Number(values.reps ?? s.transport.reps);
  (async () => {
    const started = Date.now();
    const samples = await measure({ binaries, ...s.transport, reps });
    // Cells of 40 ms (--quick's) may time a codec before V8 has optimized it.
    const inproc = summarizeInProcess(await inProcess({
      binaries, ...settings.full.inproc, reps: values.quick ? 1 : 3,
    }));
    const rows = summarizeTransport(samples);
    console.log(`${markdown(rows, binaries, inproc)}\n\n${socketMarkdown(rows, binaries)}`);
    console.error(`transport-table: ${samples.length} runs in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    if (values.json) fs.writeFileSync(values.json, `${JSON.stringify({ binaries, samples, rows, inproc }, null, 2)}\n`);
  })();
}
