'use strict';
// The cost of one check (harness/oracle/checks.js) with both codecs in-process, js
// against native, in the pinned binary: what in-process fuzzing can reach at
// best. Inputs are fast-check samples of the properties' inputs (fixed seed)
// and the Jazzer.js seed corpora; inputs shaped like a known native crash
// (harness/recipes/crash-shapes.js) are left out, since they would end the process.
// Prints one line per target and source; with --cpu-prof, the functions that
// took the most self time in the timed loop.
//   node bench/check-cost.js [--seconds S] [--samples N] [--seed N] [--only value,frame,stream] [--cpu-prof]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { spawnSync } = require('node:child_process');
const { resolveNode } = require('../harness/base/binaries');
const { Outcome } = require('../harness/base/vocabulary');

const targets = ['value', 'frame', 'stream'];
const root = path.join(__dirname, '..');

function options(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '3' },
      samples: { type: 'string', default: '2000' },
      seed: { type: 'string', default: '42' },
      only: { type: 'string', default: targets.join(',') },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  const number = (name, min) => {
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min}, got ${values[name]}`);
    return n;
  };
  const only = values.only.split(',').filter(Boolean);
  const unknown = only.find((t) => !targets.includes(t));
  if (unknown || !only.length) throw new Error(`--only takes targets among ${targets.join(', ')}`);
  return { seconds: number('seconds', 0), samples: Math.floor(number('samples', 1)),
    seed: Math.floor(number('seed', 0)), only, cpuProf: values['cpu-prof'] };
}

// Runs this script again in the pinned binary, with the internals the native codec needs.
function reexec(argv) {
  const node = resolveNode();
  const child = spawnSync(node, ['--expose-internals', '--no-warnings', __filename, ...argv], { stdio: 'inherit' });
  process.exit(child.status ?? 2);
}

// The inputs of each target's check: fast-check samples as the properties
// make them (frames written by codec a), and the seed corpus as Jazzer.js reads it.
function inputsOf(target, { samples, seed }, ops) {
  const fc = require('fast-check');
  const { screen } = require('../harness/recipes/crash-shapes');
  const { properties } = require('../properties/definitions');
  const fuzzInputs = require('../fuzzers/jazzer/inputs');
  const { applyCorruption } = require('../harness/wire/corrupt');
  const { chunkSizes } = require('../harness/wire/chunks');
  const frameOf = (recipe) => {
    const outcome = ops.serialize({ codec: 'js', input: { recipe } });
    return outcome.kind === Outcome.ok ? Buffer.from(outcome.bytes, 'hex') : null;
  };
  const fromSample = {
    value: (r) => ({ recipe: r }),
    frame: ([r, c]) => {
      const frame = frameOf(r);
      return frame && { bytes: applyCorruption(frame, c).toString('hex') };
    },
    stream: ([items, plan]) => {
      const frames = items.map(([r, c]) => [frameOf(r), c]).filter(([f]) => f)
        .map(([f, c]) => (c ? applyCorruption(f, c) : f));
      if (!frames.length) return null;
      return { bytes: Buffer.concat(frames).toString('hex'), chunks: chunkSizes(plan, frames.map((f) => f.length)) };
    },
  }[target];
  const sampled = fc.sample(properties[target].arbitrary, { seed, numRuns: samples }).map(fromSample);
  const dir = path.join(__dirname, '..', 'corpus', 'jazzer', target);
  const corpus = fs.readdirSync(dir).sort().map((name) => fuzzInputs[target](fs.readFileSync(path.join(dir, name))));
  const kept = (list) => list.filter((input) => input && !screen(input));
  return { 'fast-check': kept(sampled), corpus: kept(corpus) };
}

// Runs the inputs in turn, again and again, for `seconds` (each at least once).
function timeChecks(target, inputs, seconds, run) {
  const { runCheck } = require('../harness/oracle/checks');
  const times = [];
  const cpu = process.cpuUsage();
  const until = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  for (let i = 0; i < inputs.length || process.hrtime.bigint() < until; i++) {
    const start = process.hrtime.bigint();
    runCheck(target, run, inputs[i % inputs.length]);
    times.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  // CPU time too: on a loaded machine, wall time also counts the waits for a core.
  const { user, system } = process.cpuUsage(cpu);
  return { times, cpu: (user + system) / times.length };
}

function row(target, source, inputs, { times, cpu }) {
  const sorted = Float64Array.from(times).sort();
  const total = times.reduce((s, t) => s + t, 0);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const us = (x) => `${Math.round(x).toLocaleString('en-US')} µs`;
  return `check-cost.js target=${target} source=${source} inputs=${inputs} checks=${times.length}: ` +
    `${Math.round(times.length / total * 1e6).toLocaleString('en-US')}/s mean ${us(total / times.length)} ` +
    `median ${us(at(0.5))} p99 ${us(at(0.99))} cpu ${us(cpu)}`;
}

// Self time per function of a .cpuprofile, largest first.
function selfTimes(profile) {
  const interval = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length);
  const byFunction = new Map();
  for (const { callFrame, hitCount } of profile.nodes) {
    const { functionName, url, lineNumber } = callFrame;
    const where = url ? ` ${path.relative(root, url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'}${where}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hitCount * interval);
  }
  const total = [...byFunction.values()].reduce((s, t) => s + t, 0);
  return [...byFunction].sort((x, y) => y[1] - x[1]).map(([name, t]) => ({ name, share: t / total }));
}

async function profiled(fn) {
  const { Session } = require('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const result = fn();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  return { result, profile };
}

async function main(argv) {
  let opts;
  try {
    opts = options(argv);
  } catch (err) {
    console.error(`check-cost: ${err.message}`);
    process.exit(2);
  }
  if (!process.execArgv.includes('--expose-internals')) return reexec(argv);
  const { createOps } = require('../harness/oracle/ops');
  const { buildInput } = require('../harness/recipes/build');
  const ops = createOps(buildInput);
  const codecs = { a: 'js', b: 'native' };
  const run = (side, request) => ops[request.op]({ ...request, codec: codecs[side] });
  console.log(`check-cost.js ${process.version}, js against native in-process, seed ${opts.seed}`);
  const profileDir = opts.cpuProf ? fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-check-cost-')) : null;
  for (const target of opts.only) {
    for (const [source, inputs] of Object.entries(inputsOf(target, opts, ops))) {
      timeChecks(target, inputs.slice(0, 200), 0, run);  // warm up
      if (!opts.cpuProf) {
        console.log(row(target, source, inputs.length, timeChecks(target, inputs, opts.seconds, run)));
        continue;
      }
      const { result, profile } = await profiled(() => timeChecks(target, inputs, opts.seconds, run));
      console.log(row(target, source, inputs.length, result));
      const file = path.join(profileDir, `${target}-${source}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      for (const { name, share } of selfTimes(profile).slice(0, 12)) {
        console.log(`  ${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
      }
      console.log(`  (${file})`);
    }
  }
}

main(process.argv.slice(2));
