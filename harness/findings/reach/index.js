'use strict';
// What a finding comes to once a run's engines have ended: its short repro
// scripts recorded and run in the build under test and in the reference
// release (../repro/), and whether its difference reaches users through
// child_process.fork(..., { serialization: 'advanced' }). A short
// repro-fork.js observes one thing at a time (what child.send() did, what
// the child received, user code run on either side), the one the finding's
// difference points at first; where none differs, the full round trip
// (full.js) compares canonical trees. Each of repro.js, repro-fork.js,
// reachability.json and issue.md is written once per check; finding.json
// and report.txt stay as the run saved them. Bounded: each run ends by its
// timeout or the deadline, and takes its processes along.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { resolveNode, probeNode } = require('../../base/binaries');
const { FindingStore, writeAtomic } = require('../recorder');
const { pieces } = require('../../oracle/channel');
const { observe } = require('../repro/record');
const { codecRepro, modulePath, operationOf } = require('../repro/codec');
const { forkCheck, reproFork, observations, kArrived } = require('../repro/fork');
const { fullCheck, firstDifference } = require('./full');
const { fromValue } = require('./script');
const { platform } = require('./round-trip');
const { issueMarkdown } = require('../issue-report');
const { titleOf } = require('../words');
const { Tier, tiers } = require('../../base/vocabulary');
const { kCallTimeoutMs } = require('../../base/defaults');

// The tiers of a difference in sending that what child.send() did shows first.
const kSentTiers = [Tier.crash, Tier.acceptance, Tier.errorIdentity, Tier.effects];

const referenceVersion = '26.3.1';
// The least time worth starting a finding's checks in.
const kLeastMs = 1500;
const kReachFile = 'reachability.json';
const notCheckedText = 'reachability not checked';
const outOfTime = 'the time for it ran out';
const kSeenWidth = 240;

const clip = (text) => (String(text).length > kSeenWidth ? `${String(text).slice(0, kSeenWidth - 1)}…` : String(text));

// What a short check of a finding observes, the likeliest to differ first:
// where its difference is (sending or receiving) and what kind it is.
function observationsOf(meta) {
  if (!fromValue(meta.type)) return ['received'];
  const op = meta.signature.split('/')[1];
  const { a, b } = meta.outcomes?.serialize ?? {};
  const sending = op === 'serialize' && (meta.tier !== Tier.effects || a?.kind !== b?.kind);
  const first = meta.tier === Tier.effects && !sending ? (op === 'serialize' ? 'effects' : 'receivedEffects') :
    sending && kSentTiers.includes(meta.tier) ? 'sent' : 'received';
  const world = meta.input?.recipe && /"side":\s*"(receive|both)"/.test(JSON.stringify(meta.input.recipe));
  return [first, ...['sent', 'received', 'effects', ...(world ? ['receivedEffects'] : [])].filter((o) => o !== first)];
}

// A short fork check of the finding's input observing `observe`, expecting `expected`.
function checkOf(meta, { name, observe: what, expected }) {
  if (!fromValue(meta.type)) return forkCheck({ name, expected, bytes: pieces(meta.input) });
  return forkCheck({ name, observe: what, expected, input: meta.input });
}

const scratch = (work, name, text) => {
  const file = path.join(work, name);
  fs.writeFileSync(file, text);
  return file;
};

// repro.js run with the reference codec (what it did is recorded) and with
// the codec under test: { expected, seen, shows }, or { fault }.
async function recordCodec(meta, { build, deadline = Infinity, work = null }) {
  if (!work) {
    const own = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-repro-'));
    try {
      return await recordCodec(meta, { build, deadline, work: own });
    } finally {
      fs.rmSync(own, { recursive: true, force: true });
    }
  }
  const file = scratch(work, 'repro.js', codecRepro(meta, { title: meta.signature, expected: null }));
  const nodeArgs = ['--expose-internals', '--no-warnings'];
  const sameBinary = meta.sides?.a?.node === meta.sides?.b?.node;
  const referenceNode = sameBinary || !meta.sides?.a?.node ? build : meta.sides.a.node;
  const [reference, here] = await Promise.all([
    observe(referenceNode, file, { nodeArgs, scriptArgs: [`--codec=${modulePath(meta.sides?.a?.codec ?? 'js')}`],
      deadline }),
    observe(build, file, { nodeArgs, deadline })]);
  if (!('seen' in reference)) return { fault: reference.fault ?? reference.ended ?? outOfTime };
  // A codec that crashes the process shows it there, with no verdict printed.
  const seen = 'seen' in here ? here.seen : here.ended && `crashed (${here.ended})`;
  return { expected: reference.seen, seen, shows: seen !== undefined && seen !== reference.seen };
}

const notChecked = (why) => ({ checked: false, verdict: `${notCheckedText}: ${why}`, ...(why === outOfTime && { outOfTime: true }) });

function sideOf(node, seen) {
  let version = null;
  try {
    version = probeNode(node).node;
  } catch { /* named by its path alone */ }
  return { node, version, platform: platform(), seen };
}

// The short checks, one observation at a time, until one differs; then, if
// none did, the full round trip.
async function judge(meta, work, { build, reference, timeoutMs, deadline }) {
  const alike = [];
  const faults = [];
  for (const what of observationsOf(meta)) {
    if (deadline - Date.now() < kLeastMs) return notChecked(outOfTime);
    const check = checkOf(meta, { name: meta.signature, observe: what, expected: null });
    const file = scratch(work, 'repro-fork.js', reproFork(check));
    const [b, r] = await Promise.all([build, reference].map((node) => observe(node, file, { timeoutMs, deadline })));
    if (b.outOfTime || r.outOfTime) return notChecked(outOfTime);
    if (!('seen' in b) || !('seen' in r)) {
      faults.push(`${what}: ${b.fault ?? b.ended ?? r.fault ?? r.ended}`);
      continue;
    }
    if (b.seen === r.seen) {
      alike.push({ observe: what, seen: r.seen });
      continue;
    }
    const label = fromValue(meta.type) ? observations[what] : kArrived;
    const [sb, sr] = [sideOf(build, b.seen), sideOf(reference, r.seen)];
    return {
      checked: true, reachable: true, observe: what, by: 'repro-fork.js', build: sb, reference: sr,
      peerCrash: /^crashed|^hung/.test(b.seen) && (what === 'received' || !fromValue(meta.type)),
      verdict: `reachable: yes: ${label}: node ${sb.version}: ${clip(b.seen)}; node ${sr.version} ` +
        `(the JavaScript codec): ${clip(r.seen)}`,
    };
  }
  const full = await fullCheck(meta, work, { build, reference, timeoutMs, deadline });
  if (!full.checked) return notChecked(full.why);
  const first = alike[0] ?? { observe: observationsOf(meta)[0], seen: null };
  const seenAlike = alike.map((a) => `${observations[a.observe] ?? kArrived} (${clip(a.seen)})`).join(', ');
  if (full.reachable) {
    const differs = firstDifference(full);
    return {
      checked: true, reachable: true, observe: first.observe, by: 'the full round trip', peerCrash: full.peerCrash,
      build: sideOf(build, first.seen), reference: sideOf(reference, first.seen), differences: full.differences,
      verdict: `reachable: yes, by the full round trip (ipcfuzz report --full): node ${full.build.version}: ` +
        `${clip(differs.build)}; node ${full.reference.version} (the JavaScript codec): ${clip(differs.reference)}`,
    };
  }
  const unseen = meta.tier === Tier.bytes ? 'not observable by this check: child_process shows what arrives, not the ' +
    'bytes a codec writes; ' : 'no: ';
  return {
    checked: true, reachable: false, observe: first.observe, by: 'repro-fork.js', observable: meta.tier !== Tier.bytes,
    build: sideOf(build, first.seen), reference: sideOf(reference, first.seen),
    verdict: `reachable: ${unseen}through child_process, node ${full.build.version} and node ` +
      `${full.reference.version} (the JavaScript codec) saw the same${seenAlike ? `: ${seenAlike}` : ''}` +
      `${faults.length ? `; not seen: ${faults.join('; ')}` : ''}${full.note}`,
  };
}

// The files a check writes, each once: the short scripts with what the
// reference did recorded, the verdict, and issue.md (one edited by hand is kept).
function record(folder, meta, codec, reach) {
  const title = titleOf(meta, { reachable: Boolean(reach.reachable) });
  const repro = { observe: operationOf(meta).observe,
    ...(codec.fault ? { fault: codec.fault } : { expected: codec.expected, seen: codec.seen, shows: codec.shows }) };
  const check = checkOf(meta, { name: title, observe: reach.observe ?? observationsOf(meta)[0],
    expected: reach.reference?.seen ?? null });
  writeAtomic(path.join(folder, 'repro.js'), codecRepro(meta, { title, expected: codec.expected ?? null }));
  writeAtomic(path.join(folder, 'repro-fork.js'), reproFork(check));
  const editedIssue = keepEdited(folder);
  const reachability = { ...reach, title, repro, ...(editedIssue && { editedIssue }),
    checkedAt: new Date().toISOString() };
  const issue = issueMarkdown(meta, reachability, folder);
  writeAtomic(path.join(folder, 'issue.md'), issue);
  reachability.issueSha256 = sha256(issue);
  writeAtomic(path.join(folder, kReachFile), `${JSON.stringify(reachability, null, 2)}\n`);
  return reachability;
}

const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');

// An issue.md that is not as ipcfuzz last wrote it (its digest is in
// reachability.json) was edited by hand: it is moved to a name of its own,
// never overwritten. Gives that name, or undefined.
function keepEdited(folder) {
  const text = FindingStore.readText(folder, 'issue.md');
  if (!text || sha256(text) === reachabilityOf(folder)?.issueSha256) return undefined;
  for (let n = 1; ; n++) {
    const name = n === 1 ? 'issue.edited.md' : `issue.edited.${n}.md`;
    try {
      fs.linkSync(path.join(folder, 'issue.md'), path.join(folder, name));
    } catch (err) {
      if (err.code === 'EEXIST') continue;
      throw err;
    }
    return name;
  }
}

// The verdict a check of a finding's folder wrote, or undefined before one.
function reachabilityOf(folder) {
  try {
    return JSON.parse(fs.readFileSync(path.join(folder, kReachFile), 'utf8'));
  } catch {
    return undefined;
  }
}

// Checks one finding folder in `build` and `reference` (node binary paths)
// and writes what it came to. Resolves with the verdict.
async function checkFinding(dir, { build, reference, timeoutMs = kCallTimeoutMs, deadline = Infinity }) {
  const folder = path.resolve(dir);
  const meta = FindingStore.read(folder);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-check-'));
  try {
    const codec = await recordCodec(meta, { build, deadline, work });
    const reach = await judge(meta, work, { build, reference, timeoutMs, deadline });
    return record(folder, meta, codec, reach);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

// A finding left unchecked still gets its scripts (with nothing recorded) and issue.md, saying so.
function recordUnchecked(folder, why) {
  return record(folder, FindingStore.read(folder), { fault: why }, notChecked(why));
}

// Checks the finding folders of a run, crashes first, one at a time (each
// runs two binaries at once), until the deadline; the rest are recorded as
// not checked. build: the build under test's path. Resolves with a Map of
// folder -> reachability; onChecked(folder, reachability) hears each.
async function checkFindings(folders, { build, timeoutMs, deadline = Infinity, onChecked = () => {} }) {
  let reference = null;
  let missing = null;
  try {
    reference = resolveNode(referenceVersion);
  } catch (err) {
    missing = `the reference node ${referenceVersion} is missing: ${err.message}`;
  }
  const rank = (folder) => {
    try {
      return tiers.indexOf(FindingStore.read(folder).tier);
    } catch {
      return tiers.length;
    }
  };
  const ordered = [...new Set(folders)].sort((x, y) => rank(x) - rank(y));
  const out = new Map();
  for (const folder of ordered) {
    let reachability;
    if (missing) reachability = recordUnchecked(folder, missing);
    else if (deadline - Date.now() < kLeastMs) reachability = recordUnchecked(folder, outOfTime);
    else reachability = await checkFinding(folder, { build, reference, timeoutMs, deadline });
    out.set(folder, reachability);
    onChecked(folder, reachability);
  }
  return out;
}

// The time a run of `seconds` keeps for checking its findings: a tenth, at
// most two minutes; a budget too short to check a few keeps none.
function reachSeconds(seconds) {
  const share = Math.min(120, Math.floor(seconds / 10));
  return share >= 2 ? share : 0;
}

module.exports = {
  checkFinding, checkFindings, recordUnchecked, recordCodec, reachSeconds, reachabilityOf, observationsOf,
  referenceVersion, notCheckedText,
};
