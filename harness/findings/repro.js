'use strict';
// Writes a standalone repro script for a check result: the input (the value's
// construction code, or the bytes), both codecs, and the same operations and
// comparison the harness ran, in one file that runs with
//   node --expose-internals repro.js
// and prints SAME or DIFF: exit 0 SAME, 1 DIFF, 2 cannot run (one line on
// stderr). Before each codec call it writes the call to stderr, synchronously,
// so a codec that crashes the process leaves the call it crashed in. The known
// differences are those the harness found known when it wrote the script: a
// difference with the signature of one of them is reported as known.

const { compileRecipe, compileWorld } = require('../recipes/codegen');
const { bundle } = require('../base/bundle');

function inputSource(result) {
  // The value and roundtrip checks build a value; the others are bytes.
  if (result.type !== 'value' && result.type !== 'roundtrip') return `const input = ${JSON.stringify(result.input)};`;
  if (result.input.recipe === undefined) {
    return `// The value module, called for every codec call.\n` +
      `const input = { make: (effects) => ({ value: require(${JSON.stringify(result.input.module)})(effects), ` +
      `setup() {}, teardown() {} }) };`;
  }
  const indent = (code) => code.split('\n').map((l) => `  ${l}`).join('\n');
  const world = compileWorld(result.input.recipe);
  // The recipe itself goes along: the check reads its steps, as the harness's did.
  return `// The value, rebuilt for every codec call; \`effects\` records user code that runs.\n` +
    `function makeInput(effects) {\n${indent(compileRecipe(result.input.recipe))}\n}\n` +
    (world ? `// The world every frame is decoded in: what the recipe changes on the receiving side.\n` +
      `function makeWorld(effects) {\n${indent(world)}\n}\n` : '') +
    `const input = { make: makeInput, recipe: ${JSON.stringify(result.input.recipe)} };`;
}

// signature -> id of the known-differences entry it matched.
function knownSignatures(result) {
  return Object.fromEntries(result.differences.filter((d) => d.known).map((d) => [d.signature, d.known]));
}

function reproScript(result, { a, b, title }) {
  const codec = (spec) => JSON.stringify(spec);
  const known = knownSignatures(result);
  const knownNote = Object.keys(known).length ?
    `Known differences, as they were when this was written: ${[...new Set(Object.values(known))].join(', ')}.` :
    'No known difference applied when this was written: every difference is reported as DIFF.';
  return `#!/usr/bin/env node
// ipcfuzz repro: ${title}
// Run it in the node binary under test:  node --expose-internals ${'repro.js'}
// It runs the ${result.type} check of codec a (${a}) against codec b (${b})
// and prints both outcomes, the annotated frames and SAME or DIFF.
// Exit 0 SAME (or known differences only), 1 DIFF, 2 cannot run; each codec
// call is written to stderr before it is made, so a crash shows where.
// ${knownNote}
'use strict';

${inputSource(result)}

// signature -> id of the known-differences entry the harness matched.
const known = ${JSON.stringify(known)};

function main() {
  const fs = require('node:fs');
  const { createOps } = harness('oracle/ops.js');
  const { runCheck } = harness('oracle/checks.js');
  const codecs = { a: ${codec(a)}, b: ${codec(b)} };
  try {
    require('internal/test/binding');
  } catch {
    throw new Error(\`node \${process.version} was not started with --expose-internals: \` +
      \`run node --expose-internals \${require('node:path').basename(__filename)}\`);
  }
  for (const side of ['a', 'b']) {
    try {
      harness('codecs/index.js').loadCodec(codecs[side]);
    } catch (err) {
      throw new Error(\`codec \${side} (\${codecs[side]}) cannot be loaded: \${err.message.split('\\n')[0]}\`);
    }
  }
  const ops = createOps((input, effects) => input.make(effects),
    { buildWorld: typeof makeWorld === 'function' ? (recipe, effects) => makeWorld(effects) : null });
  let calls = 0;
  const run = (side, request) => {
    fs.writeSync(2, \`repro: call \${++calls}: codec \${side} (\${codecs[side]}) \${request.op}\\n\`);
    return ops[request.op]({ ...request, codec: codecs[side] });
  };
  fs.writeSync(2, \`repro: the ${result.type} check of node \${process.version}\\n\`);
  const result = runCheck(${JSON.stringify(result.type)}, run, input);
  for (const d of result.differences) d.known = known[d.signature];
  console.log(harness('findings/report.js').renderBody(result));
  process.exitCode = harness('findings/report.js').differs(result.differences) ? 1 : 0;
}

${bundle(['oracle/ops.js', 'oracle/checks.js', 'findings/report.js', 'codecs/js.js', 'codecs/native.js', 'codecs/builtin.js'])}

try {
  main();
} catch (err) {
  // Exit 1 means DIFF: anything that keeps the check from running is 2.
  console.error(\`repro: cannot run: \${String(err?.message ?? err).split('\\n')[0]}\`);
  process.exitCode = 2;
}
`;
}

module.exports = { reproScript, inputSource };
