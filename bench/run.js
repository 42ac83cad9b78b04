#!/usr/bin/env node
'use strict';
// make bench: fuzzing throughput with harness overhead and memory, time to
// find each mutant adapter, and the codec performance table of the native
// codec (fork() IPC and in-process), as Markdown tables, one JSON file and a
// chart, in --out. A full run takes about 12 minutes on 2 cores; --quick
// about 2 and only shows that everything runs (its files are named quick.*).
//   node bench/run.js [--quick] [--out DIR] [--only codec,inproc,throughput,ttf]
//                     [--base 26.3.1] [--head 26.10.0]

const fs = require('node:fs');
const path = require('node:path');
const { parseFlags } = require('./flags');
const { resolveNode, root } = require('../harness/binaries');
const codecTable = require('./codec-table');
const throughput = require('./throughput');
const { renderCoverage } = require('../harness/coverage');
const ttf = require('./time-to-find');
const { writeChart } = require('./chart');
const { machine, binary } = require('./machine');

const parts = ['codec', 'inproc', 'throughput', 'ttf'];

const settings = {
  full: {
    fork: { reps: 5, seconds: 0.75, warmup: 0.2 },
    inproc: { reps: 5, ms: 150 },
    throughput: { reps: 3, seconds: 10 },
    ttf: { seeds: [1, 2, 3, 4, 5], cap: 60 },
  },
  quick: {
    fork: { reps: 1, seconds: 0.25, warmup: 0.1 },
    inproc: { reps: 1, ms: 40 },
    throughput: { reps: 1, seconds: 3 },
    ttf: { seeds: [1], cap: 30 },
  },
};

const log = (text) => process.stderr.write(`${text}\n`);

async function timedPart(name, results, fn) {
  const started = Date.now();
  log(`bench: ${name} ...`);
  results[name] = await fn();
  results[name].elapsedSeconds = (Date.now() - started) / 1000;
  log(`bench: ${name} done in ${results[name].elapsedSeconds.toFixed(0)} s`);
}

const colors = { base: '#d9480f', head: '#1c7ed6' };

function chartOf(results, binaries, meta) {
  const version = (role) => binaries.find((b) => b.role === role).version;
  const panels = [];
  if (results.codec) {
    panels.push({
      title: 'fork() IPC round trips per second', yLabel: 'round trips/s (log scale)',
      series: ['advanced', 'json'].flatMap((serialization) => ['base', 'head'].map((role) => ({
        label: `${serialization} ${version(role)}`, color: colors[role], dash: serialization === 'json' ? '6 4' : null,
        points: results.codec.rows.filter((r) => r.serialization === serialization)
          .map((r) => ({ len: r.len, ...r[role] })),
      }))),
    });
  }
  if (results.inproc) {
    panels.push({
      title: 'in-process serialize + decode per second', yLabel: 'operations/s (log scale)',
      series: ['builtin', 'json'].flatMap((codec) => ['base', 'head'].map((role) => ({
        label: `${codec === 'builtin' ? 'advanced' : 'json'} ${version(role)}`, color: colors[role], dash: codec === 'json' ? '6 4' : null,
        points: results.inproc.rows.map((r) => ({ len: r.len, ...r.cells[`${role}/${codec}`] })).filter((p) => p.median),
      }))),
    });
  }
  const reps = results.codec?.reps ?? results.inproc?.reps;
  return {
    title: `advanced vs json: node ${version('base')} (${binaries[0].codec} codec) and ${version('head')} (${binaries[1].codec} codec)`,
    note: `median of ${reps} interleaved runs, bars from min to max; ${meta.machine.cores} cores, ${meta.machine.cpu}, ${meta.machine.date.slice(0, 10)}`,
    panels, lens: codecTable.sizes,
  };
}

// The coverage view over every value-target run (runs saved before it have none).
function valueClasses(runs = []) {
  const total = new Map();
  for (const run of runs) {
    for (const [k, n] of Object.entries(run.coverage ?? {})) total.set(k, (total.get(k) ?? 0) + n);
  }
  return renderCoverage(total);
}

function report(results, meta, files) {
  const { machine: m, binaries } = meta;
  const lines = [
    `# ipcfuzz benchmark${meta.quick ? ' (quick: too short to quote)' : ''}`, '',
    `${m.date.slice(0, 16).replace('T', ' ')} UTC · ${m.cores} cores, ${m.cpu}, ${m.memoryGiB} GiB · ${m.kernel} · ` +
    `host node ${m.hostNode} · load average ${m.loadAverage.join(' ')} at the start, ${meta.loadAtEnd.join(' ')} at the end · ` +
    `\`node bench/run.js${meta.quick ? ' --quick' : ''}\` took ${(meta.seconds / 60).toFixed(1)} min`, '',
    ...binaries.map((b) => `- ${b.role}: node ${b.version} (V8 ${b.v8}), ${b.codec} \`advanced\` codec, \`${path.relative(root, b.node)}\``), '',
    'Every figure is a median with [min–max] over the runs named; nothing here is asserted by `make test`.', '',
  ];
  if (results.codec) {
    const { reps, seconds, inflight } = results.codec;
    lines.push('## Codec performance: fork() IPC round trips', '',
      `A parent forks a child of the same binary with the given \`serialization\`, keeps ${inflight} messages ` +
      `\`{ payload: '.'.repeat(n) }\` in flight, and the child echoes each; round trips per second over ${seconds} s after a warm-up. ` +
      `${reps} repetitions, binaries and serializations interleaved; the ratio is the median of the ratios within a repetition. ` +
      'CPU µs per round trip is the CPU time of both processes, which a busy machine disturbs less than the rate.', '',
      codecTable.forkMarkdown(results.codec.rows, binaries), '');
  }
  if (results.inproc) {
    lines.push('## The codecs in-process (serialize + decode, no pipe)', '',
      `Operations (serialize the message to a frame, decode it) per second, ${results.inproc.ms} ms per cell, ${results.inproc.reps} runs per binary. ` +
      '`builtin` is what child_process runs in that binary; `native` is `internalBinding(\'ipc_serdes\')` alone; ' +
      '`js` is the reference (harness/codecs/js.js); `json` is JSON.stringify + UTF-8 and back.', '',
      codecTable.inProcessMarkdown(results.inproc, binaries), '');
  }
  if (results.throughput) {
    const { reps, seconds } = results.throughput;
    lines.push('## Fuzzing throughput and harness overhead', '',
      `js against native in ${binaries.find((b) => b.role === 'head').version}, default known differences; ` +
      `each target alone for ${seconds} s, ${reps} runs with different seeds, after one untimed run of ${3 * seconds} s ` +
      'on the findings folder ' +
      'they share (a first run shrinks and confirms the differences it finds before it fuzzes at full speed). ' +
      `fast-check execs/s is counted after the run's first ${throughput.kWarmUpSeconds} s, in the same processes, ` +
      'to its last progress (the rate of those seconds, whose code V8 has yet to optimize, is beside it); ' +
      'Jazzer.js execs/s from the end of the seed ' +
      'corpus to the last progress line. Bare codec µs/exec: the codec calls the target makes ' +
      '(fast-check: a random tenth of the requests and checks of the run; ' +
      'Jazzer.js: a random tenth of the inputs its processes ran after their seed corpus; ' +
      'both: every one whose value is heavy, a string of 4,096 units, a nest 1,000 deep, an array of 1,000 items, ' +
      'a view of 64 KiB or more; each scaled up by how many it stands for), ' +
      'timed alone in a tight loop in the same binary. ' +
      'Harness overhead = (1 / execs per second) / bare cost per exec.', '',
      throughput.markdown(results.throughput.rows, { before: meta.before?.rows }), '',
      meta.before ? `Before: the same table of the run this one replaced (${meta.before.date.slice(0, 10)}).` : '', '',
      '## Crash tax', '',
      'The value targets again, without the inputs that the crash screen (harness/crash-screen.js) sends to an ' +
      'isolated worker because they have the shape of the native codec\'s known crash; the difference is what that ' +
      'crash costs the rate.', '',
      throughput.crashTaxMarkdown(results.throughput.rows), '',
      '## Memory', '',
      'Peak RSS (VmHWM) over the same runs. fast-check runs in the harness process (host node) and drives ' +
      'one codec worker for both codecs; a Jazzer.js target process runs the reference codec itself and drives ' +
      'a worker with the codec under test.', '',
      throughput.memoryMarkdown(results.throughput.rows), '',
      '## Value classes met', '',
      'By the value targets of the runs above, both engines added up (see harness/coverage.js).', '',
      '```', valueClasses(results.throughput.runs), '```', '');
  }
  if (results.ttf) {
    const { seeds, cap } = results.ttf;
    lines.push('## Time to find the mutant adapters', '',
      `Seconds from the start of the engine (empty working corpus, seed corpus allowed, no known differences) to the first ` +
      `difference in the mutant's expected tier; seeds ${seeds.join(', ')}, each hunt capped at ${cap} s; (found/runs). ` +
      'fast-check: the four properties in turns; Jazzer.js: scripts/mutant-hunt.js, three targets on the cores, ' +
      'start-up included.', '',
      ttf.markdown(results.ttf.rows, cap), '');
  }
  if (files.chart) {
    lines.push(`![round trips per second by payload size](${path.basename(files.chart.png)})`, '');
  }
  return `${lines.join('\n')}`;
}

// The throughput rows of the measurement about to be replaced, to show beside the new ones.
function earlierThroughput(file) {
  try {
    const { meta, results } = JSON.parse(fs.readFileSync(file, 'utf8'));
    return results.throughput ? { date: meta.machine.date, rows: results.throughput.rows } : undefined;
  } catch {
    return undefined;  // none yet, or not ours to read
  }
}

async function main() {
  const { values } = parseFlags('bench', { options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(__dirname, 'results') },
    only: { type: 'string' },
    base: { type: 'string', default: '26.3.1' },
    head: { type: 'string', default: '26.10.0' },
  } });
  const chosen = values.only ? values.only.split(',') : parts;
  const unknown = chosen.filter((p) => !parts.includes(p));
  if (unknown.length) {
    console.error(`bench: unknown part ${unknown.join(', ')}; parts are ${parts.join(', ')}`);
    process.exit(2);
  }
  const s = settings[values.quick ? 'quick' : 'full'];
  const started = Date.now();
  const binaries = [binary('base', resolveNode(values.base)), binary('head', resolveNode(values.head))];
  const meta = { machine: machine(), binaries, quick: values.quick, settings: s };
  const results = {};

  if (chosen.includes('codec')) {
    await timedPart('codec', results, async () => {
      const samples = await codecTable.forkRoundTrips({ binaries, ...s.fork });
      return { ...s.fork, inflight: 32, samples, rows: codecTable.summarizeFork(samples) };
    });
    console.log(`${codecTable.forkMarkdown(results.codec.rows, binaries)}\n`);
  }
  if (chosen.includes('inproc')) {
    await timedPart('inproc', results, async () => {
      const samples = await codecTable.inProcess({ binaries, ...s.inproc });
      return { ...s.inproc, samples, ...codecTable.summarizeInProcess(samples) };
    });
    console.log(`${codecTable.inProcessMarkdown(results.inproc, binaries)}\n`);
  }
  if (chosen.includes('throughput')) {
    await timedPart('throughput', results, async () => {
      const runs = await throughput.measureThroughput({
        ...s.throughput, onRun: (r) => log(`  ${r.engine} ${r.target}: ${r.execsPerSecond.toFixed(0)} execs/s`),
      });
      return { ...s.throughput, runs, rows: throughput.summarizeThroughput(runs) };
    });
    const { rows } = results.throughput;
    console.log(`${throughput.markdown(rows)}\n\n${throughput.crashTaxMarkdown(rows)}\n\n${throughput.memoryMarkdown(rows)}\n`);
  }
  if (chosen.includes('ttf')) {
    await timedPart('ttf', results, async () => {
      const runs = await ttf.timeToFind({
        ...s.ttf, onResult: (r) => log(`  ${r.engine} seed ${r.seed} ${r.name}: ${r.signature ? `${r.seconds.toFixed(1)} s` : 'not found'}`),
      });
      return { ...s.ttf, runs, rows: ttf.summarizeTimes(runs) };
    });
    console.log(`${ttf.markdown(results.ttf.rows, s.ttf.cap)}\n`);
  }

  meta.seconds = (Date.now() - started) / 1000;
  meta.loadAtEnd = machine().loadAverage;
  fs.mkdirSync(values.out, { recursive: true });
  const base = path.join(values.out, values.quick ? 'quick' : 'latest');
  meta.before = earlierThroughput(`${base}.json`);
  const files = {};
  if (results.codec || results.inproc) files.chart = writeChart(base, chartOf(results, binaries, meta));
  fs.writeFileSync(`${base}.md`, report(results, meta, files));
  // Infinity (a mutant not found) is written as null.
  fs.writeFileSync(`${base}.json`, `${JSON.stringify({ meta, results }, (k, v) => (v === Infinity ? null : v), 2)}\n`);
  log(`bench: ${(meta.seconds / 60).toFixed(1)} min; wrote ${[`${base}.md`, `${base}.json`, files.chart?.svg, files.chart?.png]
    .filter(Boolean).map((f) => path.relative(process.cwd(), f)).join(', ')}`);
}

main().catch((err) => {
  console.error(`bench: ${err.stack}`);
  process.exitCode = 1;
});
