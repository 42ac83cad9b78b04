'use strict';
// The full comparison through child_process: the finding's input sent in
// the build under test and in the reference release by the bundled round
// trip (round-trip.js, script.js), what each child received described as a
// canonical tree, and the two compared as the conformance fork cases compare
// channels (channel-differences.js). What a short repro-fork.js cannot tell
// apart (an identity of shared references, a prototype chain) this can;
// `ipcfuzz report --full` prints it. Bounded as record.js is.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { channelDifferences } = require('../../oracle/channel-differences');
const { forkReproScript, fromValue } = require('./script');
const { sameRoundTrip, describeObservation } = require('./round-trip');
const { observe } = require('../repro/record');
const { Outcome, Tier, endedProcess } = require('../../base/vocabulary');
const { kCallTimeoutMs } = require('../../base/defaults');

// Codec b an adapter file: child_process never runs it.
function adapterNote(meta) {
  const codec = meta.sides?.b?.codec ?? '';
  return codec.includes('/') ? ` (codec b, ${path.basename(codec)}, is an adapter: child_process runs the binary's own codec)` : '';
}

// The observation of the full round trip in one binary, or { fault } / { outOfTime }.
async function fullObservation(node, file, { timeoutMs, deadline }) {
  const got = await observe(node, file, { scriptArgs: ['--json', `--timeout=${timeoutMs}`], timeoutMs, deadline });
  if (got.outOfTime || got.fault) return got;
  if (got.ended) return { fault: `the round trip ended: ${got.ended}` };
  return got.seen;
}

// { checked: true, reachable, differences, build, reference, peerCrash } or
// { checked: false, why, outOfTime? }: the two round trips compared.
async function fullCheck(meta, work, { build, reference, timeoutMs, deadline }) {
  const file = path.join(work, 'round-trip.js');
  fs.writeFileSync(file, forkReproScript(meta, { reference: null }));
  const [b, r] = await Promise.all([build, reference]
    .map((node) => fullObservation(node, file, { timeoutMs, deadline })));
  for (const [o, node] of [[b, build], [r, reference]]) {
    if (o.outOfTime) return { checked: false, outOfTime: true, why: 'the time for it ran out' };
    // The round trip itself failing is ipcfuzz's fault, never a codec's behaviour.
    if (o.fault) return { checked: false, why: `the round trip could not run in ${node}: ${o.fault}` };
    if (o.record.kind === Outcome.unbuildable) {
      return { checked: false, why: `node ${o.node} cannot build the value: ${o.record.error.message.split('\n')[0]}` };
    }
  }
  const where = fromValue(meta.type) ? 'parent sends, child receives' : 'child writes, parent reads';
  const differences = channelDifferences(where, r.record, b.record)
    .map(({ tier, signature, where: at, detail }) => ({ tier, signature, where: at, detail }));
  if (!differences.length && !sameRoundTrip(r, b)) {
    // Alike to the comparison, not to the observation (a crash on the other end): still a difference.
    const tier = endedProcess(b.record) || endedProcess(r.record) ? Tier.crash : Tier.value;
    differences.push({ tier, signature: `${tier}/fork/round-trip`, where, detail: 'the two round trips end differently' });
  }
  const reachable = differences.length > 0;
  const side = (node, o) => ({ node, version: o.node, platform: o.platform, saw: describeObservation(o),
    record: o.record });
  return {
    checked: true, reachable, differences, build: side(build, b), reference: side(reference, r),
    // The receiver, not the sender, crashed or hung: a peer's message takes a process down.
    peerCrash: reachable && endedProcess(b.record) && b.record.at === 'receiver',
    note: reachable ? '' : adapterNote(meta),
  };
}

// The first line where the two observations part (the first names the binary).
function firstDifference(check) {
  const [seen, expected] = [check.build.saw, check.reference.saw];
  const at = Math.max(1, seen.findIndex((l, i) => i > 0 && l !== expected[i]));
  return { build: seen[at] ?? '(nothing more)', reference: expected[at] ?? '(nothing more)' };
}

// The full round trip of a saved finding in `build` and `reference`, in lines for people.
async function fullComparison(folder, meta, { build, reference, timeoutMs = kCallTimeoutMs }) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-full-'));
  try {
    const check = await fullCheck(meta, work, { build, reference, timeoutMs, deadline: Infinity });
    if (!check.checked) return [`the full round trip did not run: ${check.why}`];
    return [`the full round trip through child_process: ${check.reachable ? 'DIFF' : 'SAME'}`,
      ...check.differences.map((d) => `  ${d.tier.padEnd(14)} ${d.where}: ${d.detail}`),
      'the build under test:', ...check.build.saw.map((l) => `  ${l}`),
      'the reference:', ...check.reference.saw.map((l) => `  ${l}`)];
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { fullCheck, fullComparison, firstDifference, adapterNote };
