'use strict';
// Confirms a difference before it is reported. An outcome can depend on what
// a process did before rather than on the input: the bytes in Buffer's shared
// pool, the field representation V8 gave a hidden class (int32 or double).
// So the input is run again with each side in a fresh process of its binary,
// as that process's first input, and each codec against itself in two fresh
// processes: the difference stands only if the fresh sides still show it and
// neither codec disagrees with itself. One that does not is history-dependent.

const { runSync, runAsync } = require('./checks');

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

// One check with a fresh worker per side; run is runSync or runAsync.
function freshCheck(run, { type, input, startWorker }, pair) {
  const workers = pair.map((side) => startWorker(side.node));
  const close = () => { for (const w of workers) w.close(); };
  let result;
  try {
    result = run(type, (name, request) => {
      const i = name === 'a' ? 0 : 1;
      return workers[i].request({ ...request, codec: pair[i].codec });
    }, input);
  } catch (err) {
    close();
    throw err;
  }
  if (result instanceof Promise) return result.finally(close);
  close();
  return result;
}

// check: { type, input, difference, sides, startWorker(nodePath) -> a worker with request() and close() }
function confirmSync(check) {
  return stands(plans(check.sides, check.difference).map((pair) => freshCheck(runSync, check, pair)),
    check.difference.signature);
}

async function confirmAsync(check) {
  const pairs = plans(check.sides, check.difference);
  const results = await Promise.all(pairs.map((pair) => freshCheck(runAsync, check, pair)));
  return stands(results, check.difference.signature);
}

module.exports = { confirmSync, confirmAsync };
