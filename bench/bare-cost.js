'use strict';
// The bare cost of a trace of codec requests (bench/engine-run.js writes
// them): only the codec calls, in a tight loop, in the binary under test
// (started with --expose-internals). What the harness adds around them is
// left out: building values from recipes, hex and JSON, the pipe to the
// worker, canonical trees, comparison. Values are built and frames and reads
// cut once, before timing. A line that names a whole check ({ check, input,
// codecs }, as a batch ran it) stands for the requests that check makes,
// found by running it here once; of a check whose input the crash screen
// knows (`screened`), made in a Jazzer.js target with its native side in a
// worker, those of the other side and the decoding of that side's frame. A
// line with neither stands for none. A line weighted `w` stands for that
// many (harness/observe/trace.js). Prints one JSON line: the seconds the codec calls
// of what the trace stands for take.
//   node --expose-internals bench/bare-cost.js TRACE

const fs = require('node:fs');
const { parseFlags } = require('./flags');
const { loadCodec } = require('../harness/codecs');
const { buildInput } = require('../harness/recipes/build');
const { effectsLog } = require('../harness/recipes/effects');
const { createOps } = require('../harness/oracle/ops');
const { screen } = require('../harness/recipes/crash-shapes');
const { capabilitiesOf } = require('../harness/codecs');
const { runCheck } = require('../harness/oracle/checks');
const { allChecks, onRecipes } = require('../harness/oracle/from-recipes');
const { median } = require('./stats');
const { Outcome } = require('../harness/base/vocabulary');

function payloadOf(hex) {
  const bytes = Buffer.from(hex, 'hex');
  const frame = Buffer.alloc(bytes.length + 4);  // a length prefix before it, as ops.js frames it
  bytes.copy(frame, 4);
  return frame.subarray(4);
}

function readsOf(hex, sizes = []) {
  const data = Buffer.from(hex, 'hex');
  const reads = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= data.length) break;
    reads.push(Buffer.from(data.subarray(at, at + size)));
    at += size;
  }
  if (at < data.length || data.length === 0) reads.push(Buffer.from(data.subarray(at)));
  return reads;
}

// A rejection is the codec's answer, and its cost counts like any other.
function quietly(fn) {
  try {
    fn();
  } catch { /* rejected */ }
}

// One request as a function that makes only its codec calls; null when the
// request never reached a codec (a value that cannot be built), or when a
// native codec is to serialize a value shaped like its known crash: such a
// value can come back from one call and take the process down on a later one.
function prepare(request) {
  const codec = loadCodec(request.codec);
  switch (request.op) {
    case 'serialize': {
      if (request.codec !== 'js' && screen(request.input)) return null;
      const effects = effectsLog();
      let build;
      try {
        build = buildInput(request.input, effects);
      } catch {
        return null;
      }
      // A teardown may throw too (a recipe can replace the port's close()),
      // as it does in ops.js, where that is the input's rejection.
      return () => {
        effects.length = 0;
        // A setup that throws makes the input unbuildable, as in ops.js: no codec call.
        try {
          build.setup();
        } catch {
          return;
        }
        quietly(() => codec.serialize(build.value));
        quietly(() => build.teardown());
      };
    }
    case 'deserialize': {
      const payload = payloadOf(request.bytes);
      return () => quietly(() => codec.deserialize(payload));
    }
    case 'roundtrip': {
      const payload = payloadOf(request.bytes);
      return () => quietly(() => codec.serialize(codec.deserialize(payload)));
    }
    case 'stream': {
      const reads = readsOf(request.bytes, request.chunks);
      return () => {
        let framer;
        quietly(() => { framer = codec.createFramer(); });
        if (!framer) return;
        for (const read of reads) {
          quietly(() => { for (const message of framer.push(read)) void message; });
          quietly(() => framer.buffering());
        }
      };
    }
    default:
      return null;
  }
}

// A long trace is sampled evenly down to kMaxRequests lines (kMaxChecks when it
// holds whole checks), its cost scaled back up; a fast-check value trace of
// the bench's length is timed whole. Its cost has a long tail (the few checks
// of heavy values), so a sample's estimate hangs on which of them fell in it.
// Lines of each weight are sampled apart (weightedGroups, below).
// It is timed a window of requests at a time (built, run kWarm times, then
// the median of kTimed passes), after one sweep that runs every window kWarm
// times to compile the codecs' paths: a tight loop over a few inputs, the
// limit the harness is compared with. Holding every built value of a long
// trace at once would make garbage collection, not the codecs, the cost.
const kMaxRequests = 20000;
const kMaxChecks = 10000;
const kWindow = 32;
const kWarm = 5;
const kTimed = 5;
// A window whose pass takes this long (heavy values: a pass of milliseconds
// is timed well once warm) is run kLongPasses times each way instead.
const kLongPassSeconds = 0.02;
const kLongPasses = 2;

// eachWindow(window, passes): passes() times the window's passes, as many as it is worth.
function sweep(requests, eachWindow) {
  for (let at = 0; at < requests.length; at += kWindow) {
    const window = requests.slice(at, at + kWindow).map(prepare).filter(Boolean);
    const pass = () => {
      const start = process.hrtime.bigint();
      for (const call of window) call();
      return Number(process.hrtime.bigint() - start) / 1e9;
    };
    const long = pass() >= kLongPassSeconds;
    for (let i = 1; i < (long ? kLongPasses : kWarm); i++) pass();
    eachWindow(window, () => Array.from({ length: long ? kLongPasses : kTimed }, pass));
  }
}

const kKnownCrash = { kind: Outcome.crash, signal: 'SIGSEGV', code: null, stderr: '' };

// The requests a trace line stands for. The frame and stream checks' own
// serializations of their pool recipes are left out: a batch worker makes
// each once and keeps it (from-recipes.js FramesOnA).
const ops = createOps(buildInput);
function requestsOf(line) {
  // A line with neither (a Jazzer.js input that made no codec call in its process) stands for none.
  if (line.check === undefined) return line.op === undefined ? [] : [line];
  const requests = [];
  const kept = onRecipes(line.check);
  runCheck(allChecks[line.check], (side, request) => {
    const withCodec = { ...request, codec: line.codecs[side] };
    // Taken as the known crash, as most are: the frames of those that are not go undecoded.
    const judged = line.screened && request.op === 'serialize' && capabilitiesOf(withCodec.codec).mayCrash;
    if (judged) return { ...kKnownCrash };
    if (!(kept && request.op === 'serialize')) requests.push(withCodec);
    return ops[request.op](withCodec);
  }, line.input);
  return requests;
}

// The lines of a trace to time, in groups of one weight each. A line stands
// for its weight `w` (harness/observe/trace.js). The lines of each `w` above 1 are
// sampled evenly down to `max`, each sampled line then standing for the
// lines it was drawn from; the heavy values' lines (weight 1) are all timed:
// a few of them are most of their cost, which a sample of them would miss or
// count many times over. A line given again word for word (a
// Jazzer.js input its process checked before, libFuzzer giving one of its
// corpus a hundred times) is timed once and weighs as many.
function weightedGroups(lines, max) {
  const strata = new Map();  // w -> its lines
  for (const { n, ...line } of lines) {
    const w = line.w ?? 1;
    if (!strata.has(w)) strata.set(w, []);
    strata.get(w).push(line);
  }
  const timed = new Map();  // the text of a line -> { line, weight }
  for (const [w, stratum] of strata) {
    const step = w === 1 ? 1 : Math.ceil(stratum.length / max);
    const sampled = stratum.filter((_, i) => i % step === 0);
    for (const line of sampled) {
      const text = JSON.stringify(line);
      if (!timed.has(text)) timed.set(text, { line, weight: 0 });
      timed.get(text).weight += w * stratum.length / sampled.length;
    }
  }
  const groups = new Map();  // weight -> its lines
  for (const { line, weight } of timed.values()) {
    if (!groups.has(weight)) groups.set(weight, []);
    groups.get(weight).push(line);
  }
  return [...groups].map(([weight, group]) => ({ weight, requests: group.flatMap(requestsOf) }));
}

function main() {
  const { positionals: [trace] } = parseFlags('bare-cost', { allowPositionals: true });
  const all = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  // A whole check is several requests, and finding them costs a check.
  const max = all.some((line) => line.check !== undefined) ? kMaxChecks : kMaxRequests;
  const groups = weightedGroups(all, max);
  sweep(groups.flatMap((g) => g.requests), () => {});
  let seconds = 0;
  let calls = 0;
  for (const { weight, requests } of groups) {
    sweep(requests, (window, passes) => {
      seconds += median(passes()) * weight;
      calls += window.length;
    });
  }
  const standsFor = all.reduce((n, line) => n + (line.w ?? 1), 0);
  process.stdout.write(`${JSON.stringify({ requests: all.length, standsFor, calls, seconds })}\n`);
}

main();
