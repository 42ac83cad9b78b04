'use strict';
// The environment variables: those a user may set are listed in
// docs/commands.md, and the harness reads no other; those ipcfuzz sets for
// its own processes are listed too, so no variable is read unannounced.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { root } = require('../fixtures/helpers');

const doc = fs.readFileSync(path.join(root, 'docs', 'commands.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Environment variables'));
const [userTable, ownTable] = section.split('The variables ipcfuzz sets for the processes it starts');
const namesIn = (text) => new Set(text.match(/IPCFUZZ_[A-Z_]+/g) ?? []);

// The variables named in the JavaScript of these folders.
function named(...folders) {
  const out = execFileSync('git', ['grep', '-ohE', 'IPCFUZZ_[A-Z_]+', '--', ...folders.map((f) => `${f}/*.js`)],
    { cwd: root, encoding: 'utf8' });
  return new Set(out.split('\n').filter(Boolean));
}

describe('environment variables', function () {
  it('the harness reads only variables a user may set, each in docs/commands.md', function () {
    const users = namesIn(userTable);
    assert.ok(users.has('IPCFUZZ_NODE_CACHE') && users.has('IPCFUZZ_FORK_SERVER'), 'the section is found');
    const unlisted = [...named('harness')].filter((name) => !users.has(name));
    assert.deepEqual(unlisted, []);
  });

  it('every variable the code outside the tests names is in docs/commands.md', function () {
    const listed = new Set([...namesIn(userTable), ...namesIn(ownTable)]);
    const code = named('bin', 'cli', 'harness', 'properties', 'fuzzers', 'conformance', 'bench', 'scripts');
    assert.deepEqual([...code].filter((name) => !listed.has(name)), []);
  });
});
