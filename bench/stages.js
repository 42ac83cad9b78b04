'use strict';
// The stages of `make bench`, in the order they run (their settings: settings.js).
// Each stage measures (in a process of its own: this file is its entry,
// bench/deadline.js), sending every sample as it is taken; the samples it
// sent before it ended or was cut are summarized in bench/run.js.

const codecTable = require('./codec-table');
const transportTable = require('./transport-table');
const throughput = require('./throughput');
const ttf = require('./time-to-find');
const { serveStage } = require('./deadline');
const { settings } = require('./settings');

const log = (text) => process.stderr.write(`${text}\n`);

// measure({ binaries, settings, until }, onSample); summarize(samples, settings) -> the stage's result;
// print(result, { binaries, results }) -> its tables for the terminal.
const stages = {
  codec: {
    measure: ({ binaries, settings: s, until }, onSample) =>
      codecTable.forkRoundTrips({ binaries, ...s, until, onSample }),
    summarize: (samples, s) => ({ ...s, inflight: 32, samples, rows: codecTable.summarizeFork(samples) }),
    print: (r, { binaries }) => codecTable.forkMarkdown(r.rows, binaries),
  },
  inproc: {
    measure: ({ binaries, settings: s, until }, onSample) => codecTable.inProcess({ binaries, ...s, until, onSample }),
    summarize: (samples, s) => ({ ...s, samples, ...codecTable.summarizeInProcess(samples) }),
    print: (r, { binaries }) => codecTable.inProcessMarkdown(r, binaries),
  },
  transport: {
    measure: ({ binaries, settings: s, until }, onSample) =>
      transportTable.measure({ binaries, ...s, until, onSample }),
    summarize: (samples, s) => ({
      ...s, workers: transportTable.workerCounts(), concurrencies: transportTable.concurrencies,
      samples, rows: transportTable.summarizeTransport(samples),
    }),
    print: (r, { binaries, results }) =>
      `${transportTable.markdown(r.rows, binaries, results.inproc)}\n\n${transportTable.socketMarkdown(r.rows, binaries)}`,
  },
  throughput: {
    measure: ({ settings: s, until }, onSample) => throughput.measureThroughput({
      ...s, until, onRun: (r) => {
        log(`  ${r.engine} ${r.target}: ${r.execsPerSecond.toFixed(0)} execs/s`);
        onSample(r);
      },
    }),
    summarize: (runs, s) => ({ ...s, runs, rows: throughput.summarizeThroughput(runs) }),
    print: ({ rows }) =>
      `${throughput.markdown(rows)}\n\n${throughput.crashTaxMarkdown(rows)}\n\n${throughput.memoryMarkdown(rows)}`,
  },
  ttf: {
    measure: ({ settings: s, until }, onSample) => ttf.timeToFind({
      ...s, until, onResult: (r) => {
        log(`  ${r.engine} seed ${r.seed} ${r.name}: ${r.signature ? `${r.seconds.toFixed(1)} s` : 'not found'}`);
        onSample(r);
      },
    }),
    summarize: (runs, s) => ({ ...s, runs, rows: ttf.summarizeTimes(runs) }),
    print: (r) => ttf.markdown(r.rows, r.cap),
  },
};

module.exports = { stages, settings, script: __filename };

if (require.main === module) serveStage((job, onSample) => stages[job.name].measure(job, onSample));
