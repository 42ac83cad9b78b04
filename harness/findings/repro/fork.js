'use strict';
// repro-fork.js and review-repro.js: a finding's input through
// child_process.fork(file, { serialization: 'advanced' }) with public APIs
// only, in straight-line code that observes one thing and compares it with
// what Node.js 26.3.1 did (recorded by ipcfuzz, record.js). One body per
// check, printed alone (repro-fork.js) or beside others in one file that
// runs each in a process of its own (review-repro.js).

const { compileRecipe, compileWorld } = require('../../recipes/codegen');
const { sourceOf } = require('./printed');
const { kCallTimeoutMs } = require('../../base/defaults');

// A send or a read of a script's own taking longer is a hang, as a codec call is.
const kSeconds = kCallTimeoutMs / 1000;

// What a check can observe through child_process, in the order a difference
// is looked for, each with what a script says it compares.
const observations = Object.freeze({
  sent: 'what child.send(value) did',
  received: 'what the child received',
  effects: 'user code run while sending',
  receivedEffects: 'user code the child ran while receiving',
});
const kArrived = 'what arrived before the message sent after them';

const indent = (text, by = '  ') => text.split('\n').map((l) => (l ? `${by}${l}` : l)).join('\n');
const block = (head, body) => `${head} {\n${indent(body)}\n}`;
const say = (what, seen) => `verdict(${JSON.stringify(what)}, ${seen}, expected)`;

// The receiving process: sets up the receiving world, if any, and gives the
// verdict on what it saw once the value arrived, or once reading it failed,
// with the world torn down (a world can break what writes the verdict: a
// getter-only accessor on Object.prototype breaks making the stdout stream).
function receiver(check) {
  const { observe, world } = check;
  const watching = observe === 'receivedEffects';
  const lines = watching ? ['const effects = [];'] : [];
  if (world) lines.push(`const world = build(makeWorld, ${watching ? 'effects' : '[]'});`, 'world.setup();');
  if (watching && world.pool) lines.push('const before = Buffer.allocUnsafe(1);');
  if (watching) lines.push('effects.codecRunning = true;');
  const teardown = world ? 'world.teardown(); ' : '';
  if (observe === 'received') {
    lines.push(`const done = (seen) => { ${teardown}${say(observations.received, 'seen')}; process.exit(); };`,
      'process.on(\'message\', (message) => done(describe(message)));',
      'process.on(\'uncaughtException\', (err) => done(`threw ${label(err)}`));');
  } else if (watching) {
    lines.push(block('const done = () =>', ['effects.codecRunning = false;',
      ...(world.pool ? ['effects.push(poolMoved(before));'] : []), 'world.teardown();',
      `${say(observations.receivedEffects, 'effects.join(\', \') || \'none\'')};`, 'process.exit();'].join('\n')) + ';',
    'process.on(\'message\', done);', 'process.on(\'uncaughtException\', done);');
  } else {
    lines.push('process.on(\'message\', () => process.exit());');
  }
  if (observe === 'received' || watching) {
    lines.push(`setTimeout(() => done(${observe === 'received' ? `'nothing within ${kSeconds} s'` : ''}), ` +
      `${kCallTimeoutMs}).unref();`);
  }
  return lines.join('\n');
}

// The process that sends: the value built, the send, and for `effects` the
// user code run meanwhile; for what the child saw, its verdict is the child's.
function sender(check, self) {
  const { observe, value } = check;
  const effects = observe === 'effects';
  const fork = `fork(__filename, [${self}'receive'], { serialization: 'advanced' })`;
  const lines = [`${effects ? 'const effects = [];\n' : ''}const { value, setup, teardown } = ` +
    `build(makeValue, ${effects ? 'effects' : '[]'});`, `const child = ${fork};`];
  if (observe === 'received' || observe === 'receivedEffects') {
    lines.push(`child.on('exit', (code, signal) => (signal ? ${say(observations[observe], '`crashed (${signal})`')} : ` +
      '(process.exitCode = code)));');
  }
  lines.push('setup();');
  if (observe === 'sent') {
    lines.push(block('try', `child.send(value);\n${say(observations.sent, '\'returned\'')};`) +
      block(' catch (err)', `${say(observations.sent, '`threw ${label(err)}`')};\nchild.kill();`));
  } else if (effects) {
    if (value.pool) lines.push('const before = Buffer.allocUnsafe(1);');
    lines.push('effects.codecRunning = true;', 'child.send(value);', 'effects.codecRunning = false;',
      ...(value.pool ? ['effects.push(poolMoved(before));'] : []));
  } else {
    lines.push('child.send(value);');
  }
  lines.push('teardown();');
  if (effects) lines.push(`${say(observations.effects, 'effects.join(\', \') || \'none\'')};`);
  return lines.join('\n');
}

// A process of its own around `role`, whose crash or hang is the verdict.
const supervised = (role, what, self) => `const run = spawnSync(process.execPath, [__filename, ${self}'${role}'], ` +
  `{ stdio: 'inherit', timeout: ${kCallTimeoutMs} });
if (run.error || run.signal) ${say(what, `run.error ? 'hung (${kSeconds} s)' : \`crashed (\${run.signal})\``)};
else process.exitCode = run.status;`;

// Raw bytes: a peer writes them into its end of the channel (a pause between
// pieces makes each a read of its own), then sends one more message.
const bytesBody = (check, self) => `if (role === 'write') {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const piece of ${JSON.stringify(check.bytes)}) {
    require('node:fs').writeSync(process.channel.fd, Buffer.from(piece, 'hex'));
    Atomics.wait(pause, 0, 0, 50);
  }
  process.send('next');
} else if (role === 'read') {
  const child = fork(__filename, [${self}'write'], { serialization: 'advanced' });
  const arrived = [];
  process.on('uncaughtException', (err) => arrived.push(\`threw \${label(err)}\`));
  child.on('message', (message) => {
    if (message !== 'next') return arrived.push(describe(message));
    ${say(kArrived, 'arrived.join(\'; \') || \'nothing\'')};
    process.exit();
  });
} else {
${indent(supervised('read', kArrived, self))}
}`;

// A check's statements, run with `role` set; `self` prefixes the arguments
// its processes are started with.
function checkBody(check, self) {
  if (check.bytes) return bytesBody(check, self);
  const receiving = `if (role === 'receive') {\n${indent(receiver(check))}\n}`;
  if (check.observe !== 'sent') return `${receiving} else {\n${indent(sender(check, self))}\n}`;
  return `${receiving} else if (role === 'send') {\n${indent(sender(check, self))}\n} else {\n` +
    `${indent(supervised('send', observations.sent, self))}\n}`;
}

// The printed helpers the checks' bodies call.
function helpersOf(checks) {
  const bodies = checks.map((c) => checkBody(c, '')).join('\n');
  return ['describe', 'label', 'poolMoved', 'build', 'verdict'].filter((name) => bodies.includes(`${name}(`))
    .map(sourceOf);
}

function requires(checks) {
  const sync = checks.some((c) => c.observe === 'sent' || c.bytes) ? ', spawnSync' : '';
  return `const { fork${sync} } = require('node:child_process');`;
}

// A check's value and world, each a function of `effects`.
const builders = (check) => (check.bytes ? [] : [block('function makeValue(effects)', check.value.source),
  ...(check.world ? [block('function makeWorld(effects)', check.world.source)] : [])]);

const pooled = (source) => /pool: true(,| };)$/m.test(source);

// The body of makeValue for a value input: a recipe's printed code, or a value module's call.
function valueSource(input) {
  if (input.recipe !== undefined) return compileRecipe(input.recipe);
  return `return { value: require(${JSON.stringify(input.module)})(effects), setup() {}, teardown() {} };`;
}

// A check: { name, observe, expected } and the value input ({ recipe } or
// { module }) it sends, or the pieces of raw bytes a peer writes (observe is then 'received').
function forkCheck({ name, observe, expected, input, bytes }) {
  if (bytes !== undefined) return { name, observe: 'received', expected, bytes };
  const value = valueSource(input);
  const world = input.recipe === undefined ? null : compileWorld(input.recipe);
  return { name, observe, expected, value: { source: value, pool: pooled(value) },
    world: world && { source: world, pool: pooled(world) } };
}

// repro-fork.js: one check, straight-line.
function reproFork(check, { lead = [] } = {}) {
  const what = check.bytes ? kArrived : observations[check.observe];
  return [`// ${check.name}`, ...lead.map((l) => `// ${l}`),
    '// node repro-fork.js: exit 0 if it sees what Node.js 26.3.1 saw (recorded below), 1 if not, 2 if it cannot run.',
    requires([check]), '', ...builders(check).map((b) => `${b}\n`),
    `const expected = ${JSON.stringify(check.expected)}; // ${what}, in Node.js 26.3.1`, '',
    ...helpersOf([check]).map((h) => `${h}\n`), checkBody(check, '').replace(/\brole\b/g, 'process.argv[2]'), '',
  ].join('\n');
}

// review-repro.js: each check in a process of its own; PASS or FAIL each, exit 1 when one fails.
function reviewRepro(checks, { lead = [] } = {}) {
  const entries = checks.map((check, i) => block('', `name: ${JSON.stringify(check.name)},\n` +
    block('run(role)', [...builders(check), `const expected = ${JSON.stringify(check.expected)};`,
      checkBody(check, `'${i}', `)].join('\n')) + ',').trim());
  return ['#!/usr/bin/env node', ...lead.map((l) => `// ${l}`),
    '// node review-repro.js, in any binary: each check prints PASS when it sees what Node.js 26.3.1 saw (recorded',
    '// by ipcfuzz), FAIL when not; exit 1 when one fails, 2 when one cannot run.',
    'const { fork, spawnSync } = require(\'node:child_process\');', '',
    `const checks = [\n${indent(entries.join(',\n'))},\n];`, '', ...helpersOf(checks).map((h) => `${h}\n`),
    `const [index, role] = process.argv.slice(2);
if (index !== undefined) {
  checks[index].run(role);
} else {
  console.log('Expected on Node.js 26.3.1: all PASS.\\n');
  const ends = checks.map((check, i) => {
    const run = spawnSync(process.execPath, [__filename, String(i)], { encoding: 'utf8', timeout: 30_000 });
    const end = run.status === 0 ? 'PASS' : run.status === 2 ? 'CANNOT RUN' : 'FAIL';
    console.log(\`\${end}: \${check.name}\\n\${\`\${run.stdout}\${run.stderr}\`.replace(/^(?=.)/gm, '  ')}\`);
    return end;
  });
  console.log(\`\${ends.filter((end) => end === 'PASS').length} of \${checks.length} checks pass\`);
  process.exitCode = ends.includes('FAIL') ? 1 : ends.includes('CANNOT RUN') ? 2 : 0;
}
`].join('\n');
}

module.exports = { observations, kArrived, forkCheck, valueSource, reproFork, reviewRepro };
