'use strict';
// The findings folder: one subfolder per distinct problem (codec pair and
// signature), holding the input, both outcomes, an annotated report and a
// standalone repro script. A problem seen again only bumps its count: saved
// inputs are never replaced, and nothing saved is ever deleted. FindingRecorder is
// the one way every engine, the gate and the replays turn a check result into
// findings: known differences counted, repeats skipped, new ones confirmed in
// fresh processes and saved once.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { renderResult } = require('./report');
const { reproScript } = require('./repro');
const { EnvironmentError } = require('./errors');
const { classify } = require('./known');

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
    settleStaging(this.dir);
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
  record(result, difference, { sides, origin }) {
    const folder = this.folderFor(sides, difference.signature);
    if (fs.existsSync(path.join(folder, kMeta))) return countUp(folder);
    // A folder left without finding.json (a process killed while saving) is written in place.
    const staging = fs.existsSync(folder) ? folder : `${folder}.${process.pid}.tmp`;
    fs.mkdirSync(staging, { recursive: true });
    writeFinding(staging, folder, typeof result === 'function' ? result() : result, difference, { sides, origin });
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
// Processes that open the store at once may settle the same one: a rename
// that fails has found it gone, or its place taken.
function settleStaging(dir) {
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
// one line. Indented all the way, the trees of a value nested 1,000 deep took
// 45 MB (the indents grow with the depth), 89 KB on one line; and the count
// of a finding met again is read and written back in the middle of a fuzz run.
const kIndentLevels = 3;
function metaText(meta) {
  // As JSON.stringify: an undefined item is null, an undefined field is left out.
  const text = (value, levels, indent) => {
    const isArray = Array.isArray(value);
    const entries = levels > 0 && value !== null && typeof value === 'object' ?
      Object.entries(value).filter(([, v]) => isArray || v !== undefined) : [];
    if (!entries.length) return JSON.stringify(value) ?? 'null';
    const inner = `${indent}  `;
    const lines = entries.map(([k, v]) => `${inner}${isArray ? '' : `${JSON.stringify(k)}: `}${text(v, levels - 1, inner)}`);
    const [open, close] = isArray ? '[]' : '{}';
    return `${open}\n${lines.join(',\n')}\n${indent}${close}`;
  };
  return `${text(meta, kIndentLevels, '')}\n`;
}

// The files of a new finding, written in `dir`; the paths they print are in `folder`, where they go.
function writeFinding(dir, folder, result, difference, { sides, origin }) {
  const fromValue = result.type === 'value' || result.type === 'roundtrip';
  const inputFile = !fromValue ? 'input.bin' : result.input.recipe !== undefined ? 'input.json' : null;
  if (inputFile === 'input.json') writeAtomic(path.join(dir, inputFile), `${JSON.stringify(result.input.recipe, null, 2)}\n`);
  if (inputFile === 'input.bin') writeAtomic(path.join(dir, inputFile), Buffer.from(result.input.bytes, 'hex'));
  const replay = replayCommand(result, sides, inputFile && path.join(folder, inputFile));
  const fastCheck = origin?.engine === 'fast-check' && origin.path !== undefined ?
    `\nreplay the fast-check run: npx ipcfuzz fuzz --engine fast-check --property ${origin.property} ` +
    `--seed ${origin.seed} --path ${origin.path} --a ${sides.a.codec} --b ${sides.b.codec} --node ${sides.b.node}\n` : '';
  writeAtomic(path.join(dir, 'report.txt'), `${renderResult(result, sides)}\n\nreplay: ${replay}\n${fastCheck}`);
  writeAtomic(path.join(dir, 'repro.js'), reproScript(result, {
    a: sides.a.codec, b: sides.b.codec, title: difference.signature,
  }), 0o755);
  writeAtomic(path.join(dir, kMeta), metaText({
    signature: difference.signature,
    tier: difference.tier,
    where: difference.where,
    detail: difference.detail,
    sides: { a: sideLabel(sides.a), b: sideLabel(sides.b) },
    origin,
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
// seen again instead of saved anew; a new one is confirmed (`confirm(type, input, difference)`, true or a
// promise of it; none: every difference stands) and saved, or else counted
// as history-dependent.
class FindingRecorder {
  constructor({ known, store = null, sides, confirm = null, skipSaved = false }) {
    Object.assign(this, { known, store, sides, confirmer: confirm, skipSaved });
    this.findings = new Map();
    this.knownHits = new Map();
    this.seenAgain = new Map();
    this.historyDependent = new Set();
  }

  // Sorts the differences of one result: { fresh (met for the first time),
  // found (findings of this run), known, seenAgain }; counts the known and the
  // seen again.
  sort(result) {
    const sorted = { fresh: [], found: [], known: [], seenAgain: [] };
    for (const d of classify(result.differences, this.known)) {
      if (d.known) {
        this.knownHits.set(d.known, (this.knownHits.get(d.known) ?? 0) + 1);
        sorted.known.push(d);
      } else if (this.historyDependent.has(d.signature)) {
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

  isSaved(signature) {
    return this.seenAgain.has(signature) || (this.skipSaved && Boolean(this.store?.has(this.sides, signature)));
  }

  // Whether a new difference stands in fresh processes; one that does not is
  // remembered as history-dependent. Synchronous when `confirm` is.
  stands(result, difference) {
    const judge = (ok) => {
      if (!ok) this.historyDependent.add(difference.signature);
      return ok;
    };
    const ok = this.confirmer ? this.confirmer(result.type, result.input, difference) : true;
    return ok instanceof Promise ? ok.then(judge) : judge(ok);
  }

  // A difference saved by an earlier run keeps its input: only its count goes up.
  countAgain(result, difference) {
    this.store?.record(result, difference, { sides: this.sides, origin: {} });
  }

  // Saves a confirmed difference once; `about` is kept with the finding.
  record(result, difference, origin, about = {}) {
    if (this.findings.has(difference.signature)) return this.findings.get(difference.signature);
    const stored = this.store?.record(result, difference, { sides: this.sides, origin });
    const finding = { difference, result, folder: stored?.folder, ...about };
    this.findings.set(difference.signature, finding);
    return finding;
  }

  // A finding another process saved (a Jazzer.js target): read from its folder.
  adopt(folder, about = {}) {
    const meta = FindingStore.read(folder);
    if (this.findings.has(meta.signature)) return this.findings.get(meta.signature);
    const { signature, tier, where, detail } = meta;
    const finding = { difference: { signature, tier, where, detail }, folder, ...about };
    this.findings.set(signature, finding);
    return finding;
  }

  // One result through the whole way: returns the differences of it that are
  // findings of this run, new or met before.
  async add(result, origin, about) {
    const { fresh, found } = this.sort(result);
    for (const d of fresh) {
      if (await this.stands(result, d)) {
        this.record(result, d, origin, about);
        found.push(d);
      }
    }
    return result.differences.filter((d) => found.includes(d));
  }

  // Known differences met, with the reason and link of their entries.
  knownSeen() {
    return Object.fromEntries([...this.knownHits].map(([id, count]) => {
      const entry = this.known.find((k) => k.id === id);
      return [id, { count, reason: entry.reason, link: entry.link }];
    }));
  }
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

module.exports = { FindingStore, FindingRecorder };
