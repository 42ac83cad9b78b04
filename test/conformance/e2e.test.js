'use strict';
// The end-to-end part of the conformance suite (make conformance): every
// vector through real child_process.fork channels between each pair of the
// pinned binaries, Node's own regression cases among them, and the driver's
// promises: bounded time, and no process left behind.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { runConformance } = require('../../conformance/runner');
const { runForkColumn } = require('../../conformance/e2e/driver');
const { failing } = require('../../conformance/judge');
const { loadKnown } = require('../../harness/oracle/known');
const { pinnedVersions, resolveNode } = require('../../harness/base/binaries');
const { pinnedRuntimes } = require('../../harness/base/runtimes');

const e2eDir = path.join(__dirname, '..', '..', 'conformance', 'e2e');

// Processes still running one of this suite's scripts.
function leftovers() {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmdline;
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes(e2eDir)) out.push(`${pid}: ${cmdline.replace(/\0/g, ' ').trim()}`);
  }
  return out;
}

// Killed processes take a moment to go.
async function assertNoLeftovers() {
  for (let i = 0; i < 20 && leftovers().length; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(leftovers(), []);
}

describe('conformance end to end: child_process.fork between the pinned binaries', function () {
  this.timeout(600_000);
  let result;
  const forkColumns = (mode = 'advanced') =>
    result.columns.filter((c) => c.codec === 'fork' && c.serialization === mode);
  const row = (id) => result.rows.find((r) => r.id === id);

  before(async function () {
    result = await runConformance({ nodes: pinnedVersions(), codecs: [], fork: true, known: loadKnown() });
  });

  it('runs a parent of each binary with a child of each', function () {
    const pairs = forkColumns().map((c) => `${c.binary.label}>${c.child.label}`).sort();
    const versions = pinnedVersions();
    assert.deepEqual(pairs, versions.flatMap((p) => versions.map((c) => `${p}>${c}`)).sort());
  });

  it('a parent and a child of the JS codec deliver what the reference decodes', function () {
    const js = result.binaries.find((b) => !b.info.builtinUsesNative);
    const column = forkColumns().find((c) => c.binary === js && c.child === js);
    for (const r of result.rows) {
      const cell = r.cells[column.id];
      assert.ok(['PASS', 'N/A'].includes(cell.state) || (cell.state === 'IMPL' && cell.same),
        `${r.id}: ${cell.state} ${cell.differences?.[0]?.detail ?? ''}`);
    }
  });

  it("passes Node's own regression cases in every pair", function () {
    const ids = result.rows.filter((r) => /^(accept\/regressions|fork-only)\//.test(r.id)).map((r) => r.id);
    assert.ok(ids.length >= 8, ids.join(', '));
    for (const column of forkColumns()) {
      for (const id of ids) assert.equal(row(id).cells[column.id].state, 'PASS', `${id} in ${column.id}`);
    }
  });

  it('records what a receiving parent does with raw frames', function () {
    for (const column of forkColumns()) {
      const highBit = row('accept/regressions/length-prefix-high-bit-61312').cells[column.id].actual.record;
      assert.deepEqual(highBit, { kind: 'ok', messages: [], errors: [], next: false }, column.id);
      const badTag = row('reject/host/tag-2').cells[column.id].actual.record;
      assert.equal(badTag.errors.length, 1, column.id);
      assert.equal(badTag.next, true, `${column.id}: the channel still delivers after a bad host tag`);
    }
  });

  it('sends every accept value both ways, and prints what does not arrive as expected', function () {
    for (const column of forkColumns()) {
      for (const r of result.rows.filter((x) => x.verdict === 'accept' && x.kind === 'recipe')) {
        const cell = r.cells[column.id];
        if (cell.state === 'N/A') continue;
        assert.ok(cell.actual.toChild && cell.actual.toParent, `${r.id} in ${column.id}`);
        if (failing.has(cell.state)) console.log(`      ${cell.state} ${r.id} [${column.id}]: ${cell.differences[0].where}: ${cell.differences[0].detail}`);
      }
    }
  });

  it('runs every pair in json mode too, where every binary delivers what JSON text does', function () {
    const columns = forkColumns('json');
    assert.equal(columns.length, pinnedVersions().length ** 2);
    for (const column of columns) {
      const judged = result.rows.filter((r) => r.cells[column.id].state !== 'N/A');
      assert.ok(judged.length >= 50, `${column.id}: ${judged.length} cases`);
      for (const r of judged) {
        const cell = r.cells[column.id];
        assert.ok(!failing.has(cell.state), `${r.id} in ${column.id}: ${cell.differences?.[0]?.detail}`);
      }
    }
  });

  it('measures what each binary writes and reads on the wire', function () {
    for (const b of result.binaries) {
      assert.equal(result.wire[b.label].highest, 15, b.label);
      assert.match(result.wire[b.label].writes.advanced.header, /^V8 version 15$/, b.label);
    }
  });

  it('leaves no process behind', assertNoLeftovers);
});

describe('conformance within a budget', function () {
  this.timeout(120_000);

  it('ends at its deadline, names what it did not run, and leaves no process behind', async function () {
    const started = Date.now();
    const result = await runConformance({
      nodes: pinnedVersions(), runtimes: pinnedRuntimes().map((r) => `${r.name}@${r.version}`), codecs: [],
      known: loadKnown(), deadline: Date.now() + 8000,
    });
    // Generous on a loaded machine: the point is seconds, not the minute a full run takes.
    assert.ok(Date.now() - started < 20_000, `${Date.now() - started} ms`);
    assert.ok(result.skipped.length > 0);
    // Every fork pair in both serializations and each runtime's reader column, run or named as skipped.
    assert.equal(result.columns.length + result.skipped.filter((c) => c.binary).length,
      2 * (pinnedVersions().length + pinnedRuntimes().length) ** 2 + pinnedRuntimes().length);
    await assertNoLeftovers();
  });
});

describe('the fork driver', function () {
  this.timeout(60_000);
  const node = resolveNode();
  const cases = [
    { type: 'raw', id: 'one', input: { bytes: '00000004ff0f4902', chunks: [] } },
    { type: 'value', id: 'two', recipe: { k: 'number', v: 1 } },
  ];

  it('kills a parent that stops answering, with its children, and reports each case as a hang', async function () {
    const started = Date.now();
    const outcomes = await runForkColumn({
      parent: node, child: node, cases: cases.slice(0, 1), timeoutMs: 500,
      parentScript: path.join(e2eDir, 'fixtures', 'hanging-parent.js'),
    });
    assert.equal(outcomes.get('one').record.kind, 'hang');
    assert.ok(Date.now() - started < 15_000);
    await assertNoLeftovers();
  });

  it('costs a crashing parent only the case it was on', async function () {
    const outcomes = await runForkColumn({
      parent: node, child: node, cases, timeoutMs: 5000,
      parentScript: path.join(e2eDir, 'fixtures', 'crashing-parent.js'),
    });
    const signals = (o) => [o.record ?? o.toChild, o.toParent].filter(Boolean).map((x) => x.signal);
    assert.deepEqual([...outcomes.values()].map(signals),
      [['SIGKILL'], ['SIGKILL', 'SIGKILL']]);
    await assertNoLeftovers();
  });
});
