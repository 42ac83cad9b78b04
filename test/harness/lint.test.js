'use strict';
// The harness is the ground floor and its rooms are floors too:
// eslint.config.js fails a file under harness/ that requires anything outside
// it but built-ins and packages, a room that is not below its own, or engine
// code outside the arbitraries.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ESLint } = require('eslint');
const { root } = require('../fixtures/helpers');

const rule = 'ipcfuzz/harness-floor';

async function lint(source, file) {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === rule).map((m) => m.line);
}

const requiring = (...names) => "'use strict';\n" +
  names.map((name, i) => `const m${i} = require('${name}');\n`).join('') + 'module.exports = {};\n';

describe('lint: the harness requires nothing above it', function () {
  it('fails a require of properties/ from a file under harness/', async function () {
    assert.deepEqual(await lint(requiring('../../properties/x'), 'harness/oracle/sample.js'), [2]);
  });

  it('fails the lazy require inside a function and require.resolve, from a subfolder too', async function () {
    const source = "'use strict';\nfunction f() {\n  return require('../../../cli/gate/stages');\n}\n" +
      'const g = require.resolve(`../../../conformance/gate`);\nmodule.exports = { f, g };\n';
    assert.deepEqual(await lint(source, 'harness/findings/reach/sample.js'), [3, 5]);
  });

  it('leaves the same require alone outside harness/', async function () {
    assert.deepEqual(await lint(requiring('../properties/x'), 'cli/sample.js'), []);
  });
});

describe('lint: the rooms of harness/ are floors', function () {
  it('lets a room require itself, the rooms below it, built-ins, packages and package.json', async function () {
    const source = requiring('./compare', '../recipes/codegen', '../codecs', '../wire/tags', '../base/errors',
      'node:fs', 'eslint', '../../package.json');
    assert.deepEqual(await lint(source, 'harness/oracle/sample.js'), []);
  });

  it('fails each back-reference: a room requiring one above it or beside it', async function () {
    // The oracle below the runner and findings, the wire below the codecs'
    // users, the codecs beside the recipes, and observers above everything.
    assert.deepEqual(await lint(requiring('../run/session', '../findings/report', '../observe/coverage'),
      'harness/oracle/sample.js'), [2, 3, 4]);
    assert.deepEqual(await lint(requiring('../oracle/compare'), 'harness/wire/sample.js'), [2]);
    assert.deepEqual(await lint(requiring('../codecs/js'), 'harness/recipes/sample.js'), [2]);
    assert.deepEqual(await lint(requiring('../findings/recorder'), 'harness/run/sample.js'), [2]);
    assert.deepEqual(await lint(requiring('../../run/session'), 'harness/findings/reach/sample.js'), [2]);
    assert.deepEqual(await lint(requiring('../oracle/checks'), 'harness/base/sample.js'), [2]);
  });

  it('fails a room named as a folder, and a file outside every room', async function () {
    assert.deepEqual(await lint(requiring('../run'), 'harness/oracle/sample.js'), [2]);
    assert.deepEqual(await lint(requiring('node:fs'), 'harness/sample.js'), [1]);
  });

  it('lets only the arbitraries load engine code', async function () {
    assert.deepEqual(await lint(requiring('fast-check', '@jazzer.js/core'), 'harness/oracle/sample.js'), [2, 3]);
    assert.deepEqual(await lint(requiring('fast-check'), 'harness/run/sample.js'), [2]);
    assert.deepEqual(await lint(requiring('fast-check', '../recipes/kinds'), 'harness/arbitraries/sample.js'), []);
  });

  it('holds for the harness as it is', async function () {
    const eslint = new ESLint({ cwd: root });
    const results = await eslint.lintFiles(['harness/']);
    const broken = results.flatMap((r) => r.messages.filter((m) => m.ruleId === rule)
      .map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.message}`));
    assert.deepEqual(broken, []);
    // Every folder of harness/ is a room the rule knows.
    const rooms = fs.readdirSync(path.join(root, 'harness'), { withFileTypes: true }).filter((d) => d.isDirectory());
    for (const room of rooms) {
      const inside = requiring('node:fs');
      assert.deepEqual(await lint(inside, `harness/${room.name}/sample.js`), [], room.name);
    }
  });
});

// The words of harness/base/vocabulary.js are named through its tables.
describe('lint: the vocabulary is spelled in one place', function () {
  const lintWords = async (source, file = 'harness/oracle/sample.js') => {
    const eslint = new ESLint({ cwd: root });
    const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
    return result.messages.filter((m) => m.ruleId === 'ipcfuzz/vocabulary').map((m) => m.line);
  };

  it('fails an outcome kind, a tier or a settled status spelled out where one is compared or made', async function () {
    const source = "'use strict';\nconst f = (o, d, s) => [\n  o.kind === 'ok',\n  d.tier !== 'bytes',\n" +
      "  { kind: o.ok ? 'reject' : 'ok' },\n  ['value', 'effects'].includes(d.tier),\n  s.status === 'known',\n];\n" +
      'module.exports = { f };\n';
    assert.deepEqual(await lintWords(source), [3, 4, 5, 5, 6, 6, 7]);
  });

  it('fails the words no other meaning shares wherever they are spelled, in every folder', async function () {
    const source = "'use strict';\nconst words = ['crash', 'hang', 'error-identity', 'pairing'];\n" +
      'module.exports = { words };\n';
    assert.deepEqual(await lintWords(source, 'cli/sample.js'), [2, 2, 2, 2]);
  });

  it('leaves the same words alone where they name something else, and in the vocabulary itself', async function () {
    const source = "'use strict';\nconst check = { type: 'value', field: 'bytes', flag: 'value' };\n" +
      "const same = (x) => x.type === 'value' || x.field === 'bytes';\nmodule.exports = { check, same };\n";
    assert.deepEqual(await lintWords(source), []);
    const table = fs.readFileSync(path.join(root, 'harness', 'base', 'vocabulary.js'), 'utf8');
    assert.deepEqual(await lintWords(table, 'harness/base/vocabulary.js'), []);
  });
});
