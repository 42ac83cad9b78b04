'use strict';
// issue.md: a finding as a bug report for nodejs/node, in the fields of its
// bug report form (.github/ISSUE_TEMPLATE/1-bug-report.yml): Version,
// Platform, Subsystem, the steps, how often, the expected behaviour and why,
// what is seen instead, additional information. Filled from finding.json and
// its reachability check (reach/): the steps are repro-fork.js when the
// difference shows through child_process, repro.js with a note when not. A
// crash or hang a peer's message causes goes to Node's security policy.

const path = require('node:path');
const { describe, describeOutcome } = require('./report');
const { FindingStore } = require('./recorder');
const { platform } = require('./reach/round-trip');

// GitHub takes 65,536 characters in an issue's body: a longer script is attached, not pasted.
const kPasteLimit = 48_000;
const kLineWidth = 300;
const kMaxLines = 40;
const referenceText = 'its child_process still runs the JavaScript codec ' +
  '(lib/internal/child_process/serialization.js and lib/v8.js), which 26.4 replaced with a C++ codec, ' +
  'internalBinding(\'ipc_serdes\'), meant to behave the same';

const clip = (line) => (line.length > kLineWidth ? `${line.slice(0, kLineWidth - 1)}…` : line);

function clipLines(lines) {
  const out = lines.map(clip);
  return out.length > kMaxLines ? [...out.slice(0, kMaxLines), `… ${out.length - kMaxLines} more lines`] : out;
}

// A fenced block longer than any run of backticks in the text.
function fence(text, lang = '') {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${lang}\n${text.replace(/\n$/, '')}\n${marks}`;
}

// What one codec did with the input, called directly (finding.json's outcomes).
function codecLines(meta, side) {
  const o = meta.outcomes ?? {};
  const lines = [];
  if (o.serialize) {
    lines.push(`serialize: ${describeOutcome(o.serialize[side])}`);
    if (o.serialize[side].effects?.length) lines.push(`user code run: ${o.serialize[side].effects.join(', ')}`);
    for (const d of o.decode ?? []) lines.push(`decode ${d.producer}'s frame: ${describeOutcome(d[side])}`);
  }
  if (o.roundtrip) lines.push(`decode and re-encode: ${describeOutcome(o.roundtrip[side])}`);
  if (o.stream) {
    const s = o.stream[side];
    if (s.kind !== 'ok') lines.push(`framer: ${describeOutcome(s)}`);
    else {
      s.reads.forEach((r, i) => lines.push(`read ${i + 1}: ` +
        `${r.delivered.map((t) => describe(t)).join('; ') || 'nothing delivered'}` +
        `${r.error ? `, ${describeOutcome({ kind: 'reject', error: r.error })}` : ''}, buffering ${r.buffering}`));
    }
  }
  return clipLines(lines.flatMap((l) => l.split('\n')));
}

function titleOf(meta, reach, reachable) {
  if (reachable) return clip(`child_process (serialization 'advanced'): ${reach.differs.build}`);
  return clip(`child_process: the advanced serialization codec, called directly: ${meta.where}: ${meta.detail}`);
}

function stepsOf(meta, reach, reachable, folder) {
  const bytes = meta.input?.bytes;
  if (reachable) {
    const what = meta.type === 'value' || meta.type === 'roundtrip' ?
      'sends it the value with `child.send()`' :
      `has the child write ${bytes.length / 2} bytes straight into its end of the IPC channel (fd 3)` +
      `${meta.type === 'stream' ? ', a piece at a time' : ''} and send one more message after them`;
    const script = FindingStore.readText(folder, 'repro-fork.js') ?? '';
    const lines = [
      'Save the script below as `repro-fork.js` and run it with the affected build, then with Node.js ' +
        `${reach.reference.version}:`, '', fence('$ node repro-fork.js', 'console'), '',
      `It forks a child of the same binary with \`{ serialization: 'advanced' }\`, ${what}, and prints what each ` +
        'side saw. It uses public APIs only, and exits 1 where the round trip differs from what Node.js ' +
        `${reach.reference.version} does (recorded in the script), 0 where it does not.`,
    ];
    if (bytes !== undefined && bytes.length <= 512) lines.push('', `The bytes, length prefix included: \`${bytes}\``);
    lines.push('');
    if (script.length > kPasteLimit) {
      lines.push(`repro-fork.js is ${Math.round(script.length / 1024)} KB, too long to paste here: attach it.`);
    } else {
      lines.push('<details><summary>repro-fork.js</summary>', '', fence(script, 'js'), '', '</details>');
    }
    return lines;
  }
  const why = reach.checked ?
    'ipcfuzz sent this input through `child_process.fork(..., { serialization: \'advanced\' })` in this build ' +
      `and in Node.js ${reach.reference.version}, and both behaved alike (${reach.build.saw.slice(1).join('; ')}).` :
    `This has not been checked through child_process (${reach.verdict}); \`npx ipcfuzz report <finding folder>\` ` +
      'checks it and writes this report again.';
  const script = FindingStore.readText(folder, 'repro.js') ?? '';
  const lines = [
    `> **Note:** ${clip(why)} These steps call the codec directly, through internal APIs.`, '',
    'Run `repro.js` with the affected build:', '', fence('$ node --expose-internals repro.js', 'console'), '',
    'It runs the input through the JavaScript codec and through `internalBinding(\'ipc_serdes\')`, prints both ' +
      'outcomes with the annotated frames, and exits 1 when they differ, 0 when not.', '',
  ];
  if (script.length > kPasteLimit) {
    lines.push(`repro.js is ${Math.round(script.length / 1024)} KB, too long to paste here: attach it.`);
  } else {
    lines.push('<details><summary>repro.js</summary>', '', fence(script, 'js'), '', '</details>');
  }
  return lines;
}

function howOften(meta, reach, reachable) {
  const seen = `ipcfuzz confirmed the difference with both codecs in fresh processes before saving it, and has met ` +
    `it ${meta.count ?? 1} time${(meta.count ?? 1) === 1 ? '' : 's'}`;
  const through = reachable ? `; repro-fork.js showed it through child_process in Node.js ${reach.build.version}` : '';
  const condition = meta.type === 'stream' && meta.input.chunks?.length ?
    ` Condition: the bytes reach the receiver in reads of ${meta.input.chunks.join(', ')} bytes (the rest in a last ` +
      'read); the script writes them one piece at a time and waits until each is read.' :
    ' No other condition is known.';
  return [`Every time: ${seen}${through}.${condition}`];
}

function securityNote(meta, reach) {
  const what = reach.build.record.kind === 'hang' ? 'hang' : 'crash';
  const carrier = meta.type === 'value' || meta.type === 'roundtrip' ? 'message' : 'bytes';
  return [
    '> [!WARNING]',
    `> **Do not file this on the public issue tracker.** A peer process can ${what} the receiving process with ` +
      `this ${carrier} on a child_process IPC channel (${reach.peer}). Follow Node.js's security policy ` +
      '(https://github.com/nodejs/node/blob/main/SECURITY.md): report it privately through HackerOne, ' +
      'https://hackerone.com/nodejs.', '',
  ];
}

// The bug report of a finding (its finding.json, with `reachability`) whose files are in `folder`.
function issueMarkdown(meta, folder) {
  const reach = meta.reachability ?? { checked: false, verdict: 'reachability not checked' };
  const reachable = Boolean(reach.checked && reach.reachable);
  const b = meta.sides?.b ?? {};
  const version = reach.build?.version ?? b.version ?? 'unknown';
  const expected = reachable ? [
    `What Node.js ${reach.reference.version} does: ${referenceText}.`, '', fence(reach.reference.saw.join('\n'), 'text'),
  ] : [
    `What the JavaScript codec (\`${meta.sides?.a?.codec ?? 'js'}\`, the reference: the codec Node.js ran up to 26.3) ` +
      `does with it, called directly in Node.js ${meta.sides?.a?.version ?? version}:`, '',
    fence(codecLines(meta, 'a').join('\n'), 'text'),
  ];
  const actual = reachable ? [
    `What Node.js ${version} does:`, '', fence(reach.build.saw.join('\n'), 'text'),
  ] : [
    `What \`${path.basename(b.codec ?? 'native')}\` does with it, called directly in Node.js ${version}:`, '',
    fence(codecLines(meta, 'b').join('\n'), 'text'),
  ];
  const differences = reach.checked ? reach.differences.map((d) => `  - ${d.tier}: ${d.where}: ${d.detail}`) : [];
  return [
    `<!-- ipcfuzz finding ${path.basename(folder)} (${meta.signature}): a bug report in the fields of nodejs/node's ` +
      'bug report form, .github/ISSUE_TEMPLATE/1-bug-report.yml. -->',
    ...(reachable && reach.peerCrash ? securityNote(meta, reach) : []),
    `**Title:** ${titleOf(meta, reach, reachable)}`, '',
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
    `- Between the codecs called directly (\`${meta.sides?.a?.codec}\` in Node.js ${meta.sides?.a?.version}, ` +
      `\`${path.basename(b.codec ?? '')}\` in ${version}): ${clip(`${meta.where}: ${meta.detail}`)}.`,
    `- Through child_process: ${reach.verdict}.`, ...differences,
    ...(meta.replay ? [`- Replay with ipcfuzz: \`${meta.replay}\``] : []),
    '',
  ].join('\n');
}

module.exports = { issueMarkdown };
