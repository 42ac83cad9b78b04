'use strict';
// Confirms a difference before it is reported. An outcome can depend on what
// a process did before rather than on the input: the bytes in Buffer's shared
// pool, the field representation V8 gave a hidden class (int32 or double).
// So the input is run again with each side in a fresh process of its binary,
// as that process's first input, and each codec against itself in two fresh
// processes: the difference stands only if the fresh sides still show it and
// neither codec disagrees with itself. One that does not is history-dependent.

const { runCheck } = require('../oracle/checks');
const { drive, isPromise } = require('../oracle/drive');
const { Tier } = require('../base/vocabulary');

// The sides of each fresh check: the two codecs, then each against itself.
function plans(sides, difference) {
  const cross = [sides.a, sides.b];
  // A fresh process that crashes or hangs on its first input owes nothing to history.
  return difference.tier === Tier.crash ? [cross] : [cross, [sides.a, sides.a], [sides.b, sides.b]];
}

// A codec run against itself differs only when its outcomes depend on the
// process; round-trip findings are about each codec alone and show there too.
function stands([cross, ...selves], signature) {
  return cross.differences.some((d) => d.signature === signature) &&
    selves.every((r) => r.differences.every((d) => d.tier === Tier.roundtrip));
}

// One check with a fresh worker per side (workers, started in the pair's order).
function freshCheck({ type, input }, pair, workers) {
  return runCheck(type, (name, request) => {
    const i = name === 'a' ? 0 : 1;
    return workers[i].request({ ...request, codec: pair[i].codec });
  }, input);
}

// The fresh checks, run side by side when their workers answer with promises.
function* confirmation(check, workers) {
  const pairs = plans(check.sides, check.difference);
  workers.push(...pairs.map((pair) => pair.map((side) => check.startWorker(side.node))));
  const results = yield pairs.map((pair, i) => freshCheck(check, pair, workers[i]));
  return stands(results, check.difference.signature);
}

// check: { type, input, difference, sides, startWorker(nodePath) -> a worker
// with request() and close() }. The workers of every fresh check are started
// together, so that they boot side by side. Whether the difference stands,
// or a promise of it when the workers answer with promises.
function confirm(check) {
  const workers = [];
  const closeAll = () => { for (const w of workers.flat()) w.close(); };
  let result;
  try {
    result = drive(confirmation(check, workers));
  } catch (err) {
    closeAll();
    throw err;
  }
  if (!isPromise(result)) {
    closeAll();
    return result;
  }
  return result.finally(closeAll);
}

module.exports = { confirm };
