'use strict';
// The reachability check of findings: does a difference between two codecs
// show through child_process.fork(..., { serialization: 'advanced' })? A
// finding's repro-fork.js runs in the build under test and in the reference
// release, whose child_process runs the JavaScript codec, parent and child
// each in that binary, and what the two saw is compared as the conformance
// fork cases compare channels (channel-differences.js). The verdict goes into
// finding.json (`reachability`), report.txt, repro-fork.js (which keeps the
// reference's observation to compare with) and issue.md. Bounded: each run
// ends by its timeout or the deadline, and takes its processes along.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawn } = require('node:child_process');
const { resolveNode } = require('../../base/binaries');
const { FindingStore, metaText, writeAtomic } = require('../recorder');
const { channelDifferences } = require('../../oracle/channel-differences');
const { tiers } = require('../../oracle/compare');
const { forkReproScript, fromValue } = require('./script');
const { sameRoundTrip, describeObservation } = require('./round-trip');
const { issueMarkdown } = require('../issue-report');

const referenceVersion = '26.3.1';
const kDefaultTimeoutMs = 10_000;
// The least a round trip gets (three node processes start): a timeout is a hang verdict.
const kLeastTimeoutMs = 5000;
// What a run gets on top of its round trip's timeout to print; the least time worth starting a check in.
const kGraceMs = 2000;
const kLeastMs = 1500;
const kReportHeading = 'reachability through child_process';
const notCheckedText = 'reachability not checked';
const outOfTime = 'the time for it ran out';

const groups = new Set();
process.on('exit', () => { for (const pid of groups) killGroup(pid); });

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

// repro-fork.js --json in one binary: its observation, or { fault } or
// { outOfTime } when the run itself did not give one.
function observeIn(node, file, { timeoutMs, deadline }) {
  return new Promise((resolve) => {
    const run = spawn(node, [file, '--json', `--timeout=${timeoutMs}`],
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'], cwd: path.dirname(file) });
    let out = '';
    let err = '';
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      killGroup(run.pid);
    }, Math.min(timeoutMs + kGraceMs, deadline - Date.now()));
    run.on('spawn', () => groups.add(run.pid));
    run.stdout.setEncoding('utf8');
    run.stdout.on('data', (t) => { out += t; });
    run.stderr.setEncoding('utf8');
    run.stderr.on('data', (t) => { err = (err + t).slice(-2048); });
    run.on('error', (e) => {
      clearTimeout(timer);
      resolve({ fault: `cannot start ${node}: ${e.code ?? e.message}` });
    });
    run.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(run.pid);
      groups.delete(run.pid);
      if (late) {
        resolve(Date.now() >= deadline - 50 ? { outOfTime: true } :
          { fault: `repro-fork.js did not end within ${timeoutMs + kGraceMs} ms` });
        return;
      }
      try {
        resolve(JSON.parse(out));
      } catch {
        // The error's own line, not the version line node prints after an uncaught error's stack.
        const lines = err.trim().split('\n');
        const why = lines.find((l) => /^\w*Error\b/.test(l)) ?? lines.filter((l) => !/^Node\.js v/.test(l)).at(-1) ??
          (signal ? `killed by ${signal}` : `exit ${code}`);
        resolve({ fault: `repro-fork.js printed no observation: ${why}` });
      }
    });
  });
}

const notChecked = (why) => ({
  checked: false, verdict: `${notCheckedText}: ${why}`, checkedAt: new Date().toISOString(),
  ...(why === outOfTime && { outOfTime: true }),
});

function sideOf(node, observation, saw) {
  const { node: version, platform, record } = observation;
  return { node, version, platform, saw, record };
}

// Codec b an adapter file: child_process never runs it.
function adapterNote(meta) {
  const codec = meta.sides?.b?.codec ?? '';
  return codec.includes('/') ? ` (codec b, ${path.basename(codec)}, is an adapter: child_process runs the binary's own codec)` : '';
}

// The verdict of the two observations of one finding.
function judge(meta, { build, reference }) {
  for (const [o, node] of [[build.observation, build.node], [reference.observation, reference.node]]) {
    if (o.outOfTime) return notChecked(outOfTime);
    // The round trip itself failing is ipcfuzz's fault, never a codec's behaviour.
    if (o.fault) return notChecked(`the round trip could not run in ${node}: ${o.fault}`);
    if (o.record.kind === 'unbuildable') {
      return notChecked(`node ${o.node} cannot build the value: ${o.record.error.message.split('\n')[0]}`);
    }
  }
  const [b, r] = [build.observation, reference.observation];
  const where = fromValue(meta.type) ? 'parent sends, child receives' : 'child writes, parent reads';
  const differences = channelDifferences(where, r.record, b.record)
    .map(({ tier, signature, where: at, detail }) => ({ tier, signature, where: at, detail }));
  if (!differences.length && !sameRoundTrip(r, b)) {
    // Alike to the comparison, not to the observation (a crash on the other end): still a difference.
    const failed = (o) => ['crash', 'hang'].includes(o.record.kind);
    const tier = failed(b) || failed(r) ? 'crash' : 'value';
    differences.push({ tier, signature: `${tier}/fork/round-trip`, where, detail: 'the two round trips end differently' });
  }
  const reachable = differences.length > 0;
  const [seen, expected] = [describeObservation(b), describeObservation(r)];
  // The first line where the two part (the first names the binary).
  const at = Math.max(1, seen.findIndex((l, i) => i > 0 && l !== expected[i]));
  const differs = { build: seen[at] ?? '(nothing more)', reference: expected[at] ?? '(nothing more)' };
  const peer = fromValue(meta.type) ? 'the child receiving it' : 'the parent reading bytes a peer wrote';
  const verdict = reachable ?
    `reachable: yes (${differences[0].tier}): through child_process, node ${b.node}: ${differs.build}; ` +
      `node ${r.node} (the JavaScript codec): ${differs.reference}` :
    `reachable: no: through child_process, node ${b.node} and node ${r.node} (the JavaScript codec) behave alike` +
      adapterNote(meta);
  return {
    checked: true, reachable, verdict, checkedAt: new Date().toISOString(), differences,
    // The receiver, not the sender, crashed or hung: a peer's message takes a process down.
    peerCrash: reachable && ['crash', 'hang'].includes(b.record.kind) && b.record.at === 'receiver',
    peer, differs, build: sideOf(build.node, b, seen), reference: sideOf(reference.node, r, expected),
  };
}

// report.txt with its reachability section, written anew.
function reportSection(reachability) {
  const lines = ['', kReportHeading, `  ${reachability.verdict}`];
  if (reachability.checked) {
    for (const d of reachability.differences) lines.push(`  ${d.tier.padEnd(14)} ${d.where}: ${d.detail}`);
    for (const [side, about] of [['build', 'the build under test'], ['reference', 'the reference']]) {
      lines.push(`  ${about}:`, ...reachability[side].saw.map((l) => `    ${l}`));
    }
  }
  lines.push('  repro: node repro-fork.js, with each binary (public APIs only; exit 0 same as the reference, 1 not)',
    '  bug report: issue.md');
  return `${lines.join('\n')}\n`;
}

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');

// An issue.md that is not as ipcfuzz last wrote it (its digest is in
// finding.json) was edited by hand: it is moved to a name of its own, never
// overwritten. Gives that name, or undefined.
function keepEdited(folder, meta) {
  const file = path.join(folder, 'issue.md');
  const text = readText(file);
  if (!text || sha256(text) === meta.reachability?.issueSha256) return undefined;
  for (let n = 1; ; n++) {
    const name = n === 1 ? 'issue.edited.md' : `issue.edited.${n}.md`;
    try {
      fs.linkSync(file, path.join(folder, name));
    } catch (err) {
      if (err.code === 'EEXIST') continue;
      throw err;
    }
    return name;
  }
}

// Writes the verdict and what follows from it into a finding's folder.
function recordReachability(folder, meta, reachability, referenceObservation) {
  const editedIssue = keepEdited(folder, meta);
  if (editedIssue) reachability.editedIssue = editedIssue;
  const updated = { ...meta, reachability };
  writeAtomic(path.join(folder, 'repro-fork.js'),
    forkReproScript(updated, { reference: referenceObservation, referenceVersion }), 0o755);
  const report = readText(path.join(folder, 'report.txt'));
  const at = report.indexOf(`\n${kReportHeading}\n`);
  writeAtomic(path.join(folder, 'report.txt'), `${(at === -1 ? report : report.slice(0, at)).trimEnd()}\n` +
    reportSection(reachability));
  const issue = issueMarkdown(updated, folder);
  writeAtomic(path.join(folder, 'issue.md'), issue);
  reachability.issueSha256 = sha256(issue);
  writeAtomic(path.join(folder, 'finding.json'), metaText(updated));
  return updated;
}

// Checks one finding folder: runs its round trip in `build` and in
// `reference` (node binary paths) and records the verdict. Resolves with it.
async function checkFinding(dir, { build, reference, timeoutMs = kDefaultTimeoutMs, deadline = Infinity }) {
  const folder = path.resolve(dir);
  const meta = FindingStore.read(folder);
  const file = path.join(folder, 'repro-fork.js');
  // Written first: it is the file the two runs run.
  writeAtomic(file, forkReproScript(meta, { reference: null, referenceVersion }), 0o755);
  // Never shortened to fit the deadline, which would make a slow run a hang: the deadline only stops it.
  const runTimeout = Math.max(timeoutMs, kLeastTimeoutMs);
  const [b, r] = await Promise.all([build, reference]
    .map((node) => observeIn(node, file, { timeoutMs: runTimeout, deadline })));
  const reachability = judge(meta,
    { build: { node: build, observation: b }, reference: { node: reference, observation: r } });
  recordReachability(folder, meta, reachability, reachability.checked ? r : null);
  return reachability;
}

// A finding left unchecked still gets its repro-fork.js and issue.md, saying so.
function recordUnchecked(folder, why) {
  const reachability = notChecked(why);
  recordReachability(folder, FindingStore.read(folder), reachability, null);
  return reachability;
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
  checkFinding, checkFindings, recordUnchecked, reachSeconds, referenceVersion, notCheckedText, kReportHeading,
};
