'use strict';
// Confirms a difference before it is reported. An outcome can depend on what
// a process did before rather than on the input: the bytes in Buffer's shared
// pool, the field representation V8 gave a hidden class (int32 or double).
// So the input is run again with each side in a fresh process of its binary,
// as that process's first input, and each codec against itself in two fresh
// processes: the difference stands only if the fresh sides still show it and
// neither codec disagrees with itself. One that does not is history-dependent.

const { runSync, runAsync } = require('../oracle/checks');

// The sides of each fresh check: the two codecs, then each against itself.
function plans(sides, difference) {
  const cross = [sides.a, sides.b];
  // A fresh process that crashes or hangs on its first input owes nothing to history.
  return difference.tier === 'crash' ? [cross] : [cross, [sides.a, sides.a], [sides.b, sides.b]];
}

// A codec run against itself differs only when its outcomes depend on the
// process; round-trip findings are about each codec alone and show there too.
function stands([cross, ...selves], signature) {
  return cross.differences.some((d) => d.signature === signature) &&
    selves.every((r) => r.differences.every((d) => d.tier === 'roundtrip'));
}

// One check with a fresh worker per side (workers, started in the pair's
// order); run is runSync or runAsync.
function freshCheck(run, { type, input }, pair, workers) {
  return run(type, (name, request) => {
    const i = name === 'a' ? 0 : 1;
    return workers[i].request({ ...request, codec: pair[i].codec });
  }, input);
}

// The workers of every fresh check, started together, so that they boot
// side by side rather than each after the check before it.
const startAll = (check, pairs) => pairs.map((pair) => pair.map((side) => check.startWorker(side.node)));
const closeAll = (workers) => { for (const w of workers.flat()) w.close(); };

// check: { type, input, difference, sides, startWorker(nodePath) -> a worker with request() and close() }
function confirmSync(check) {
  const pairs = plans(check.sides, check.difference);
  const workers = startAll(check, pairs);
  try {
    return stands(pairs.map((pair, i) => freshCheck(runSync, check, pair, workers[i])), check.difference.signature);
  } finally {
    closeAll(workers);
  }
}

async function confirmAsync(check) {
  const pairs = plans(check.sides, check.difference);
  const workers = startAll(check, pairs);
  try {
    const results = await Promise.all(pairs.map((pair, i) => freshCheck(runAsync, check, pair, workers[i])));
    return stands(results, check.difference.signature);
  } finally {
    closeAll(workers);
  }
}

module.exports = { confirmSync, confirmAsync };
