'use strict';
// The findings folder: one subfolder per distinct problem (codec pair and
// signature), holding the input, both outcomes and an annotated report (the
// short repro scripts and issue.md follow once the run has checked it,
// reach/). A problem seen again only bumps its count: saved
// inputs are never replaced, and nothing saved is ever deleted. FindingRecorder is
// the one way every engine, the gate and the replays turn a check result into
// findings: known differences counted, repeats skipped, new ones confirmed in
// fresh processes and saved once.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { renderResult } = require('./report');
const { EnvironmentError, UsageError } = require('../base/errors');
const { classify } = require('../oracle/known');
const { effectsCause, partsOf } = require('../oracle/compare');
const { reduce, sizeOf, isPairing } = require('./reduce');
const { drive } = require('../oracle/drive');
const { Settled, Tier, tiers } = require('../base/vocabulary');
const { kReduceMs } = require('../base/defaults');

const kMeta = 'finding.json';

function slug(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
}

function codecLabel(spec) {
  return spec.includes('/') ? path.basename(spec, '.js') : spec;
}

class FindingStore {
  constructor(dir) {
    this.dir = path.resolve(dir);
    try {
      fs.mkdirSync(this.dir, { recursive: true });
    } catch (err) {
      throw new EnvironmentError(`cannot create findings folder ${dir}: ${err.code ?? err.message}`);
    }
    finishStaging(this.dir);
  }

  folderFor(sides, signature) {
    const key = `${sides.a.codec}~${sides.b.codec}:${signature}`;
    const hash = crypto.createHash('sha256').update(key).digest('hex').slice(0, 8);
    return path.join(this.dir, `${slug(`${codecLabel(sides.b.codec)}-${signature}`)}-${hash}`);
  }

  has(sides, signature) {
    return fs.existsSync(path.join(this.folderFor(sides, signature), kMeta));
  }

  // The folders that hold a saved finding.
  list() {
    return FindingStore.list(this.dir);
  }

  static list(dir) {
    if (!fs.existsSync(dir)) return [];
    // A folder still being written (see record) ends in .tmp.
    return fs.readdirSync(dir).filter((f) => !f.endsWith('.tmp')).map((f) => path.join(dir, f))
      .filter((f) => fs.existsSync(path.join(f, kMeta)));
  }

  // The text of a file of a finding's folder, or null where it is not there.
  static readText(folder, file) {
    try {
      return fs.readFileSync(path.join(folder, file), 'utf8');
    } catch {
      return null;
    }
  }

  // The parsed finding.json of a finding's folder.
  static read(folder) {
    return JSON.parse(fs.readFileSync(path.join(folder, kMeta), 'utf8'));
  }

  read(folder) {
    return FindingStore.read(folder);
  }

  // Records one difference of a check result; returns { folder, isNew }. A
  // new finding is written in a folder of its own and renamed into place:
  // of two processes that save one difference at once (two engines, or two
  // libFuzzer processes of a target), the first keeps its input and the
  // other counts it as seen again. `result` may be a function that gives
  // it, asked only when the finding is written.
  record(result, difference, { sides, origin, reduction }) {
    const folder = this.folderFor(sides, difference.signature);
    if (fs.existsSync(path.join(folder, kMeta))) return countUp(folder);
    // A folder left without finding.json (a process killed while saving) is written in place.
    const staging = fs.existsSync(folder) ? folder : `${folder}.${process.pid}.tmp`;
    fs.mkdirSync(staging, { recursive: true });
    writeFinding(staging, folder, typeof result === 'function' ? result() : result, difference,
      { sides, origin, reduction });
    if (staging === folder) return { folder, isNew: true };
    const failed = putInPlace(staging, folder);
    if (failed && fs.existsSync(path.join(folder, kMeta))) return countUp(folder);
    if (failed) throw failed;
    return { folder, isNew: true };
  }
}

// Whether a process of this pid is running (one of another user's counts).
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

// The staging folders (see record) of processes that ended before they
// renamed them, killed while saving: one that holds its finding.json was
// written whole (it is written last) and takes its place, unless a folder of
// that difference is there by now; any other was never saved and is removed.
// Processes that open the store at once may finish the same one: a rename
// that fails has found it gone, or its place taken.
function finishStaging(dir) {
  for (const name of fs.readdirSync(dir)) {
    const staged = /^(.+)\.(\d+)\.tmp$/.exec(name);
    if (!staged || alive(Number(staged[2]))) continue;
    const staging = path.join(dir, name);
    const folder = path.join(dir, staged[1]);
    if (fs.existsSync(path.join(staging, kMeta)) && !fs.existsSync(folder)) putInPlace(staging, folder);
    else fs.rmSync(staging, { recursive: true, force: true });
  }
}

// Renames a staging folder to its finding's folder; one that cannot be (the
// place taken by another process, or the staging folder gone) is removed.
// Gives the rename's error, or null.
function putInPlace(staging, folder) {
  try {
    fs.renameSync(staging, folder);
    return null;
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    return err;
  }
}

// A saved finding met again: its count and when it was last seen.
function countUp(folder) {
  const saved = FindingStore.read(folder);
  saved.count = (saved.count ?? 1) + 1;
  saved.lastSeen = new Date().toISOString();
  writeAtomic(path.join(folder, kMeta), metaText(saved));
  return { folder, isNew: false };
}

// finding.json's text: indented down to kIndentLevels, each deeper value on
// one line. Indented all the way, a deep value's indents grow with its depth
// past any use, and the count of a finding met again is read and written
// back in the middle of a fuzz run.
const kIndentLevels = 3;
function metaText(meta) {
  // As JSON.stringify: an undefined item is null, an undefined field is left out.
  const text = (value, levels, indent) => {
    const isArray = Array.isArray(value);
    const entries = levels > 0 && value !== null && typeof value === 'object' ?
      Object.entries(value).filter(([, v]) => isArray || v !== undefined) : [];
    if (!entries.length) return leafText(value);
    const inner = `${indent}  `;
    const lines = entries.map(([k, v]) => `${inner}${isArray ? '' : `${JSON.stringify(k)}: `}${text(v, levels - 1, inner)}`);
    const [open, close] = isArray ? '[]' : '{}';
    return `${open}\n${lines.join(',\n')}\n${indent}${close}`;
  };
  return `${text(meta, kIndentLevels, '')}\n`;
}

// A tree deeper than JSON.stringify's stack (a value nested past the
// codecs' limit, decoded) is named, not saved: its input rebuilds it.
function leafText(value) {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return JSON.stringify('(nested too deep to save)');
  }
}

// The files of a new finding, written in `dir`; the paths they print are in `folder`, where they go.
function writeFinding(dir, folder, result, difference, { sides, origin, reduction }) {
  const fromValue = result.type === 'value' || result.type === 'roundtrip';
  const inputFile = !fromValue ? 'input.bin' : result.input.recipe !== undefined ? 'input.json' : null;
  if (inputFile === 'input.json') writeAtomic(path.join(dir, inputFile), `${JSON.stringify(result.input.recipe, null, 2)}\n`);
  if (inputFile === 'input.bin') writeAtomic(path.join(dir, inputFile), Buffer.from(result.input.bytes, 'hex'));
  const replay = replayCommand(result, sides, inputFile && path.join(folder, inputFile));
  const fastCheck = origin?.engine === 'fast-check' && origin.path !== undefined ?
    `\nreplay the fast-check run: npx ipcfuzz fuzz --engine fast-check --property ${origin.property} ` +
    `--seed ${origin.seed} --path ${origin.path} --a ${sides.a.codec} --b ${sides.b.codec} --node ${sides.b.node}\n` : '';
  writeAtomic(path.join(dir, 'report.txt'),
    `${renderResult(result, sides)}\n\n${reductionLine(reduction)}replay: ${replay}\n${fastCheck}`);
  writeAtomic(path.join(dir, kMeta), metaText({
    signature: difference.signature,
    tier: difference.tier,
    where: difference.where,
    detail: difference.detail,
    sides: { a: sideLabel(sides.a), b: sideLabel(sides.b) },
    origin,
    reduction,
    type: result.type,
    input: result.input,
    replay,
    differences: result.differences,
    outcomes: result.outcomes,
    count: 1,
    firstSeen: new Date().toISOString(),
  }));
}

// Turns check results into findings for one run. Known differences are
// counted; a signature met before in this run is not handled twice; with
// `skipSaved`, one a store already holds from an earlier run is counted as
// seen again instead of saved anew. A new one is settled (settle): its input
// reduced to a 1-minimal one that still shows it (reduce.js), the
// difference of that input classified again, split into the causes it pairs
// when it is a pairing, confirmed in fresh processes and saved; or else
// counted as known or history-dependent.
// check(type, input, { isolate }) gives a result, or a promise of one
// (none: inputs are recorded as they come); confirm(type, input, difference)
// true or a promise of it (none: every difference stands).
// reduction: { ms, deadline }: the time one reduction may take, and a time
// (Date.now()) after which none goes on.
class FindingRecorder {
  constructor({ known, store = null, sides, confirm = null, check = null, skipSaved = false, reduction = {} }) {
    Object.assign(this, { known, store, sides, confirmer: confirm, checker: check, skipSaved });
    this.reduction = { ms: reduction.ms ?? kReduceMs, deadline: reduction.deadline ?? Infinity };
    this.findings = new Map();
    this.knownHits = new Map();
    this.seenAgain = new Map();
    this.historyDependent = new Set();  // signatures that did not stand, at least once
    this.historyTries = new Map();  // signature -> times it did not stand
    // signature -> { status, times }: found to pair causes (pairing) or to follow from one (consequence)
    this.explained = new Map();
    this.met = new Map();  // signature -> inputs of this run that showed it, known differences apart
  }

  // Sorts the differences of one result: { fresh (met for the first time),
  // found (findings of this run), known, seenAgain }; counts the known and the
  // seen again.
  sort(result) {
    const sorted = { fresh: [], found: [], known: [], seenAgain: [] };
    for (const d of classify(result.differences, this.known)) {
      if (!d.known) this.met.set(d.signature, (this.met.get(d.signature) ?? 0) + 1);
      if (d.known) {
        this.#countKnown(d);
        sorted.known.push(d);
      } else if (this.#settled(d.signature)) {
        // counted when first met
      } else if (this.findings.has(d.signature)) {
        sorted.found.push(d);
      } else if (this.isSaved(d.signature)) {
        this.seenAgain.set(d.signature, (this.seenAgain.get(d.signature) ?? 0) + 1);
        sorted.seenAgain.push(d);
      } else {
        sorted.fresh.push(d);
      }
    }
    return sorted;
  }

  #countKnown(d) {
    this.knownHits.set(d.known, (this.knownHits.get(d.known) ?? 0) + 1);
  }

  // A signature found this often to pair causes or follow from one, or not to stand in fresh
  // processes, is not examined again in this run: another input of it may
  // still show a real difference (number representation does both ways).
  #settled(signature) {
    return (this.explained.get(signature)?.times ?? 0) >= kTriesBeforeSettled ||
      (this.historyTries.get(signature) ?? 0) >= kTriesBeforeSettled;
  }

  #notStanding(signature) {
    this.historyDependent.add(signature);
    this.historyTries.set(signature, (this.historyTries.get(signature) ?? 0) + 1);
  }

  isSaved(signature) {
    return this.seenAgain.has(signature) || (this.skipSaved && Boolean(this.store?.has(this.sides, signature)));
  }

  // A difference saved by an earlier run keeps its input: only its count goes up.
  countAgain(result, difference) {
    this.store?.record(this.#judged(result), difference, { sides: this.sides, origin: {} });
  }

  // A result as a finding's files show it: each difference marked known where the list names it.
  #judged(result) {
    if (typeof result === 'function') return () => this.#judged(result());
    return { ...result, differences: classify(result.differences, this.known) };
  }

  // Saves a settled difference once; `about` is kept with the finding.
  record(result, difference, origin, about = {}, reduction = undefined) {
    if (this.findings.has(difference.signature)) return this.findings.get(difference.signature);
    const stored = this.store?.record(this.#judged(result), difference, { sides: this.sides, origin, reduction });
    const finding = { difference, result, folder: stored?.folder, reduction, ...about };
    this.findings.set(difference.signature, finding);
    return finding;
  }

  // A finding another process saved (a Jazzer.js target): read from its
  // folder. A folder without finding.json holds the input of a target's end
  // that did not come again in a worker (jazzer/engine.js): a crash, unreproduced.
  adopt(folder, about = {}) {
    if (!fs.existsSync(path.join(folder, kMeta))) {
      const signature = `crash/unreproduced/${path.basename(folder)}`;
      const finding = { difference: { signature, tier: Tier.crash, where: 'a fuzzing target',
        detail: 'the target ended on this input, which ran in a worker without it' }, folder, ...about };
      this.findings.set(signature, finding);
      return finding;
    }
    const meta = FindingStore.read(folder);
    if (this.findings.has(meta.signature)) return this.findings.get(meta.signature);
    const { signature, tier, where, detail } = meta;
    const finding = { difference: { signature, tier, where, detail }, folder, reduction: meta.reduction, ...about };
    this.findings.set(signature, finding);
    return finding;
  }

  // What a new difference of a result comes to: a list of { difference,
  // status, finding? }, status one of finding (saved now), found (a finding
  // of this run already), seen-again, known, history (it did not stand),
  // pairing (the difference paired causes; its parts follow it in the list),
  // consequence (user code that one codec ran and the other did not made
  // it; that effects difference follows it, under `cause`), combination (the
  // difference was named by two causes: the parts that show alone follow it, under `parts`).
  // Synchronous when the check and confirm functions are.
  settle(result, difference, origin = {}, about = {}) {
    return drive(this.#settle(result, difference, origin, about, new Set()));
  }

  // One result through the whole way: returns the differences that it, or
  // the causes it paired, showed and that are findings of this run, new or met before.
  add(result, origin, about) {
    return drive(this.#add(result, origin, about));
  }

  * #add(result, origin, about) {
    const { fresh, found } = this.sort(result);
    const out = [...found];
    for (const d of fresh) {
      for (const s of yield* this.#settle(result, d, origin, about, new Set())) {
        if (s.status === Settled.finding || s.status === Settled.found) out.push(s.difference);
      }
    }
    return out;
  }

  // Each difference of a result that explains another (a part of a pairing, a cause), sorted and settled.
  * #settleAll(result, origin, about, met) {
    const sorted = this.sort(result);
    const out = [];
    for (const d of sorted.known) out.push({ difference: d, status: Settled.known });
    for (const d of sorted.seenAgain) out.push({ difference: d, status: Settled.seenAgain });
    for (const d of sorted.found) {
      out.push({ difference: d, status: Settled.found, finding: this.findings.get(d.signature) });
    }
    for (const d of sorted.fresh) out.push(...yield* this.#settle(result, d, origin, about, met));
    return out;
  }

  #explained(signature, status) {
    this.explained.set(signature, { status, times: (this.explained.get(signature)?.times ?? 0) + 1 });
  }

  * #settle(result, difference, origin, about, met) {
    const { signature } = difference;
    const found = this.findings.get(signature);
    if (found) return [{ difference, status: Settled.found, finding: found }];
    if (this.#settled(signature)) {
      return [{ difference, status: this.explained.get(signature)?.status ?? Settled.history }];
    }
    if (this.isSaved(signature)) return [{ difference, status: Settled.seenAgain }];
    if (met.has(signature)) return [];
    met.add(signature);
    const reduced = yield* this.#reduce(result, difference);
    if (!reduced) {
      // Not shown again by its own input: something outside the input decides it.
      this.#notStanding(signature);
      return [{ difference, status: Settled.history }];
    }
    const { result: final, difference: shown, reduction, parts } = reduced;
    if (parts) {
      this.#explained(signature, Settled.pairing);
      const out = [{ difference: shown, status: Settled.pairing, reduction }];
      for (const part of parts) {
        out.push(...yield* this.#settleAll(part.result, { ...origin, pairedIn: signature }, about, met));
      }
      return out;
    }
    const cause = effectsCause(final.differences, shown);
    if (cause) {
      this.#explained(signature, Settled.consequence);
      const out = [{ difference: shown, status: Settled.consequence, cause: cause.signature, reduction }];
      const alone = { ...final, differences: [cause] };
      out.push(...yield* this.#settleAll(alone, { ...origin, consequence: signature }, about, met));
      return out;
    }
    const combined = yield* this.#split(reduced, origin, about, met);
    if (combined) return combined;
    // Known once reduced: a known entry's matcher may name the reduced place.
    const [judged] = shown === difference ? [shown] : classify([shown], this.known);
    if (judged.known) {
      this.#countKnown(judged);
      return [{ difference: judged, status: Settled.known }];
    }
    const stands = this.confirmer ? yield this.confirmer(final.type, final.input, shown) : true;
    if (!stands) {
      this.#notStanding(signature);
      return [{ difference: shown, status: Settled.history }];
    }
    const finding = this.record(final, shown, origin, about, reduction);
    return [{ difference: shown, status: Settled.finding, finding }];
  }

  // A difference named by two causes (partsOf), settled as the parts that
  // show alone: each part is looked for among the one-step reductions of its
  // reduced input and, where one shows it alone, reduced on towards it; a
  // part that shows only beside another follows from it, and is known when
  // it is. Null where none shows alone: the two are then one cause.
  * #split({ result, difference, reduction, tried }, origin, about, met) {
    const parts = partsOf(difference.signature);
    if (parts.length < 2 || !tried) return null;
    const alone = [];
    for (const part of parts) {
      const seed = tried.find((t) => t.result?.differences?.some((d) => d.signature === part));
      if (seed) alone.push(yield* this.#reduceTowards(seed, part, difference.tier === Tier.crash));
    }
    if (!alone.length) return null;
    this.#explained(difference.signature, Settled.combination);
    const shown = alone.map((a) => a.difference.signature);
    const out = [{ difference, status: Settled.combination, reduction, parts: shown }];
    for (const { result: partResult, difference: part } of alone) {
      const combination = difference.signature;
      out.push(...yield* this.#settleAll({ ...partResult, differences: [part] }, { ...origin, combination }, about,
        met));
    }
    return out;
  }

  // A one-step reduction that shows `signature`, reduced on while it does: { result, difference }.
  * #reduceTowards(seed, signature, awayFromHere) {
    const shows = (r) => r?.differences?.find((d) => d.signature === signature);
    const until = Math.min(Date.now() + this.reduction.ms, this.reduction.deadline - kConfirmReserveMs);
    const done = yield* mapYields(reduce(seed.result.type, seed.input, { keeps: shows, until }),
      (request) => orNull(() => this.checker(request.type, request.input, { awayFromHere })));
    const result = done.result ?? seed.result;
    return { result, difference: shows(result) };
  }

  // The input of a difference reduced while it still shows that difference's
  // signature: { result, difference, reduction, parts (when it is a pairing:
  // the one-step reductions that show differences) }, or null when the
  // input does not show it again. Without a check function, the input as it came.
  * #reduce(result, difference) {
    const { type, input } = result;
    const size = sizeOf(type, input);
    const unreduced = { from: size, to: size, steps: 0, checks: 0, ms: 0 };
    // A value module is code: there is nothing to take out of it.
    const reducible = type === 'frame' || type === 'stream' || input.recipe !== undefined;
    if (!this.checker) return { result, difference, reduction: { ...unreduced, status: 'not reduced' } };
    const started = Date.now();
    // A crash's candidates may crash too: none runs in this process.
    const options = { awayFromHere: difference.tier === Tier.crash };
    const shows = (r) => r?.differences?.find((d) => d.signature === difference.signature);
    const start = yield this.checker(type, input, options);
    if (!shows(start)) return null;
    // What the deadline leaves after reducing is for confirming and saving.
    const last = this.reduction.deadline - kConfirmReserveMs;
    const until = Math.min(started + this.reduction.ms, last);
    const done = started >= last ? { result: null, steps: 0, checks: 0, complete: false, parts: [] } :
      yield* mapYields(reduce(type, input, { keeps: shows, until }),
        (request) => orNull(() => this.checker(request.type, request.input, options)));
    const final = done.result ?? start;
    const shown = shows(final);
    const reduction = {
      status: !reducible || started >= last ? 'not reduced' : done.complete ? 'reduced' : 'partly reduced',
      from: unreduced.from, to: sizeOf(type, final.input), steps: done.steps, checks: done.checks + 1,
      ms: Date.now() - started,
    };
    const parts = done.complete && isPairing(final, done.parts) ?
      done.parts.filter((p) => p.result?.differences?.length) : null;
    // The one-step reductions tried last, with their results: where a part of a difference named by two is looked for.
    return { result: final, difference: shown, reduction, parts, tried: done.complete ? done.parts : null };
  }

  // Known differences met, with the reason and link of their entries.
  knownSeen() {
    return Object.fromEntries([...this.knownHits].map(([id, count]) => {
      const entry = this.known.find((k) => k.id === id);
      return [id, { count, reason: entry.reason, link: entry.link }];
    }));
  }
}

// The time one reduction may take by default, and what it leaves of a
// deadline for the confirmation and the saving; see #settled.
const kConfirmReserveMs = 1500;
const kTriesBeforeSettled = 3;

// What call() gives, or null where it threw (or its promise rejected) for
// an input at fault, as a reduction candidate may be.
function orNull(call) {
  const atFault = (err) => {
    if (err instanceof UsageError) return null;
    throw err;
  };
  try {
    const result = call();
    return result instanceof Promise ? result.catch(atFault) : result;
  } catch (err) {
    return atFault(err);
  }
}

// Passes what `steps` yields through `call`, and the results back.
function* mapYields(steps, call) {
  let step = steps.next();
  while (!step.done) step = steps.next(yield call(step.value));
  return step.value;
}

// How far a finding's input was reduced, for its report.
function reductionLine(reduction) {
  if (!reduction) return '';
  const how = {
    'reduced': 'reduced to a 1-minimal input (no one-step reduction keeps the difference)',
    'partly reduced': 'partly reduced: the time for reducing it ran out, smaller inputs may show it',
  }[reduction.status] ?? 'not reduced';
  return `input: ${how}; ${reduction.from} -> ${reduction.to}, ${reduction.steps} steps in ${reduction.checks} checks, ` +
    `${reduction.ms} ms\n`;
}

function sideLabel(side) {
  return { codec: side.codec, node: side.node, version: side.info?.node };
}

function replayCommand(result, sides, inputFile) {
  const valueFlag = result.input.recipe !== undefined ? '--recipe' : '--value';
  const flag = { value: valueFlag, roundtrip: valueFlag, frame: '--frame', stream: '--stream' }[result.type];
  const file = inputFile ?? result.input.module;
  const chunks = result.type === 'stream' && result.input.chunks?.length ? ` --chunks ${result.input.chunks.join(',')}` : '';
  const base = sides.a.node === sides.b.node ? '' : ` --base-node ${sides.a.node}`;
  return `npx ipcfuzz diff ${flag} ${file}${chunks} --a ${sides.a.codec} --b ${sides.b.codec} --node ${sides.b.node}${base}`;
}

function writeAtomic(file, data, mode = 0o644) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode });
  fs.renameSync(tmp, file);
}

// The order findings are read in: by tier (how far the difference reaches),
// then the cause met most often first, then by signature. Each item has
// `difference` ({ tier, signature }) and `met`.
function byTierAndCount(x, y) {
  return tiers.indexOf(x.difference.tier) - tiers.indexOf(y.difference.tier) || (y.met ?? 1) - (x.met ?? 1) ||
    (x.difference.signature < y.difference.signature ? -1 : Number(x.difference.signature > y.difference.signature));
}

// How often a finding was met: in this run, where the recorder saw it, else as its folder counts it.
function metOf(recorder, signature, folder) {
  const here = recorder?.met.get(signature);
  if (here) return here;
  try {
    return FindingStore.read(folder).count ?? 1;
  } catch {
    return 1;
  }
}

// A finding's reduction in a few words, for lists: "reduced, 7 -> 1 recipe nodes".
function reductionText(reduction) {
  if (!reduction) return 'not reduced';
  const sizes = reduction.from === reduction.to ? reduction.to : `${reduction.from} -> ${reduction.to}`;
  return `${reduction.status}, ${sizes}`;
}

module.exports = { FindingStore, FindingRecorder, metaText, writeAtomic, byTierAndCount, metOf, reductionText };
