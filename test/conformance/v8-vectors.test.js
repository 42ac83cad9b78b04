'use strict';
// V8's serializer test vectors: the extractor reads a test file of V8's form,
// the committed vectors and seeds are what the committed extraction makes,
// and each vector's verdict is what V8's test asserts as Node's IPC layer sees it.
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { extract } = require('../../scripts/extract-v8-vectors');
const { v8Vectors, v8VectorOf, loadSource, group, nodeReads } = require('../../conformance/v8-vectors');
const { loadVectors, readExpectation } = require('../../conformance/vectors');

const root = path.join(__dirname, '..', '..');

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
