'use strict';
// The full round trip of a finding through child_process, as one script:
// its input and round-trip.js, bundled, with the reference release's
// observation to compare with when one is given. The reachability check runs
// it where a short repro-fork.js shows nothing, and `ipcfuzz report --full`
// prints what it sees; it is no artefact of a finding.

const { compileRecipe, compileWorld } = require('../../recipes/codegen');
const { bundle } = require('../../base/bundle');

const fromValue = (type) => type === 'value' || type === 'roundtrip';
const indent = (code) => code.split('\n').map((l) => `  ${l}`).join('\n');

// The value a finding's input builds, and its receiving world, as the round trip takes them.
function inputSource(input) {
  if (input.recipe === undefined) {
    return '// The value module, called once.\n' +
      `const input = { make: (effects) => ({ value: require(${JSON.stringify(input.module)})(effects), ` +
      'setup() {}, teardown() {} }) };';
  }
  const world = compileWorld(input.recipe);
  return `function makeInput(effects) {\n${indent(compileRecipe(input.recipe))}\n}\n` +
    (world ? `function makeWorld(effects) {\n${indent(world)}\n}\n` : '') +
    'const input = { make: makeInput };';
}

// meta: a finding.json; reference: an observation, or null.
function forkReproScript(meta, { reference = null, referenceVersion = '26.3.1' }) {
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
    `${inputSource(meta.input)}\n` +
      '// The receiving world, when the recipe changes anything on the receiving side.\n' +
      'const world = typeof makeWorld === \'function\' ? makeWorld : null;\n' +
      'const roundTrip = { type: \'value\', make: input.make, world };' :
    `const roundTrip = ${JSON.stringify({ type: meta.type, bytes: meta.input.bytes, chunks: meta.input.chunks ?? [] })};`;
  return `#!/usr/bin/env node
// ipcfuzz full round trip: ${meta.signature}
// The finding's input through child_process itself, with public APIs only.
${what}
// Run it with the build under test and with node ${referenceVersion}:
//   node round-trip.js                   what each side saw; exit 0 SAME as the reference, 1 DIFF, 2 cannot run
//   node round-trip.js --against NODE    compare with a run in that binary instead of the recorded reference
//   node round-trip.js --json            the observation as JSON
// The code after the input describes what arrived (ipcfuzz's canonical tree) and runs the three processes.
${recorded}

${source}

// What the reference saw (null: none recorded).
const reference = ${JSON.stringify(reference)};

${bundle(['findings/reach/round-trip.js'])}

harness('findings/reach/round-trip.js').main(roundTrip, { reference, file: __filename });
`;
}

module.exports = { forkReproScript, fromValue };
