'use strict';
// The known-differences list: how entries match differences, how the list is
// chosen on the command line, and one-line errors for a broken list.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseKnown, loadKnown, classify, splitByScope, scopeOf, defaultFile } = require('../../harness/oracle/known');
const { UsageError } = require('../../harness/base/errors');
const { cli, frame } = require('../fixtures/helpers');

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
      const codes = { 'a.code': 'ERR_INTERNAL_ASSERTION', 'b.code': 'ERR_INVALID_STATE' };
      assert.equal(known(list([entry('e', 'error-identity', codes)]), hostTag), 'e');
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

  describe('scope', function () {
    const sides = (a, b, node = 'v26.12.1') => ({ a: { codec: a }, b: { codec: b, info: { node } } });
    const applies = (scope, run) => splitByScope(parseKnown(list([{ ...entry('e', 'bytes'), scope }]), 'l.json'), run)
      .applies.map((e) => e.id);

    it('is js against native or builtin, any node, for an entry without one', function () {
      assert.deepEqual(applies(undefined, sides('js', 'native')), ['e']);
      assert.deepEqual(applies(undefined, sides('js', 'builtin', 'v20.0.0')), ['e']);
      assert.deepEqual(applies(undefined, sides('native', 'native')), []);
      assert.deepEqual(applies(undefined, sides('js', '/home/me/my-codec.js')), []);
    });

    it('names an adapter by its file name, and takes one codec or a list', function () {
      assert.deepEqual(applies({ a: 'native', b: 'my-codec.js' }, sides('native', '/home/me/my-codec.js')), ['e']);
      assert.deepEqual(applies({ a: ['js', 'native'], b: 'my-codec.js' }, sides('js', '/x/my-codec.js')), ['e']);
      assert.deepEqual(applies({ a: 'native', b: 'my-codec.js' }, sides('native', '/x/other.js')), []);
    });

    it('holds a node range against side b\'s binary', function () {
      const range = { node: '>=24.19.0 <25.0.0 || >=26.4.0' };
      assert.deepEqual(['v24.19.0', 'v24.18.9', 'v25.1.0', 'v26.3.1', 'v26.4.0', 'v27.0.0']
        .map((v) => applies(range, sides('js', 'native', v)).length), [1, 0, 0, 0, 1, 1]);
      assert.deepEqual(applies({ node: '=26.12.1' }, sides('js', 'native', 'v26.12.1')), ['e']);
      assert.deepEqual(applies({ node: '<26.12.1' }, sides('js', 'native', 'v26.12.1')), []);
    });

    it('is what --emit-known writes for a run, and that scope holds the run', function () {
      const run = { a: { codec: 'native' }, b: { codec: '/x/my-codec.js', info: { node: 'v26.12.1' } } };
      const scope = scopeOf(run);
      assert.deepEqual(scope, { a: 'native', b: 'my-codec.js', node: '>=26.12.1' });
      assert.deepEqual(applies(scope, run), ['e']);
    });

    it('keeps an entry out of scope from hiding a difference in diff', async function () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-scope-'));
      try {
        const bytes = path.join(dir, 'host-tag-2.bin');
        fs.writeFileSync(bytes, Buffer.from(frame('ff0f 5c02 49'), 'hex'));
        const hostTagEntry = (scope) => {
          const file = path.join(dir, `${scope.b}.json`);
          const tag = entry('tag', 'error-identity', { 'b.code': 'ERR_INVALID_STATE' });
          fs.writeFileSync(file, list([{ ...tag, scope }]));
          return file;
        };
        const inScope = await cli(['diff', '--frame', bytes, '--known', hostTagEntry({ a: 'js', b: 'native' })]);
        assert.equal(inScope.code, 0, inScope.stdout);
        assert.match(inScope.stdout, /known \(tag\)/);
        const otherPair = hostTagEntry({ a: 'js', b: 'wrapped-native.js' });
        const outside = await cli(['diff', '--frame', bytes, '--known', otherPair]);
        assert.equal(outside.code, 1, outside.stdout);
        assert.match(outside.stdout, /error-identity\s+DIFF/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
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
      'a duplicate id': [() => write('dup.json', list([entry('x', 'bytes'), entry('x', 'value')])),
        /entry x: needs a unique/],
      'a bad regex': [() => write('re.json', list([entry('x', 'bytes', { detail: '/(/' })])), /entry x match detail/],
      'a missing reason': [() => write('reason.json', list([{ id: 'x', tier: 'bytes' }])), /needs a "reason"/],
      'a scope that is not an object': [() => write('s1.json', list([{ ...entry('x', 'bytes'), scope: 'js' }])),
        /"scope" must be an object/],
      'a scope with an unknown key': [() => write('s2.json', list([{ ...entry('x', 'bytes'), scope: { c: 'js' } }])),
        /"scope" has "c"/],
      'a scope codec that is a path': [
        () => write('s3.json', list([{ ...entry('x', 'bytes'), scope: { b: './my.js' } }])),
        /scope "b" must be a codec/],
      'an empty scope codec list': [() => write('s4.json', list([{ ...entry('x', 'bytes'), scope: { a: [] } }])),
        /scope "a" must be/],
      'a bad scope node range': [() => write('s5.json', list([{ ...entry('x', 'bytes'), scope: { node: '>=26' } }])),
        /"node" has ">=26", not a comparator and version/],
    };

    for (const [name, [file, pattern]] of Object.entries(cases)) {
      it(`reports ${name} in one line`, function () {
        assert.throws(() => loadKnown(file()), oneLineUsageError(pattern));
      });
    }

    const viaFlag = ['a missing file', 'invalid JSON', 'a bad tier', 'a duplicate id', 'a bad regex',
      'a bad scope node range'];
    for (const name of viaFlag) {
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
