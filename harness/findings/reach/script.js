'use strict';
// Writes repro-fork.js for a finding: its input and the round trip through
// child_process (round-trip.js, bundled), with the observation of the
// reference release to compare with once the reachability check has one.

const { inputSource } = require('../repro');
const { bundle } = require('../../base/bundle');

const fromValue = (type) => type === 'value' || type === 'roundtrip';

// meta: a finding.json; reference: an observation, or null.
function forkReproScript(meta, { reference = null, referenceVersion }) {
  const value = fromValue(meta.type);
  const what = value ?
    '// The parent forks a child of this same binary with serialization \'advanced\' and\n' +
    '// sends it the value with child.send(); the child reports what\n' +
    '// process.on(\'message\') gave it.' :
    '// The parent forks a child of this same binary with serialization \'advanced\'; the\n' +
    '// child, a peer, writes the bytes straight into its end of the channel (fd 3),\n' +
    `// ${meta.type === 'stream' ? 'one write per read of the stream, ' : ''}then sends one more message; ` +
    'the parent reports what it received.';
  const recorded = reference ?
    `// The reference: what node ${reference.node} (the JavaScript codec) saw, recorded by ipcfuzz.` :
    `// No reference is recorded yet: compare with --against <node ${referenceVersion}>.`;
  const source = value ?
    `${inputSource({ type: 'value', input: meta.input })}\n` +
      '// The receiving world, when the recipe changes anything on the receiving side.\n' +
      'const world = typeof makeWorld === \'function\' ? makeWorld : null;\n' +
      'const roundTrip = { type: \'value\', make: input.make, world };' :
    `const roundTrip = ${JSON.stringify({ type: meta.type, bytes: meta.input.bytes, chunks: meta.input.chunks ?? [] })};`;
  return `#!/usr/bin/env node
// ipcfuzz repro-fork: ${meta.signature}
// The finding's input through child_process itself, with public APIs only.
${what}
// Run it with the build under test and with node ${referenceVersion}:
//   node repro-fork.js                   what each side saw; exit 0 SAME as the reference, 1 DIFF, 2 cannot run
//   node repro-fork.js --against NODE    compare with a run in that binary instead of the recorded reference
//   node repro-fork.js --json            the observation as JSON
// The code after the input describes what arrived (ipcfuzz's canonical tree) and runs the three processes.
${recorded}
'use strict';

${source}

// What the reference saw (null: none recorded).
const reference = ${JSON.stringify(reference)};

${bundle(['findings/reach/round-trip.js'])}

harness('findings/reach/round-trip.js').main(roundTrip, { reference, file: __filename });
`;
}

module.exports = { forkReproScript, fromValue };
