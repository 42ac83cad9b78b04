'use strict';
// The known-differences list: how entries match differences, how the list is
// chosen on the command line, and one-line errors for a broken list.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseKnown, loadKnown, classify, defaultFile } = require('../harness/known');
const { UsageError } = require('../harness/errors');
const { cli, frame } = require('./fixtures/helpers');

const list = (entries) => JSON.stringify({ entries });
const entry = (id, tier, match) => ({ id, tier, match, reason: 'because' });
const hostTag = {
  tier: 'error-identity', op: 'stream', where: 'read 1', signature: 'error-identity/stream/x',
  detail: 'a Error[ERR_INTERNAL_ASSERTION], b Error[ERR_INVALID_STATE]',
  a: { kind: 'reject', name: 'Error', code: 'ERR_INTERNAL_ASSERTION' },
  b: { kind: 'reject', name: 'Error', code: 'ERR_INVALID_STATE' },
};
const known = (text, difference) => classify([{ ...difference }], parseKnown(text, 'list.json'))[0].known;

describe('known differences', function () {
  describe('matching', function () {
    it('matches on tier alone when an entry has no match fields', function () {
      assert.equal(known(list([entry('any', 'error-identity')]), hostTag), 'any');
      assert.equal(known(list([entry('other', 'bytes')]), hostTag), undefined);
    });

    it('matches dotted fields exactly', function () {
      assert.equal(known(list([entry('e', 'error-identity', { 'a.code': 'ERR_INTERNAL_ASSERTION', 'b.code': 'ERR_INVALID_STATE' })]), hostTag), 'e');
      assert.equal(known(list([entry('e', 'error-identity', { 'b.code': 'ERR_INVALID' })]), hostTag), undefined);
      // Exact text is not a substring search.
      assert.equal(known(list([entry('e', 'error-identity', { where: 'read' })]), hostTag), undefined);
    });

    it('matches /regex/ fields, with flags', function () {
      assert.equal(known(list([entry('r', 'error-identity', { detail: '/ERR_INVALID_STATE\\]$/' })]), hostTag), 'r');
      assert.equal(known(list([entry('r', 'error-identity', { 'a.code': '/^err_internal/i' })]), hostTag), 'r');
      assert.equal(known(list([entry('r', 'error-identity', { 'a.code': '/^err_internal/' })]), hostTag), undefined);
    });

    it('does not match a field the difference lacks', function () {
      assert.equal(known(list([entry('r', 'error-identity', { 'a.signal': '/.*/' })]), hostTag), undefined);
      assert.equal(known(list([entry('r', 'error-identity', { 'a.missing.deeper': 'x' })]), hostTag), undefined);
    });

    it('names the first entry that matches and leaves others unmarked', function () {
      const text = list([entry('first', 'error-identity'), entry('second', 'error-identity')]);
      const out = classify([{ ...hostTag }, { ...hostTag, tier: 'bytes' }], parseKnown(text, 'list.json'));
      assert.deepEqual(out.map((d) => d.known), ['first', undefined]);
    });

    // A /regex/g would keep lastIndex between tests and match every other
    // difference it is tried on.
    it('matches every difference with a /regex/g entry, not every other one', function () {
      const text = list([entry('g', 'error-identity', { 'b.code': '/INVALID/g' })]);
      const out = classify([{ ...hostTag }, { ...hostTag }, { ...hostTag }], parseKnown(text, 'list.json'));
      assert.deepEqual(out.map((d) => d.known), ['g', 'g', 'g']);
    });

    it('covers the host-tag error codes in the default list', function () {
      const ids = loadKnown(undefined).map((e) => e.id);
      assert.ok(ids.includes('host-tag-error-code'));
      assert.equal(loadKnown(undefined).find((e) => e.test(hostTag))?.id, 'host-tag-error-code');
      assert.equal(path.basename(defaultFile), 'known-differences.json');
      assert.deepEqual(loadKnown(null), []);
    });
  });

  describe('broken lists', function () {
    let dir;
    before(function () {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-known-'));
    });
    after(function () {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const write = (name, text) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      return file;
    };
    const oneLineUsageError = (pattern) => (err) =>
      err instanceof UsageError && pattern.test(err.message) && !err.message.includes('\n');

    const cases = {
      'a missing file': [() => path.join(dir, 'missing.json'), /cannot read .*ENOENT/],
      'invalid JSON': [() => write('bad.json', '{ "entries": [ '), /not valid JSON/],
      'no entries array': [() => write('none.json', '{}'), /"entries"/],
      'a bad tier': [() => write('tier.json', list([entry('x', 'speed')])), /"tier" must be one of/],
      'a duplicate id': [() => write('dup.json', list([entry('x', 'bytes'), entry('x', 'value')])), /entry x: needs a unique/],
      'a bad regex': [() => write('re.json', list([entry('x', 'bytes', { detail: '/(/' })])), /entry x match detail/],
      'a missing reason': [() => write('reason.json', list([{ id: 'x', tier: 'bytes' }])), /needs a "reason"/],
    };

    for (const [name, [file, pattern]] of Object.entries(cases)) {
      it(`reports ${name} in one line`, function () {
        assert.throws(() => loadKnown(file()), oneLineUsageError(pattern));
      });
    }

    for (const name of ['a missing file', 'invalid JSON', 'a bad tier', 'a duplicate id', 'a bad regex']) {
      it(`exits 2 with one line for ${name} given to --known`, async function () {
        const bytes = write('frame.bin', Buffer.from(frame('ff0f4902'), 'hex'));
        const { code, stdout, stderr } = await cli(['diff', '--frame', bytes, '--known', cases[name][0]()]);
        assert.equal(code, 2);
        assert.equal(stdout, '');
        assert.match(stderr, /^ipcfuzz diff: [^\n]+\n$/);
        assert.match(stderr, cases[name][1]);
      });
    }
  });

  describe('on the command line', function () {
    let dir;
    let hostTagFrame;
    before(function () {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-known-'));
      hostTagFrame = path.join(dir, 'host-tag-2.bin');
      fs.writeFileSync(hostTagFrame, Buffer.from(frame('ff0f 5c02 49'), 'hex'));
    });
    after(function () {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('uses the default list unless told otherwise', async function () {
      const { code, stdout } = await cli(['diff', '--frame', hostTagFrame]);
      assert.equal(code, 0);
      assert.match(stdout, /known \(host-tag-error-code\)/);
    });

    it('reports every difference as new with --no-known', async function () {
      const { code, stdout } = await cli(['diff', '--frame', hostTagFrame, '--no-known']);
      assert.equal(code, 1);
      assert.match(stdout, /error-identity\s+DIFF/);
    });

    it('uses only the list given with --known', async function () {
      const mine = path.join(dir, 'mine.json');
      fs.writeFileSync(mine, list([entry('my-entry', 'error-identity', { 'b.code': '/STATE$/' })]));
      const covered = await cli(['diff', '--frame', hostTagFrame, '--known', mine, '--json']);
      assert.equal(covered.code, 0);
      const result = JSON.parse(covered.stdout);
      assert.deepEqual(result.differences.map((d) => d.known), ['my-entry']);

      const empty = path.join(dir, 'empty.json');
      fs.writeFileSync(empty, list([]));
      const uncovered = await cli(['diff', '--frame', hostTagFrame, '--known', empty]);
      assert.equal(uncovered.code, 1);
    });
  });
});
