'use strict';
// The findings folder keeps what it saved: a difference met again only counts
// up, and of several processes that save one new difference at once, one
// keeps its input and the others count it.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { FindingStore } = require('../../harness/findings/recorder');
const { Session } = require('../../harness/run/session');

// A view with an own byteLength: the js codec writes what it says, the native codec its slots.
const recipe = { k: 'view', type: 'Uint8Array', bytes: '01020304',
  tamper: [{ op: 'define', key: 'byteLength', value: { k: 'number', v: 1 } }] };

// Saves the difference in a process of its own once `at` (ms since the epoch)
// has come; its origin names the process.
function saveAt(dir, file, name, at) {
  const script = `
    const { FindingStore } = require(${JSON.stringify(require.resolve('../../harness/findings/recorder'))});
    const { result, sides } = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8'));
    while (Date.now() < ${at});
    const saved = new FindingStore(${JSON.stringify(dir)}).record(result, result.differences[0], { sides, origin: { name: ${JSON.stringify(name)} } });
    process.stdout.write(JSON.stringify(saved));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  return new Promise((resolve, reject) => child.on('exit', (code) =>
    (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${name} exited ${code}`)))));
}

describe('findings folder', function () {
  this.timeout(60_000);
  let dir;
  let result;
  let sides;
  before(async function () {
    const session = new Session({ a: { codec: 'js' }, b: { codec: 'native' }, timeoutMs: 10_000 });
    try {
      result = await session.check('value', { recipe });
    } finally {
      session.close();
    }
    sides = session.sides;
    assert.ok(result.differences.length, 'the own byteLength no longer differs');
  });
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-findings-test-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('saves a new difference whole, and only counts it when met again', function () {
    const store = new FindingStore(dir);
    const first = store.record(result, result.differences[0], { sides, origin: { run: 1 } });
    assert.equal(first.isNew, true);
    // Its short repros and issue.md follow once the run checks it (reach.test.js).
    assert.deepEqual(fs.readdirSync(first.folder).sort(), ['finding.json', 'input.json', 'report.txt']);
    assert.deepEqual(fs.readdirSync(dir), [path.basename(first.folder)]);
    const input = fs.readFileSync(path.join(first.folder, 'input.json'), 'utf8');
    const again = store.record({ ...result, input: { recipe: { k: 'null' } } }, result.differences[0],
      { sides, origin: { run: 2 } });
    assert.deepEqual(again, { folder: first.folder, isNew: false });
    const meta = FindingStore.read(first.folder);
    assert.equal(meta.count, 2);
    assert.deepEqual(meta.origin, { run: 1 });
    assert.equal(fs.readFileSync(path.join(first.folder, 'input.json'), 'utf8'), input);
  });

  // Indenting every level of a deep tree grows the file with the square of its depth.
  it('keeps finding.json about the size of its JSON on one line, for a value nested 500 deep', function () {
    const store = new FindingStore(dir);
    let tree = { kind: 'null' };
    for (let i = 0; i < 500; i++) tree = { kind: 'object', props: [['a', tree]] };
    const deep = { ...result, outcomes: { ...result.outcomes, serialize: { ...result.outcomes.serialize,
      a: { ...result.outcomes.serialize.a, tree } } } };
    const { folder } = store.record(deep, deep.differences[0], { sides, origin: { run: 1 } });
    store.record(deep, deep.differences[0], { sides, origin: { run: 2 } });
    const file = path.join(folder, 'finding.json');
    const meta = FindingStore.read(folder);
    assert.equal(meta.count, 2);
    assert.equal(JSON.stringify(meta.outcomes), JSON.stringify(deep.outcomes));
    const oneLine = JSON.stringify({ ...meta, lastSeen: undefined }).length;
    assert.ok(fs.statSync(file).size < 2 * oneLine, `finding.json: ${fs.statSync(file).size} bytes, ${oneLine} on one line`);
    assert.match(fs.readFileSync(file, 'utf8'), /^\{\n {2}"signature": /);
  });

  // A Jazzer.js target holds the differences alone of a result given again (checked-before.js).
  it('asks for a result given as a function only when it writes the finding', function () {
    const store = new FindingStore(dir);
    const asked = [];
    const whole = () => {
      asked.push(true);
      return result;
    };
    const first = store.record(whole, result.differences[0], { sides, origin: {} });
    assert.equal(first.isNew, true);
    assert.equal(FindingStore.read(first.folder).outcomes.serialize.a.kind, result.outcomes.serialize.a.kind);
    assert.deepEqual(store.record(whole, result.differences[0], { sides, origin: {} }),
      { folder: first.folder, isNew: false });
    assert.equal(asked.length, 1, 'asked again to count a saved finding up');
  });

  it('keeps one whole finding when several processes save it at once', async function () {
    const file = path.join(dir, '..', `${path.basename(dir)}.json`);
    fs.writeFileSync(file, JSON.stringify({ result, sides }));
    const at = Date.now() + 1500;
    const names = ['p1', 'p2', 'p3', 'p4'];
    let saved;
    try {
      saved = await Promise.all(names.map((name) => saveAt(dir, file, name, at)));
    } finally {
      fs.rmSync(file, { force: true });
    }
    assert.equal(new Set(saved.map((s) => s.folder)).size, 1);
    assert.equal(saved.filter((s) => s.isNew).length, 1, JSON.stringify(saved));
    assert.deepEqual(fs.readdirSync(dir), [path.basename(saved[0].folder)], 'a staging folder was left');
    const meta = FindingStore.read(saved[0].folder);
    // Those that count it at once may count it once between them (finding.json is read, then written).
    assert.ok(meta.count >= 2 && meta.count <= names.length, `count ${meta.count}`);
    assert.ok(names.includes(meta.origin.name));
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(saved[0].folder, 'input.json'), 'utf8')), recipe);
  });

  it('puts in place what a process killed while saving had written whole, and removes the rest', function () {
    const first = new FindingStore(dir);
    const folder = first.folderFor(sides, result.differences[0].signature);
    // A pid no process has (above the kernel's limit), and one that runs.
    const dead = 1 + Number(fs.readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
    const whole = `${folder}.${dead}.tmp`;
    const unsaved = path.join(dir, `other-finding.${dead}.tmp`);
    const running = `${folder}.${process.pid}.tmp`;
    first.record(result, result.differences[0], { sides, origin: { run: 1 } });
    fs.renameSync(folder, whole);  // as if killed before its rename
    fs.mkdirSync(unsaved);
    fs.writeFileSync(path.join(unsaved, 'input.json'), '{}\n');  // killed before its finding.json
    fs.mkdirSync(running);
    const store = new FindingStore(dir);
    assert.deepEqual(store.list(), [folder]);
    assert.deepEqual(FindingStore.read(folder).origin, { run: 1 });
    assert.deepEqual(fs.readdirSync(dir).sort(), [path.basename(folder), path.basename(running)].sort(),
      'the staging folder of a running process stays, the others are settled');
  });

  it('settles a staging folder once when several processes open the store at once', async function () {
    const folder = new FindingStore(dir).record(result, result.differences[0], { sides, origin: { run: 1 } }).folder;
    const dead = 1 + Number(fs.readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
    fs.renameSync(folder, `${folder}.${dead}.tmp`);
    const at = Date.now() + 1500;
    const script = `const { FindingStore } = require(${JSON.stringify(require.resolve('../../harness/findings/recorder'))});
      while (Date.now() < ${at});
      new FindingStore(${JSON.stringify(dir)});`;
    const codes = await Promise.all(Array.from({ length: 4 }, () => new Promise((resolve) =>
      spawn(process.execPath, ['-e', script], { stdio: 'inherit' }).on('exit', resolve))));
    assert.deepEqual(codes, [0, 0, 0, 0]);
    assert.deepEqual(fs.readdirSync(dir), [path.basename(folder)]);
    assert.deepEqual(FindingStore.read(folder).origin, { run: 1 });
  });

  it('writes in place into a folder a killed process left without finding.json', function () {
    const store = new FindingStore(dir);
    const folder = store.folderFor(sides, result.differences[0].signature);
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'input.json'), '{}\n');
    const saved = store.record(result, result.differences[0], { sides, origin: {} });
    assert.deepEqual(saved, { folder, isNew: true });
    assert.deepEqual(store.list(), [folder]);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(folder, 'input.json'), 'utf8')), recipe);
  });
});
