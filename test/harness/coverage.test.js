'use strict';
// The coverage view counts the classes of values a run met, over processes.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const coverage = require('../../harness/observe/coverage');

const line = (text, group) => text.split('\n').find((l) => l.startsWith(`  ${group}:`));
const count = (text, group, name) => Number(new RegExp(`(?:: |, )${name} (\\d+)`).exec(line(text, group))[1]);

// How much each count named in `expected` grew by counting one value check's result.
function assertGrowth(result, expected) {
  const before = coverage.gather(null);
  coverage.countValue(result);
  const after = coverage.gather(null);
  const grew = (key) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  assert.deepEqual(Object.fromEntries(Object.keys(expected).map((key) => [key, grew(key)])), expected);
}

describe('coverage view', function () {
  it('counts kinds, steps, getter effects, integer keys, host types and the tags written, zeros included', function () {
    const recipe = {
      k: 'host', type: 'x509', props: [['2147483648', { k: 'string', v: 'a', repeat: 64, shape: 'thin' }]],
      tamper: [{ op: 'define', key: 'x', get: { then: [{ op: 'delete', key: 'visible' }], throws: 'g' } }],
    };
    // A frame of one int32: ff 0f 49 02.
    assertGrowth({ input: { recipe }, outcomes: { serialize: { a: { bytes: '00000004ff0f4902' }, b: {} } } }, {
      'kind\thost': 1, 'host\tx509': 1, 'integer key\t2147483648': 1, 'string length\t64': 1, 'string shape\tthin': 1,
      'getter effect\tdelete': 1, 'getter effect\tthrow': 1, 'tag\tint32': 1,
    });
    // A string is two-byte when it holds a character above U+00FF; a lone surrogate is one too.
    const shapes = () => ['two-byte', 'lone surrogate'].map((s) => coverage.gather(null).get(`string shape\t${s}`) ?? 0);
    const [twoByte, lone] = shapes();
    const strings = { k: 'array', items: ['a', 'é', 'ā', '😀', 'a\ud800'].map((v) => ({ k: 'string', v })) };
    coverage.countValue({ input: { recipe: strings }, outcomes: { serialize: {} } });
    assert.deepEqual(shapes(), [twoByte + 3, lone + 1]);
    const text = coverage.renderCoverage(new Map());
    for (const group of Object.keys(coverage.groups)) assert.ok(line(text, group), group);
    assert.equal(count(text, 'host', 'wasm-module'), 0);
  });

  it('counts the classes of every kind and step that has some', function () {
    const recipe = {
      k: 'array', items: [
        { k: 'port' },
        { k: 'nest', in: 'array', depth: 1000 },
        { k: 'range', n: 1000, every: 2 },
        { k: 'range', n: 1000 },
        { k: 'view', type: 'Uint8Array', bytes: '00', repeat: 65536 },
        { k: 'shapes', keys: ['a'], rows: [[{ k: 'null' }], [{ k: 'null' }]], then: [[0, 'a', { k: 'null' }]] },
        { k: 'object', tamper: [{ op: 'prototype', of: 'Array' }, { op: 'prototype', of: null },
          { op: 'prototype', of: 'Uint8Array' }, { op: 'prototype', of: 'Object', proxy: true }] },
      ],
    };
    assertGrowth({ input: { recipe }, outcomes: { serialize: {} } }, {
      'host\tport': 1, 'depth\tnest 1000': 1, 'array\tlong holey': 1, 'array\tlong packed': 1,
      'view\taround 64 KiB': 1, 'hidden class\tchanged': 1, 'step\tprototype': 4,
      'prototype of\tArray': 1, 'prototype of\tnull': 1, 'prototype of\tview type': 1, 'prototype of\tProxy': 1,
      'prototype of\tObject': 0, 'message\tprimitive': 0, 'kind\tnull': 3,
    });
  });

  it('lists tags no recipe makes a serializer write apart, and only once a frame held one', function () {
    assert.ok(!coverage.groups.tag.includes('the-hole'));
    assert.ok(coverage.groups.tag.includes('host-object'));
    const apart = (total) => coverage.renderCoverage(total).split('\n').find((l) => l.includes('no value should'));
    assert.equal(apart(new Map([['tag\tint32', 5]])), undefined);
    assert.match(apart(new Map([['tag\tthe-hole', 2], ['tag\tuint32', 0]])), /: the-hole 2$/);
  });

  it('adds up the counts other processes left in the run folder', function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-coverage-'));
    try {
      fs.writeFileSync(path.join(dir, '1.json'), JSON.stringify({ 'kind\tnest': 3 }));
      fs.writeFileSync(path.join(dir, '2.json'), JSON.stringify({ 'kind\tnest': 4, 'depth\tnest 1000': 1 }));
      fs.writeFileSync(path.join(dir, '3.json'), '{"trunc');
      const total = coverage.gather(dir);
      const own = coverage.gather(null);
      assert.equal(total.get('kind\tnest'), (own.get('kind\tnest') ?? 0) + 7);
      assert.equal(count(coverage.renderCoverage(total), 'depth', 'nest 1000'), (own.get('depth\tnest 1000') ?? 0) + 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves no folder behind for a process that ends after its run removed it', function () {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-coverage-')), 'coverage');
    const counting = `const c = require(${JSON.stringify(require.resolve('../../harness/observe/coverage'))});
      c.observe({ dir: ${JSON.stringify(dir)} });
      c.countValue({ input: { recipe: { k: 'null' } }, outcomes: { serialize: {} } });
      require('node:fs').rmSync(${JSON.stringify(dir)}, { recursive: true });`;
    try {
      fs.mkdirSync(dir);
      execFileSync(process.execPath, ['-e', counting]);
      assert.equal(fs.existsSync(dir), false);
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});
