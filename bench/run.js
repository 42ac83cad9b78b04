#!/usr/bin/env node
'use strict';
// make bench: fuzzing throughput with harness overhead and memory, time to
// find each mutant adapter, the codec performance table of the native codec
// (fork() IPC and in-process) and the transport table (workers ×
// concurrency × payload, pipe and unix socket), as Markdown tables, one JSON
// file and a chart, in --out. A full run takes about 30 minutes on 2 cores;
// --quick about 3 and only shows that everything runs (its files are named
// quick.*). The run ends by --minutes: each stage (bench/stages.js) is given
// the time that remains, and one that cannot finish in it is cut, keeping
// what it measured (bench/deadline.js).
//   node bench/run.js [--quick] [--out DIR] [--only codec,inproc,transport,throughput,ttf] [--minutes 40]
//                     [--base 26.3.1] [--head the default binary]

const fs = require('node:fs');
const path = require('node:path');
const { parseFlags } = require('./flags');
const { resolveNode, defaultVersion, root } = require('../harness/base/binaries');
const codecTable = require('./codec-table');
const transportTable = require('./transport-table');
const throughput = require('./throughput');
const { renderCoverage } = require('../harness/observe/coverage');
const ttf = require('./time-to-find');
const { writeChart, roleColors, payloadAxis, payloadLabel } = require('./chart');
const { machine, binary } = require('./machine');
const { stages, settings, script } = require('./stages');
const { runStage } = require('./deadline');
const { EnvironmentError } = require('../harness/base/errors');

const parts = Object.keys(stages);
// Kept from the deadline for writing the files after the last stage.
const kReserveMs = 5000;

const log = (text) => process.stderr.write(`${text}\n`);

// The chart: the codec table's panels side by side, the transport grid's under them.
function chartOf(results, binaries, meta) {
  const version = (role) => binaries.find((b) => b.role === role).version;
  const x = payloadAxis(codecTable.sizes);
  const codecPanels = [];
  if (results.codec?.rows.length) {
    codecPanels.push({
      title: 'fork() IPC round trips per second', yLabel: 'round trips/s (log scale)', xLabel: payloadLabel, x,
      series: ['advanced', 'json'].flatMap((serialization) => ['base', 'head'].map((role) => ({
        label: `${serialization} ${version(role)}`, color: roleColors[role], dash: serialization === 'json' ? '6 4' : null,
        points: results.codec.rows.filter((r) => r.serialization === serialization && r[role])
          .map((r) => ({ x: r.len, ...r[role] })),
      }))),
    });
  }
  if (results.inproc?.rows.length) {
    codecPanels.push({
      title: 'in-process serialize + decode per second', yLabel: 'operations/s (log scale)', xLabel: payloadLabel, x,
      series: ['builtin', 'json'].flatMap((codec) => ['base', 'head'].map((role) => ({
        label: `${codec === 'builtin' ? 'advanced' : 'json'} ${version(role)}`, color: roleColors[role], dash: codec === 'json' ? '6 4' : null,
        points: results.inproc.rows.map((r) => ({ x: r.len, ...r.cells[`${role}/${codec}`] })).filter((p) => p.median),
      }))),
    });
  }
  const rows = [codecPanels];
  if (results.transport?.rows.length) {
    rows.push([transportTable.panel(results.transport.rows, binaries)]);
  }
  const reps = [...new Set(['codec', 'inproc', 'transport'].map((name) => results[name]?.reps).filter(Boolean))];
  return {
    title: `advanced vs json: node ${version('base')} (${binaries[0].codec} codec) and ${version('head')} (${binaries[1].codec} codec)`,
    note: `median of ${reps.join(' or ')} interleaved runs, bars from min to max; ${meta.machine.cores} cores, ${meta.machine.cpu}, ${meta.machine.date.slice(0, 10)}`,
    rows: rows.filter((row) => row.length),
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

// What the deadline left out, for the top of the report.
function deadlineLine(results, meta) {
  const cut = Object.entries(results).filter(([, r]) => r.cut).map(([name, r]) => `${name} (${r.cut})`);
  const failed = Object.entries(results).filter(([, r]) => r.error).map(([name]) => name);
  return `Deadline: ${meta.minutes} min (\`--minutes\`), each stage given what remained; ` +
    `${cut.length ? `cut: ${cut.join(', ')}` : 'no stage was cut'}${failed.length ? `; failed: ${failed.join(', ')}` : ''}.`;
}

// A stage that was cut or failed says so above its table; '' otherwise.
function stageNote(result) {
  const kept = result.measured ? `the table holds the ${result.measured} measurements taken before` : 'nothing was measured';
  if (result.error) return `**Failed** (${result.error.split('\n')[0]}): ${kept}.\n`;
  if (result.cut) return `**Cut** (${result.cut}): ${kept}.\n`;
  return '';
}

// A stage's table, or nothing when it measured nothing.
const tableOf = (result, make) => (result.measured ? make() : '');

function transportSection(results, binaries) {
  const { reps, seconds, workers, concurrencies } = results.transport;
  const head = binaries.find((b) => b.role === 'head');
  return ['## Transport table: workers × concurrency × payload, pipe and unix socket', '',
    '`WxC payload = P`: one parent forks W workers of the same binary with the given `serialization` and keeps C ' +
    'send-and-wait cycles going with each (C messages ' +
    "`{ payload: '.'.repeat(P) }` in flight per worker; each echo is " +
    'answered with the next message), the grid of A. Shuvaev\'s "Performance of Inter-process Communications in ' +
    'Node.js" (2016), whose charts are labelled so; the codec table above is its 1x32 pipe point. ' +
    `W is one worker, half and all of the cores less one (here ${workers.join(', ')}); C is ${concurrencies.join(', ')}. ` +
    '**pipe** is `child.send()` over the channel of `fork()`; **unix socket** carries the same frames over a socket ' +
    'each worker connects to, written and parsed by the same child_process serialization of that binary ' +
    '(`advanced`: `[uint32 BE length][V8 payload]` by the binary\'s own codec; `json`: a JSON line), ' +
    'with child_process\'s channel out of the path. ' +
    `Round trips per second over ${seconds} s after a warm-up, ${reps} repetition${reps === 1 ? '' : 's'}, ` +
    'every codec and transport of a ' +
    'workload run one after another in a turned order; the ratio is the median of the ratios within a repetition. ' +
    `\`json\` runs in ${head.version} alone: the codec table shows it alike in both binaries.`, '',
    'How to read it:', '',
    '- Across a row: the codecs on one transport and workload; the ratio is what the native codec gives ' +
    '`advanced` there.',
    '- The codec\'s share: the CPU µs of two serializations and two decodes of the message in-process ' +
    '(the runs of the table above: ' +
    '`builtin` for `advanced`, `json` for json, same binary and payload) over the CPU µs per round trip of all the ' +
    'processes in that cell (— where either was not measured); CPU time over CPU time, which a busy machine moves ' +
    'less than it moves rates. Where it is small, the pipe or socket, the event ' +
    'loop and the handler take the round ' +
    'trip and a faster codec cannot help much; where it is large, the codec is what a faster one saves. It is an ' +
    'estimate: a codec timed in a tight loop has warm caches, so the share in a real round trip is if anything ' +
    'larger, and one above 100% says that the two figures it divides were disturbed.',
    '- C = 1 measures latency (one message at a time per worker, the rate set by wake-ups); C = 32 throughput. ' +
    'With W workers the parent serializes and decodes for all of them, and W + 1 processes share the cores.',
    '- The second table: per codec, the socket\'s rate over the pipe\'s at the same workload, over all workloads. ' +
    'The study found the pipe and a unix socket alike (and TCP, not measured here, 20–40% slower); a ratio above 1 ' +
    'is the time child_process\'s channel spends on a message beyond writing and parsing its frame.', '',
    stageNote(results.transport),
    tableOf(results.transport, () => `${transportTable.markdown(results.transport.rows, binaries, results.inproc)}\n\n` +
      transportTable.socketMarkdown(results.transport.rows, binaries)), ''];
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
    deadlineLine(results, meta), '',
  ];
  if (results.codec) {
    const { reps, seconds, inflight } = results.codec;
    lines.push('## Codec performance: fork() IPC round trips', '',
      `A parent forks a child of the same binary with the given \`serialization\`, keeps ${inflight} messages ` +
      `\`{ payload: '.'.repeat(n) }\` in flight, and the child echoes each; round trips per second over ${seconds} s after a warm-up. ` +
      `${reps} repetitions, binaries and serializations interleaved; the ratio is the median of the ratios within a repetition. ` +
      'CPU µs per round trip is the CPU time of both processes, which a busy machine disturbs less than the rate.', '',
      stageNote(results.codec),
      tableOf(results.codec, () => codecTable.forkMarkdown(results.codec.rows, binaries)), '');
  }
  if (results.inproc) {
    lines.push('## The codecs in-process (serialize + decode, no pipe)', '',
      `Operations (serialize the message to a frame, decode it) per second, ${results.inproc.ms} ms per cell, ${results.inproc.reps} runs per binary. ` +
      '`builtin` is what child_process runs in that binary; `native` is `internalBinding(\'ipc_serdes\')` alone; ' +
      '`js` is the reference (harness/codecs/js.js); `json` is JSON.stringify + UTF-8 and back.', '',
      stageNote(results.inproc),
      tableOf(results.inproc, () => codecTable.inProcessMarkdown(results.inproc, binaries)), '');
  }
  if (results.transport) lines.push(...transportSection(results, binaries));
  if (results.throughput?.measured === 0) {
    lines.push('## Fuzzing throughput and harness overhead', '', stageNote(results.throughput));
  } else if (results.throughput) {
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
      stageNote(results.throughput), throughput.markdown(results.throughput.rows, { before: meta.before?.rows }), '',
      meta.before ? `Before: the same table of the run this one replaced (${meta.before.date.slice(0, 10)}).` : '', '',
      '## Crash tax', '',
      'The value targets again, without the inputs that the crash screen (harness/recipes/crash-shapes.js) sends ' +
      'to an isolated worker because they have the shape of the native codec\'s known crash; the difference is ' +
      'what that crash costs the rate.', '',
      throughput.crashTaxMarkdown(results.throughput.rows), '',
      '## Memory', '',
      'Peak RSS (VmHWM) over the same runs. fast-check runs in the harness process (host node) and drives ' +
      'one codec worker for both codecs; a Jazzer.js target process runs the reference codec itself and drives ' +
      'a worker with the codec under test.', '',
      throughput.memoryMarkdown(results.throughput.rows), '',
      '## Value classes met', '',
      'By the value targets of the runs above, both engines added up (see harness/observe/coverage.js).', '',
      '```', valueClasses(results.throughput.runs), '```', '');
  }
  if (results.ttf) {
    const { seeds, cap } = results.ttf;
    lines.push('## Time to find the mutant adapters', '',
      `Seconds from the start of the engine (empty working corpus, seed corpus allowed, no known differences) to the first ` +
      `difference in the mutant's expected tier; seeds ${seeds.join(', ')}, each hunt capped at ${cap} s; (found/runs). ` +
      'fast-check: the four properties in turns; Jazzer.js: scripts/mutant-hunt.js, three targets on the cores, ' +
      'start-up included.', '',
      stageNote(results.ttf), tableOf(results.ttf, () => ttf.markdown(results.ttf.rows, cap)), '');
  }
  if (files.chart) {
    lines.push(`![round trips per second by payload size, and by workload](${path.basename(files.chart.png)})`, '');
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

// Runs the chosen stages one after another, each in a process of its own
// given what remains of the deadline (less the time to write the files).
async function runStages(chosen, { binaries, s, deadline }) {
  const results = {};
  for (const name of chosen) {
    const started = Date.now();
    const until = deadline - kReserveMs;
    let outcome = { samples: [], cut: 'not started: no time was left', error: null };
    if (until - started > 1000) {
      log(`bench: ${name} ... (${((until - started) / 1000).toFixed(0)} s left)`);
      outcome = await runStage(script, { name, binaries, settings: s[name] }, { until });
    }
    const { samples, cut, error } = outcome;
    results[name] = {
      ...stages[name].summarize(samples, s[name]), cut, error, measured: samples.length,
      elapsedSeconds: (Date.now() - started) / 1000,
    };
    const how = error ? `failed: ${error.split('\n')[0]}` : cut ? `cut (${cut}) after ${samples.length} measurements` : 'done';
    log(`bench: ${name} ${how} in ${results[name].elapsedSeconds.toFixed(0)} s`);
    if (samples.length) console.log(`${stages[name].print(results[name], { binaries, results })}\n`);
  }
  return results;
}

async function main() {
  const { values } = parseFlags('bench', { options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(__dirname, 'results') },
    only: { type: 'string' },
    minutes: { type: 'string', default: '40' },
    base: { type: 'string', default: '26.3.1' },
    head: { type: 'string', default: defaultVersion },
  } });
  const chosen = values.only ? values.only.split(',') : parts;
  const unknown = chosen.filter((p) => !parts.includes(p));
  if (unknown.length) {
    console.error(`bench: unknown part ${unknown.join(', ')}; parts are ${parts.join(', ')}`);
    process.exit(2);
  }
  const minutes = Number(values.minutes);
  if (!(minutes > 0)) {
    console.error(`bench: --minutes is a number of minutes above 0, not ${JSON.stringify(values.minutes)}`);
    process.exit(2);
  }
  const started = Date.now();
  const deadline = started + minutes * 60_000;
  const s = settings[values.quick ? 'quick' : 'full'];
  const binaries = [binary('base', resolveNode(values.base)), binary('head', resolveNode(values.head))];
  const meta = { machine: machine(), binaries, quick: values.quick, minutes, settings: s };
  const results = await runStages(chosen, { binaries, s, deadline });

  meta.seconds = (Date.now() - started) / 1000;
  meta.loadAtEnd = machine().loadAverage;
  fs.mkdirSync(values.out, { recursive: true });
  const base = path.join(values.out, values.quick ? 'quick' : 'latest');
  meta.before = earlierThroughput(`${base}.json`);
  const files = {};
  const chart = chartOf(results, binaries, meta);
  if (chart.rows.length) files.chart = writeChart(base, chart);
  fs.writeFileSync(`${base}.md`, report(results, meta, files));
  // Infinity (a mutant not found) is written as null.
  fs.writeFileSync(`${base}.json`, `${JSON.stringify({ meta, results }, (k, v) => (v === Infinity ? null : v), 2)}\n`);
  const failed = chosen.filter((name) => results[name].error);
  const cut = chosen.filter((name) => results[name].cut);
  log(`bench: ${(meta.seconds / 60).toFixed(1)} min of ${minutes}` +
    `${cut.length ? `, cut: ${cut.join(', ')}` : ''}${failed.length ? `, failed: ${failed.join(', ')}` : ''}; ` +
    `wrote ${[`${base}.md`, `${base}.json`, files.chart?.svg, files.chart?.png]
      .filter(Boolean).map((f) => path.relative(process.cwd(), f)).join(', ')}`);
  if (failed.length) process.exitCode = 1;
}

main().catch((err) => {
  // A binary that is missing or unusable is the user's to fix; anything else is a fault of the bench.
  console.error(`bench: ${err instanceof EnvironmentError ? err.message : err.stack}`);
  process.exitCode = err instanceof EnvironmentError ? 2 : 1;
});
