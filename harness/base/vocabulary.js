'use strict';
// The words the rooms of the harness pass between them, each defined once,
// at the bottom of the house: what a codec call ends in, the tiers a
// difference is sorted into, what the recorder makes of a difference, and
// where a check runs. Everything else names them through these tables: the
// lint rule ipcfuzz/vocabulary (eslint.config.js) refuses one of these words
// spelled out where an outcome's kind, a difference's tier or a settled
// status is compared or made.

// What one codec call, or a worker's answer for it, ended in. The last two a
// driver gives for a worker that died on the call or did not answer it.
const Outcome = Object.freeze({
  ok: 'ok',                   // the codec gave a frame, a value, reads
  reject: 'reject',           // the codec threw
  unbuildable: 'unbuildable', // the input's value could not be built: no input at all
  crash: 'crash',             // the process that ran it died (a signal, or an exit code)
  hang: 'hang',               // it did not answer within the time limit
});

// Whether a call took its process down or never answered: a crash or a hang.
const endedProcess = (outcome) => outcome?.kind === Outcome.crash || outcome?.kind === Outcome.hang;

// The tiers, most severe first: how far a difference reaches. Each with what
// it means (docs/findings.md's table, held to it by a test) and its help
// (the SARIF rules' short description).
const tierTable = Object.freeze([
  ['crash', 'a codec crashed or hung (and the other did not, or not the same way)',
    'A codec crashed or hung on this input.'],
  ['acceptance', 'one codec accepted what the other rejected', 'One codec accepted what the other rejected.'],
  ['roundtrip', 'a codec wrote a frame it cannot read back, or reads back another value (also when both codecs agree)',
    'A codec wrote a frame it cannot read back, or reads back another value.'],
  ['error-identity', 'both rejected, with a different error class or code',
    'Both codecs rejected, with a different error class or code.'],
  ['bytes', 'both serialized, to different frames', 'Both codecs serialized the value, to different frames.'],
  ['classification', 'decoded values differ in type, prototype or Buffer-ness',
    'Decoded values differ in type, prototype or Buffer-ness.'],
  ['value', 'decoded values differ in anything else', 'Decoded values differ.'],
  ['effects', 'writing or reading ran different user code (getters, setters, replaced built-ins)',
    'Serializing ran different user code (getters, setters).'],
  ['framing', 'a framer delivered a different number of messages or `buffering` state',
    'A framer delivered a different number of messages or buffering state.'],
].map(([name, meaning, help]) => Object.freeze({ name, meaning, help })));
const camel = (name) => name.replace(/-(\w)/g, (m, c) => c.toUpperCase());
const Tier = Object.freeze(Object.fromEntries(tierTable.map(({ name }) => [camel(name), name])));
const tiers = Object.freeze(tierTable.map(({ name }) => name));
const tierOf = (tier) => tierTable.find(({ name }) => name === tier);

// What the recorder made of a difference (FindingRecorder.settle).
const Settled = Object.freeze({
  finding: 'finding',         // saved now, a new finding
  found: 'found',             // a finding of this run already
  seenAgain: 'seen-again',    // saved by an earlier run: its count goes up
  known: 'known',             // the known list accepts it
  history: 'history',         // it did not stand in fresh processes
  pairing: 'pairing',         // it paired two causes, each codec stopping at another part: its parts follow it
  consequence: 'consequence', // user code one codec alone ran made it: that code follows it
  combination: 'combination', // it was named by two causes: the parts that show alone follow it
});
// Those that explain a difference by others, which follow it in the list.
const explainedBy = Object.freeze([Settled.pairing, Settled.consequence, Settled.combination]);

// Where the check of one input runs (run/placement.js placeCheck).
const Place = Object.freeze({
  here: 'here',                    // both sides in this process
  batch: 'batch',                  // whole, with others, in a batch worker
  batchApart: 'batch apart',       // the same, in the batch workers of inputs that change shared state
  apart: 'apart',                  // whole, in the blocking session's worker of those inputs
  screenedWorker: 'screened worker', // whole, in the worker of the screened inputs
  requests: 'requests',            // request by request, each placed by placeRequest
  leftOut: 'left out',             // not checked (the bench's skipScreened)
});

module.exports = { Outcome, endedProcess, Tier, tiers, tierTable, tierOf, Settled, explainedBy, Place };
