'use strict';
// The harness is the ground floor: eslint.config.js fails a file under
// harness/ that requires anything outside it but built-ins and packages.
const assert = require('node:assert/strict');
const path = require('node:path');
const { ESLint } = require('eslint');
const { root } = require('../fixtures/helpers');

const rule = 'ipcfuzz/harness-floor';

async function lint(source, file) {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === rule).map((m) => m.line);
}

describe('lint: the harness requires nothing above it', function () {
  it('fails a require of properties/ from a file under harness/', async function () {
    const source = "'use strict';\nconst x = require('../properties/x');\nmodule.exports = x;\n";
    assert.deepEqual(await lint(source, 'harness/sample.js'), [2]);
  });

  it('fails the lazy require inside a function and require.resolve, from a subfolder too', async function () {
    const source = "'use strict';\nfunction f() {\n  return require('../../cli/gate/stages');\n}\n" +
      'const g = require.resolve(`../../conformance/gate`);\nmodule.exports = { f, g };\n';
    assert.deepEqual(await lint(source, 'harness/codecs/sample.js'), [3, 5]);
  });

  it('lets harness files require each other, built-ins, packages and package.json', async function () {
    const source = "'use strict';\nconst a = require('./wire');\nconst b = require('../canonical');\n" +
      "const c = require('node:fs');\nconst d = require('fast-check');\nconst e = require('../../package.json');\n" +
      'module.exports = { a, b, c, d, e };\n';
    assert.deepEqual(await lint(source, 'harness/codecs/sample.js'), []);
  });

  it('leaves the same require alone outside harness/', async function () {
    const source = "'use strict';\nconst x = require('../properties/x');\nmodule.exports = x;\n";
    assert.deepEqual(await lint(source, 'cli/sample.js'), []);
  });
});
