'use strict';
// The C model of the wire format (model.c beside this file), loaded as a
// Node-API addon: a third opinion next to two codecs, decoding a frame the
// way the format says, without V8.

const path = require('node:path');
const { EnvironmentError } = require('../../harness/base/errors');
const { annotateStream } = require('../../harness/wire/annotate');

const addonPath = path.join(__dirname, 'build', 'Release', 'ipcfuzz_model.node');
let addon;

function load() {
  if (!addon) {
    try {
      addon = require(addonPath);
    } catch (err) {
      throw new EnvironmentError(`the C model is not built (${err.code ?? err.message.split('\n')[0]}): run scripts/build-native.sh`);
    }
  }
  return addon;
}

function available() {
  try {
    load();
    return true;
  } catch {
    return false;
  }
}

// The first frame of `bytes`: { ok, tree, valueEnd, trailing, frameEnd, version }
// or { ok: false, reason, detail, offset, frameEnd, version }.
function decodeFrame(bytes) {
  const verdict = load().decodeFrame(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (verdict.ok) verdict.tree = JSON.parse(verdict.json);
  delete verdict.json;
  return verdict;
}

// One line for people: "accept" or "reject <reason> at 0x..: <detail>".
function describeVerdict(verdict) {
  if (verdict.ok) return `accept${verdict.trailing ? ` (${verdict.trailing} payload bytes after the value, ignored)` : ''}`;
  return `reject ${verdict.reason} at 0x${verdict.offset.toString(16)}: ${verdict.detail}`;
}

// One line per frame of a byte stream (cut where the annotated hex dump
// cuts it), for reports: the model's verdict and the value it decoded.
function verdictLines(bytes) {
  const { describe } = require('../../harness/findings/report');
  let start = 0;
  return annotateStream(bytes).map((frame, i) => {
    const verdict = decodeFrame(bytes.subarray(start));
    const where = `model, frame ${i + 1} at 0x${start.toString(16)}`;
    const line = verdict.ok ? `${where}: ${describeVerdict(verdict)}: ${describe(verdict.tree)}` :
      `${where}: ${describeVerdict({ ...verdict, offset: start + verdict.offset })}`;
    start = frame.end;
    return line;
  });
}

// A view copied because it was unaligned in the frame has backing 'copy' in
// the model: where the copy lives ('slice' of Buffer's pool or an 'exact'
// buffer) depends on the runtime's Buffer.poolSize, not on the bytes. Returns
// the reference tree with those views' backing replaced by 'copy'.
function alignWithModel(reference, model) {
  if (reference === null || model === null) return reference;
  if (typeof reference !== 'object' || typeof model !== 'object') return reference;
  if (Array.isArray(reference)) return reference.map((item, i) => alignWithModel(item, model[i]));
  const out = {};
  for (const [key, value] of Object.entries(reference)) out[key] = alignWithModel(value, model[key]);
  if (reference.t === 'view' && model.t === 'view' && model.backing === 'copy' && reference.backing !== 'frame') {
    out.backing = 'copy';
  }
  return out;
}

module.exports = { available, decodeFrame, verdictLines, alignWithModel };
