'use strict';
// The review of a run (harness/findings/review.js): review.md, one row per
// cause or family, most severe first, and review-repro.js, a PASS/FAIL check
// per reachable cause that passes with 26.3.1 and fails with the build.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { resolveNode, probeNode } = require('../../harness/base/binaries');
const { checkFindings, referenceVersion } = require('../../harness/findings/reach');
const { writeReview } = require('../../harness/findings/review');
const { saveFinding } = require('../fixtures/findings');
const { fixture } = require('../fixtures/helpers');

const build = resolveNode();
const reference = resolveNode(referenceVersion);
const value = (recipe, tier, b) => ({ type: 'value', input: { recipe }, tier, ...(b && { b }) });
const causes = {
  crash: value({ k: 'port', props: [['0', { k: 'number', v: 5 }]] }, 'crash'),
  // Two causes of one family: the built-ins the JavaScript codec calls while sending.
  allocUnsafe: value({ k: 'object', tamper: [{ op: 'patch', of: 'Buffer', static: true, key: 'allocUnsafe' }] },
    'effects'),
  pool: value({ k: 'object', tamper: [{ op: 'pool', side: 'send' }] }, 'effects'),
  // An adapter's difference: never seen through child_process.
  adapter: value({ k: 'object', props: [['a', { k: 'number', v: 1 }], ['b', { k: 'number', v: 2 }]] }, 'value',
    fixture('drop-last-prop.js')),
};

describe('the review of a run', function () {
  this.timeout(180_000);
  let dir;
  let written;
  let review;
  before(async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-review-'));
    const folders = [];
    for (const [name, cause] of Object.entries(causes)) folders.push(await saveFinding(path.join(dir, name), cause));
    await checkFindings(folders, { build });
    const version = probeNode(build).node;
    written = writeReview(dir, folders, { sides: { a: { codec: 'js', version }, b: { codec: 'native', version } } });
    review = fs.readFileSync(written.review, 'utf8');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('has one row per cause or family, the crash first, in a maintainer\'s words', function () {
    const rows = [...review.matchAll(/^\| \d+ \| (.+?) \| (\d+) \| (\d+) of \d+ \|$/gm)]
      .map(([, title, count, reachable]) => ({ title, count: Number(count), reachable: Number(reachable) }));
    assert.equal(rows.length, 3, review);
    assert.match(rows[0].title, /crashes the sender with the native codec: SIGSEGV/);
    const family = rows.find((row) => row.count === 2);
    assert.match(family.title, /built-ins .* while sending/);
    assert.equal(family.reachable, 2);
    assert.ok(rows.some((row) => row.reachable === 0), 'the adapter\'s cause is there, not reachable');
    assert.match(review, /^ipcfuzz found 4 causes where the `native` codec in Node\.js v26\.12\.1 behaves otherwise/m);
    assert.doesNotMatch(review.split('\n').filter((l) => l.startsWith('| ')).join('\n'), /\*|object\.props|\b[ab] (ran|get|call)\b/);
    // Each row with the heart of its repro, folded.
    assert.equal(review.match(/<details><summary><code>node [^<]+\/repro(-fork)?\.js<\/code><\/summary>/g).length, rows.length);
    assert.ok(review.length <= 20_000, `${review.length} bytes`);
  });

  it('writes review-repro.js: every check passes with 26.3.1 and fails with the build', function () {
    const run = (node) => spawnSync(node, [written.repro], { encoding: 'utf8', timeout: 120_000, cwd: os.tmpdir() });
    const withReference = run(reference);
    assert.equal(withReference.status, 0, withReference.stdout + withReference.stderr);
    assert.equal(withReference.stdout.match(/^PASS: /gm).length, 3, withReference.stdout);
    assert.match(withReference.stdout, /^3 of 3 checks pass$/m);
    const withBuild = run(build);
    assert.equal(withBuild.status, 1, withBuild.stdout + withBuild.stderr);
    assert.equal(withBuild.stdout.match(/^FAIL: /gm).length, 3, withBuild.stdout);
    assert.match(withBuild.stdout,
      /^FAIL: `child\.send\(\)` of a MessagePort[^\n]*\n {2}what child\.send\(value\) did\n {4}node v26\.12\.1: crashed \(SIGSEGV\)$/m);
    assert.match(withBuild.stdout, /pool \+0\n {4}Node\.js 26\.3\.1: pool \+8/);
  });
});
