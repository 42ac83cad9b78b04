'use strict';
// Reduction: what the reducer hands back is 1-minimal for the difference it
// kept, a pairing of causes is told from a cause that only shows in
// combination, and the recorder saves the causes a pairing is made of.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { reduce, stepsOf, isPairing } = require('../../harness/findings/reduce');
const { drive } = require('../../harness/oracle/drive');
const { FindingRecorder, FindingStore } = require('../../harness/findings/recorder');
const { recipeNodes } = require('../../harness/recipes/nodes');
const { Session } = require('../../harness/run/session');
const { parseKnown } = require('../../harness/oracle/known');

// Runs a reduction whose check gives what check(input) does (the input itself: keeps judges inputs).
function reduced(type, input, keeps, check = (i) => i) {
  const steps = reduce(type, input, { keeps });
  let step = steps.next();
  while (!step.done) step = steps.next(check(step.value.input));
  return step.value;
}

const detached = { k: 'view', type: 'Int8Array', bytes: '0102', tamper: [{ op: 'detach' }] };
const hasDetached = (input) => recipeNodes(input.recipe).some((n) => n.tamper?.some((s) => s.op === 'detach'));

describe('reduce', function () {
  it('halves a count of thousands before anything else, each check of it being slow', function () {
    const recipe = { k: 'array', items: [{ k: 'number', v: 1 },
      { k: 'view', type: 'Uint8Array', bytes: '00', repeat: 1 << 20 }, { k: 'nest', in: 'array', depth: 3 }] };
    const steps = [...stepsOf('value', { recipe })].map((s) => s.step);
    assert.deepEqual(steps.slice(0, 2), ['$.items[1].repeat: 1', `$.items[1].repeat: ${1 << 19}`]);
    // A small count keeps its place, after the removals.
    assert.ok(steps.indexOf('$.items[2].depth: 1') > steps.indexOf('$.items: without [0]'));
    assert.equal(steps.filter((s) => s.startsWith('$.items[1].repeat')).length, 2);
  });

  it('takes a recipe down to the node that shows the difference, through every kind of step', function () {
    const recipe = { k: 'array', items: [
      { k: 'map', entries: [[{ k: 'string', v: 'key' }, { k: 'set', values: [{ k: 'number', v: 1 }, detached] }]] },
      { k: 'object', props: [['a', { k: 'nest', in: 'object', depth: 500 }]] },
    ], props: [['x', { k: 'bool', v: true }]] };
    const done = reduced('value', { recipe }, hasDetached);
    assert.equal(done.complete, true);
    assert.deepEqual(done.input.recipe, { k: 'view', type: 'Int8Array', bytes: '', tamper: [{ op: 'detach' }] });
    // 1-minimal: no one-step reduction keeps it, and every one was tried.
    const steps = [...stepsOf('value', done.input)].map((s) => s.make()).filter(Boolean);
    assert.ok(steps.length > 0);
    assert.ok(steps.every((input) => !hasDetached(input)));
    assert.equal(done.parts.length, steps.length);
  });

  it('keeps what only shows in combination: a getter and the key it deletes', function () {
    const recipe = { k: 'port', props: [['x', { k: 'number', v: 1 }], ['y', { k: 'number', v: 2 }],
      ['z', { k: 'string', v: 'unused' }]],
    tamper: [{ op: 'define', key: 'x', get: { then: [{ op: 'delete', key: 'y' }], returns: { k: 'null' } } }] };
    const keeps = ({ recipe: r }) => r.props?.some(([k]) => k === 'y') &&
      r.tamper?.some((s) => s.get?.then?.some((t) => t.op === 'delete' && t.key === 'y'));
    const done = reduced('value', { recipe }, keeps);
    assert.deepEqual(done.input.recipe.props.map(([k]) => k), ['y']);
    assert.equal(done.input.recipe.tamper.length, 1);
    assert.equal(done.input.recipe.tamper[0].get.returns, undefined);
  });

  it('halves counts, and stops at the budget, saying it did not finish', function () {
    const nest = { k: 'nest', in: 'array', depth: 10_000 };
    const deep = reduced('value', { recipe: nest }, ({ recipe: r }) => r.k === 'nest' && r.depth >= 3000);
    assert.equal(deep.input.recipe.depth, 5000);
    const steps = reduce('value', { recipe: nest }, { keeps: () => false, maxChecks: 1 });
    steps.next();
    const cut = steps.next({ differences: [] });
    assert.equal(cut.done, true);
    assert.equal(cut.value.complete, false);
    assert.deepEqual(cut.value.parts, []);
  });

  it('leaves out steps that break a recipe (a ref whose node went) without checking them', function () {
    const recipe = { k: 'array', items: [{ k: 'object', id: 1, props: [] }, { k: 'ref', to: 1 }] };
    const checked = [];
    reduced('value', { recipe }, () => false, (input) => {
      checked.push(input);
      return input;
    });
    assert.ok(checked.length > 0);
    assert.ok(checked.every(({ recipe: r }) => !recipeNodes(r).some((n) => n.k === 'ref') ||
      recipeNodes(r).some((n) => n.id === 1)));
  });

  it('removes a frame\'s bytes with its length prefix kept right, and joins a stream\'s reads', function () {
    // ff 0f, then 5c 02 (host tag 2), then padding: only "5c02" matters.
    const bytes = '00000006ff0f5c024949';
    const keeps = ({ bytes: b }) => b.includes('5c02') && Buffer.from(b, 'hex').readUInt32BE(0) === b.length / 2 - 4;
    const done = reduced('frame', { bytes }, keeps);
    assert.equal(done.input.bytes, '000000025c02');
    const stream = reduced('stream', { bytes: '0102030405', chunks: [1, 1, 1] },
      ({ chunks }) => chunks.length >= 1 && chunks[0] === 1);
    assert.deepEqual(stream.input.chunks, [1]);
  });

  it('is driven alike by a blocking check and an async one', async function () {
    const recipe = { k: 'array', items: [detached, { k: 'null' }] };
    const run = (check) => drive((function* () {
      const steps = reduce('value', { recipe }, { keeps: hasDetached });
      let step = steps.next();
      while (!step.done) step = steps.next(yield check(step.value.input));
      return step.value;
    })());
    const blocking = run((input) => input);
    const async = await run(async (input) => input);
    assert.ok(!(blocking instanceof Promise));
    assert.deepEqual(async.input, blocking.input);
  });
});

describe('isPairing', function () {
  const reject = (name) => ({ kind: 'reject', error: { name } });
  const ok = { kind: 'ok', bytes: '00' };
  const value = (a, b, differences = []) =>
    ({ type: 'value', outcomes: { serialize: { a, b }, decode: [] }, differences });

  it('sees each codec stopping at another part, and the parts showing differences of their own', function () {
    const whole = value(reject('TypeError'), reject('RangeError'));
    const parts = [
      { result: value(reject('TypeError'), ok, [{ signature: 'acceptance/serialize/a-rejects:TypeError' }]) },
      { result: value(reject('RangeError'), reject('RangeError')) },
    ];
    assert.equal(isPairing(whole, parts), true);
  });

  it('never calls a pairing what a side did not fail at, or failed at as on no part', function () {
    const parts = [
      { result: value(reject('TypeError'), ok, [{ signature: 'acceptance/serialize/a-rejects:TypeError' }]) },
      { result: value(ok, ok) },
    ];
    // Both sides wrote: a bytes difference that needs both parts.
    assert.equal(isPairing(value(ok, { kind: 'ok', bytes: '01' }), parts), false);
    // b fails as on no part: a cause of the combination.
    assert.equal(isPairing(value(reject('TypeError'), reject('SyntaxError')), parts), false);
    // Frames are not split into parts.
    assert.equal(isPairing({ ...value(reject('TypeError'), reject('RangeError')), type: 'frame' }, parts), false);
  });
});

describe('FindingRecorder with reduction (js against native)', function () {
  this.timeout(120_000);
  let session;
  let dir;
  before(function () {
    session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
  });
  after(function () {
    session.close();
  });
  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-reduce-'));
  });
  afterEach(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const recorderFor = (known = []) => new FindingRecorder({
    known, store: new FindingStore(dir), sides: session.sides, check: (type, input) => session.check(type, input),
  });
  // The result of checking a recipe, and its difference that `which` picks, which it must show.
  const showing = async (recipe, which) => {
    const result = await session.check('value', { recipe });
    const difference = result.differences.find(which);
    assert.ok(difference, JSON.stringify(result.differences.map((d) => d.signature)));
    return { result, difference };
  };
  // A detached view (js rejects it) in a map beside a nest past the stack (native rejects it): each stops at another.
  const paired = { k: 'array', items: [{ k: 'map', entries: [
    [{ k: 'number', v: 1 }, detached], [{ k: 'number', v: 2 }, { k: 'nest', in: 'object', depth: 10_000 }]] },
  { k: 'string', v: 'hello' }] };

  it('saves the causes of a pairing, each reduced, and not the pairing', async function () {
    const recorder = recorderFor();
    const { result, difference: pairing } = await showing(paired,
      (d) => d.signature === 'error-identity/serialize/TypeError~RangeError');
    const settled = await recorder.settle(result, pairing);
    assert.equal(settled[0].status, 'pairing');
    assert.ok(!recorder.findings.has(pairing.signature));
    const view = recorder.findings.get('acceptance/serialize/a-rejects:TypeError');
    assert.ok(view, JSON.stringify(settled.map((s) => `${s.status} ${s.difference.signature}`)));
    assert.deepEqual(view.result.input.recipe, { k: 'view', type: 'Int8Array', bytes: '', tamper: [{ op: 'detach' }] });
    const meta = FindingStore.read(view.folder);
    assert.equal(meta.reduction.status, 'reduced');
    assert.match(fs.readFileSync(path.join(view.folder, 'report.txt'), 'utf8'), /input: reduced to a 1-minimal input/);
  });

  it('counts a pairing of known causes as known, so a baseline of its causes covers it', async function () {
    const known = parseKnown(JSON.stringify({ entries: [
      { id: 'detached', tier: 'acceptance', reason: 'r',
        match: { signature: 'acceptance/serialize/a-rejects:TypeError' } },
      { id: 'deep', tier: 'roundtrip', reason: 'r', match: { signature: '/^roundtrip\\//' } }] }), 'test');
    const recorder = recorderFor(known);
    const result = await session.check('value', { recipe: paired });
    const fresh = recorder.sort(result).fresh;
    assert.ok(fresh.some((d) => d.tier === 'error-identity'));
    const found = await recorder.add(result, {});
    assert.deepEqual(found, []);
    assert.equal(recorder.findings.size, 0);
    assert.ok(recorder.knownHits.get('detached') > 0);
  });

  // An own byteLength getter on a view: js runs it and writes the length it gives, native does neither.
  const ownLength = { k: 'array', items: [{ k: 'view', type: 'Uint8Array', bytes: '0102', tamper: [
    { op: 'define', key: 'byteLength', get: { returns: { k: 'number', v: 1 } } }] }, { k: 'string', v: 'x' }] };

  it('records what user code run by one codec alone made as that user code, reduced', async function () {
    const recorder = recorderFor();
    const { result, difference: bytes } = await showing(ownLength, (d) => d.tier === 'bytes');
    const settled = await recorder.settle(result, bytes);
    assert.deepEqual(settled.map((s) => s.status), ['consequence', 'finding']);
    assert.equal(settled[0].cause, 'effects/serialize/a get byteLength');
    assert.deepEqual([...recorder.findings.keys()], ['effects/serialize/a get byteLength']);
    const { result: saved } = recorder.findings.get('effects/serialize/a get byteLength');
    assert.equal(saved.input.recipe.k, 'view');
    // Taking the getter out takes the bytes difference with it: the user code is its cause.
    const plain = await session.check('value', { recipe: { k: 'view', type: 'Uint8Array', bytes: '' } });
    assert.deepEqual(plain.differences, []);
  });

  // A public KeyObject: a getter on its key 2^31 (which the native codec drops) hides `a`, which the
  // native codec copies as it found it: two causes, of which only the dropped index key shows alone.
  const twoKeyClasses = { k: 'host', type: 'public-key', tamper: [
    { op: 'define', key: '2147483648', get: { then: [{ op: 'define', key: 'a', value: { k: 'number', v: 5 },
      enumerable: false }] } },
    { op: 'define', key: 'a', get: {} }] };

  it('saves what a difference named by two causes shows alone, and not the combination', async function () {
    const recorder = recorderFor();
    const combined = 'bytes/serialize/object.props (index key only in a, keys a getter changed)';
    const { result, difference } = await showing(twoKeyClasses, (d) => d.signature === combined);
    const settled = await recorder.settle(result, difference);
    assert.equal(settled[0].status, 'combination', JSON.stringify(settled.map((s) => s.status)));
    assert.deepEqual(settled[0].parts, ['bytes/serialize/object.props (index key only in a)']);
    assert.deepEqual([...recorder.findings.keys()], ['bytes/serialize/object.props (index key only in a)']);
    const { result: saved } = recorder.findings.get('bytes/serialize/object.props (index key only in a)');
    assert.deepEqual(saved.input.recipe.tamper.map((t) => t.key), ['2147483648']);
  });

  it('counts a combination as known when the part that shows alone is', async function () {
    const known = parseKnown(JSON.stringify({ entries: [{ id: 'heap-number-key', tier: 'bytes', reason: 'r',
      match: { signature: 'bytes/serialize/object.props (index key only in a)' } }] }), 'test');
    const recorder = recorderFor(known);
    const found = await recorder.add(await session.check('value', { recipe: twoKeyClasses }), {});
    assert.deepEqual(found, []);
    assert.equal(recorder.findings.size, 0);
    assert.ok(recorder.knownHits.get('heap-number-key') > 0);
  });

  // A MessagePort whose symbol-keyed getter deletes `visible`, whose own getter throws: the JS codec runs
  // the symbol getter and sends, the native codec skips it, runs visible's and throws.
  const symbolGetterDeletes = { k: 'port', tamper: [
    { op: 'define', key: { symbol: 'hidden' }, get: { then: [{ op: 'delete', key: 'visible' }] } },
    { op: 'define', key: 'visible', get: { throws: 'getter' } }] };

  it('names user code each side ran alone by both, and settles it as the symbol getter it follows from',
    async function () {
      const known = parseKnown(JSON.stringify({ entries: [{ id: 'symbol-getter', tier: 'effects', reason: 'r',
        match: { signature: 'effects/serialize/a get (symbol key)' } }] }), 'test');
      const recorder = recorderFor(known);
      const result = await session.check('value', { recipe: symbolGetterDeletes });
      assert.ok(result.differences.some((d) => d.signature ===
        'effects/serialize/a get (symbol key), b get (named key)'), result.differences.map((d) => d.signature).join());
      assert.deepEqual(await recorder.add(result, {}), []);
      assert.equal(recorder.findings.size, 0);
      assert.ok(recorder.knownHits.get('symbol-getter') > 0);
      // Without the list, the symbol getter is the finding, and only it.
      const plain = recorderFor();
      await plain.add(result, {});
      assert.deepEqual([...plain.findings.keys()], ['effects/serialize/a get (symbol key)']);
    });

  // The native codec takes a host object's keys before it runs any getter, the JS codec's spread key by key.
  it('names a getter that changes its host object\'s other keys one way, whichever key and whichever way',
    async function () {
      const deletes = { k: 'port', props: [['x', { k: 'number', v: 1 }], ['visible', { k: 'number', v: 2 }]],
        tamper: [{ op: 'define', key: 'x', get: { then: [{ op: 'delete', key: 'visible' }] } }] };
      const shows = { k: 'host', type: 'secret-key', props: [['visible', { k: 'null' }]], tamper: [
        { op: 'define', key: 'a', get: {}, enumerable: false },
        { op: 'define', key: 'visible', get: { then: [{ op: 'define', key: 'a', get: {} }] } }] };
      for (const recipe of [deletes, shows]) {
        const result = await session.check('value', { recipe });
        assert.deepEqual(result.differences.map((d) => d.signature),
          ['bytes/serialize/object.props (keys a getter changed)']);
      }
    });

  // The frame the JS codec writes of a view tagged DataView, read where DataView's element size is 0.5, is
  // not its own to read; the world step sits on a WebAssembly.Module that both codecs fail to read.
  it('carries a world step to the node put in its place, and meets the cause the list names alone', async function () {
    const recipe = { k: 'set', values: [
      { k: 'resizable', type: 'Float16Array', bytes: '07373737', tamper: [
        { op: 'define', key: { wellKnown: 'toStringTag' }, value: { k: 'string', v: 'DataView' } }] },
      { k: 'host', type: 'wasm-module', tamper: [
        { op: 'proto', of: 'Function', key: 'BYTES_PER_ELEMENT', value: { k: 'number', v: 0.5 }, side: 'receive' }] },
    ] };
    const signature = 'roundtrip/deserialize/a:unreadable:RangeError';
    const { result, difference } = await showing(recipe, (d) => d.signature === signature);
    const known = parseKnown(JSON.stringify({ entries: [{ id: 'reference-unreadable', tier: 'roundtrip', reason: 'r',
      match: { signature: '/^roundtrip\\/deserialize\\/a:unreadable:/', 'b.kind': 'ok' } }] }), 'test');
    const recorder = recorderFor(known);
    const settled = await recorder.settle(result, difference);
    assert.deepEqual(settled.map((s) => s.status), ['known']);
    assert.equal(recorder.knownHits.get('reference-unreadable'), 1);
  });

  it('never makes the input it reduces again: a world step whose value is the node it is carried to', function () {
    const proto = { op: 'proto', of: 'Buffer', key: 'constructor', value: { k: 'global', name: 'Uint8Array' } };
    const recipe = { k: 'object', props: [['v', { k: 'global', name: 'Uint8Array', tamper: [proto] }]] };
    const made = [...stepsOf('value', { recipe })].map((s) => s.make()).filter(Boolean);
    assert.ok(made.length > 0);
    const same = (r) => JSON.stringify(r) === JSON.stringify(recipe.props[0][1]);
    assert.ok(!made.some((r) => same(r.props?.[0]?.[1])), 'the node was put back in its own place');
    // Kept at every step, the reduction ends at one bare node, complete, well within its checks.
    const steps = reduce('value', { recipe }, { keeps: () => true, maxChecks: 100 });
    let step = steps.next();
    while (!step.done) step = steps.next(step.value.input);
    assert.equal(step.value.complete, true);
    assert.deepEqual(step.value.input.recipe, { k: 'global', name: 'Uint8Array' });
  });

  // The getter is on key 2^31, which the native codec leaves out of a host object's copy.
  it('names such keys beside another class of key apart, and settles them as the two known causes', async function () {
    const recipe = { k: 'host', type: 'x509', tamper: [
      { op: 'define', key: 'a', get: {}, enumerable: false },
      { op: 'define', key: '2147483648', get: { then: [{ op: 'define', key: 'a', get: {} }] } }] };
    const result = await session.check('value', { recipe });
    assert.deepEqual(result.differences.map((d) => d.signature),
      ['bytes/serialize/object.props (index key only in a, keys a getter changed)']);
    const entry = (id, signature) => ({ id, tier: 'bytes', reason: 'r', match: { signature } });
    const known = parseKnown(JSON.stringify({ entries: [
      entry('heap-number-key', 'bytes/serialize/object.props (index key only in a)'),
      entry('key-snapshot', 'bytes/serialize/object.props (keys a getter changed)')] }), 'test');
    const recorder = recorderFor(known);
    assert.deepEqual(await recorder.add(result, {}), []);
    assert.equal(recorder.findings.size, 0);
  });

  it('traces what a built-in prototype\'s value changed in the receiving process to the codec that read it',
    async function () {
      // js reads DataView's element size through Function.prototype and decodes fewer bytes, or copies an empty view.
      const world = { op: 'proto', of: 'Function', key: 'BYTES_PER_ELEMENT', value: { k: 'number', v: 3 },
        side: 'receive' };
      const signatures = [];
      for (const bytes of ['', '0102030405']) {
        const recorder = recorderFor();
        const recipe = { k: 'view', type: 'DataView', bytes, tamper: [world] };
        const { result, difference: value } = await showing(recipe, (d) => d.tier === 'value');
        const settled = await recorder.settle(result, value);
        assert.equal(settled[0].status, 'consequence');
        signatures.push(value.signature, ...recorder.findings.keys());
      }
      assert.deepEqual(signatures, ['value/deserialize/view.backing', 'effects/deserialize/a get BYTES_PER_ELEMENT',
        'value/deserialize/view.byteLength', 'effects/deserialize/a get BYTES_PER_ELEMENT']);
    });

  it('counts such a difference as known when its user code is', async function () {
    const known = parseKnown(JSON.stringify({ entries: [{ id: 'own-length', tier: 'effects', reason: 'r',
      match: { signature: 'effects/serialize/a get byteLength' } }] }), 'test');
    const recorder = recorderFor(known);
    const result = await session.check('value', { recipe: ownLength });
    assert.deepEqual(await recorder.add(result, {}), []);
    assert.equal(recorder.findings.size, 0);
    assert.ok(recorder.knownHits.get('own-length') > 0);
  });

  it('makes an input whose getter\'s step throws unbuildable, and keeps a getter declared to throw', async function () {
    // v is detached; the native codec passes it and runs a's getter, whose detach of v again throws.
    const twice = { k: 'object', props: [['v', detached]], tamper: [
      { op: 'define', key: 'a', get: { then: [{ op: 'detach', on: 'v' }] } }] };
    const faulty = await session.check('value', { recipe: twice });
    assert.match(faulty.skipped ?? '', /a getter's step threw/);
    assert.deepEqual(faulty.differences, []);
    const declared = await session.check('value', { recipe: { k: 'object', tamper: [
      { op: 'define', key: 'a', get: { throws: 'no' } }] } });
    assert.equal(declared.skipped, undefined);
    assert.deepEqual([declared.outcomes.serialize.a.kind, declared.outcomes.serialize.b.kind], ['reject', 'reject']);
  });

  it('records a value module as it came, saying so', async function () {
    const recorder = recorderFor();
    const module = path.join(dir, 'value.js');
    fs.writeFileSync(module, `module.exports = () => { const v = new Int8Array(2);
      structuredClone(v.buffer, { transfer: [v.buffer] }); return v; };`);
    const result = await session.check('value', { module });
    const [finding] = (await recorder.add(result, {})).map((d) => recorder.findings.get(d.signature));
    assert.equal(finding.reduction.status, 'not reduced');
    assert.equal(finding.reduction.from, 'a value module');
    assert.equal(finding.reduction.steps, 0);
  });
});

describe('number representation (js against native)', function () {
  this.timeout(120_000);
  let session;
  before(function () {
    session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
  });
  after(function () {
    session.close();
  });

  // [{ p4: 0.5 }, keyObject] with keyObject.p4 = -497: the JS codec's copy of
  // the key takes the hidden class {p4: 0.5} made, a double field; the native
  // codec writes the key's own Smi.
  it('reports an int32 written as a double when it stands in fresh processes', async function () {
    const recipe = { k: 'array', items: [{ k: 'object', props: [['p4', { k: 'number', v: 0.5 }]] },
      { k: 'host', type: 'secret-key', props: [['p4', { k: 'number', v: -497 }]] }] };
    const result = await session.check('value', { recipe });
    const found = result.differences.find((d) => d.signature === 'bytes/serialize/number-representation');
    assert.ok(found, JSON.stringify(result.differences.map((d) => d.signature)));
    assert.match(found.detail, /a double, b int32|a int32, b double/);
    assert.equal(await session.confirm('value', { recipe }, found), true);
  });
});
