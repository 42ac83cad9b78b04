'use strict';
// The worker that confirms a finding in a fresh process (confirm.js). It
// answers one check, so it goes without worker-main.js's warm-up, which compiles
// ahead of time what later requests run and is half the CPU of a worker's
// start: six of these start for each new finding.
require('./worker-main').serveStdin({ warm: false });
