'use strict';
// The pinned runtimes on the wire (run by .ci/run with the fork cases): what a
// child of each writes, read as bytes by a Node parent, is annotated for what
// it is, and the readers wire.js names accept what the wire check measures.
const assert = require('node:assert/strict');
const { wireCheck } = require('../../conformance/interop');
const { wireFormat } = require('../../harness/wire/annotate');
const { hexdump } = require('../../harness/wire/hexdump');
const { knownReaders } = require('../../harness/wire/tags');
const { resolveRuntime, pinnedRuntimes } = require('../../harness/base/runtimes');
const { pinnedVersions } = require('../../harness/base/binaries');
const { runConformance } = require('../../conformance/runner');
const { interopRows } = require('../../conformance/interop');
const { reportMarkdown } = require('../../conformance/report/markdown');
const { loadKnown } = require('../../harness/oracle/known');

describe('pinned runtimes on the wire', function () {
  this.timeout(300_000);
  const prober = { runtime: resolveRuntime(`node@${pinnedVersions()[0]}`) };
  const specs = [...pinnedVersions().map((v) => `node@${v}`), ...pinnedRuntimes().map((r) => `${r.name}@${r.version}`)];
  const checks = new Map();

  before(async function () {
    await Promise.all(specs.map(async (spec) => {
      const runtime = resolveRuntime(spec);
      checks.set(spec, { runtime, wire: await wireCheck(prober, { runtime }, { timeoutMs: 3000 }) });
    }));
  });

  it('annotates Node and Deno frames as V8 frames of their header version, Bun\'s as another format', function () {
    const expected = { node: 15, deno: 16, bun: null };
    for (const [spec, { runtime, wire }] of checks) {
      const bytes = Buffer.from(wire.writes.advanced.bytes, 'hex');
      assert.ok(bytes.length > 0, `${spec} wrote nothing`);
      const format = wireFormat(bytes);
      const text = hexdump(bytes);
      if (expected[runtime.name] === null) {
        assert.equal(format.format, 'unknown', spec);
        assert.match(text.split('\n')[0], /^format: not V8's serialization format/, spec);
        assert.doesNotMatch(text, /length prefix \d|header: version/, spec);
      } else {
        assert.deepEqual(format, { format: 'v8', version: expected[runtime.name] }, spec);
        const version = expected[runtime.name];
        assert.match(text, new RegExp(`ff ${version.toString(16).padStart(2, '0')} +header: version ${version}`), spec);
        // Three frames, one per value of the wire sample.
        assert.equal(text.match(/length prefix/g).length, 3, spec);
      }
      assert.equal(wireFormat(Buffer.from(wire.writes.json.bytes, 'hex')).format, 'json', `${spec} json`);
    }
  });

  it('knows the highest header version each pinned runtime reads, as measured', function () {
    for (const [spec, { runtime, wire }] of checks) {
      const name = `${runtime.name} ${spec.split('@')[1]}`;
      const entry = knownReaders.find((r) => r.name === name);
      assert.ok(entry, `${name} is missing from wire.js knownReaders`);
      assert.equal(entry.highest, wire.highest, name);
    }
  });

  it('shows why Node cannot talk to Deno or Bun, and how each pair does in json', async function () {
    const node = pinnedVersions()[0];
    const runtimes = pinnedRuntimes().map((r) => `${r.name}@${r.version}`);
    const result = await runConformance({
      nodes: [node], runtimes, codecs: [], known: loadKnown(), only: /^accept\/primitives\/(true|string-ascii)$/,
    });
    const rows = interopRows(result);
    const row = (parent, child, mode) => rows.find((r) => r.parent.startsWith(parent) && r.child.startsWith(child) &&
      r.mode === mode);
    assert.equal(rows.length, 2 * (1 + runtimes.length) ** 2);
    for (const [parent, child] of [[node, 'deno'], ['deno', node]]) {
      const r = row(parent, child, 'advanced');
      assert.equal(r.state, 'cannot talk');
      const version = node.replace(/\./g, '\\.');
      assert.match(r.why, new RegExp(`^header version: deno-\\S+ writes 16, ${version} reads at most 15`));
      assert.equal(r.frames[0].header, 'V8 version 16');
    }
    assert.match(row(node, 'bun', 'advanced').why, /^bun-\S+ does not read V8's format/);
    assert.match(row('bun', node, 'advanced').why, /^bun-\S+ writes a format that is not V8's/);
    assert.equal(row(node, node, 'advanced').state, 'works');
    for (const r of rows.filter((x) => x.mode === 'json')) {
      assert.notEqual(r.state, 'cannot talk', `${r.parent} ⇄ ${r.child}`);
    }
    const markdown = reportMarkdown(result, { known: [], generatedAt: 'now', command: 'test' });
    assert.ok(markdown.indexOf('## Interoperability') < markdown.indexOf('## Binaries'));
    assert.match(markdown, /ff 10 +header: version 16/);
  });
});
