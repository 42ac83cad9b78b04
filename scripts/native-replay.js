#!/usr/bin/env node
'use strict';
// Replays the native fuzzers' corpus (raw frames) through the real codecs,
// as the frame check does: each file is a byte stream read by a fresh framer
// of codec a and of codec b in one read. A new difference is a finding like
// any other (saved under --out); known ones are counted. With --export DIR,
// the files are also written there in the Jazzer.js frame target's input
// format (a leading 0x00: keep the length prefix as it is).
//
// Usage: node scripts/native-replay.js [DIR] [--a CODEC] [--b CODEC] [--node VERSION]
//          [--out DIR] [--export DIR]
// Exit: 0 no new finding, 1 new findings, 2 usage or environment error.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { parseArgs } = require('node:util');
const { Session } = require('../harness/run/session');
const { loadKnown } = require('../harness/oracle/known');
const { FindingStore, FindingRecorder } = require('../harness/findings/recorder');
const { root } = require('../harness/base/binaries');
const { frameSeed } = require('../fuzzers/jazzer/inputs');
const { kCallTimeoutMs } = require('../harness/base/defaults');

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      a: { type: 'string', default: 'js' },
      b: { type: 'string', default: 'native' },
      node: { type: 'string' },
      out: { type: 'string', default: path.join(root, 'findings') },
      export: { type: 'string' },
    },
  });
  const dir = path.resolve(positionals[0] ?? path.join(root, 'corpus', 'native'));
  const files = fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
  const session = new Session({
    a: { codec: values.a, node: values.node }, b: { codec: values.b, node: values.node }, timeoutMs: kCallTimeoutMs,
  });
  // Every difference stands: the frame check has no process history to rule out.
  const store = new FindingStore(values.out);
  const recorder = new FindingRecorder({
    known: loadKnown(), store, sides: session.sides, check: (type, input) => session.check(type, input),
  });
  try {
    for (const file of files) {
      const bytes = fs.readFileSync(path.join(dir, file));
      if (values.export) exportInput(values.export, bytes);
      const result = await session.check('frame', { bytes: bytes.toString('hex') });
      await recorder.add(result, { engine: 'native-corpus', file: path.join(dir, file) });
    }
  } finally {
    session.close();
  }
  const { findings, knownHits } = recorder;
  console.log(`${files.length} files of ${path.relative(process.cwd(), dir) || '.'} through ${values.a} and ${values.b}`);
  console.log(`  known differences seen: ${[...knownHits].map(([id, n]) => `${id} ×${n}`).join(', ') || 'none'}`);
  for (const [signature, { folder }] of findings) {
    console.log(`  finding ${signature}  ${path.relative(process.cwd(), folder)}`);
  }
  if (!findings.size) console.log('  no new findings');
  return findings.size ? 1 : 0;
}

// The frame target reads a flag byte first (bit 0: fix the length prefix).
function exportInput(dir, frame) {
  fs.mkdirSync(dir, { recursive: true });
  const input = frameSeed(frame);
  const file = path.join(dir, crypto.createHash('sha1').update(input).digest('hex'));
  if (!fs.existsSync(file)) fs.writeFileSync(file, input);
}

main().then((code) => { process.exitCode = code; }, (err) => {
  console.error(`native-replay: ${err.message.split('\n')[0]}`);
  process.exitCode = 2;
});
