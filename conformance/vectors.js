'use strict';
// The conformance vectors on disk: vectors/<verdict>/<group>/<name>.<kind>,
// each with a sibling <name>.expect.json written by generate.js.
//   .bin          a byte stream read by a fresh framer in one read (a frame)
//   .json         a value recipe (docs/recipes.md)
//   .stream.json  { "bytes": [part, ...], "chunks": [sizes] }: a byte stream
//                 cut into reads; a part is hex or { "repeat": hex, "count": n }
// The folder says the verdict: accept, reject or implementation-defined.

const fs = require('node:fs');
const path = require('node:path');
const { UsageError } = require('../harness/base/errors');
const v8 = require('./v8-vectors');
const { Outcome } = require('../harness/base/vocabulary');

const vectorsDir = path.join(__dirname, 'vectors');
const verdicts = ['accept', Outcome.reject, 'implementation-defined'];
const kinds = [['.stream.json', 'stream'], ['.expect.json', null], ['.json', 'recipe'], ['.bin', 'frame']];

function kindOf(file) {
  const match = kinds.find(([ext]) => file.endsWith(ext));
  return match ? { ext: match[0], kind: match[1] } : null;
}

function parseJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${path.relative(process.cwd(), file)}: ${err.message}`);
  }
}

function streamBytes(spec, file) {
  const parts = Array.isArray(spec.bytes) ? spec.bytes : [];
  const bad = (why) => new UsageError(`${file}: ${why}`);
  if (!parts.length) throw bad('"bytes" must be a non-empty array of parts');
  const isHex = (s) => typeof s === 'string' && /^(?:[0-9a-f]{2})*$/i.test(s);
  const bufs = parts.map((part) => {
    if (isHex(part?.replace?.(/\s+/g, ''))) return Buffer.from(part.replace(/\s+/g, ''), 'hex');
    if (isHex(part?.repeat) && part.repeat && Number.isInteger(part.count) && part.count >= 0) {
      return Buffer.alloc(part.count * part.repeat.length / 2, part.repeat, 'hex');
    }
    return null;
  });
  if (bufs.includes(null)) throw bad('a part is hex or { "repeat": hex, "count": n }');
  const chunks = spec.chunks ?? [];
  if (!Array.isArray(chunks) || chunks.some((n) => !Number.isInteger(n) || n < 0)) {
    throw bad('"chunks" must be an array of read sizes');
  }
  return { bytes: Buffer.concat(bufs).toString('hex'), chunks };
}

// The input a vector feeds to the ops: { recipe } or { bytes, chunks }.
function readInput(file, kind) {
  if (kind === 'frame') return { bytes: fs.readFileSync(file).toString('hex'), chunks: [] };
  const data = parseJson(file);
  return kind === 'recipe' ? { recipe: data } : streamBytes(data, path.relative(process.cwd(), file));
}

// Every vector under `dir`, sorted by id (verdict/group/name).
function loadVectors(dir = vectorsDir) {
  const vectors = [];
  for (const verdict of verdicts) {
    const base = path.join(dir, verdict);
    if (!fs.existsSync(base)) continue;
    for (const rel of fs.readdirSync(base, { recursive: true }).sort()) {
      const file = path.join(base, rel);
      const type = kindOf(rel);
      if (!type?.kind || !fs.statSync(file).isFile()) continue;
      const stem = rel.slice(0, -type.ext.length);
      const group = path.dirname(stem) === '.' ? '' : path.dirname(stem).split(path.sep).join('/');
      const id = `${verdict}/${stem.split(path.sep).join('/')}`;
      const source = group === v8.group ? v8.v8VectorOf(id) : null;
      vectors.push({
        id,
        ...(source && { about: `V8's ${source.test} (${source.url}): ${source.why}` }),
        verdict,
        group,
        name: path.basename(stem),
        kind: type.kind,
        file,
        expectFile: path.join(base, `${stem}.expect.json`),
        input: readInput(file, type.kind),
      });
    }
  }
  const seen = new Set();
  for (const v of vectors) {
    if (seen.has(v.id)) throw new UsageError(`two vectors are named ${v.id}`);
    seen.add(v.id);
  }
  return vectors;
}

function readExpectation(vector) {
  if (!fs.existsSync(vector.expectFile)) return null;
  return parseJson(vector.expectFile);
}

module.exports = { loadVectors, readExpectation, verdicts, streamBytes };
