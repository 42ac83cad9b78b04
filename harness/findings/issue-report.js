'use strict';
// issue.md: a finding as a bug report for nodejs/node, in the fields of its
// bug report form (.github/ISSUE_TEMPLATE/1-bug-report.yml): Version,
// Platform, Subsystem, the steps, how often, the expected behaviour and why,
// what is seen instead, additional information. Filled from finding.json and
// its check (reach/): the steps are the short repro-fork.js when the
// difference shows through child_process, the short repro.js with a note when
// not, pasted whole. A crash or hang a peer's message causes goes to Node's
// security policy.

const path = require('node:path');
const { FindingStore } = require('./recorder');
const { codecObservations } = require('./repro/codec');
const { observations, kArrived } = require('./repro/fork');
const { platform } = require('./reach/round-trip');
const { Outcome } = require('../base/vocabulary');

const kLineWidth = 300;
const referenceText = 'its child_process still runs the JavaScript codec ' +
  '(lib/internal/child_process/serialization.js and lib/v8.js), which 26.4 replaced with a C++ codec, ' +
  'internalBinding(\'ipc_serdes\'), meant to behave the same';

const clip = (line) => (line.length > kLineWidth ? `${line.slice(0, kLineWidth - 1)}…` : line);

// A fenced block longer than any run of backticks in the text.
function fence(text, lang = '') {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${lang}\n${text.replace(/\n$/, '')}\n${marks}`;
}

const pasted = (folder, file) => ['<details><summary>' + file + '</summary>', '',
  fence(FindingStore.readText(folder, file) ?? `(${file} is missing)`, 'js'), '', '</details>'];

function stepsOf(meta, reach, reachable, folder) {
  if (reachable) {
    const what = meta.type === 'value' || meta.type === 'roundtrip' ?
      'sends it the value with `child.send()`' :
      'has the child write the bytes straight into its end of the IPC channel, then send one more message';
    return ['Save the script below as `repro-fork.js` and run it with the affected build, then with Node.js ' +
      `${reach.reference.version}:`, '', fence('$ node repro-fork.js', 'console'), '',
    `It forks a child of the same binary with \`{ serialization: 'advanced' }\`, ${what}, and compares ` +
      `${whatFork(meta, reach)} with what Node.js ${reach.reference.version} does (recorded in the script). It uses ` +
      'public APIs only, and exits 1 where they differ, 0 where not.', '', ...pasted(folder, 'repro-fork.js')];
  }
  const why = reach.checked ? `ipcfuzz sent this input through \`child_process.fork(..., { serialization: 'advanced' })\`` +
    ` in this build and in Node.js ${reach.reference.version}: ${reach.verdict}.` :
    `This has not been checked through child_process (${reach.verdict}); \`npx ipcfuzz report <finding folder>\` ` +
      'checks it and writes this report again.';
  return [`> **Note:** ${clip(why)} These steps call the codec directly, through internal APIs.`, '',
    'Run `repro.js` with the affected build:', '', fence('$ node --expose-internals repro.js', 'console'), '',
    `It compares ${codecObservations[reach.repro?.observe] ?? 'what the codec does'} with what Node.js 26.3.1's ` +
      'JavaScript codec did (recorded in the script), and exits 1 when they differ, 0 when not.', '',
    ...pasted(folder, 'repro.js')];
}

const whatFork = (meta, reach) => (meta.type === 'value' || meta.type === 'roundtrip' ?
  observations[reach.observe] : kArrived);

function howOften(meta, reach, reachable) {
  const count = meta.count ?? 1;
  const through = reachable ? `; repro-fork.js showed it through child_process in Node.js ${reach.build.version}` : '';
  const condition = meta.type === 'stream' && meta.input.chunks?.length ?
    ` Condition: the bytes reach the receiver in reads of ${meta.input.chunks.join(', ')} bytes (the rest in a last ` +
      'read); the script writes them a piece at a time.' :
    ' No other condition is known.';
  return [`Every time: ipcfuzz confirmed the difference with both codecs in fresh processes before saving it, and ` +
    `has met it ${count} time${count === 1 ? '' : 's'}${through}.${condition}`];
}

function securityNote(meta, reach) {
  const what = /^hung/.test(reach.build.seen) ? Outcome.hang : Outcome.crash;
  const carrier = meta.type === 'value' || meta.type === 'roundtrip' ? 'message' : 'bytes';
  return [
    '> [!WARNING]',
    `> **Do not file this on the public issue tracker.** A peer process can ${what} the receiving process with ` +
      `this ${carrier} on a child_process IPC channel. Follow Node.js's security policy ` +
      '(https://github.com/nodejs/node/blob/main/SECURITY.md): report it privately through HackerOne, ' +
      'https://hackerone.com/nodejs.', '',
  ];
}

// What each side saw, for the expected and the actual fields.
function seenBy(meta, reach, reachable, side) {
  if (reachable) return `${whatFork(meta, reach)}: ${reach[side].seen}`;
  const repro = reach.repro ?? {};
  const seen = side === 'reference' ? repro.expected : repro.seen;
  return `${codecObservations[repro.observe] ?? 'what the codec does'}: ${seen ?? '(not recorded)'}`;
}

// The bug report of a finding (finding.json's fields) given its check, whose files are in `folder`.
function issueMarkdown(meta, reach, folder) {
  const reachable = Boolean(reach.checked && reach.reachable);
  const version = reach.build?.version ?? meta.sides?.b?.version ?? 'unknown';
  const expected = reachable ?
    [`What Node.js ${reach.reference.version} does: ${referenceText}.`, '', fence(seenBy(meta, reach, true, 'reference'))] :
    [`What the JavaScript codec (the codec Node.js ran up to 26.3) does with it, called directly:`, '',
      fence(seenBy(meta, reach, false, 'reference'))];
  const actual = reachable ? [`What Node.js ${version} does:`, '', fence(seenBy(meta, reach, true, 'build'))] :
    [`What \`${path.basename(meta.sides?.b?.codec ?? 'native')}\` does with it, called directly in Node.js ${version}:`,
      '', fence(seenBy(meta, reach, false, 'build'))];
  return [
    `<!-- ipcfuzz finding ${path.basename(folder)} (${meta.signature}): a bug report in the fields of nodejs/node's ` +
      'bug report form, .github/ISSUE_TEMPLATE/1-bug-report.yml. -->',
    ...(reachable && reach.peerCrash ? securityNote(meta, reach) : []),
    `**Title:** ${reach.title}`, '',
    '### Version', '', version, '',
    '### Platform', '', reach.build?.platform ?? platform(), '',
    '### Subsystem', '', 'child_process', '',
    '### What steps will reproduce the bug?', '', ...stepsOf(meta, reach, reachable, folder), '',
    '### How often does it reproduce? Is there a required condition?', '', ...howOften(meta, reach, reachable), '',
    '### What is the expected behavior? Why is that the expected behavior?', '', ...expected, '',
    '### What do you see instead?', '', ...actual, '',
    '### Additional information', '',
    `- Found by ipcfuzz, differential fuzzing of the advanced serialization codec: signature \`${meta.signature}\`, ` +
      `tier \`${meta.tier}\`.`,
    `- Between the codecs called directly: ${clip(`${meta.where}: ${meta.detail}`)}.`,
    `- Through child_process: ${clip(reach.verdict)}.`,
    ...(meta.replay ? [`- The full comparison: \`${meta.replay}\`, and \`npx ipcfuzz report --full <folder>\`.`] : []),
    '',
  ].join('\n');
}

module.exports = { issueMarkdown };
