'use strict';
// repro.js: a finding's input through the codec under test called directly
// (node --expose-internals), in straight-line code that observes the one
// operation whose outcome differs and compares it with what the reference
// codec did, recorded by ipcfuzz (record.js) by running this same script
// with --codec=<the reference's adapter>.

const path = require('node:path');
const { compileWorld } = require('../../recipes/codegen');
const { pieces } = require('../../oracle/channel');
const { sourceOf } = require('./printed');
const { valueSource } = require('./fork');
const { capabilitiesOf } = require('../../codecs');
const { Tier } = require('../../base/vocabulary');

const codecsDir = path.join(__dirname, '..', '..', 'codecs');

// The module a codec name or adapter path stands for: what --codec= takes.
const modulePath = (codec) => (codec.includes('/') ? codec : path.join(codecsDir, `${codec}.js`));

// What each operation observes, for people.
const observations = Object.freeze({
  written: 'what it writes',
  effects: 'user code run while it writes',
  read: 'what it reads from the frame',
  readEffects: 'user code run while it reads the frame',
  readBack: 'what it reads back of its own frame',
  reencoded: 'what it writes again of what it read',
  reads: 'what each read of the bytes delivered',
});

// Which operation a finding's difference is in, and the input it takes.
function operationOf(meta) {
  const op = meta.signature.split('/')[1];
  if (meta.type === 'frame' || meta.type === 'stream') return { observe: 'reads', pieces: pieces(meta.input) };
  if (meta.type === 'roundtrip') return { observe: 'reencoded', frame: meta.outcomes.serialize.a.bytes };
  if (op === 'deserialize' && meta.tier === Tier.roundtrip) return { observe: 'readBack' };
  if (op === 'deserialize') {
    const producer = /decode (a|b)'s frame/.exec(meta.where)?.[1] ?? 'a';
    const frame = meta.outcomes.serialize[producer].bytes;
    return { observe: meta.tier === Tier.effects ? 'readEffects' : 'read', frame };
  }
  return { observe: meta.tier === Tier.effects ? 'effects' : 'written' };
}

const pooled = (source) => /pool: true(,| };)$/m.test(source ?? '');
const say = (observe, seen) => `verdict(${JSON.stringify(observations[observe])}, ${seen}, expected);`;

// The statements that build the world and start watching (effects, pool),
// and those that stop and tear the world down before the verdict is written
// (a world can break what writes it: a getter-only Object.prototype.buffer
// breaks making the stdout stream).
function watching(world, { watch = false } = {}) {
  const start = [];
  const stop = [];
  if (world) start.push('const world = build(makeWorld, effects);', 'world.setup();');
  if (watch && pooled(world)) {
    start.push('const before = Buffer.allocUnsafe(1);');
    stop.push('effects.push(poolMoved(before));');
  }
  if (world) stop.push('world.teardown();');
  return { start: [...start, 'effects.codecRunning = true;'], stop: ['effects.codecRunning = false;', ...stop] };
}

// The operation's statements.
function body(operation, { value, world }) {
  const { observe } = operation;
  const effects = 'effects.join(\', \') || \'none\'';
  if (observe === 'reads') {
    return ['const framer = framerOf(codec);', `const reads = ${JSON.stringify(operation.pieces)}.map((piece) => {`,
      '  const delivered = [];',
      '  const got = attempt(() => {',
      '    for (const message of framer.push(Buffer.from(piece, \'hex\'))) delivered.push(describe(message));',
      '  });',
      '  const text = [...delivered, got.threw].filter(Boolean).join(\'; \') || \'nothing\';',
      '  return `${text}${framer.buffering() ? \', buffering\' : \'\'}`;',
      '});', say(observe, 'reads.join(\' | \')')];
  }
  if (operation.frame !== undefined) {
    const { start, stop } = watching(world, { watch: observe === 'readEffects' });
    const call = observe === 'reencoded' ? 'hex(codec.serialize(codec.deserialize(frame.subarray(4)), Buffer))' :
      'codec.deserialize(frame.subarray(4))';
    const seen = observe === 'readEffects' ? effects :
      observe === 'read' ? 'got.threw ?? describe(got.value)' : 'got.threw ?? got.value';
    return [`const frame = Buffer.from(${JSON.stringify(operation.frame)}, 'hex');`, 'const effects = [];', ...start,
      `const got = attempt(() => ${call});`, ...stop, say(observe, seen)];
  }
  const watch = observe === 'effects';
  const { start, stop } = watch ? watching(null) : { start: [], stop: [] };
  const before = watch && pooled(value) ? ['const before = Buffer.allocUnsafe(1);'] : [];
  const after = before.length ? ['effects.push(poolMoved(before));'] : [];
  const lines = [`const { value, setup, teardown } = build(makeValue, ${watch ? 'effects' : '[]'});`, 'setup();',
    ...before, ...start, 'const written = attempt(() => codec.serialize(value, Buffer));', ...stop, ...after,
    'teardown();'];
  if (watch) lines.unshift('const effects = [];');
  if (observe === 'readBack') {
    return [...lines, ...(world ? ['const world = build(makeWorld, []);', 'world.setup();'] : []),
      'const got = written.threw ? written : attempt(() => codec.deserialize(written.value.subarray(4)));',
      ...(world ? ['world.teardown();'] : []), say(observe, 'got.threw ?? describe(got.value)')];
  }
  return [...lines, say(observe, observe === 'effects' ? effects : 'written.threw ?? hex(written.value)')];
}

const block = (head, text) => `${head} {\n${text.split('\n').map((l) => (l ? `  ${l}` : l)).join('\n')}\n}`;

// The line that loads the codec under test: the binary's own binding for
// `native`, else its adapter module; --codec=FILE loads another in its place.
function codecLine(codec) {
  const load = capabilitiesOf(codec).script ?? `require(${JSON.stringify(modulePath(codec))})`;
  return ['const file = process.argv.find((arg) => arg.startsWith(\'--codec=\'))?.slice(\'--codec=\'.length);',
    `const codec = build(() => (file ? require(file) : ${load}));`];
}

// repro.js of a finding (finding.json's fields) whose title is `title`;
// `expected` is what the reference did, or undefined before it is recorded.
function codecRepro(meta, { title, expected }) {
  const operation = operationOf(meta);
  const recipe = meta.input?.recipe;
  const value = meta.type === 'value' || meta.type === 'roundtrip' ? valueSource(meta.input) : null;
  const world = recipe && compileWorld(recipe);
  const statements = body(operation, { value, world });
  const needs = ['describe', 'label', 'poolMoved', 'hex', 'attempt', 'framerOf']
    .filter((name) => statements.join('\n').includes(`${name}(`) || (name === 'label' && statements.join('\n').includes('attempt(')));
  const codec = meta.sides?.b?.codec ?? 'native';
  // Reading a frame takes its bytes, not the value; writing one sends no frame to a receiving world.
  const builds = value && !['reencoded', 'read', 'readEffects'].includes(operation.observe);
  const receives = world && !['written', 'effects'].includes(operation.observe);
  return [`// ${title}`,
    `// node --expose-internals repro.js: ${capabilitiesOf(codec).script ? 'internalBinding(\'ipc_serdes\')' : codec} called ` +
      'directly; exit 0 if it does what',
    '// Node.js 26.3.1\'s codec did (recorded below), 1 if not, 2 if it cannot run. --codec=FILE: an adapter instead.',
    sourceOf('build'), ...codecLine(codec), '',
    ...(builds ? [block('function makeValue(effects)', value), ''] : []),
    ...(receives ? [block('function makeWorld(effects)', world), ''] : []),
    `const expected = ${JSON.stringify(expected ?? null)}; // ${observations[operation.observe]}, in Node.js 26.3.1`,
    '',
    ...needs.map((name) => `${sourceOf(name)}\n`), sourceOf('verdict'), '', ...statements, ''].join('\n');
}

module.exports = { codecRepro, operationOf, modulePath, codecObservations: observations };
