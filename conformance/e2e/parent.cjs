'use strict';
// The parent end of the fork cases (plan.js), started by driver.js in the
// parent runtime (a .cjs file, so that Deno runs it as CommonJS too). Reads
// one job line on stdin: { child: [command...], serialization, timeoutMs,
// cases }; writes JSON lines on stdout: { ready: true }, then for each case
// { id, part, outcome } per part and { id, done: true }. Exits when the job is
// done or stdin closes (the driver is gone), taking its children along.
// Parts that read or write the channel's bytes (raw, capture, accept) need a
// Node parent started with --expose-internals, to reach the channel's handle
// and learn how many bytes each of its reads took.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { describeError } = require('../../harness/oracle/ops');
const { channelTree } = require('../../harness/oracle/channel');
const {
  SENTINEL, buildValues, channelRecord, partsOf, pieces, programs, wireSample, writeAll,
} = require('./plan');
const { onJsonLines } = require('../../harness/base/json-lines');

const childMain = path.join(__dirname, 'child.cjs');
const kStderrTail = 2048;
// How long a capture waits for more bytes once the child has sent everything.
const kQuietMs = 300;

// The channel handle of a child and the state its reads report (Node only).
function channelAccess(proc) {
  const { internalBinding } = require('internal/test/binding');
  const { kChannelHandle } = require('internal/child_process');
  const { streamBaseState, kReadBytesOrError, kArrayBufferOffset } = internalBinding('stream_wrap');
  const channel = proc[kChannelHandle];
  // Calls onRead(bytes) with every read's bytes before the channel handles them.
  const tap = (onRead) => {
    const onread = channel.onread;
    channel.onread = function(arrayBuffer, ...rest) {
      const nread = streamBaseState[kReadBytesOrError];
      const offset = streamBaseState[kArrayBufferOffset];
      const bytes = nread > 0 && arrayBuffer ? Buffer.from(new Uint8Array(arrayBuffer, offset, nread)) : null;
      try {
        return Reflect.apply(onread, this, [arrayBuffer, ...rest]);
      } finally {
        if (bytes) onRead(bytes);
      }
    };
  };
  return { channel, tap };
}

const answer = (line) => fs.writeSync(1, `${JSON.stringify(line)}\n`);

// An uncaught error is a receive error of the case listening for one; any
// other is a bug of this script.
let onUncaught = null;
process.on('uncaughtException', (err) => {
  if (!onUncaught) {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(70);
  }
  onUncaught(describeError(err));
});

// A child of the child binary and the events of the case it serves, in
// arrival order: its reports, what the parent received from it, its exit.
class Child {
  constructor() {
    this.events = [];
    this.waiter = null;
    this.stderr = '';
    // spawn with an 'ipc' stdio, not fork: Deno's fork gives any child Deno's own arguments.
    const [command, ...args] = job.child;
    this.proc = spawn(command, [...args, childMain],
      { serialization: job.serialization, stdio: ['pipe', 'pipe', 'pipe', 'ipc'] });
    this.proc.stdin.on('error', () => {});  // EPIPE once it is gone; 'exit' says why
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (t) => { this.stderr = (this.stderr + t).slice(-kStderrTail); });
    onJsonLines(this.proc.stdout, (report) => this.push(report));
    this.proc.on('message', (m) => this.push({ event: 'parent-message', tree: channelTree(m) }));
    this.proc.on('disconnect', () => this.push({ event: 'disconnect' }));
    this.proc.on('exit', (code, signal) => this.push({ event: 'exit', code, signal }));
  }

  push(event) {
    this.events.push(event);
    this.waiter?.();
  }

  // The next event, or a timeout event at the deadline.
  async take(deadline) {
    while (!this.events.length) {
      const wait = deadline - Date.now();
      if (wait <= 0) return { event: 'timeout' };
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.waiter = () => { clearTimeout(timer); resolve(); };
      });
      this.waiter = null;
    }
    return this.events.shift();
  }

  command(line) {
    this.proc.stdin.write(`${JSON.stringify(line)}\n`);
  }

  // The outcome when the child exited or timed out instead of answering.
  failure(event, timeoutMs) {
    if (event.event === 'timeout') return { kind: 'hang', ms: timeoutMs };
    const stderr = this.stderr.trim().split('\n').slice(-8).join('\n');
    return { kind: 'crash', code: event.code, signal: event.signal, stderr };
  }

  kill() {
    this.proc.kill('SIGKILL');
  }
}

let job;
let valueChild = null;

function freshValueChild() {
  valueChild ??= new Child();
  return valueChild;
}

function dropValueChild() {
  valueChild?.kill();
  valueChild = null;
}

// Parent -> child: the parent sends, the child reports each arrival.
async function toChild(c) {
  const child = freshValueChild();
  const effects = [];
  let built;
  try {
    built = buildValues(c, effects);
  } catch (err) {
    return { kind: 'unbuildable', error: describeError(err) };
  }
  let error;
  try {
    built.setup();
    for (const value of built.values) child.proc.send(value);
  } catch (err) {
    error = describeError(err);
  } finally {
    built.teardown();
  }
  if (error) return { kind: 'reject', error, at: 'sender', effects };
  return collect(child, { expected: built.values.length, message: 'message', error: 'receive-error', effects });
}

// Child -> parent: the child sends and reports how many, the parent receives.
async function toParent(c) {
  const child = freshValueChild();
  onUncaught = (error) => child.push({ event: 'parent-error', error });
  try {
    child.command({ op: 'send', recipe: c.recipe, program: c.program });
    return await collect(child, { message: 'parent-message', error: 'parent-error' });
  } finally {
    onUncaught = null;
  }
}

// Gathers arrivals until the sender is done (known up front, or told by its
// 'sent' report) and every value it sent arrived or failed to, or the child
// ended.
async function collect(child, { expected, message, error, effects }) {
  const deadline = Date.now() + job.timeoutMs;
  const messages = [];
  const errors = [];
  let count = expected;
  let sentEffects = effects;
  while (count === undefined || messages.length + errors.length < count) {
    const e = await child.take(deadline);
    if (e.event === message) messages.push(e.tree);
    else if (e.event === error) errors.push(e.error);
    else if (e.event === 'sent') [count, sentEffects] = [e.count, e.effects];
    else if (e.event === 'send-error') return { kind: 'reject', error: e.error, at: 'sender', effects: e.effects };
    else if (e.event === 'unbuildable') return { kind: 'unbuildable', error: e.error };
    else if (e.event === 'exit' || e.event === 'timeout') {
      dropValueChild();
      // What the receiver raised before it stopped says why (a header version it cannot read).
      return { ...child.failure(e, job.timeoutMs), ...(errors.length && { errors }) };
    }
  }
  if (errors.length) return { kind: 'reject', error: errors[0], at: 'receiver', effects: sentEffects };
  return { kind: 'ok', messages, effects: sentEffects };
}

// Waits for the events of a fresh child until `finished(event)` says so, the
// child ends, or the deadline passes; returns the child's failure or null.
async function until(child, finished) {
  const deadline = Date.now() + job.timeoutMs;
  for (;;) {
    const e = await child.take(deadline);
    if (finished(e)) return null;
    if (e.event === 'timeout' || (e.event === 'exit' && (e.signal || e.code))) return child.failure(e, job.timeoutMs);
  }
}

// Raw bytes: a fresh child writes them into the channel; this process reads.
async function raw(c) {
  const child = new Child();
  const messages = [];
  const errors = [];
  onUncaught = (error) => errors.push(error);
  channelAccess(child.proc).tap((bytes) => child.command({ op: 'read', n: bytes.length }));
  child.proc.on('message', (m) => messages.push(channelTree(m)));
  try {
    child.command({ op: 'raw', pieces: pieces(c.input) });
    return await until(child, (e) => e.event === 'disconnect') ?? channelRecord(messages, errors);
  } finally {
    onUncaught = null;
    child.kill();
  }
}

// What a child of this runtime writes for the wire sample's values, as bytes
// read here, with what this parent made of them.
async function capture() {
  const child = new Child();
  const chunks = [];
  const errors = [];
  let messages = 0;
  onUncaught = (error) => errors.push(error);
  channelAccess(child.proc).tap((bytes) => chunks.push(bytes));
  child.proc.on('message', () => messages++);
  try {
    child.command({ op: 'send', program: wireSample });
    const failure = await until(child, (e) => e.event === 'sent' || e.event === 'send-error');
    const count = programs[wireSample].values().length;
    const settled = Date.now() + kQuietMs;
    while (Date.now() < settled && messages + errors.length < count) await new Promise((r) => setTimeout(r, 20));
    const bytes = Buffer.concat(chunks).toString('hex');
    return { kind: 'capture', bytes, messages, errors, ...(failure && { failure }) };
  } finally {
    onUncaught = null;
    child.kill();
  }
}

// One frame written into a fresh child's channel: what the child made of it.
async function accept(c) {
  const child = new Child();
  const { channel } = channelAccess(child.proc);
  try {
    writeAll(channel.fd, Buffer.from(c.frame, 'hex'));
    let outcome = null;
    const failure = await until(child, (e) => {
      if (e.event === 'message') outcome = { kind: 'ok', tree: e.tree };
      else if (e.event === 'receive-error') outcome = { kind: 'reject', error: e.error, at: 'receiver' };
      return outcome !== null;
    });
    return outcome ?? failure;
  } finally {
    child.kill();
  }
}

// A frame of the sentinel or a ping, as this (Node) parent writes it.
function frameOf(value) {
  const payload = require('node:v8').serialize(value);
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(payload.length);
  return Buffer.concat([prefix, payload]);
}

const kPing = 'ipcfuzz:ping';
// How long a reader gets to deliver more after the last thing it did.
const kSettleMs = 1500;

// Raw bytes the other way: this process writes them into a fresh child's
// channel, after a ping that shows the child reads, then the sentinel; the
// child reports what it made of them.
async function inject(c) {
  const child = new Child();
  const { channel } = channelAccess(child.proc);
  const messages = [];
  const errors = [];
  let next = false;
  const onEvent = (e) => {
    if (e.event === 'message' && e.tree.t === 'string' && e.tree.v === SENTINEL) next = true;
    else if (e.event === 'message') messages.push(e.tree);
    else if (e.event === 'receive-error') errors.push(e.error);
  };
  try {
    writeAll(channel.fd, frameOf(kPing));
    const failure = await until(child, (e) => e.event === 'message' && e.tree.v === kPing);
    if (failure) return failure;
    for (const hex of [...pieces(c.input), frameOf(SENTINEL).toString('hex')]) {
      writeAll(channel.fd, Buffer.from(hex, 'hex'));
      await new Promise((resolve) => setTimeout(resolve, 20));  // one read per piece, as far as timing gives
    }
    for (;;) {
      const e = await child.take(Date.now() + kSettleMs);
      if (e.event === 'timeout') break;
      if (e.event === 'exit' && (e.signal || e.code)) return child.failure(e, job.timeoutMs);
      onEvent(e);
      if (next) break;
    }
    return { kind: 'ok', messages, errors, next };
  } finally {
    child.kill();
  }
}

const parts = { record: raw, toChild, toParent, capture, accept, inject };

async function runCase(c) {
  for (const part of partsOf(c)) {
    answer({ id: c.id, part, outcome: await parts[part](c) });
  }
  answer({ id: c.id, done: true });
}

async function main(received) {
  job = received;
  answer({ ready: true });
  for (const c of job.cases) await runCase(c);
  dropValueChild();
  process.exit(0);
}

onJsonLines(process.stdin, main);
process.stdin.on('end', () => {
  try {
    process.kill(-process.pid, 'SIGKILL');  // the driver made this process a group leader
  } finally {
    process.exit(1);
  }
});
