#!/usr/bin/env node
'use strict';
// Extracts the raw byte vectors of V8's own serializer tests
// (test/unittests/objects/value-serializer-unittest.cc in v8/v8) into
// conformance/sources/v8-value-serializer.json: every byte vector a test
// decodes or must fail to decode, with its test, its place in the file and
// what the test asserts. The .cc file is read as data from wherever it was
// saved; only the extracted vectors are kept in the repository.
//
//   node scripts/extract-v8-vectors.js FILE.cc --commit SHA [--current-version 15] [--out FILE]
//
// The C++ it understands is the test file's own: byte lists ({0xFF, 'a',
// kConstant}), std::vector<uint8_t> variables built by push_back in counted
// for loops, and the decode helpers of the ValueSerializerTest fixture.

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const sourcePath = 'test/unittests/objects/value-serializer-unittest.cc';
const defaultOut = path.join(__dirname, '..', 'conformance', 'sources', 'v8-value-serializer.json');

// The fixture's decode helpers and what V8's test asserts of the bytes each is given.
const helpers = {
  DecodeTestFutureVersions: 'decodes',
  DecodeTestUpToVersion: 'decodes',
  DecodeTest: 'decodes',
  DecodeTestForVersion0: 'decodes',
  InvalidDecodeTest: 'rejects',
};

// Tests whose byte lists are not decode inputs of the fixture's helpers, and why.
const notVectors = {
  DecodeArrayBufferOOM: 'valid bytes that must fail only under an ArrayBuffer allocator with no memory',
  RoundTripSharedArrayBufferClone: 'the contents of a SharedArrayBuffer, not a serialization',
  RoundTripWebAssemblyMemory: 'the contents of a WebAssembly.Memory, not a serialization',
  RoundTripWebAssemblyMemory_WithPreviousReference: 'the contents of a WebAssembly.Memory, not a serialization',
};

// Comments and preprocessor lines out, line breaks kept, so that offsets keep
// their line numbers. The build is little-endian with WebAssembly: the
// big-endian #else branches are left out.
function preprocess(text) {
  let out = '';
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === '"' || c === '\'') {
      const end = literalEnd(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      out += ' '.repeat((end === -1 ? text.length : end) - i);
      i = end === -1 ? text.length : end;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2) + 2;
      out += text.slice(i, end).replace(/[^\n]/g, ' ');
      i = end;
    } else {
      out += c;
      i++;
    }
  }
  const taken = [];
  return out.split('\n').map((line) => {
    const directive = /^\s*#\s*(\w+)(.*)$/.exec(line);
    if (!directive) return taken.every(Boolean) ? line : '';
    const [, word] = directive;
    if (word === 'if' || word === 'ifdef' || word === 'ifndef') taken.push(true);
    else if (word === 'else') taken.push(!taken.pop());
    else if (word === 'endif') taken.pop();
    return '';
  }).join('\n');
}

// The index just past a string or character literal starting at `i`.
function literalEnd(text, i) {
  const quote = text[i];
  let j = i + 1;
  while (j < text.length && text[j] !== quote) j += text[j] === '\\' ? 2 : 1;
  return j + 1;
}

// The index of the bracket closing the one at `open`, skipping literals.
function closing(text, open) {
  const pairs = { '(': ')', '{': '}', '[': ']' };
  const stack = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === '\'') {
      i = literalEnd(text, i) - 1;
    } else if (pairs[c]) {
      stack.push(pairs[c]);
    } else if (c === ')' || c === '}' || c === ']') {
      if (stack.pop() !== c) throw new Error(`unbalanced ${c} at offset ${i}`);
      if (!stack.length) return i;
    }
  }
  throw new Error(`no bracket closes the one at offset ${open}`);
}

// Splits `text` at commas outside brackets and literals.
function splitTopLevel(text, separator = ',') {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === '\'') i = literalEnd(text, i) - 1;
    else if ('({['.includes(c)) depth++;
    else if (')}]'.includes(c)) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

const charEscapes = { 0: 0, n: 10, t: 9, r: 13, '\\': 92, '\'': 39, '"': 34 };

function byteOf(token, constants, where) {
  let value;
  if (/^0x[0-9a-f]+$/i.test(token)) value = parseInt(token, 16);
  else if (/^\d+$/.test(token)) value = Number(token);
  else if (/^'(\\.|[^\\'])'$/.test(token)) {
    const body = token.slice(1, -1);
    value = body.length === 1 ? body.charCodeAt(0) : charEscapes[body[1]];
  } else if (constants.has(token)) value = constants.get(token);
  if (!Number.isInteger(value) || value < 0 || value > 255) {
    throw new Error(`${where}: cannot read the byte ${JSON.stringify(token)}`);
  }
  return value;
}

// A byte list `{...}` as a Buffer.
function byteList(text, constants, where) {
  if (!text.startsWith('{') || closing(text, 0) !== text.length - 1) {
    throw new Error(`${where}: not a byte list: ${text.slice(0, 40)}`);
  }
  return Buffer.from(splitTopLevel(text.slice(1, -1)).map((t) => byteOf(t, constants, where)));
}

// File-scope byte constants, e.g. `const uint8_t Fixture::kExampleHostObjectTag = 'T';`.
function fileConstants(text) {
  const constants = new Map();
  for (const m of text.matchAll(/const\s+uint8_t\s+(?:\w+::)*(\w+)\s*=\s*('(?:\\.|[^\\'])'|0x[0-9a-f]+|\d+)\s*;/gi)) {
    constants.set(m[1], byteOf(m[2], constants, m[1]));
  }
  return constants;
}

// A byte sequence with counted repeats, as parts: [hex | { repeat: hex, count }].
class Payload {
  constructor(parts = []) {
    this.parts = parts;
  }

  static of(bytes) {
    return new Payload(bytes.length ? [bytes.toString('hex')] : []);
  }

  append(other) {
    for (const part of other.parts) {
      const last = this.parts.at(-1);
      if (typeof part === 'string' && typeof last === 'string') this.parts[this.parts.length - 1] = last + part;
      else this.parts.push(part);
    }
  }

  repeated(count) {
    const bytes = this.parts.join('');
    return new Payload(count > 0 && bytes ? [{ repeat: bytes, count }] : []);
  }

  bytes() {
    return Buffer.concat(this.parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'hex') :
      Buffer.alloc(p.count * p.repeat.length / 2, p.repeat, 'hex'))));
  }

  // With byte `index` set to `value` (the version loop of the helpers); within the first part only.
  withByte(index, value) {
    const parts = this.parts.slice();
    if (typeof parts[0] !== 'string' || parts[0].length < 2 * (index + 1)) {
      throw new Error('the version byte lies in a repeated part');
    }
    parts[0] = parts[0].slice(0, 2 * index) + value.toString(16).padStart(2, '0') + parts[0].slice(2 * index + 2);
    return new Payload(parts);
  }

  toJSON() {
    return this.parts.every((p) => typeof p === 'string') ? { bytes: this.parts.join('') } : { parts: this.parts };
  }
}

// The statements of a block body, as [start, end) offsets into `text`, each
// either a nested block `{...}` or a statement up to its `;`. A for or if
// statement keeps its block with it.
function statements(text, from, to) {
  const out = [];
  let i = from;
  while (i < to) {
    while (i < to && /\s/.test(text[i])) i++;
    if (i >= to) break;
    const start = i;
    if (text[i] === '{') {
      const end = closing(text, i) + 1;
      out.push({ start, end, block: true });
      i = end;
      continue;
    }
    let j = i;
    for (; j < to; j++) {
      const c = text[j];
      if (c === '"' || c === '\'') j = literalEnd(text, j) - 1;
      else if (c === '(' || c === '[') j = closing(text, j);
      else if (c === '{') {
        j = closing(text, j);
        if (/^(for|if|while)\b/.test(text.slice(start, start + 6))) break;
      } else if (c === ';') break;
    }
    out.push({ start, end: j + 1 });
    i = j + 1;
  }
  return out;
}

const squash = (s) => s.replace(/"\s+"/g, '').replace(/\s+/g, ' ').replace(/\(\s+/g, '(').trim();

// The assertions in a piece of test code: ASSERT_*/EXPECT_*/ExpectScriptTrue statements.
function assertionsIn(code) {
  return [...code.matchAll(/\b(?:ASSERT|EXPECT)_\w+\s*\(|\bExpectScriptTrue\s*\(/g)].map((m) => {
    const open = m.index + m[0].length - 1;
    return squash(code.slice(m.index, closing(code, open) + 1));
  });
}

class TestWalker {
  constructor(text, lineOf, constants, test) {
    Object.assign(this, { text, lineOf, constants, test });
    this.ints = new Map();
    this.vars = new Map();
    this.vectors = [];
    this.skipped = [];
    this.pending = null;  // a direct decode whose assertions follow it
  }

  where(offset) {
    return `${this.test.name} (line ${this.lineOf(offset)})`;
  }

  walk(from, to) {
    for (const s of statements(this.text, from, to)) {
      if (s.block) this.walk(s.start + 1, s.end - 1);
      else this.statement(s.start, s.end);
    }
  }

  statement(start, end) {
    const code = this.text.slice(start, end);
    let m;
    if ((m = /^(?:static\s+)?(?:const\s+)?int\s+(\w+)\s*=\s*([\d.eE+]+)\s*;$/.exec(code))) {
      this.ints.set(m[1], Number(m[2]));
    } else if ((m = /^(?:const\s+)?std::vector<uint8_t>\s+(\w+)\s*(=\s*)?/.exec(code))) {
      const init = code.slice(m[0].length).replace(/;$/, '').trim();
      // A vector made at run time (EncodeTest(...)) has no bytes here.
      const bytes = init.startsWith('{') ? Payload.of(byteList(init, this.constants, this.where(start))) : null;
      this.vars.set(m[1], init ? bytes : new Payload());
    } else if ((m = /^(\w+)\.push_back\((.+)\);$/s.exec(code))) {
      this.vars.get(m[1]).append(Payload.of(Buffer.from([byteOf(m[2].trim(), this.constants, this.where(start))])));
    } else if ((m = /^for\s*\(\s*int\s+\w+\s*=\s*0\s*;\s*\w+\s*<\s*(\w+)\s*;[^)]*\)\s*\{/.exec(code))) {
      this.loop(start, end, this.ints.get(m[1]) ?? Number(m[1]));
    } else if (/^ValueDeserializer\s+\w+\s*\(/.test(code)) {
      this.directDeserializer(start, end, code);
    } else if (!this.decodeCall(start, end, code)) {
      if (this.pending) this.pending.checks.push(...assertionsIn(code));
    }
  }

  // A counted loop of push_back calls, as one repeated part per variable.
  loop(start, end, count) {
    if (!Number.isInteger(count)) throw new Error(`${this.where(start)}: a loop with no known count`);
    const open = this.text.indexOf('{', this.text.indexOf(')', start));
    const outer = this.vars;
    this.vars = new Map([...outer].map(([name]) => [name, new Payload()]));
    this.walk(open + 1, end - 1);
    for (const [name, body] of this.vars) outer.get(name).append(body.repeated(count));
    this.vars = outer;
  }

  // A ValueDeserializer made over a variable in the test itself: a decode
  // that must fail when the test checks ReadValue(...).IsEmpty().
  directDeserializer(start, end, code) {
    const variable = /&(\w+)\[0\]/.exec(code)?.[1];
    if (notVectors[this.test.name]) {
      this.skipped.push({ line: this.lineOf(start), why: notVectors[this.test.name] });
      return;
    }
    const body = this.text.slice(end, this.test.end);
    if (!variable || !/ReadValue\([^)]*\)\s*\.IsEmpty\(\)/.test(body)) {
      throw new Error(`${this.where(start)}: a ValueDeserializer whose outcome the extractor cannot read`);
    }
    this.add(start, 'ValueDeserializer', this.vars.get(variable), 'rejects', assertionsIn(body));
  }

  // A call of one of the fixture's decode helpers; false when the statement holds none.
  decodeCall(start, end, code) {
    const call = new RegExp(`(?:^|[^\\w.>])(${Object.keys(helpers).join('|')})\\s*\\(`).exec(code);
    if (!call) {
      if (/\b(ExpectFail|InitializeData)\s*\(/.test(code)) {
        this.skipped.push({ line: this.lineOf(start), why: notVectors[this.test.name] ??
          (/ExpectFail/.test(code) ? 'the bytes are encoded at run time (a wasm module)' : 'not a serialization') });
      }
      return false;
    }
    const helper = call[1];
    const open = call.index + call[0].length - 1;
    const args = splitTopLevel(code.slice(open + 1, closing(code, open)));
    const at = start + call.index;
    const version = helper === 'DecodeTestUpToVersion' ? Number(args.shift()) : null;
    const input = args[0];
    const named = /^(?:std::move\()?(\w+)\)?$/.exec(input)?.[1];
    if (named && this.vars.get(named) === null) {
      this.skipped.push({ line: this.lineOf(at), why: notVectors[this.test.name] ?? 'the bytes are made at run time' });
      return true;
    }
    const payload = named ? this.vars.get(named) : Payload.of(byteList(input, this.constants, this.where(at)));
    if (!payload) throw new Error(`${this.where(at)}: no byte vector named ${named}`);
    const lambda = args[1] ?? '';
    const record = this.add(at, helper, payload, helpers[helper], assertionsIn(lambda));
    if (helper === 'DecodeTestFutureVersions' || helper === 'DecodeTestUpToVersion') {
      const from = payload.bytes()[1];
      record.versions = [from, version ?? 'current'];
      // The helpers take the vector by reference and leave it at the last version they decoded.
      if (named && version !== null) this.vars.set(named, payload.withByte(1, version));
    }
    this.pending = lambda ? null : record;
    return true;
  }

  add(offset, helper, payload, v8, checks) {
    const n = this.vectors.length + 1;
    const record = {
      id: `${this.test.name}-${n}`, test: this.test.name, fixture: this.test.fixture, line: this.lineOf(offset),
      helper, v8, ...payload.toJSON(), checks,
    };
    this.vectors.push(record);
    return record;
  }
}

function extract(text, { commit, currentVersion }) {
  const clean = preprocess(text);
  const lineStarts = [0];
  for (let i = 0; i < clean.length; i++) if (clean[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const constants = fileConstants(clean);
  const vectors = [];
  const encodings = [];
  const skipped = [];
  for (const m of clean.matchAll(/\bTEST_F\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{/g)) {
    const open = m.index + m[0].length - 1;
    const test = { fixture: m[1], name: m[2], end: closing(clean, open) };
    const walker = new TestWalker(clean, lineOf, constants, test);
    walker.walk(open + 1, test.end);
    vectors.push(...walker.vectors);
    const body = clean.slice(open, test.end);
    const prefix = /expected_prefix\[\]\s*=\s*(\{[^}]*\})/.exec(body);
    if (prefix) {
      // The encoder's test: what must follow the header when V8 writes the test's value.
      encodings.push({ test: test.name, fixture: test.fixture, line: lineOf(open + prefix.index),
        afterHeader: byteList(prefix[1], constants, test.name).toString('hex'), checks: assertionsIn(body) });
      continue;
    }
    const literal = /\{\s*(?:0x[0-9a-f]{1,2}|'.')\s*,/i.test(body);
    if (!walker.vectors.length && (walker.skipped.length || literal)) {
      skipped.push({ test: test.name, line: lineOf(m.index),
        why: walker.skipped[0]?.why ?? notVectors[test.name] ?? 'no byte vector is decoded' });
    }
  }
  if (!vectors.length) throw new Error('no byte vectors found: is this V8\'s value-serializer-unittest.cc?');
  return {
    source: {
      repository: 'v8/v8', path: sourcePath, commit,
      url: `https://github.com/v8/v8/blob/${commit}/${sourcePath}`,
      license: 'BSD-3-Clause (the V8 project\'s LICENSE); the vectors are facts taken from the test file',
      currentVersion,
    },
    about: 'Each vector: the V8 test it is in (TEST_F fixture and name), its line at that commit, the helper ' +
      'it is given to (DecodeTestFutureVersions and DecodeTestUpToVersion decode it at every version from its ' +
      'own to `current` or the one named; V8 enables the legacy wire format), what V8 asserts (decodes or ' +
      'rejects), the assertions on the result, and the bytes (hex, or parts with repeats). `currentVersion` ' +
      'is v8::CurrentValueSerializerFormatVersion() at that commit. Encodings: what V8 must write after ' +
      'the header for a test\'s value.',
    vectors,
    encodings,
    skipped,
  };
}

function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      commit: { type: 'string' }, out: { type: 'string', default: defaultOut },
      'current-version': { type: 'string', default: '15' },
    },
  });
  const currentVersion = Number(values['current-version']);
  if (positionals.length !== 1 || !/^[0-9a-f]{40}$/.test(values.commit ?? '') || !Number.isInteger(currentVersion)) {
    throw new Error('usage: extract-v8-vectors.js FILE.cc --commit SHA [--current-version N] ' +
      '(the 40-digit commit the file is from; N, V8\'s format version at that commit)');
  }
  const result = extract(fs.readFileSync(positionals[0], 'utf8'), { commit: values.commit, currentVersion });
  fs.mkdirSync(path.dirname(values.out), { recursive: true });
  fs.writeFileSync(values.out, `${JSON.stringify(result, null, 1)}\n`);
  const by = (v8) => result.vectors.filter((v) => v.v8 === v8).length;
  console.log(`${result.vectors.length} vectors (${by('decodes')} V8 decodes, ${by('rejects')} it rejects) ` +
    `from ${new Set(result.vectors.map((v) => v.test)).size} tests, ${result.skipped.length} tests skipped; ` +
    `wrote ${path.relative(process.cwd(), values.out)}`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(`extract-v8-vectors: ${err.message}`);
    process.exitCode = 2;
  }
}

module.exports = { extract };
