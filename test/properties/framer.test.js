'use strict';
// Ready for the native framer: IPCChannelFramer (nodejs/node main) throws from
// read() when one frame of a read fails to decode, and the messages decoded
// before it in that read are lost, where parseChannelMessages handed them out
// first. The stream tier flags that loss, the stream property feeds reads that
// hold a good frame and then a bad one, and a binary with the framer (one
// standing for a build of main) is read through it by the native codec,
// `ipcfuzz info` and the gate.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const fc = require('fast-check');
const { Session } = require('../../harness/run/session');
const { properties } = require('../../properties/definitions');
const { runPair } = require('../../properties/helpers');
const { cli, fixture, frame } = require('../fixtures/helpers');

const mutant = path.join(__dirname, '..', '..', 'harness', 'mutants', 'ipc-channel-framer.js');
const node2612 = path.join(__dirname, '..', '..', 'node_modules', 'node-26.12.1', 'bin', 'node');

// 49 02 = the int32 1, 49 04 = 2, 49 06 = 3; version 16 is a header no Node reads.
const one = frame('ff0f 4902');
const two = frame('ff0f 4904');
const three = frame('ff0f 4906');
const bad = frame('ff10 4902');

const deliveredOf = (outcome) => outcome.reads.map((r) => ({
  delivered: r.delivered.map((t) => Number(t.v)), error: Boolean(r.error), buffering: r.buffering,
}));

// A node that stands for a build of nodejs/node's main branch: 26.12.1 with an
// IPCChannelFramer of main's semantics in its binding (test/fixtures/framer-build.js).
function framerBuild(dir) {
  const file = path.join(dir, 'node');
  fs.writeFileSync(file, `#!/bin/sh\nexec ${JSON.stringify(node2612)} --require ${JSON.stringify(fixture('framer-build.js'))} "$@"\n`);
  fs.chmodSync(file, 0o755);
  return file;
}

describe('a framer that loses the messages of a read ending in a bad frame', function () {
  this.timeout(120_000);

  describe('the stream tier', function () {
    let session;
    before(() => { session = new Session({ a: { codec: 'js' }, b: { codec: mutant }, timeoutMs: 10_000 }); });
    after(() => session.close());
    const stream = (bytes, chunks) => session.check('stream', { bytes, chunks });

    it('flags the good message the framer did not deliver before throwing', async function () {
      const result = await stream(one + bad, []);
      assert.deepEqual(deliveredOf(result.outcomes.stream.a), [{ delivered: [1], error: true, buffering: false }]);
      assert.deepEqual(deliveredOf(result.outcomes.stream.b), [{ delivered: [], error: true, buffering: false }]);
      const framing = result.differences.filter((d) => d.tier === 'framing');
      assert.equal(framing.length, 1);
      assert.equal(framing[0].where, 'read 1');
      assert.match(framing[0].detail, /a delivered 1 messages, b 0/);
    });

    it('flags it when the good frame began in an earlier read', async function () {
      const result = await stream(one + bad, [3]);
      assert.deepEqual(deliveredOf(result.outcomes.stream.b).map((r) => r.delivered), [[], []]);
      // Its buffering state after the failed read is the one before, as the reference's.
      assert.deepEqual(result.differences.filter((d) => d.tier === 'framing').map((d) => [d.where, d.detail]),
        [['read 2', 'a delivered 1 messages, b 0']]);
    });

    it('flags the frames after the bad one, which the framer drops with the rest of the read', async function () {
      const result = await stream(one + bad + two + three, [one.length / 2 + bad.length / 2 + two.length / 2]);
      // The reference goes on after the bad frame at the next read; the framer lost two.
      assert.deepEqual(deliveredOf(result.outcomes.stream.a).map((r) => r.delivered), [[1], [2, 3]]);
      assert.deepEqual(deliveredOf(result.outcomes.stream.b).map((r) => r.delivered), [[], [3]]);
      const framing = result.differences.filter((d) => d.tier === 'framing');
      assert.deepEqual(framing.map((d) => d.where), ['read 1', 'read 2']);
    });

    it('sees a held frame that failed stay held: every later read fails again', async function () {
      const result = await stream(bad + one + two, [3, bad.length / 2 - 3, one.length / 2]);
      assert.deepEqual(deliveredOf(result.outcomes.stream.b), [
        { delivered: [], error: false, buffering: true },
        { delivered: [], error: true, buffering: true },
        { delivered: [], error: true, buffering: true },
        { delivered: [], error: true, buffering: true },
      ]);
      assert.deepEqual(deliveredOf(result.outcomes.stream.a).slice(2).map((r) => r.delivered), [[1], [2]]);
    });

    it('sees no difference where no frame fails', async function () {
      const result = await stream(one + two + three, [5, 9]);
      assert.deepEqual(result.differences, []);
    });
  });

  describe('the stream property', function () {
    it('draws reads that hold a frame that decodes and then one that cannot', async function () {
      const drawn = fc.sample(properties.stream.arbitrary, { seed: 7, numRuns: 200 }).map(properties.stream.input);
      const inputs = drawn.filter((input) => input.plan.k === 'frames').slice(0, 20);
      assert.ok(inputs.length >= 20, `${inputs.length} of 200 inputs hold a good frame and a bad one`);
      const session = new Session({ a: { codec: 'js' }, b: { codec: 'js' }, timeoutMs: 10_000 });
      try {
        const results = await Promise.all(inputs.map((input) => session.check('recipeStream', input)));
        // A read the reference delivers a message from and then fails: the loss a framer can make.
        const losable = results.filter((r) =>
          r?.outcomes.stream.a.reads.some((read) => read.delivered.length && read.error));
        assert.ok(losable.length >= inputs.length / 2, `${losable.length} of ${inputs.length}`);
      } finally {
        session.close();
      }
    });

    it('finds the loss as a framing difference within a few hundred runs', async function () {
      const caught = (s) => s.findings.some((f) => f.difference.tier === 'framing');
      const summary = await runPair({ a: { codec: 'js' }, b: { codec: mutant }, runs: 400, only: ['stream'], known: [],
        until: caught });
      assert.ok(caught(summary), summary.findings.map((f) => f.difference.signature).join(', ') || 'nothing found');
    });
  });

  describe('a binary with the framer', function () {
    let dir;
    let build;
    before(function () {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-framer-'));
      build = framerBuild(dir);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('is named so by ipcfuzz info', async function () {
      const { code, stdout } = await cli(['info', '--node', build]);
      assert.equal(code, 0);
      assert.match(stdout, /^framer\s+yes \(IPCChannelFramer\)$/m);
      assert.match(stdout, /^ipc_serdes\s+yes: serialize, deserialize, IPCChannelFramer$/m);
    });

    it('is read through its framer by the native codec', async function () {
      const session = new Session({
        a: { codec: 'js', node: '26.12.1' }, b: { codec: 'native', node: build }, timeoutMs: 10_000,
      });
      try {
        const result = await session.check('stream', { bytes: one + bad, chunks: [] });
        assert.deepEqual(deliveredOf(result.outcomes.stream.b), [{ delivered: [], error: true, buffering: false }]);
        assert.match(result.differences.find((d) => d.tier === 'framing').detail, /a delivered 1 messages, b 0/);
      } finally {
        session.close();
      }
    });

    it('is gated through its framer: the vector of a good frame and a bad one in one read fails', async function () {
      const out = path.join(dir, 'gate');
      const { code, stdout } = await cli(['gate', '--node', build, '--base-node', '26.12.1', '--no-fuzz',
        '--budget', '30', '--out', out]);
      const junit = fs.readFileSync(path.join(out, 'junit.xml'), 'utf8');
      assert.equal(code, 1, stdout);
      assert.match(junit, /<testcase [^>]*name="vector reject\/streams\/valid-then-bad-in-one-read"[^>]*>\s*<failure[^>]*framing/);
    });
  });
});
