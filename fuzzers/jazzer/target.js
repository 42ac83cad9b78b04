'use strict';
// What the Jazzer.js targets share. The reference codec runs in this process
// (the node binary under test), where Jazzer.js instruments it, so coverage
// follows the tags and views it decodes; the codec under test runs in a
// worker process driven synchronously, so its crashes and hangs are findings
// and fuzzing goes on. A difference does not stop the fuzzer either: it is
// shrunk, confirmed in fresh processes (confirm.js), saved once per
// signature, and announced on stderr as `ipcfuzz-finding<TAB>signature<TAB>folder`
// for the orchestrator; `ipcfuzz-seen-again`, `ipcfuzz-history` and
// `ipcfuzz-worker` lines tell it the rest.

const { createOps } = require('../../harness/ops');
const { runSync } = require('../../harness/checks');
const { buildInput } = require('../../harness/recipes/build');
const { loadKnown, classify, splitByScope } = require('../../harness/known');
const { tiers } = require('../../harness/compare');
const { headline } = require('./crash-line');
const inputs = require('./inputs');
const { FindingStore } = require('../../harness/findings');
const { probe } = require('../../harness/codecs/probe');
const { SyncWorker } = require('../../harness/sync-worker');
const { confirmSync } = require('../../harness/confirm');

const env = process.env;
const ops = createOps(buildInput);
const info = probe();
const sides = {
  a: { codec: env.IPCFUZZ_A ?? 'js', node: env.IPCFUZZ_A_NODE ?? process.execPath, info },
  b: { codec: env.IPCFUZZ_B ?? 'native', node: process.execPath, info },
};
const known = splitByScope(loadKnown(env.IPCFUZZ_KNOWN === '' ? null : env.IPCFUZZ_KNOWN), sides).applies;
const store = env.IPCFUZZ_OUT ? new FindingStore(env.IPCFUZZ_OUT) : null;
const seen = new Set();
const kShrinkBudget = 200;
// On OSS-Fuzz and ClusterFuzzLite a new difference must be a crash of the
// fuzzer, so that the platform files it with its input.
const throwOnDifference = env.IPCFUZZ_ON_DIFFERENCE === 'throw';
// While the platform minimizes a crash, only that difference counts (fuzzers/jazzer/oss-fuzz.js).
const onlySignature = env.IPCFUZZ_ONLY_SIGNATURE;

const timeoutMs = Number(env.IPCFUZZ_TIMEOUT ?? 10_000);
const freshWorker = (nodePath) => new SyncWorker(nodePath, { timeoutMs });
const workers = new Map();
function worker(nodePath) {
  if (!workers.has(nodePath)) workers.set(nodePath, new SyncWorker(nodePath, { timeoutMs }));
  return workers.get(nodePath);
}

const announce = (what, detail) => process.stderr.write(`ipcfuzz-${what}\t${detail}\n`);

const inProcess = (side) => sides[side].codec === 'js' && sides[side].node === process.execPath;
const run = (side, request) => {
  const withCodec = { ...request, codec: sides[side].codec };
  if (inProcess(side)) return ops[request.op](withCodec);
  const outcome = worker(sides[side].node).request(withCodec);
  if (outcome.kind === 'crash' || outcome.kind === 'hang') announce('worker', outcome.kind);
  return outcome;
};

// The differences of one input that are neither known nor seen before.
function freshDifferences(type, input) {
  const result = runSync(type, run, input);
  classify(result.differences, known);
  return { result, fresh: result.differences.filter((d) => !d.known && !seen.has(d.signature)) };
}

// Removes ever smaller pieces of the fuzzer's bytes while the same signature
// stays, so a finding is saved from a short input.
function shrink(data, toInput, type, signature) {
  const keeps = (bytes) => freshDifferences(type, toInput(bytes)).fresh.some((d) => d.signature === signature);
  let best = data;
  let budget = kShrinkBudget;
  for (let size = best.length >> 1; size >= 1 && budget > 0; size >>= 1) {
    for (let at = 0; at + size <= best.length && budget > 0; budget--) {
      const candidate = Buffer.concat([best.subarray(0, at), best.subarray(at + size)]);
      if (keeps(candidate)) best = candidate;
      else at += size;
    }
  }
  return best;
}

// The crash the platform files: its first line names one difference (the
// first tier, then signature), and the throwing frame is a function named
// after that signature, so the same difference always gives the same first
// line and top frame and is grouped into one issue; the details follow.
function raiseDifference(fresh) {
  const [head] = [...fresh].sort((x, y) => tiers.indexOf(x.tier) - tiers.indexOf(y.tier) ||
    (x.signature < y.signature ? -1 : Number(x.signature > y.signature)));
  const details = new Set(fresh.map((d) => `  ${d.signature}: ${d.where}: ${String(d.detail).replace(/\n/g, ' ')}`));
  const lines = [headline(head), ...details];
  const frame = { [head.signature]() { throw new Error(lines.join('\n')); } };
  frame[head.signature]();
}

// Runs one fuzz input of a target (value, frame or stream: the check it runs);
// inputs.js maps the fuzzer's bytes to that check's input.
function fuzzOne(target, data) {
  const type = target;
  const toInput = inputs[target];
  const { result: first, fresh } = freshDifferences(type, toInput(data));
  if (throwOnDifference) {
    const raised = fresh.filter((d) => !onlySignature || d.signature === onlySignature);
    if (raised.length) raiseDifference(raised);
    return;
  }
  for (const difference of fresh) {
    if (seen.has(difference.signature)) continue;
    seen.add(difference.signature);
    if (store?.has(sides, difference.signature)) {
      // A problem saved by an earlier run keeps its input: only its count goes up.
      store.record(first, difference, { sides, origin: {} });
      announce('seen-again', difference.signature);
      continue;
    }
    const bytes = shrink(Buffer.from(data), toInput, type, difference.signature);
    const { result } = freshDifferences(type, toInput(bytes));
    const kept = result.differences.find((d) => d.signature === difference.signature);
    if (!kept || !confirmSync({ type, input: result.input, difference: kept, sides, startWorker: freshWorker })) {
      // Not seen again, or not in fresh processes: something outside the input decides it.
      announce('history', difference.signature);
      continue;
    }
    const stored = store?.record(result, kept, {
      sides, origin: { engine: 'jazzer', target, input: bytes.toString('hex') },
    });
    announce('finding', `${difference.signature}\t${stored?.folder ?? ''}`);
  }
}

module.exports = { fuzzOne };
