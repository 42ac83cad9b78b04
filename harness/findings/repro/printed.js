'use strict';
// The helpers of a finding's short scripts (repro.js, repro-fork.js,
// review-repro.js), printed into them by their source: written and linted
// here once, and the harness's tests call what the scripts run. Each uses
// only Node built-ins and the `expected` a script records, so that a script
// needs nothing of ipcfuzz.

// What a value is, in one line alike in any binary: its class (Buffer apart), a view's bytes, or keys and values.
function describe(x, depth = 0) {
  if (typeof x === 'string') return JSON.stringify(x);
  if (typeof x !== 'object' || x === null) return Object.is(x, -0) ? '-0' : `${x}${typeof x === 'bigint' ? 'n' : ''}`;
  const name = Buffer.isBuffer(x) ? 'Buffer' : Object.getPrototypeOf(x)?.constructor?.name ?? 'null-prototype';
  if (ArrayBuffer.isView(x)) return `${name} <${Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('hex')}>`;
  const pairs = depth > 4 ? [['…', '…']] : x instanceof Map || x instanceof Set ? [...x.entries()] : Object.entries(x);
  if (!pairs.length) return `${name} ${x instanceof Object && !Array.isArray(x) && !/^\[object /.test(x) ? x : '{}'}`;
  return `${name} {${pairs.map(([k, v]) => `${describe(k, depth + 1)}: ${describe(v, depth + 1)}`).join(', ')}}`;
}

// An error by its class and code, not its message, whose words may change between releases.
function label(err) { return `${err?.name ?? typeof err}${err?.code ? ` [${err.code}]` : ''}`; }

// How far Buffer's pool moved since `before` (a Buffer.allocUnsafe(1)), less the 8 bytes of this mark.
function poolMoved(before) {
  const after = Buffer.allocUnsafe(1);
  return after.buffer === before.buffer ? `pool +${after.byteOffset - before.byteOffset - 8}` : 'pool renewed';
}

// What this binary saw beside what 26.3.1 saw: exit 0 alike, 1 not, 2 with none recorded (ipcfuzz records so).
function verdict(what, seen, reference) {
  if (process.env.IPCFUZZ_RECORD) return console.log(JSON.stringify(seen));
  console.log(`${what}\n  node ${process.version}: ${seen}\n  Node.js 26.3.1: ${reference ?? '(not recorded)'}`);
  process.exitCode = reference === null ? 2 : seen === reference ? 0 : 1;
}

// What building the value gave; a binary that cannot build it cannot run the check: exit 2.
function build(make, effects) {
  try { return make(effects); } catch (err) { console.error(`cannot run: ${err}`.split('\n')[0]); process.exit(2); }
}

// A frame in hex; a long one by its length and digest.
function hex(bytes) {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length <= 256) return buffer.toString('hex');
  return `${buffer.length} bytes, sha256 ${require('node:crypto').createHash('sha256').update(buffer).digest('hex')}`;
}

// What a codec call gave: { value }, or { threw } naming the error by its label.
function attempt(call) { try { return { value: call() }; } catch (err) { return { threw: `throws ${label(err)}` }; } }

// The framer of `codec`: the adapter's own, or else child_process's in this binary.
function framerOf(codec) {
  if (codec.createFramer) return codec.createFramer();
  const { advanced } = require('internal/child_process/serialization');
  const channel = {};
  advanced.initMessageChannel(channel);
  return { push: (chunk) => advanced.parseChannelMessages(channel, chunk), buffering: () => channel.buffering };
}

const helpers = { describe, label, poolMoved, verdict, build, hex, attempt, framerOf };
let ownText = null;

// A helper as a script prints it: the comment above its definition here, then its source.
function sourceOf(name) {
  ownText ??= require('node:fs').readFileSync(__filename, 'utf8');
  const comment = new RegExp(`((?:^// .*\\n)*)^function ${name}\\(`, 'm').exec(ownText)?.[1] ?? '';
  return `${comment}${helpers[name]}`;
}

module.exports = { ...helpers, sourceOf };
