'use strict';
// What each stage of `make bench` measures with, full and --quick: apart from
// the stages, so that a table's own script reads them without the others.

const settings = {
  full: {
    codec: { reps: 5, seconds: 0.75, warmup: 0.2 },
    inproc: { reps: 5, ms: 150 },
    transport: { reps: 3, seconds: 0.3, warmup: 0.15 },
    throughput: { reps: 3, seconds: 10 },
    ttf: { seeds: [1, 2, 3, 4, 5], cap: 60 },
  },
  quick: {
    codec: { reps: 1, seconds: 0.25, warmup: 0.1 },
    inproc: { reps: 1, ms: 40 },
    transport: { reps: 1, seconds: 0.1, warmup: 0.05 },
    throughput: { reps: 1, seconds: 3 },
    ttf: { seeds: [1], cap: 30 },
  },
};

module.exports = { settings };
