'use strict';
// A finding's input through child_process itself, in one node binary, with
// public APIs only. repro-fork.js is this module bundled with the input, and
// the reachability check (index.js) runs that file in the build under test
// and in the reference release. Three processes:
//   supervisor  the one run: starts the parent, watches both ends and prints
//               what each side saw (an observation; with --json, as JSON)
//   parent      forks the child with serialization 'advanced'; the sender of
//               a value (child.send), or the receiver of raw bytes
//   child       the receiver of a value (process.on('message')), or a peer
//               that writes raw bytes into its end of the channel, fd 3
// Both report events as JSON lines, the parent on its stdout and the child on
// its own, which is the supervisor's fourth pipe handed down: a parent that
// crashes does not take the child's reports with it. Raw bytes go one piece
// at a time: after each the child tells the parent on a pipe beside the
// channel (its fd 4), and the parent acknowledges on the child's stdin once
// it has read what the channel held, so that each piece is a read of its own.

const { effectsLog } = require('../../recipes/effects');
const { spawn, fork } = require('node:child_process');
const os = require('node:os');
const { inspect } = require('node:util');
const { channelTree, pieces, writeAll, SENTINEL } = require('../../oracle/channel');
const { onLines, onJsonLines, afterOutput } = require('../../base/json-lines');
const { describeError } = require('../../base/errors');
const { Outcome } = require('../../base/vocabulary');
const { kCallTimeoutMs } = require('../../base/defaults');

const kStderrTail = 2048;
// How long a receiver gets after the peer's last write, and then to answer a ping (a quarter of the timeout at most).
const kSettleMs = 1500;
// What arrived, for people: one line.
const kInspect = { depth: 8, compact: true, breakLength: Infinity, maxArrayLength: 16, maxStringLength: 160 };
const kTextLength = 400;

// A receiver's effects, told from the sender's in one list.
const kReceiving = 'receiving: ';

const reporter = (fd) => (event) => writeAll(fd, Buffer.from(`${JSON.stringify(event)}\n`));

function describeMessage(message) {
  const text = inspect(message, kInspect);
  return { tree: channelTree(message), text: text.length > kTextLength ? `${text.slice(0, kTextLength - 1)}…` : text };
}

// The parent: forks the child, then sends the value or receives the bytes.
function parentRole(input, file) {
  const report = reporter(1);
  const child = fork(file, ['--role=child'],
    { serialization: 'advanced', stdio: ['pipe', 3, 'inherit', 'ipc', 'pipe'] });
  child.stdin.on('error', () => {});
  report({ event: 'forked', pid: child.pid });
  child.on('exit', (code, signal) => report({ event: 'child-exit', code, signal }));
  // The supervisor pings to learn whether this process still runs its event loop; gone, it takes the child along.
  onLines(process.stdin, (line) => line === 'ping' && report({ event: 'pong' }));
  process.stdin.on('end', () => {
    child.kill('SIGKILL');
    process.exit(0);
  });
  if (input.type !== 'value') {
    process.on('uncaughtException', (err) => report({ event: 'receive-error', error: describeError(err) }));
    child.on('message', (m) => report(m === SENTINEL ? { event: 'next' } :
      { event: 'message', ...describeMessage(m) }));
    // The bytes written before the child's word were in the channel when it came: by the
    // check phase of this turn of the event loop they have been read.
    child.stdio[4].on('data', (d) => setImmediate(() => child.stdin.write('a'.repeat(d.length))));
    return;
  }
  const effects = effectsLog();
  let built;
  try {
    built = input.make(effects);
  } catch (err) {
    report({ event: Outcome.unbuildable, error: describeError(err) });
    return;
  }
  // A value module that never returns is no hang of the codec.
  report({ event: 'built' });
  const failed = (err, how) => report({ event: 'send-error', error: describeError(err), how, effects });
  process.on('uncaughtException', (err) => failed(err, 'uncaught'));
  child.on('error', (err) => failed(err, 'error event'));
  // A set-up or tear-down that throws is the recipe's fault, not the codec's: the value is unbuildable.
  const step = (fn, when) => {
    try {
      fn();
      return true;
    } catch (err) {
      report({ event: Outcome.unbuildable, error: { ...describeError(err), message: `${when}: ${describeError(err).message}` } });
      return false;
    }
  };
  if (!step(() => built.setup(), 'the recipe\'s setup threw')) return;
  let threw = null;
  // The built-ins a recipe patched record their calls while a codec runs: in send(), here.
  effects.codecRunning = true;
  try {
    child.send(built.value, (err) => err && failed(err, 'callback'));
  } catch (err) {
    threw = err;
  } finally {
    effects.codecRunning = false;
  }
  if (!step(() => built.teardown(), 'the recipe\'s teardown threw')) return;
  if (threw) failed(threw, 'threw');
  else report({ event: 'sent', effects });
}

// The world a recipe's receiving steps make, set up in the child before
// anything arrives; what it records until the first arrival is the receiver's
// (the child does nothing else meanwhile). Null when the recipe has none, or
// when its setup threw (reported as unbuildable).
function receivingWorld(input, report) {
  if (!input.world) return null;
  const effects = effectsLog();
  try {
    input.world(effects).setup();
  } catch (err) {
    const error = describeError(err);
    report({ event: Outcome.unbuildable, error: { ...error, message: `the recipe's receiving setup threw: ${error.message}` } });
    return null;
  }
  effects.codecRunning = true;
  return effects;
}

// The child: receives the value, or writes the bytes straight into the channel.
function childRole(input) {
  const report = reporter(1);
  process.on('disconnect', () => process.exit(0));
  if (input.type === 'value') {
    const world = receivingWorld(input, report);
    // What the receiving world recorded until the value arrived (or failed to).
    const received = () => {
      if (!world) return {};
      world.codecRunning = false;
      return { receivedEffects: [...world] };
    };
    process.on('message', (m) => report({ event: 'message', ...received(), ...describeMessage(m) }));
    process.on('uncaughtException',
      (err) => report({ event: 'receive-error', ...received(), error: describeError(err) }));
    return;
  }
  let acked = 0;
  let wake = () => {};
  process.stdin.on('data', (d) => {
    acked += d.length;
    wake();
  });
  (async () => {
    const writes = pieces(input);
    for (const [i, hex] of writes.entries()) {
      writeAll(3, Buffer.from(hex, 'hex'));
      writeAll(4, Buffer.from('w'));
      while (acked <= i) await new Promise((resolve) => { wake = resolve; });
    }
    process.send(SENTINEL, () => report({ event: 'written' }));
  })().catch((err) => report({ event: 'write-error', error: describeError(err) }));
}

function platform() {
  return `${os.type()} ${os.release()} ${os.version()} ${os.machine()}`;
}

// Runs the round trip in this binary; resolves with the observation:
// { node, platform, type, record, texts, stderr, writes?, fault? }. `record`
// is what channel-differences.js compares: { kind: 'ok', messages, effects }
// (a value) or { kind: 'ok', messages, errors, next } (bytes); a reject, crash
// or hang, `at` the sender or the receiver; or unbuildable. `fault` says why
// the round trip itself could not run.
function observe(input, { file, timeoutMs = kCallTimeoutMs }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const parent = spawn(process.execPath, [file, '--role=parent'], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    const s = { messages: [], texts: [], errors: [], effects: [] };
    let stderr = '';
    let done = false;
    let settle = null;
    const timer = setTimeout(() => finish({ timedOut: true }), timeoutMs);
    const settleMs = Math.min(kSettleMs, timeoutMs / 4);
    parent.stdin.on('error', () => {});
    parent.stderr.setEncoding('utf8');
    parent.stderr.on('data', (t) => { stderr = (stderr + t).slice(-kStderrTail); });
    const onEvent = (e) => {
      if (e.event === 'forked') s.childPid = e.pid;
      else if (e.event === 'message') [s.messages, s.texts] = [[...s.messages, e.tree], [...s.texts, e.text]];
      else if (e.event === 'receive-error') s.errors.push(e.error);
      else if (['built', 'sent', 'send-error', Outcome.unbuildable, 'next', 'written', 'write-error', 'child-exit',
        'pong']
        .includes(e.event)) s[e.event] = e;
      if (e.effects) s.effects = e.effects;
      if (e.receivedEffects) s.receivedEffects = e.receivedEffects;
      decide();
    };
    onJsonLines(parent.stdout, onEvent);
    onJsonLines(parent.stdio[3], onEvent);
    afterOutput(parent, (code, signal) => {
      s.parentExit = { code, signal };
      decide();
    });
    function decide() {
      if (done) return;
      if (input.type === 'value') {
        if (s.unbuildable || s['send-error'] || s.messages.length || s.errors.length || childCrashed(s) ||
          s.parentExit) finish({});
      } else if (s.next || s.parentExit || s['write-error']) {
        finish({});
      } else if (s.written && !settle) {
        // Nothing more is coming: does the receiver still answer?
        settle = setTimeout(() => {
          parent.stdin.write('ping\n');
          settle = setTimeout(() => finish({ hung: !s.pong }), settleMs);
        }, settleMs);
      } else if (s.pong) {
        finish({});
      }
    }
    function finish({ timedOut = false, hung = false }) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(settle);
      parent.kill('SIGKILL');
      if (s.childPid) {
        try {
          process.kill(s.childPid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      const ms = Date.now() - started;
      const tail = stderr.trim().split('\n').slice(-8).join('\n');
      const observation = {
        node: process.version, platform: platform(), type: input.type, texts: s.texts, stderr: tail,
      };
      if (!s.childPid && !s.unbuildable) {
        observation.fault = `the parent did not fork the child${s.parentExit ? ` (it ended: ${exitText(s.parentExit)})` : ''}`;
      } else if (s['write-error']) {
        observation.fault = `the child could not write into the channel: ${s['write-error'].error.message}`;
      } else if (input.type === 'value') {
        observation.record = valueRecord(s, { timedOut, timeoutMs, tail });
      } else {
        observation.writes = pieces(input).length;
        observation.record = bytesRecord(s, { timedOut: timedOut || hung, ms, tail });
      }
      resolve(observation);
    }
  });
}

const childCrashed = (s) => s['child-exit'] && (s['child-exit'].signal || s['child-exit'].code);
const exitText = ({ code, signal }) => (signal ? `killed by ${signal}` : `exit ${code}`);
const crashOf = ({ code, signal }, at, stderr) =>
  ({ kind: Outcome.crash, at, ...(signal ? { signal } : { code }), stderr });

function valueRecord(s, { timedOut, timeoutMs, tail }) {
  // The receiver's, after the sender's: one list, compared as a whole.
  const effects = [...s.effects, ...(s.receivedEffects ?? []).map((e) => `${kReceiving}${e}`)];
  if (s.unbuildable) return { kind: Outcome.unbuildable, error: s.unbuildable.error };
  if (!s.built && timedOut) {
    return { kind: Outcome.unbuildable, error: { name: 'Error', message: `building the value did not finish in ${timeoutMs} ms` } };
  }
  const failed = s['send-error'];
  if (failed) return { kind: Outcome.reject, at: 'sender', error: failed.error, how: failed.how, effects };
  if (!s.sent) {
    return timedOut ? { kind: Outcome.hang, at: 'sender', ms: timeoutMs } : crashOf(s.parentExit, 'sender', tail);
  }
  if (s.messages.length) return { kind: Outcome.ok, messages: s.messages, effects };
  if (s.errors.length) return { kind: Outcome.reject, at: 'receiver', error: s.errors[0], effects };
  if (childCrashed(s)) return crashOf(s['child-exit'], 'receiver', tail);
  if (s.parentExit) return { ...crashOf(s.parentExit, 'sender', tail), afterSend: true };
  return { kind: Outcome.hang, at: 'receiver', ms: timeoutMs };
}

function bytesRecord(s, { timedOut, ms, tail }) {
  if (s.parentExit && !s.next) return crashOf(s.parentExit, 'receiver', tail);
  if (timedOut && !s.next) return { kind: Outcome.hang, at: 'receiver', ms, messages: s.messages, errors: s.errors };
  return { kind: Outcome.ok, messages: s.messages, errors: s.errors, next: Boolean(s.next) };
}

const errorText = (e) => `${e.name}${e.code ? ` [${e.code}]` : ''}: ${String(e.message).split('\n')[0]}`;
const label = (e) => (e.code ? `${e.name}[${e.code}]` : e.name);

// What of a record decides whether two round trips are alike: the same parts
// channel-differences.js compares, error messages and the stderr left out.
function judged(record) {
  if (!record) return null;
  const { kind, at, signal, messages, next, effects } = record;
  return JSON.stringify({
    kind, at, signal, code: kind === Outcome.crash && !signal ? record.code : undefined,
    error: record.error && label(record.error), errors: record.errors?.map(label), messages, next, effects,
  });
}

// Whether two observations saw the same (both must have a record).
const sameRoundTrip = (x, y) => Boolean(x?.record && y?.record) && judged(x.record) === judged(y.record);

// What an observation saw, in lines for people.
function describeObservation(o) {
  const lines = [`node ${o.node} (${o.platform}): parent and child both run this binary, serialization 'advanced'`];
  if (o.fault) return [...lines, `the round trip could not run: ${o.fault}`];
  const r = o.record;
  const stderr = r.stderr ? r.stderr.split('\n').map((l) => `  stderr: ${l}`) : [];
  const crash = r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`;
  if (o.type === 'value') {
    if (r.kind === Outcome.unbuildable) return [...lines, `the value cannot be built: ${errorText(r.error)}`];
    // Always there, so that two observations' lines pair up.
    const receiving = (r.effects ?? []).filter((e) => e.startsWith(kReceiving)).map((e) => e.slice(kReceiving.length));
    const sending = (r.effects ?? []).filter((e) => !e.startsWith(kReceiving));
    const ran = [`parent: user code run while sending: ${sending.join(', ') || 'none'}`,
      ...(receiving.length ? [`child: user code run while receiving: ${receiving.join(', ')}`] : [])];
    if (r.at === 'sender') {
      if (r.kind === Outcome.reject) {
        const how = {
          threw: 'threw', callback: 'called back with', 'error event': 'emitted', uncaught: 'raised, uncaught,',
        }[r.how];
        return [...lines, `parent: child.send(value) ${how ?? 'failed:'} ${errorText(r.error)}`, ...ran,
          'child: received nothing'];
      }
      if (r.kind === Outcome.hang) return [...lines, `parent: child.send(value) did not return within ${r.ms} ms`];
      return [...lines, `parent: ${r.afterSend ? 'after child.send(value) returned, the parent process ended' :
        'child.send(value) crashed the parent process'}: ${crash}`, ...stderr, 'child: received nothing'];
    }
    const sent = ['parent: child.send(value) returned', ...ran];
    if (r.kind === Outcome.ok) return [...lines, ...sent, `child: process.on('message') got ${o.texts[0]}`];
    if (r.kind === Outcome.reject) return [...lines, ...sent, `child: could not read it, uncaught ${errorText(r.error)}`];
    if (r.kind === Outcome.crash) return [...lines, ...sent, `child: the process crashed receiving it: ${crash}`, ...stderr];
    return [...lines, ...sent, `child: nothing arrived within ${r.ms} ms`];
  }
  const wrote = `child: wrote the bytes into its end of the channel (fd 3) in ${o.writes} ` +
    `write${o.writes === 1 ? '' : 's'}, then sent ${JSON.stringify(SENTINEL)}`;
  if (r.kind === Outcome.crash) return [...lines, wrote, `parent: the process crashed reading them: ${crash}`, ...stderr];
  const got = r.messages.length ? `parent: received ${r.messages.length} message${r.messages.length === 1 ? '' : 's'}: ` +
    `${o.texts.join('; ')}` : 'parent: received no message';
  const raised = r.errors.map((e) => `parent: uncaught ${errorText(e)}`);
  if (r.kind === Outcome.hang) return [...lines, wrote, got, ...raised, 'parent: stopped answering'];
  return [...lines, wrote, got, ...raised,
    `parent: the message sent after them ${r.next ? 'arrived' : 'did not arrive'}`];
}

// The observation of this file run in another binary, with --json.
function observeIn(node, file, timeoutMs) {
  return new Promise((resolve) => {
    const run = spawn(node, [file, '--json', `--timeout=${timeoutMs}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    run.stdout.setEncoding('utf8');
    run.stdout.on('data', (t) => { out += t; });
    run.on('error', (err) => resolve({ fault: `cannot run ${node}: ${err.code ?? err.message}` }));
    run.on('close', (code) => {
      try {
        resolve(JSON.parse(out));
      } catch {
        resolve({ fault: `${node} printed no observation (exit ${code})` });
      }
    });
  });
}

// repro-fork.js: prints what this binary saw and compares it with the
// reference, recorded or (--against NODE) seen now. Exit 0 SAME, 1 DIFF, 2
// cannot run or nothing to compare with.
async function supervise(input, { reference, file }) {
  const args = process.argv.slice(2);
  const flag = (name) => {
    const at = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (at === -1) return undefined;
    return args[at].includes('=') ? args[at].slice(name.length + 3) : args[at + 1];
  };
  const timeoutMs = Number(flag('timeout') ?? kCallTimeoutMs);
  const seen = await observe(input, { file, timeoutMs });
  if (args.includes('--json')) {
    process.stdout.write(`${JSON.stringify(seen)}\n`);
    return;
  }
  const against = flag('against');
  const base = against ? await observeIn(against, file, timeoutMs) : reference;
  console.log(describeObservation(seen).join('\n'));
  if (seen.fault || !seen.record || seen.record.kind === Outcome.unbuildable || !base || base.fault || !base.record) {
    const why = !base ? 'no reference recorded: run it again with --against <a node 26.3.1 binary>' :
      base.fault ? `the reference run failed: ${base.fault}` : 'this run shows nothing to compare';
    console.log(`cannot compare: ${why}`);
    process.exitCode = 2;
    return;
  }
  const same = sameRoundTrip(base, seen);
  console.log(`\n${same ? 'SAME' : 'DIFF'}: node ${base.node} (${against ? 'run now' : 'the reference, as recorded'}) saw:`);
  console.log(describeObservation(base).map((l) => `  ${l}`).join('\n'));
  process.exitCode = same ? 0 : 1;
}

function main(input, { reference = null, file }) {
  const role = process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length);
  if (role === 'parent') return parentRole(input, file);
  if (role === 'child') return childRole(input);
  return supervise(input, { reference, file }).catch((err) => {
    console.error(`repro-fork: cannot run: ${String(err?.message ?? err).split('\n')[0]}`);
    process.exitCode = 2;
  });
}

module.exports = { main, judged, sameRoundTrip, describeObservation, platform };
