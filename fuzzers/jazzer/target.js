'use strict';
// What the Jazzer.js targets share. Both builtin codecs run in this process
// (the node binary under test), where Jazzer.js instruments the reference,
// so coverage follows the tags and views it decodes; an adapter file, and the
// native side of an input shaped like a known native crash, run in a worker
// process driven synchronously (a blocking harness/run/session.js), so their crashes
// and hangs are findings and fuzzing goes on. A crash the screen did not
// foresee ends this process: the engine (engine.js) replays libFuzzer's saved
// input in a worker, records it, and starts the target again. A difference
// does not stop the fuzzer either: it is shrunk, confirmed in fresh processes
// (confirm.js), saved once per signature, and announced on stderr as
// `ipcfuzz-finding<TAB>signature<TAB>folder` for the orchestrator;
// `ipcfuzz-seen-again`, `ipcfuzz-history` and `ipcfuzz-worker` lines tell it the rest.

const { createHash } = require('node:crypto');
const { classify, loadKnown, splitByScope } = require('../../harness/oracle/known');
const { headline } = require('./crash-line');
const inputs = require('./inputs');
const { FindingStore, FindingRecorder } = require('../../harness/findings/recorder');
const { probe } = require('../../harness/codecs/probe');
const { Session } = require('../../harness/run/session');
const { orphanCheck } = require('../../harness/base/process-groups');
const { runEventLoopOnce } = require('../../harness/run/fork-server');
const { Trace } = require('../../harness/observe/trace');
const coverage = require('../../harness/observe/coverage');
const { Settled, tiers, explainedBy } = require('../../harness/base/vocabulary');
const { targetOptions } = require('./options');
const { kCallTimeoutMs, kReduceMs } = require('../../harness/base/defaults');

// Jazzer.js --sync never lets the event loop run, and a closed handle is
// freed only there: the value target closes MessagePorts all the time, and
// its RSS grew until it passed OSS-Fuzz's limit of 2,560 MB. The loop runs
// what it has ready every kLoopEvery inputs.
const kLoopEvery = 256;

const announce = (what, detail) => process.stderr.write(`ipcfuzz-${what}\t${detail}\n`);
// What the recorder made of a difference, told to the orchestrator (engine.js) besides a finding.
const kAnnounced = new Set([Settled.history, Settled.seenAgain, ...explainedBy]);

// The crash the platform files: its first line names one difference (the
// first tier, then signature), and the throwing frame is a function named
// after that signature, so the same difference always gives the same first
// line and top frame and is grouped into one issue; the details follow.
function raiseDifference(fresh) {
  const [head] = [...fresh].sort((x, y) => tiers.indexOf(x.tier) - tiers.indexOf(y.tier) ||
    (x.signature < y.signature ? -1 : Number(x.signature > y.signature)));
  const details = new Set(fresh.map((d) => `  ${d.signature}: ${d.where}: ${String(d.detail).replace(/\n/g, ' ')}`));
  const lines = [headline(head), ...details];
  const frame = { [head.signature]() { throw new Error(lines.join('\n')); } };
  frame[head.signature]();
}

// A target of the options options.js reads (its session, store and recorder
// made here, not at require time): { fuzzOne(target, data) }, which runs one
// fuzz input of a target (value, frame or stream: the check it runs);
// inputs.js maps the fuzzer's bytes to that check's input.
function createTarget(options) {
  const info = probe();
  const sides = {
    a: { codec: options.codecA ?? 'js', node: options.nodeA ?? process.execPath, info },
    b: { codec: options.codecB ?? 'native', node: process.execPath, info },
  };
  const known = splitByScope(loadKnown(options.known === '' ? null : options.known), sides).applies;
  const store = options.out ? new FindingStore(options.out) : null;
  // On OSS-Fuzz and ClusterFuzzLite a new difference must be a crash of the
  // fuzzer, so that the platform files it with its input; while it minimizes
  // a crash, only that difference counts (fuzzers/jazzer/oss-fuzz.js).
  const throwOnDifference = options.onDifference === 'throw';
  // The SHA-1s (libFuzzer names a crash input after it) of inputs that ended an
  // earlier process of this run: met again, as when the restart replays the
  // corpus, they run isolated, like the inputs the crash screen knows.
  const crashedBefore = new Set(options.crashed ?? []);
  const crashed = (data) => crashedBefore.size > 0 && crashedBefore.has(createHash('sha1').update(data).digest('hex'));
  // Started by the fuzz command (engine.js), a target ends with it, and its
  // workers and temporary folder with it (harness/base/process-groups.js).
  const endIfOrphaned = orphanCheck(options.starter ?? null, process.env.TMPDIR);
  let inputsSinceLoop = 0;
  // The run's coverage folder (the fuzz command's, or the bench's): counted here and in the workers.
  const observers = options.coverageDir ? [coverage.observe({ dir: options.coverageDir })] : [];
  const session = new Session({
    sides, blocking: true, timeoutMs: options.timeoutMs ?? kCallTimeoutMs, onLoss: (kind) => announce('worker', kind),
    // Off only in the tests, to show what an input the screen misses does.
    useScreen: options.crashScreen !== 'off', observers,
  });
  const trace = options.trace ? traceOf(session, options.trace, sides) : null;
  // A reduction's candidates run in workers: one may crash a codec where the input did not.
  const recorder = new FindingRecorder({
    known, store, sides, skipSaved: true, reduction: { ms: kReduceMs },
    check: (type, input) => session.check(type, input, { awayFromHere: true }),
    confirm: (type, input, d) => session.confirm(type, input, d),
  });

  function fuzzOne(target, data) {
    endIfOrphaned();
    if (++inputsSinceLoop === kLoopEvery) {
      inputsSinceLoop = 0;
      runEventLoopOnce();
    }
    const type = target;
    const toInput = inputs[target];
    if (throwOnDifference) {
      const result = session.check(type, toInput(data));
      const unknown = classify(result.differences, known).filter((d) => !d.known);
      const raised = unknown.filter((d) => !options.onlySignature || d.signature === options.onlySignature);
      if (raised.length) raiseDifference(raised);
      return;
    }
    const input = toInput(data);
    if (options.skipScreened && session.screened(input, type)) {
      trace?.input(type, input);
      return;
    }
    const first = session.check(type, input, { awayFromHere: crashed(data) });
    trace?.input(type, input);
    const { fresh, seenAgain } = recorder.sort(first);
    for (const difference of seenAgain) {
      if (recorder.seenAgain.get(difference.signature) > 1) continue;
      // A result given again holds its differences alone: the whole one, should the finding be written anew.
      recorder.countAgain(() => session.checkInFull(type, input), difference);
      announce(Settled.seenAgain, difference.signature);
    }
    if (!fresh.length) return;
    // Spelled out only for an input with a new difference: this runs for every input.
    const origin = { engine: 'jazzer', target, input: Buffer.from(data).toString('hex') };
    for (const difference of fresh) {
      for (const { status, difference: d, finding } of recorder.settle(first, difference, origin)) {
        if (status === Settled.finding) announce('finding', `${d.signature}\t${finding.folder ?? ''}`);
        else if (kAnnounced.has(status)) announce(status, d.signature);
      }
    }
  }

  return { fuzzOne };
}

// For the bench only (bench/engine-run.js): a random tenth of this process's
// inputs and every heavy one, numbered and weighted (harness/observe/trace.js), each
// with its check when that ran in this process, its native side in a worker
// if the crash screen knows its shape (`screened`), or whole in its worker
// apart, or gave the result it gives again (checked-before.js): the codec
// calls the input stands for. One that ended an earlier process (every
// request of it in a worker) is a number alone.
function traceOf(session, file, sides) {
  const trace = new Trace(file, { every: 10 });
  const codecs = { a: sides.a.codec, b: sides.b.codec };
  let inputNumber = 0;
  let checked = null;
  session.onChecked = (type, input, screened) => { checked = { input, screened }; };
  // An interrupted target ends without it (see harness/observe/trace.js); a target run for -runs does not.
  process.on('exit', () => trace.flush());
  return {
    input(type, input) {
      inputNumber++;
      const w = trace.checkWeight(type, input);
      if (w) {
        const n = inputNumber;
        trace.add(checked?.input === input ?
          trace.checkLine(type, input, codecs, checked.screened ? { n, w, screened: true } : { n, w }) :
          `${JSON.stringify({ n, w })}\n`);
      }
      checked = null;
    },
  };
}

// The target of a Jazzer.js entry module (value.js, frame.js, stream.js),
// made at its first input from the options of this process's environment,
// whose variables no target knows are warned about then.
let made = null;
function targetOfThisProcess() {
  if (!made) {
    const { options, warnings } = targetOptions();
    for (const warning of warnings) process.stderr.write(`${warning}\n`);
    made = createTarget(options);
  }
  return made;
}

module.exports = { createTarget, targetOfThisProcess };
