'use strict';
// Writes a standalone repro script for a check result: the input (the value's
// construction code, or the bytes), both codecs, and the same operations and
// comparison the harness ran, in one file that runs with
//   node --expose-internals repro.js
// and prints SAME or DIFF (exit 1 on DIFF).

const { compileRecipe } = require('./recipes/codegen');
const { bundle } = require('./bundle');

function inputSource(result) {
  if (result.type !== 'value') return `const input = ${JSON.stringify(result.input)};`;
  if (result.input.recipe === undefined) {
    return `// The value module, called for every codec call.\n` +
      `const input = { make: (effects) => ({ value: require(${JSON.stringify(result.input.module)})(effects), ` +
      `setup() {}, teardown() {} }) };`;
  }
  const body = compileRecipe(result.input.recipe).split('\n').map((l) => `  ${l}`).join('\n');
  return `// The value, rebuilt for every codec call; \`effects\` records user code that runs.\n` +
    `function makeInput(effects) {\n${body}\n}\nconst input = { make: makeInput };`;
}

function reproScript(result, { a, b, title }) {
  const codec = (spec) => JSON.stringify(spec);
  return `#!/usr/bin/env node
// ipcfuzz repro: ${title}
// Run it in the node binary under test:  node --expose-internals ${'repro.js'}
// It runs the ${result.type} check of codec a (${a}) against codec b (${b})
// and prints both outcomes, the annotated frames and SAME or DIFF; exit 1 on DIFF.
'use strict';

${inputSource(result)}

function main() {
  const { createOps } = harness('ops.js');
  const { runSync } = harness('checks.js');
  const codecs = { a: ${codec(a)}, b: ${codec(b)} };
  const ops = createOps((input, effects) => input.make(effects));
  const run = (side, request) => ops[request.op]({ ...request, codec: codecs[side] });
  const result = runSync(${JSON.stringify(result.type)}, run, input);
  console.log(harness('report.js').renderBody(result));
  process.exitCode = result.differences.length ? 1 : 0;
}

${bundle(['ops.js', 'checks.js', 'report.js', 'codecs/js.js', 'codecs/native.js', 'codecs/builtin.js'])}

main();
`;
}

module.exports = { reproScript };
