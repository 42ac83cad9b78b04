'use strict';
// The fast part of the conformance suite: the vectors' expectations are what
// the reference does today, they cover every tag, view type index and host
// tag, every pinned binary's codecs run them in process, and each mutant
// adapter fails at least one of them. The end-to-end part is e2e.test.js.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { loadVectors, readExpectation } = require('../../conformance/vectors');
const { referenceExpectations, verdictProblem } = require('../../conformance/generate');
const { runConformance, runCodecColumn, describeBinaries, loadCases } = require('../../conformance/runner');
const { annotateStream } = require('../../harness/annotate');
const { tags, viewTypes } = require('../../harness/wire');
const { loadKnown } = require('../../harness/known');
const { catalog } = require('../../harness/mutants/catalog');
const { pinnedVersions, defaultVersion } = require('../../harness/binaries');
const { failing } = require('../../conformance/judge');
const { cli } = require('../fixtures/helpers');

const mutantsDir = path.join(__dirname, '..', '..', 'harness', 'mutants');

// What the bytes of every vector contain, by verdict: tag names, view type
// indices and host-object tags, as the annotated hex dump reads them.
function wireCoverage(vectors) {
  const seen = {};
  const add = (verdict, kind, value) => {
    seen[verdict] ??= { tags: new Set(), indices: new Set(), hostTags: new Set() };
    seen[verdict][kind].add(value);
  };
  for (const v of vectors) {
    const hex = v.kind === 'recipe' ? readExpectation(v).serialize.bytes : v.input.bytes;
    if (!hex) continue;
    for (const frame of annotateStream(Buffer.from(hex, 'hex'))) {
      for (const s of frame.segments) {
        if (s.field.startsWith('tag.')) add(v.verdict, 'tags', s.field.slice(4));
        else if (s.field === 'padding') add(v.verdict, 'tags', 'padding');
        else if (s.field === 'header') add(v.verdict, 'tags', 'version');
        else if (s.field === 'host.index') add(v.verdict, 'indices', Number(/index (\d+)/.exec(s.label)[1]));
        else if (s.field === 'host.tag') add(v.verdict, 'hostTags', Number(/tag (\d+)/.exec(s.label)[1]));
      }
    }
  }
  return seen;
}

describe('conformance vectors', function () {
  this.timeout(120_000);
  const vectors = loadVectors();

  it('have expectations that match the reference codec (node conformance/generate.js)', async function () {
    const fresh = await referenceExpectations(vectors);
    for (const vector of vectors) {
      assert.equal(verdictProblem(vector, fresh.get(vector.id)), null, vector.id);
      assert.deepEqual(readExpectation(vector), fresh.get(vector.id),
        `${vector.id}: the expectation is stale; run node conformance/generate.js`);
    }
  });

  it('cover every tag, view type index and host-object tag', function () {
    const { accept, reject, 'implementation-defined': impl } = wireCoverage(vectors);
    const everywhere = new Set([...accept.tags, ...reject.tags, ...impl.tags]);
    assert.deepEqual(Object.values(tags).filter((t) => !everywhere.has(t)), []);
    // Tags no accept vector holds: values no pinned binary can make (immutable
    // ArrayBuffers), shared memory and transfers the IPC codec never makes. The
    // legacy forms V8 still reads (padding, uint32, utf8-string, verify-object-count,
    // V8's own view tag) are in V8's vectors (accept/v8).
    assert.deepEqual(Object.values(tags).filter((t) => !accept.tags.has(t)).sort(), [
      'array-buffer-transfer', 'immutable-array-buffer', 'shared-array-buffer', 'shared-object',
      'wasm-memory-transfer', 'wasm-module-transfer',
    ]);
    assert.deepEqual([...accept.indices].sort((a, b) => a - b), viewTypes.map((_, i) => i));
    assert.ok([...reject.indices].some((i) => i >= viewTypes.length));
    assert.deepEqual([...accept.hostTags].sort(), [0, 1]);
    assert.ok([...reject.hostTags].some((t) => t > 1));
  });

  describe('in process on the pinned binaries', function () {
    let result;
    before(async function () {
      result = await runConformance({ nodes: pinnedVersions(), fork: false, known: loadKnown() });
    });

    const cellsOf = (columnId) => result.rows.map((row) => [row.id, row.cells[columnId]]);

    // The expectations are the reference's in the default binary (generate.js):
    // an older V8 may read an implementation-defined frame otherwise (24.x's
    // V8 13.6 has no immutable ArrayBuffer), never an accept or reject vector.
    it('the reference codec passes every vector in every binary, ' +
      'but an implementation-defined one in an older V8', function () {
      const v8Of = (binary) => binary.info.v8.split('.').slice(0, 2).map(Number);
      const [major, minor] = v8Of(describeBinaries([defaultVersion])[0]);
      let olderV8 = 0;
      for (const column of result.columns.filter((c) => c.codec === 'js')) {
        const [m, n] = v8Of(column.binary);
        const older = m < major || (m === major && n < minor);
        olderV8 += older;
        for (const [id, cell] of cellsOf(column.id)) {
          const passes = ['PASS', 'N/A'].includes(cell.state) || (cell.state === 'IMPL' && cell.same);
          const implOtherwise = older && cell.state === 'IMPL' && id.startsWith('implementation-defined/');
          assert.ok(passes || implOtherwise, `${column.id} (V8 ${column.binary.info.v8}) ${id}: ${cell.state}`);
        }
      }
      assert.ok(olderV8 < result.columns.filter((c) => c.codec === 'js').length, 'no column has the default\'s V8');
    });

    it('what child_process runs in 26.3.1 (the JS codec) passes every vector', function () {
      for (const [id, cell] of cellsOf('26.3.1/builtin')) {
        assert.ok(['PASS', 'N/A'].includes(cell.state) || (cell.state === 'IMPL' && cell.same), `${id}: ${cell.state}`);
      }
    });

    it('the native codec of 26.10.0 was judged on every vector', function () {
      const states = cellsOf('26.10.0/native').map(([id, cell]) => {
        if (failing.has(cell.state)) console.log(`      ${cell.state} ${id}: ${cell.differences[0]?.detail ?? ''}`);
        return cell.state;
      });
      assert.equal(states.length, vectors.length);
      assert.ok(states.filter((s) => s === 'PASS').length > vectors.length / 2);
    });
  });

  describe('every mutant adapter fails at least one vector', function () {
    const [binary] = describeBinaries(['26.10.0']);
    const { vectors: cases } = loadCases();
    const known = loadKnown();

    for (const [name, { bug, expect }] of Object.entries(catalog)) {
      it(`${name}: ${bug}`, async function () {
        const column = { id: name, binary, codec: path.join(mutantsDir, `${name}.js`) };
        const cells = await runCodecColumn(column, cases, { known, timeoutMs: 10_000 });
        const caught = [...cells].filter(([, cell]) => failing.has(cell.state) &&
          cell.differences.some((d) => !d.known && expect.includes(d.tier)));
        assert.ok(caught.length, `no vector fails with a ${expect.join(' or ')} difference`);
        console.log(`      caught by ${caught.length}: ${caught.slice(0, 3).map(([id]) => id).join(', ')}${caught.length > 3 ? ', …' : ''}`);
      });
    }
  });
});

describe('ipcfuzz conformance and ipcfuzz node', function () {
  this.timeout(60_000);
  let dir;
  const mutant = path.join(mutantsDir, 'any-host-tag.js');
  const args = () => ['conformance', '--no-fork', '--node', '26.10.0', '--codec', mutant,
    '--only', '^reject/host/tag-2$', '--report', dir];
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-conformance-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('exits 1 on a failure not in the known-differences list, and names it', async function () {
    const { code, stdout } = await cli(args());
    assert.equal(code, 1);
    assert.match(stdout, /1 new failure:\n\s+FAIL\s+reject\/host\/tag-2\s+\[26\.10\.0 any-host-tag\]/);
  });

  it('exits 0 when every difference is known, and writes the reports', async function () {
    const known = path.join(dir, 'known.json');
    // Accepting the frame is one difference, delivering a message because of it another.
    fs.writeFileSync(known, JSON.stringify({ entries: ['acceptance', 'framing'].map((tier) => ({
      id: `tag-2-${tier}`, tier, match: { vector: 'reject/host/tag-2' }, reason: 'a test entry',
    })) }));
    const { code } = await cli([...args(), '--known', known]);
    assert.equal(code, 0);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
    assert.equal(report.rows[0].cells['26.10.0/any-host-tag'].state, 'KNOWN');
    assert.match(fs.readFileSync(path.join(dir, 'report.html'), 'utf8'), /<table class="matrix">[^]*KNOWN/);
    assert.match(fs.readFileSync(path.join(dir, 'matrix.md'), 'utf8'), /\| tag-2 \| KNOWN \|/);
  });

  it('names a binary it cannot find in one line, exit 2', async function () {
    const { code, stderr } = await cli(['conformance', '--node', '1.2.3']);
    assert.equal(code, 2);
    assert.match(stderr, /^ipcfuzz conformance: node 1\.2\.3 is not installed [^\n]*\n$/);
  });

  it('names a runtime it cannot find or read, and a bad budget, in one line, exit 2', async function () {
    for (const [args, message] of [
      [['--runtime', 'nope'], /--runtime "nope": name deno, bun or NAME@VERSION/],
      [['--runtime', 'deno@9.9.9'], /deno 9\.9\.9 is not installed/],
      [['--budget', '0'], /--budget must be a whole number/],
    ]) {
      const { code, stderr } = await cli(['conformance', ...args]);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, new RegExp(`^ipcfuzz conformance: ${message.source}[^\n]*\n$`), args.join(' '));
    }
  });

  it('lists the binaries --node can name', async function () {
    const { code, stdout } = await cli(['node', 'list']);
    assert.equal(code, 0);
    for (const version of pinnedVersions()) assert.match(stdout, new RegExp(`^${version.replace(/\./g, '\\.')}\\s+pinned`, 'm'));
  });
});
