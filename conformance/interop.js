'use strict';
// Who can talk to whom: the wire check of every runtime (the frames a child of
// it writes for the wire sample, read as bytes by a Node parent, and which V8
// header versions it reads), the handshake that decides whether a fork pair
// can talk at all, and the interoperability table built from both and from
// the pair's fork column.

const { runForkColumn } = require('./e2e/driver');
const { wireSample, programs } = require('./e2e/plan');
const { summarize, failing } = require('./judge');
const { wireFormat } = require('../harness/wire/annotate');
const { Outcome } = require('../harness/base/vocabulary');

// A string 'a' under each header version: below, at and above the 15 every
// Node release writes.
const skewVersions = [13, 14, 15, 16, 17];
const skewFrame = (version) => `00000005ff${version.toString(16).padStart(2, '0')}220161`;
// Probes end early: a reader that ignores a frame it cannot read hangs until then.
const kProbeMs = 3000;

function header(hex) {
  const f = wireFormat(Buffer.from(hex, 'hex'));
  if (f.format === 'v8') return `V8 version ${f.version}`;
  return f.format === 'json' ? 'JSON lines' : `not V8's format (${f.why})`;
}

// The wire facts of one runtime, measured through a Node parent: { writes:
// { advanced, json }: { bytes, header, delivered, errors }, reads: { version: accepted }, highest }.
async function wireCheck(prober, binary, { timeoutMs }) {
  // One parent per probe, all at once: a reader that ignores frames costs one probe time, not five.
  const probe = async (serialization, c) => (await runForkColumn({
    parent: prober.runtime, child: binary.runtime, serialization, cases: [c], timeoutMs: Math.min(timeoutMs, kProbeMs),
  })).get(c.id)[c.parts[0]];
  const [advancedCapture, jsonCapture, ...accepts] = await Promise.all([
    ...['advanced', 'json'].map((mode) => probe(mode, { type: 'capture', id: 'capture', parts: ['capture'] })),
    ...skewVersions.map((v) => probe('advanced',
      { type: 'accept', id: 'accept', parts: ['accept'], frame: skewFrame(v) })),
  ]);
  const captured = (outcome) => ({
    bytes: outcome.bytes ?? '', header: outcome.bytes ? header(outcome.bytes) : 'nothing written',
    delivered: outcome.messages ?? 0, errors: (outcome.errors ?? []).map((e) => e.message),
    ...(outcome.kind !== 'capture' && { failure: summarize(outcome) }),
  });
  const reads = Object.fromEntries(skewVersions.map((v, i) => {
    const o = accepts[i];
    return [v, { accepted: o.kind === Outcome.ok && o.tree?.v === 'a', outcome: summarize(o) }];
  }));
  const accepted = skewVersions.filter((v) => reads[v].accepted);
  return {
    writes: { advanced: captured(advancedCapture), json: captured(jsonCapture) },
    reads, highest: accepted.at(-1) ?? null,
  };
}

// The wire check of every binary, through a parent of the first Node binary.
async function wireChecks(binaries, { timeoutMs }) {
  const prober = binaries.find((b) => b.runtime.name === 'node');
  const checks = await Promise.all(binaries.map((b) => wireCheck(prober, b, { timeoutMs })));
  return Object.fromEntries(binaries.map((b, i) => [b.label, checks[i]]));
}

const sampleCount = programs[wireSample].values().length;

// Whether a parent of one runtime and a child of another exchange the wire
// sample at all, both ways: null when they do, else the direction and why.
async function handshake(column, { timeoutMs }) {
  const outcomes = await runForkColumn({
    parent: column.binary.runtime, child: column.child.runtime, serialization: column.serialization,
    cases: [{ type: 'program', id: 'handshake', program: wireSample }], timeoutMs: Math.min(timeoutMs, kProbeMs),
  });
  const { toChild, toParent } = outcomes.get('handshake');
  for (const [where, o] of [['parent → child', toChild], ['child → parent', toParent]]) {
    if (o?.kind !== 'ok' || o.messages.length !== sampleCount) {
      const raised = o?.errors?.length ? ` after ${o.errors[0].name}: ${o.errors[0].message}` : '';
      const writer = where === 'parent → child' ? column.binary : column.child;
      return { where, why: `${summarize(o)}${raised}`, writer };
    }
  }
  return null;
}

// What the wire check says of a writer and a reader: a header version above
// the reader's highest, or a format that is not V8's.
function skewReason(wire, writer, reader, mode) {
  if (mode !== 'advanced' || !wire[writer.label] || !wire[reader.label]) return '';
  const f = wireFormat(Buffer.from(wire[writer.label].writes.advanced.bytes, 'hex'));
  const highest = wire[reader.label].highest;
  if (f.format !== 'v8') return `${writer.label} writes a format that is not V8's; `;
  if (highest === null) return `${reader.label} does not read V8's format; `;
  if (f.version > highest) {
    return `header version: ${writer.label} writes ${f.version}, ${reader.label} reads at most ${highest}; `;
  }
  return '';
}

// One row per fork column: { parent, child, mode, state, why, frames: [{ who, bytes, header }] }.
// state: works | differs | cannot talk.
function interopRows(result) {
  return result.columns.filter((c) => c.codec === 'fork').map((column) => {
    const base = {
      parent: column.binary.label, child: column.child.label, mode: column.serialization, column: column.id,
    };
    if (column.silent) {
      const { writer, where, why } = column.silent;
      const reader = writer === column.binary ? column.child : column.binary;
      // The sender's frames, and the other side's when they are of another format or version.
      const writes = (b) => result.wire[b.label]?.writes[column.serialization];
      const frames = [writer, reader].filter((b) => writes(b)?.bytes).map((b) => ({ who: b.label, ...writes(b) }))
        .filter((f, i, all) => i === 0 || f.header !== all[0].header);
      const skew = skewReason(result.wire, writer, reader, column.serialization);
      return { ...base, state: 'cannot talk', why: `${skew}${where}: ${why}`, frames };
    }
    const bad = result.rows.filter((r) => failing.has(r.cells[column.id].state));
    if (!bad.length) return { ...base, state: 'works', why: '' };
    const first = bad[0].cells[column.id].differences?.find((d) => !d.known);
    const count = `${bad.length} case${bad.length > 1 ? 's' : ''}`;
    return { ...base, state: 'differs', why: `${count} differ, e.g. ${bad[0].id}` +
      `${first ? `: ${first.where}: ${first.detail}` : ''}` };
  });
}

module.exports = { wireCheck, wireChecks, handshake, interopRows, skewReason };
