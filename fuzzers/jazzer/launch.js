'use strict';
// Starts Jazzer.js so that the node processes libFuzzer spawns (fork and
// merge modes) keep --expose-internals: Jazzer.js re-runs process.argv, which
// has no node flags, so argv[0] is pointed at a script that adds them.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const launcher = path.join(os.tmpdir(), `ipcfuzz-node-${process.pid}.sh`);
fs.writeFileSync(launcher,
  `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --expose-internals --no-warnings "$@"\n`, { mode: 0o755 });
process.on('exit', () => fs.rmSync(launcher, { force: true }));
process.argv[0] = launcher;
require('@jazzer.js/core/dist/cli.js');
