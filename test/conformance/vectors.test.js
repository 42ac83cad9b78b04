'use strict';
// The fast part of the conformance suite: the vectors' expectations are what
// the reference does today, they cover every tag, view type index and host
// tag, every pinned binary's codecs run them in process, and each mutant
// adapter fails at least one of them; V8's own test vectors are what their
// extraction makes, with V8's verdict as Node's IPC layer sees it. The
// end-to-end part is e2e.test.js.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { loadVectors, readExpectation } = require('../../conformance/vectors');
const { v8Vectors, v8VectorOf, loadSource, group, nodeReads } = require('../../conformance/v8-vectors');
const { extract } = require('../../scripts/extract-v8-vectors');
const { referenceExpectations, verdictProblem } = require('../../conformance/generate');
const { runConformance, runCodecColumn, describeBinaries, loadCases } = require('../../conformance/runner');
const { annotateStream } = require('../../harness/wire/annotate');
const { tags, viewTypes } = require('../../harness/wire/tags');
const { loadKnown } = require('../../harness/oracle/known');
const { catalog } = require('../../harness/mutants/catalog');
const { pinnedVersions, defaultVersion } = require('../../harness/base/binaries');
const { failing } = require('../../conformance/judge');
const { cli } = require('../fixtures/helpers');

const root = path.join(__dirname, '..', '..');
const mutantsDir = path.join(root, 'harness', 'mutants');

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

    it('the native codec of 26.12.1 was judged on every vector', function () {
      const states = cellsOf('26.12.1/native').map(([id, cell]) => {
        if (failing.has(cell.state)) console.log(`      ${cell.state} ${id}: ${cell.differences[0]?.detail ?? ''}`);
        return cell.state;
      });
      assert.equal(states.length, vectors.length);
      assert.ok(states.filter((s) => s === 'PASS').length > vectors.length / 2);
    });
  });

  describe('every mutant adapter fails at least one vector', function () {
    const [binary] = describeBinaries(['26.12.1']);
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
  const args = () => ['conformance', '--no-fork', '--node', '26.12.1', '--codec', mutant,
    '--only', '^reject/host/tag-2$', '--report', dir];
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-conformance-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('exits 1 on a failure not in the known-differences list, and names it', async function () {
    const { code, stdout } = await cli(args());
    assert.equal(code, 1);
    assert.match(stdout, /1 new failure:\n\s+FAIL\s+reject\/host\/tag-2\s+\[26\.12\.1 any-host-tag\]/);
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
    assert.equal(report.rows[0].cells['26.12.1/any-host-tag'].state, 'KNOWN');
    assert.match(fs.readFileSync(path.join(dir, 'report.html'), 'utf8'), /<table class="matrix">[^]*KNOWN/);
    assert.match(fs.readFileSync(path.join(dir, 'matrix.md'), 'utf8'), /\| tag-2 \| KNOWN \|/);
  });

  it('counts V8\'s vectors per column in a section of their own, in every report', async function () {
    const out = path.join(dir, 'v8');
    const only = /^(accept|reject)\/v8\/DecodeOddball-/;
    const { code } = await cli(['conformance', '--no-fork', '--node', '26.12.1', '--only', only.source,
      '--report', out]);
    assert.equal(code, 0);
    const rows = loadVectors().filter((v) => only.test(v.id));
    const byVerdict = { accept: rows.filter((v) => v.verdict === 'accept').length };
    byVerdict.reject = rows.length - byVerdict.accept;
    const { v8Vectors: v8 } = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    assert.deepEqual([v8.vectors, v8.tests, v8.byVerdict], [rows.length, 1, byVerdict]);
    assert.equal(v8.source.commit, loadSource().source.commit);
    for (const column of ['26.12.1/js', '26.12.1/native', '26.12.1/builtin']) {
      assert.deepEqual(v8.totals.find((t) => t.column === column).counts, { PASS: rows.length }, column);
    }
    const counts = `${byVerdict.accept} accept, ${byVerdict.reject} reject`;
    const about = `${rows.length} vectors \\(${counts}\\) from 1 test of V8's`;
    assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'),
      new RegExp(`## V8's vectors\\n\\n${about}[^]*\\| 26\\.12\\.1 native \\| ${rows.length} \\|`));
    assert.match(fs.readFileSync(path.join(out, 'matrix.md'), 'utf8'), new RegExp(`### V8's vectors\\n\\n${about}`));
    assert.match(fs.readFileSync(path.join(out, 'report.html'), 'utf8'), /<h2>V8's vectors<\/h2>/);
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

// Written in the form of V8's value-serializer-unittest.cc (not taken from it).
const sample = String.raw`
static const uint8_t kTag = 'T';

TEST_F(ValueSerializerTest, DecodeSample) {
  // A comment holding a byte list: {0xFF, 0x01, 0x02}.
  DecodeTestFutureVersions({0xFF, 0x09, 0x53, 0x02, 'h', '\0'},
                           [this](Local<Value> value) {
                             ExpectScriptTrue("result.length === "
                                              "2");
                           });
#if defined(V8_TARGET_LITTLE_ENDIAN)
  InvalidDecodeTest({0xFF, 0x0D, kTag});
#else
  InvalidDecodeTest({0xFF, 0x0D, 0x99});
#endif
  Local<Value> value = DecodeTest({0x54, 0x00});
  EXPECT_TRUE(value->IsTrue());
}

TEST_F(ValueSerializerTest, DecodeBuilt) {
  static const int count = 3;
  std::vector<uint8_t> payload;
  payload.push_back(0xFF);
  payload.push_back(0x0D);
  for (int i = 0; i < count; i++) {
    payload.push_back(0x41);
    payload.push_back(0x01);
  }
  InvalidDecodeTest(payload);
  std::vector<uint8_t> named = {0xFF, 0x09, 0x5F};
  DecodeTestUpToVersion(11, std::move(named), [](Local<Value> value) {});
  InvalidDecodeTest(named);
}

TEST_F(ValueSerializerTest, RoundTripOnly) {
  RoundTripTest("({})");
}
`;

describe('V8\'s serializer test vectors', function () {
  this.timeout(30_000);

  describe('the extractor', function () {
    const commit = 'a'.repeat(40);
    const { vectors, skipped, source } = extract(sample, { commit, currentVersion: 15 });
    const byId = Object.fromEntries(vectors.map((v) => [v.id, v]));

    it('takes each byte vector with its test, line, helper and what V8 asserts', function () {
      assert.deepEqual(vectors.map((v) => v.id),
        ['DecodeSample-1', 'DecodeSample-2', 'DecodeSample-3', 'DecodeBuilt-1', 'DecodeBuilt-2', 'DecodeBuilt-3']);
      assert.deepEqual(byId['DecodeSample-1'], {
        id: 'DecodeSample-1', test: 'DecodeSample', fixture: 'ValueSerializerTest', line: 6,
        helper: 'DecodeTestFutureVersions', v8: 'decodes', bytes: 'ff0953026800',
        checks: ['ExpectScriptTrue("result.length === 2")'], versions: [9, 'current'],
      });
      assert.equal(source.url, `https://github.com/v8/v8/blob/${commit}/test/unittests/objects/value-serializer-unittest.cc`);
    });

    it('reads file constants and the little-endian branch, never a comment', function () {
      assert.equal(byId['DecodeSample-2'].bytes, 'ff0d54');
      assert.equal(byId['DecodeSample-2'].v8, 'rejects');
      assert.ok(!vectors.some((v) => v.bytes === 'ff0102' || v.bytes === 'ff0d99'));
    });

    it('gives a direct decode the assertions that follow it', function () {
      assert.deepEqual(byId['DecodeSample-3'].checks, ['EXPECT_TRUE(value->IsTrue())']);
    });

    it('keeps counted loops as repeats and follows the helpers that rewrite the version', function () {
      assert.deepEqual(byId['DecodeBuilt-1'].parts, ['ff0d', { repeat: '4101', count: 3 }]);
      assert.deepEqual(byId['DecodeBuilt-2'].versions, [9, 11]);
      // DecodeTestUpToVersion takes the vector by reference and leaves it at version 11.
      assert.equal(byId['DecodeBuilt-3'].bytes, 'ff0b5f');
      assert.deepEqual(skipped, []);
    });

    it('refuses a file with no vectors', function () {
      assert.throws(() => extract('int main() { return 0; }', { commit, currentVersion: 15 }), /no byte vectors found/);
    });
  });

  describe('the committed vectors', function () {
    const made = v8Vectors();
    const loaded = loadVectors().filter((v) => v.group === group);

    it('are what the committed extraction makes, seeds included (node scripts/v8-vectors.js --check)', function () {
      const script = path.join(root, 'scripts', 'v8-vectors.js');
      const run = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(loaded.length, made.length);
    });

    it('each name the test and line they come from, at the commit extracted', function () {
      const { source } = loadSource();
      assert.match(source.commit, /^[0-9a-f]{40}$/);
      for (const vector of loaded) {
        const from = v8VectorOf(vector.id);
        assert.ok(from, `${vector.id} comes from no V8 vector`);
        assert.ok(vector.name.startsWith(from.test), vector.id);
        assert.match(vector.about, new RegExp(`^V8's ${from.test} \\(${source.url.replace(/[.]/g, '\\.')}#L\\d+\\): `));
      }
    });

    it('are accepted only at a header version Node reads, and read through the IPC host-object layer', function () {
      for (const vector of made.filter((v) => v.kind === 'frame')) {
        const version = Buffer.from(vector.parts[0], 'hex')[0] === 0xff ? Buffer.from(vector.parts[0], 'hex')[1] : 0;
        if (vector.verdict === 'accept') {
          assert.ok(version >= nodeReads[0] && version <= nodeReads[1], `${vector.name}: version ${version}`);
        }
        if (version < nodeReads[0] && !/must fail/.test(vector.why)) assert.match(vector.why, /legacy wire format/);
      }
      const host = made.find((v) => v.name === 'DecodeSimpleHostObject-1');
      assert.equal(host.verdict, 'reject');
      assert.match(host.why, /IPC host-object layer reads a uint32 tag, 0 \(a view\) or 1 \(a copy\), and this one is 84/);
      const counts = { accept: 0, reject: 0 };
      for (const v of made) counts[v.verdict]++;
      assert.ok(counts.accept > 100 && counts.reject > 100, JSON.stringify(counts));
    });

    it('hold what V8 asserts of its encoder: the frame of its two-byte string pads before the string', function () {
      const vector = loaded.find((v) => v.name === 'EncodeTwoByteStringUsesPadding');
      const { afterHeader } = v8VectorOf(vector.id);
      const frame = readExpectation(vector).serialize.bytes;
      // 4 bytes of length, then ff 0f, then what V8's test asserts.
      assert.equal(frame.slice(12, 12 + afterHeader.length), afterHeader);
    });
  });
});
