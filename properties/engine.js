'use strict';
// The fast-check engine: runs the properties in turns of inputs drawn with
// successive seeds, until a budget of time or runs is spent. A turn's inputs
// are drawn with fc.sample, which gives what fc.check would run with the same
// seed, and checked many at a time (session.checkMany), the next turn drawn
// while this one is checked. An input whose difference has a signature not
// known and not found before is then run again by fc.check at its place in
// the turn (its `path`), which stops there without shrinking it: the
// recorder reduces it (findings/reduce.js), one shrinker, not two in series.
// The turn then goes on with the inputs after it.

const fc = require('fast-check');
const { properties, runProperty } = require('./definitions');
const { FindingRecorder } = require('../harness/findings/recorder');
const { StoppedError } = require('../harness/base/errors');
const { isSharedDefect } = require('../harness/oracle/roundtrip');
const { Settled } = require('../harness/base/vocabulary');
const { Answer } = require('../harness/run/protocol');

// Inputs a turn draws, unless its property says (definitions.js).
const kRunsPerTurn = 40;
// Turns in flight per batch worker besides the one looked at: a turn waits
// for its screened inputs (see batches.js), which a crash of the
// per-operation worker delays, while the batch workers go on with the others.
const kTurnsPerWorker = 4;
const kTurnsAhead = 2;
const kReduceGraceMs = 2000;
const kReduceTailMs = 3000;

// options: { session, known, seed, seconds | runs, only: [names], store, onProgress,
//            until(summary): stop early once it returns true,
//            path: replay the counterexample of a finding: with its seed and
//            a single property, one turn that runs to that counterexample }
// A difference already saved in the store counts as seen again, and one that
// does not stand in fresh processes (confirm.js) as history-dependent: neither
// is a finding. Once the session is closed the run ends with what it has.
async function runProperties(options) {
  const { onProgress = () => {} } = options;
  const names = options.only ?? Object.keys(properties);
  const end = options.seconds !== undefined ? Date.now() + options.seconds * 1000 : Infinity;
  // Inputs are drawn until a tail of the budget before its end, so that a
  // finding met last still has the time to be reduced whole.
  const deadline = end - Math.min(kReduceTailMs, (options.seconds ?? 0) * 100);
  const maxRuns = options.runs ?? Infinity;
  const started = Date.now();
  // ...and within the grace the fuzz command gives.
  const recorder = recorderOf({ ...options, deadline: end + kReduceGraceMs }, { skipSaved: true });
  const state = newState(options.seed ?? Date.now() % 2 ** 31, recorder);
  // A turn's property, seed and number of inputs, given the runs done before it.
  const cycle = turnCycle(names);
  const plan = (turn, runsBefore) => {
    const name = cycle[turn % cycle.length];
    return { turn, name, seed: (state.seed + turn) | 0, numRuns: Math.min(runsPerTurn(name), maxRuns - runsBefore) };
  };
  // Turns drawn and sent to be checked ahead of the one looked at, so that
  // a batch worker always has one queued while the host reads another.
  // Per-operation checks share one worker per binary with a shrink: of an
  // adapter, drawn ahead, they would queue before it; of two binaries, a few
  // turns ahead keep the workers busy while the host reads and draws.
  const { batches } = options.session;
  const depth = batches.inProcess ? kTurnsPerWorker * batches.maxWorkers : batches.width > 1 ? kTurnsAhead : 0;
  const ahead = [];
  for (let turn = 0; Date.now() < deadline && state.runs < maxRuns; turn++) {
    const wanted = plan(turn, state.runs);
    let current = wanted;
    if (options.path === undefined) {
      // When a turn ended early, fewer runs were done than planned: the
      // turns drawn ahead with a wrong number of inputs are drawn anew.
      if (ahead[0]?.numRuns === wanted.numRuns) {
        current = ahead.shift();
      } else {
        for (const t of ahead.splice(0)) t.cancel();
        current = drawTurn(options.session, wanted);
      }
      let runsAfter = state.runs + current.numRuns + ahead.reduce((n, t) => n + t.numRuns, 0);
      while (ahead.length < depth) {
        const after = plan(turn + 1 + ahead.length, runsAfter);
        if (after.numRuns <= 0) break;
        ahead.push(drawTurn(options.session, after));
        runsAfter += after.numRuns;
      }
    }
    const { name, seed } = current;
    let outcome;
    let stop = false;
    // A turn goes on after each finding in it (outcome.rest): the inputs after
    // the one shrunk were drawn and most are checked already.
    do {
      outcome = options.path === undefined ?
        await checkTurn(current, { ...options, deadline, state }) :
        await runTurn(properties[name], name, { ...options, seed, numRuns: current.numRuns, deadline, state });
      state.runs += outcome.runs;
      perProperty(state, name).runs += outcome.runs;
      if (outcome.finding) {
        const { result, difference } = outcome.finding;
        const origin = {
          engine: 'fast-check', property: name, seed, path: outcome.path,
          ...properties[name].input(outcome.counterexample),
        };
        const about = { property: name, seed, path: outcome.path };
        const settled = await state.recorder.settle(result, difference, origin, about);
        for (const { status, difference: d } of settled) {
          const counted = isSharedDefect(d.signature) ? 'shared' : 'findings';
          if (status === Settled.finding) perProperty(state, name)[counted]++;
        }
      }
      const now = summary(state, started);
      onProgress({ ...now, property: name });
      stop = outcome.stopped || options.until?.(now) || options.path !== undefined;
    } while (!stop && outcome.rest && Date.now() < deadline);
    current.cancel?.();
    if (stop) break;
  }
  for (const t of ahead) t.cancel();
  const done = summary(state, started);
  // The batch workers' coverage counts are written as they end.
  await options.session.batches.endIdle();
  return done;
}

const runsPerTurn = (name) => properties[name].runsPerTurn ?? kRunsPerTurn;

// The properties in the order their turns come round: in each cycle every
// property draws as many inputs as the others, one with fewer inputs a turn
// having more turns, spread over the cycle.
function turnCycle(names) {
  const most = Math.max(...names.map(runsPerTurn));
  const turns = (name) => Math.ceil(most / runsPerTurn(name));
  const rounds = Math.max(...names.map(turns));
  const cycle = [];
  for (let round = 0; round < rounds; round++) {
    cycle.push(...names.filter((name) => round < turns(name)));
  }
  return cycle;
}

// A difference already saved in the store is seen again only in a run with a
// budget: the exhaustive run saves (or counts up) whatever it meets.
// Reductions end with the run (`deadline`).
function recorderOf({ session, known, store, deadline }, { skipSaved }) {
  return new FindingRecorder({
    known, store, sides: session.sides, skipSaved, reduction: { deadline },
    check: (type, input) => session.check(type, input),
    confirm: (type, input, difference) => session.confirm(type, input, difference),
  });
}

function newState(seed, recorder) {
  return { runs: 0, recorder, properties: new Map(), seed };
}

function perProperty(state, name) {
  if (!state.properties.has(name)) {
    state.properties.set(name, { runs: 0, findings: 0, shared: 0, known: 0, seenAgain: 0 });
  }
  return state.properties.get(name);
}

// Counts the known and already saved differences of one result; returns the others.
function unseen(result, state, name) {
  const { fresh, known, seenAgain } = state.recorder.sort(result);
  perProperty(state, name).known += known.length;
  perProperty(state, name).seenAgain += seenAgain.length;
  return fresh;
}

// One turn's inputs, drawn and sent to be checked.
function drawTurn(session, { turn, name, seed, numRuns }) {
  const property = properties[name];
  const drawn = fc.sample(property.arbitrary, { seed, numRuns });
  return { turn, name, seed, numRuns, ...session.checkEach(property.check, drawn.map(property.input)) };
}

const kLate = Symbol('late');

// Goes through a turn's results in order, as they come, from `turn.next` up
// to the first with a new signature, as fc.check would, and lets fc.check
// replay that one; `rest` says the turn goes on after it (from
// turn.next) once the finding is settled: the inputs after a run's first
// findings (a shared defect, met in most first turns) are not lost.
async function checkTurn(turn, options) {
  const { name, seed, numRuns, results, cancel } = turn;
  const { state } = options;
  let runs = 0;
  let rest = false;
  const late = lateAt(options.deadline);
  try {
    for (let index = turn.next ?? 0; index < results.length; index++) {
      const result = await (late ? Promise.race([results[index], late.promise]) : results[index]);
      if (result === kLate) break;  // a check still waits for a worker that hangs
      if (result === undefined) continue;  // left out (a bench-only knob, see batches.js)
      runs++;
      if (!result) continue;
      const fresh = unseen(result, state, name);
      if (!fresh.length) continue;
      // Its confirmation's fresh workers boot while it is replayed and reduced, and
      // the rest of this turn and the turns drawn ahead wait (batches.js).
      options.session.bootFresh();
      options.session.batches.pause();
      try {
        const replay = await runTurn(properties[name], name,
          { ...options, seed, numRuns, path: String(index), target: fresh[0].signature });
        turn.next = index + 1;
        rest = !replay.stopped && turn.next < results.length;
        return { ...replay, runs, rest };
      } finally {
        options.session.batches.resume();
      }
    }
  } catch (err) {
    if (err instanceof StoppedError) return { runs, stopped: true };
    throw err;
  } finally {
    if (!rest) cancel();
    late?.clear();
  }
  return { runs };
}

// A promise of kLate once the deadline has passed (one timer for a turn's
// results, not one each), and clear() to stop waiting; null without a deadline.
function lateAt(deadline) {
  if (deadline === Infinity) return null;
  let timer;
  const promise = new Promise((resolve) => { timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), kLate); });
  return { promise, clear: () => clearTimeout(timer) };
}

// target: the signature to stop at when the turn's first input (at
// `path`) has already been counted; otherwise the first new one met.
async function runTurn(property, name, { session, seed, numRuns, deadline, state, path, target = null }) {
  // Given a target, the first input run (the one at `path`) was counted in its turn already.
  let counting = target === null;
  let fatal = null;    // an error of the harness or environment, not a codec
  let failing = null;  // the result that failed: fast-check ends there, and the recorder takes it on
  const predicate = async (input) => {
    const result = await runProperty(property, session, input).catch((err) => {
      fatal ??= err;
      throw err;
    });
    if (!result) return true;
    const fresh = counting ? unseen(result, state, name) : [];
    counting = true;
    if (target === null && fresh.length) target = fresh[0].signature;
    // Once chosen, the target keeps failing even if another engine sharing the
    // store saves it meanwhile.
    if (!result.differences.some((d) => d.signature === target)) return true;
    failing = result;
    return false;
  };
  const details = await fc.check(fc.asyncProperty(property.arbitrary, predicate), {
    seed,
    numRuns,
    ...(path === undefined ? {} : { path }),
    // The recorder reduces what fails: fast-check's own shrinking would be a second shrinker before it.
    endOnFailure: true,
    interruptAfterTimeLimit: Math.max(1, deadline - Date.now()),
    markInterruptAsFailure: false,
  });
  const runs = details.numRuns;
  try {
    if (fatal) throw fatal;
    // Interrupted by the budget before an input failed: nothing to report.
    if (!details.failed || !failing) return { runs };
    const [counterexample] = details.counterexample;
    const difference = failing.differences.find((d) => d.signature === target);
    return { runs, path: details.counterexamplePath, counterexample, finding: { result: failing, difference } };
  } catch (err) {
    if (err instanceof StoppedError) return { runs, stopped: true };
    throw err;
  }
}

// Every one of `runs` inputs per property, drawn from a fixed seed, without
// stopping at a failure or shrinking: what it finds does not depend on what
// is known, so a list that grows makes the verdict change only where it should.
// Each new signature is saved with the first input that showed it.
async function runExhaustive(options) {
  const { session, seed, runs, only } = options;
  const started = Date.now();
  const state = newState(seed, recorderOf(options, { skipSaved: false }));
  for (const name of only ?? Object.keys(properties)) {
    const property = properties[name];
    const drawn = fc.sample(property.arbitrary, { seed, numRuns: runs });
    const results = await session.checkMany(property.check, drawn.map(property.input), { answer: Answer.differing });
    for (const [i, result] of results.entries()) {
      if (result === undefined) continue;  // left out (a bench-only knob, see batches.js)
      state.runs++;
      perProperty(state, name).runs++;
      if (!result) continue;
      const origin = { engine: 'fast-check', property: name, seed, sample: i, ...property.input(drawn[i]) };
      await state.recorder.add(result, origin, { property: name, seed });
    }
  }
  return summary(state, started);
}

function summary(state, started) {
  const seconds = (Date.now() - started) / 1000;
  return {
    runs: state.runs,
    seconds,
    runsPerSecond: seconds ? state.runs / seconds : 0,
    findings: [...state.recorder.findings.values()]
      .map((f) => ({ ...f, met: state.recorder.met.get(f.difference.signature) })),
    known: Object.fromEntries(state.recorder.knownHits),
    seenAgain: Object.fromEntries(state.recorder.seenAgain),
    historyDependent: [...state.recorder.historyDependent],
    properties: Object.fromEntries(state.properties),
    seed: state.seed,
  };
}

module.exports = { runProperties, runExhaustive, turnCycle, runsPerTurn };
