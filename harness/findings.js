'use strict';
// The findings folder: one subfolder per distinct problem (codec pair and
// signature), holding the input, both outcomes, an annotated report and a
// standalone repro script. A problem seen again only bumps its count: saved
// inputs are never replaced, and nothing is ever deleted.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { renderResult } = require('./report');
const { reproScript } = require('./repro');
const { EnvironmentError } = require('./errors');

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
  }

  folderFor(sides, signature) {
    const key = `${sides.a.codec}~${sides.b.codec}:${signature}`;
    const hash = crypto.createHash('sha256').update(key).digest('hex').slice(0, 8);
    return path.join(this.dir, `${slug(`${codecLabel(sides.b.codec)}-${signature}`)}-${hash}`);
  }

  has(sides, signature) {
    return fs.existsSync(path.join(this.folderFor(sides, signature), 'finding.json'));
  }

  // Records one difference of a check result; returns { folder, isNew }.
  record(result, difference, { sides, origin }) {
    const folder = this.folderFor(sides, difference.signature);
    const meta = path.join(folder, 'finding.json');
    if (fs.existsSync(meta)) {
      const saved = JSON.parse(fs.readFileSync(meta, 'utf8'));
      saved.count = (saved.count ?? 1) + 1;
      saved.lastSeen = new Date().toISOString();
      writeAtomic(meta, `${JSON.stringify(saved, null, 2)}\n`);
      return { folder, isNew: false };
    }
    fs.mkdirSync(folder, { recursive: true });
    const fromValue = result.type === 'value' || result.type === 'roundtrip';
    const inputFile = !fromValue ? 'input.bin' : result.input.recipe !== undefined ? 'input.json' : null;
    if (inputFile === 'input.json') writeAtomic(path.join(folder, inputFile), `${JSON.stringify(result.input.recipe, null, 2)}\n`);
    if (inputFile === 'input.bin') writeAtomic(path.join(folder, inputFile), Buffer.from(result.input.bytes, 'hex'));
    const replay = replayCommand(result, sides, inputFile && path.join(folder, inputFile));
    const fastCheck = origin?.engine === 'fast-check' && origin.path !== undefined ?
      `\nreplay the fast-check run: npx ipcfuzz fuzz --engine fast-check --property ${origin.property} ` +
      `--seed ${origin.seed} --path ${origin.path} --a ${sides.a.codec} --b ${sides.b.codec} --node ${sides.b.node}\n` : '';
    writeAtomic(path.join(folder, 'report.txt'), `${renderResult(result, sides)}\n\nreplay: ${replay}\n${fastCheck}`);
    writeAtomic(path.join(folder, 'repro.js'), reproScript(result, {
      a: sides.a.codec, b: sides.b.codec, title: difference.signature,
    }), 0o755);
    writeAtomic(meta, `${JSON.stringify({
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
    }, null, 2)}\n`);
    return { folder, isNew: true };
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

module.exports = { FindingStore };
