'use strict';
// The C model of the wire format (fuzzers/native): it agrees with the JS
// reference codec on acceptance and canonical tree for every conformance
// vector and corpus file, with the independent decoder v8serialize on the
// accept vectors, and its libFuzzer and AFL++ targets replay their corpus
// cleanly and find a bug planted in the model.
//
// Fields of the canonical tree the model cannot know from bytes: where an
// unaligned view's copy lives (fuzzers/native/model.js alignWithModel). Depth is a
// limit of the model (IPCFUZZ_MAX_DEPTH), not of the format: V8 stops at its
// stack limit, so no vector or corpus file nests that deep.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { isDeepStrictEqual } = require('node:util');
const model = require('../../fuzzers/native/model');
const { Session } = require('../../harness/run/session');
const { loadVectors } = require('../../conformance/vectors');
const jazzerInputs = require('../../fuzzers/jazzer/inputs');
const { annotateFrame } = require('../../harness/wire/annotate');
const { root, frame, cli, skipWith } = require('../fixtures/helpers');

const native = path.join(root, '.ipcfuzz', 'native');
const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

// The frames of a byte stream as a framer cuts them; the last may be partial.
function framesOf(bytes) {
  const frames = [];
  let at = 0;
  do {
    const end = bytes.length - at >= 4 ? at + 4 + bytes.readUInt32BE(at) : bytes.length;
    frames.push(bytes.subarray(at, Math.min(end, bytes.length)));
    at = end;
  } while (at < bytes.length);
  return frames;
}

// The JS reference's read of one frame, by a fresh framer in one read.
async function referenceRead(session, bytes) {
  const outcome = await session.run('a', { op: 'stream', bytes: bytes.toString('hex'), chunks: [] });
  return outcome.reads[0];
}

// Why the model and the reference disagree on a frame, or null.
function disagreement(bytes, verdict, read) {
  if (verdict.ok) {
    if (read.delivered.length !== 1) return `model accepts, reference ${read.error ? `throws ${read.error.message}` : 'delivers nothing'}`;
    const reference = model.alignWithModel(read.delivered[0], verdict.tree);
    return isDeepStrictEqual(reference, verdict.tree) ? null :
      `trees differ:\n  model     ${JSON.stringify(verdict.tree)}\n  reference ${JSON.stringify(reference)}`;
  }
  const incomplete = bytes.length < 4 || verdict.frameEnd > bytes.length;  // the framer waits for more
  if (read.delivered.length) return `model rejects (${verdict.reason}), reference delivers a message`;
  if (incomplete === Boolean(read.error)) {
    return `model ${verdict.reason}, reference ${read.error ? `throws ${read.error.message}` : 'waits for more bytes'}`;
  }
  return null;
}

async function checkStreams(session, streams) {
  const problems = [];
  let frames = 0;
  for (const [name, bytes] of streams) {
    for (const f of framesOf(bytes)) {
      frames++;
      const why = disagreement(f, model.decodeFrame(f), await referenceRead(session, f));
      if (why) problems.push(`${name} ${f.toString('hex').slice(0, 120)}: ${why}`);
    }
  }
  assert.equal(problems.length, 0, `${problems.length} of ${frames} frames:\n${problems.slice(0, 5).join('\n')}`);
  return frames;
}

// Every conformance vector as bytes: recipes as the reference serializes them.
async function vectorStreams(session, verdicts) {
  const streams = [];
  for (const v of loadVectors().filter((vector) => verdicts.includes(vector.verdict))) {
    if (v.kind !== 'recipe') {
      streams.push([v.id, Buffer.from(v.input.bytes, 'hex')]);
      continue;
    }
    const outcome = await session.run('a', { op: 'serialize', input: v.input });
    if (outcome.kind === 'ok') streams.push([v.id, Buffer.from(outcome.bytes, 'hex')]);
  }
  return streams;
}

function corpusStreams() {
  const read = (dir, toBytes) => (fs.existsSync(dir) ? fs.readdirSync(dir) : [])
    .map((f) => [path.relative(root, path.join(dir, f)), toBytes(fs.readFileSync(path.join(dir, f)))]);
  return [
    ...read(path.join(root, 'corpus', 'native'), (b) => b),
    ...read(path.join(root, 'corpus', 'jazzer', 'frame'), (b) => Buffer.from(jazzerInputs.frame(b).bytes, 'hex')),
    ...read(path.join(root, 'corpus', 'jazzer', 'stream'), (b) => Buffer.from(jazzerInputs.stream(b).bytes, 'hex')),
  ];
}

// The fields v8serialize's values carry: no prototypes, Buffer-ness or
// backing; -0 and 0 are one Python int; a null cause reads as no cause.
function projection(tree) {
  const keep = ['t', 'id', 'v', 'props', 'entries', 'values', 'length', 'kind', 'byteLength', 'bytes', 'source',
    'flags', 'name', 'message', 'cause'];
  const walk = (node) => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out = {};
    for (const key of keep.filter((k) => k in node)) {
      if (key === 'props' && node.t !== 'object' && node.t !== 'array') continue;
      if (key === 'cause' && node.cause.t === 'null') continue;
      out[key] = walk(node[key]);
    }
    if (out.t === 'number' && out.v === '-0') out.v = '0';
    return out;
  };
  return walk(tree);
}

describe('C model of the wire format', function () {
  this.timeout(300_000);
  let session;

  before(function () {
    if (!model.available()) spawnSync(path.join(root, 'scripts', 'build-native.sh'), ['addon'], { stdio: 'ignore' });
    if (!model.available()) {
      skipWith(this, 'the addon cannot be built here: scripts/build-native.sh needs node-gyp, cc, c++, make, python3');
    }
    session = new Session({ a: { codec: 'js' }, b: { codec: 'js' }, timeoutMs: 10_000 });
  });

  after(() => session?.close());

  it('names why and where it stops, as the reference rejects', async function () {
    const deep = (n) => `ff0f${'4101'.repeat(n)}5f${'240001'.repeat(n)}`;
    const cases = [
      ['truncated-length', '000000', null],
      ['truncated-payload', '00000005ff0f', null],
      ['bad-header', frame('ff0c 4902'), 4],
      ['bad-header', frame('4902'), 4],
      ['bad-tag', frame('ff0f 01'), 6],
      ['bad-host-tag', frame('ff0f 5c02 49'), 7],
      ['bad-view-index', frame('ff0f 5c00 0e 01 aa'), 8],
      ['truncated-payload', frame('ff0f 5c00 01 08 0102'), 10],
      ['host-not-object', frame('ff0f 5c01 4902'), 8],
      ['bad-key', frame('ff0f 6f 6f7b00 4902 7b01'), 7],
      ['duplicate-key', frame('ff0f 6f 220161 4902 220161 4904 7b02'), 12],
      ['count-mismatch', frame('ff0f 6f 7b 05'), 8],
      ['bad-reference', frame('ff0f 5e 00'), 6],
      ['bad-string', frame('ff0f 73 4902'), 7],
      ['bad-bigint', frame('ff0f 5a 01'), 7],
      ['bad-view', frame('ff0f 42 02 0102 56 77 00 01 00'), 11],
      ['bad-buffer', frame('ff0f 7e 09 08 0102'), 7],
      ['bad-error', frame('ff0f 72 45 54 2e'), 8],
      ['bad-regexp', frame('ff0f 52 2201 28 00'), 10],
      ['unsupported-tag', frame('ff0f 74 00'), 6],
      ['depth', frame(deep(300)), 4 + 2 + 2 * 256],
    ];
    for (const [reason, text, offset] of cases) {
      const bytes = hex(text);
      const verdict = model.decodeFrame(bytes);
      assert.equal(verdict.reason, reason, text);
      if (offset !== null) assert.equal(verdict.offset, offset, `${reason}: ${verdict.detail}`);
      if (reason !== 'depth') {
        assert.equal(disagreement(bytes, verdict, await referenceRead(session, bytes)), null, text);
      }
    }
    const trailing = model.decodeFrame(hex(frame('ff0f 4902 00')));
    assert.deepEqual([trailing.ok, trailing.trailing], [true, 1], 'bytes after the value are ignored, as V8 does');
  });

  it('agrees with the JS reference on every conformance vector', async function () {
    const streams = await vectorStreams(session, ['accept', 'reject', 'implementation-defined']);
    const frames = await checkStreams(session, streams);
    assert.ok(frames > 100, `only ${frames} frames`);
  });

  it('agrees with the JS reference on every corpus file', async function () {
    const streams = corpusStreams();
    if (!streams.length) skipWith(this, 'no corpus (node scripts/native-corpus.js writes corpus/native)');
    await checkStreams(session, streams);
  });

  // v8serialize 0.4.0 reads neither the verify-object-count tag (`?`, which
  // Blink's version 9 writer put before values, as V8's own test vectors keep)
  // nor the view flags of a version 13 frame; V8 reads both.
  const v8serializeReads = (f) => {
    const { segments } = annotateFrame(f);
    const fields = segments.map((seg) => seg.field);
    const version13 = segments.some((seg) => seg.field === 'header' && /version 13$/.test(seg.label));
    return !fields.includes('tag.verify-object-count') && !(version13 && fields.includes('view.flags'));
  };

  it('agrees with v8serialize on the accept vectors', async function () {
    const accepted = [];
    for (const [name, bytes] of await vectorStreams(session, ['accept'])) {
      for (const f of framesOf(bytes)) {
        const verdict = model.decodeFrame(f);
        // v8serialize decodes dates as datetime, which has no invalid time value.
        if (verdict.ok && v8serializeReads(f) && !/"t":"date"[^{}]*"v":"NaN"/.test(JSON.stringify(verdict.tree))) {
          accepted.push([name, f, verdict]);
        }
      }
    }
    const python = spawnSync('python3', [path.join(root, 'scripts', 'v8serialize-tree.py')], {
      input: JSON.stringify(accepted.map(([, f]) => f.toString('hex'))), encoding: 'utf8', maxBuffer: 1 << 28,
    });
    if (python.error || python.status === 2) skipWith(this, `v8serialize is not installed (pip install v8serialize==0.4.0): ${python.stderr?.trim() || python.error?.code}`);
    assert.equal(python.status, 0, python.stderr);
    const problems = JSON.parse(python.stdout).map((theirs, i) => {
      const [name, , verdict] = accepted[i];
      const ours = projection(verdict.tree);
      return theirs.ok && isDeepStrictEqual(theirs.tree, ours) ? null :
        `${name}:\n  model       ${JSON.stringify(ours)}\n  v8serialize ${JSON.stringify(theirs.tree ?? theirs.error)}`;
    }).filter(Boolean);
    assert.ok(accepted.length > 50, `only ${accepted.length} frames`);
    assert.equal(problems.length, 0, `${problems.length} of ${accepted.length} frames:\n${problems.slice(0, 5).join('\n')}`);
  });
});

describe('ipcfuzz inspect', function () {
  let file;

  before(function () {
    if (!model.available()) skipWith(this, 'the addon is not built (scripts/build-native.sh addon)');
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-inspect-')), 'tag2.bin');
    fs.writeFileSync(file, hex(frame('ff0f 5c02 49') + frame('ff0f 4902')));
  });

  after(() => file && fs.rmSync(path.dirname(file), { recursive: true, force: true }));

  it('prints the annotated frames and, with --model, the model verdict on each', async function () {
    const { code, stdout } = await cli(['inspect', file, '--model']);
    assert.equal(code, 0);
    assert.match(stdout, /^000007 {2}02 +IPC host tag 2 \(invalid\)$/m);
    assert.match(stdout, /decoding stops at 0x7: bad-host-tag/);
    assert.match(stdout, /^model, frame 1 at 0x0: reject bad-host-tag at 0x7: IPC host tag 2$/m);
    assert.match(stdout, /^model, frame 2 at 0x9: accept: 1$/m);
  });

  it('exits 2 on a usage error', async function () {
    assert.equal((await cli(['inspect'])).code, 2);
    assert.equal((await cli(['inspect', file, '--bogus'])).code, 2);
    assert.match((await cli(['inspect', path.join(path.dirname(file), 'missing.bin')])).stderr, /^ipcfuzz inspect: cannot read .*ENOENT\n$/);
  });
});

describe('native fuzz targets', function () {
  this.timeout(600_000);
  const engineSeconds = 60;
  let seeds;
  let aflMissing;

  before(function () {
    const built = spawnSync(path.join(root, 'scripts', 'build-native.sh'), ['fuzzers'], { encoding: 'utf8' });
    const skipped = /skipping the fuzz targets: (.*)/.exec(built.stdout);
    if (skipped) skipWith(this, skipped[1]);
    assert.equal(built.status, 0, built.stderr);
    const planted = spawnSync(path.join(root, 'scripts', 'build-native.sh'), ['fuzzers', '--planted-bug'],
      { encoding: 'utf8' });
    assert.equal(planted.status, 0, planted.stderr);
    aflMissing = /skipping the AFL\+\+ target: (.*)/.exec(built.stdout)?.[1];
    // Seeds without the planted bug's trigger (a view whose byteLength is not whole elements).
    seeds = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-seeds-'));
    fs.writeFileSync(path.join(seeds, 'int16array'), hex(frame('ff0f 5c00 03 04 01000200')));
    fs.writeFileSync(path.join(seeds, 'object'), hex(frame('ff0f 6f 220161 5c00 01 02 0102 7b01')));
  });

  after(() => seeds && fs.rmSync(seeds, { recursive: true, force: true }));

  it('replay the native corpus without sanitizer errors', function () {
    const corpus = path.join(root, 'corpus', 'native');
    if (!fs.existsSync(corpus)) skipWith(this, 'no corpus/native');
    const libfuzzer = spawnSync(path.join(native, 'fuzz_libfuzzer'), ['-runs=0', corpus], { encoding: 'utf8' });
    assert.equal(libfuzzer.status, 0, libfuzzer.stderr.split('\n').filter((l) => /ERROR|SUMMARY/.test(l)).join('\n'));
    if (aflMissing) return;
    const files = fs.readdirSync(corpus).map((f) => path.join(corpus, f));
    for (let i = 0; i < files.length; i += 500) {
      const afl = spawnSync(path.join(native, 'fuzz_afl'), files.slice(i, i + 500), { encoding: 'utf8' });
      assert.equal(afl.status, 0, afl.stderr.split('\n').filter((l) => /ERROR|SUMMARY/.test(l)).join('\n'));
    }
  });

  it('libFuzzer finds the bug planted in the model', function () {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-libfuzzer-'));
    try {
      const run = spawnSync(path.join(native, 'planted', 'fuzz_libfuzzer'), [work, seeds,
        `-max_total_time=${engineSeconds}`, `-dict=${path.join(root, 'fuzzers', 'native', 'ipc.dict')}`,
        `-artifact_prefix=${work}/`], { encoding: 'utf8' });
      assert.notEqual(run.status, 0, 'libFuzzer ran out of time without finding the bug');
      assert.match(run.stderr, /heap-buffer-overflow[\s\S]*read_host_object/);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  it('AFL++ finds the bug planted in the model', function () {
    if (aflMissing) skipWith(this, aflMissing);
    const target = path.join(native, 'planted', 'fuzz_afl');
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-afl-'));
    try {
      spawnSync('afl-fuzz', ['-i', seeds, '-o', work, '-V', String(engineSeconds), '--', target], {
        encoding: 'utf8',
        env: { ...process.env, AFL_BENCH_UNTIL_CRASH: '1', AFL_NO_UI: '1', AFL_SKIP_CPUFREQ: '1', AFL_NO_AFFINITY: '1',
          AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES: '1',
          AFL_CUSTOM_MUTATOR_LIBRARY: path.join(native, 'libipcfuzz_mutator.so') },
      });
      const crashes = path.join(work, 'default', 'crashes');
      const found = fs.existsSync(crashes) ? fs.readdirSync(crashes).filter((f) => f.startsWith('id:')) : [];
      assert.ok(found.length, 'AFL++ ran out of time without finding the bug');
      const replay = spawnSync(target, [path.join(crashes, found[0])], { encoding: 'utf8' });
      assert.match(replay.stderr, /heap-buffer-overflow[\s\S]*read_host_object/);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
