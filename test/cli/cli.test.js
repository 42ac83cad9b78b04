'use strict';
// bin/ipcfuzz.js: exit codes (0 same or known only, 1 a new difference, 2 a
// problem with the input or environment, told in one line), the acceptance
// checks of the issue, and standalone repro scripts.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { cli, cliMain, runNode, node26, node263, fixture, frame } = require('../fixtures/helpers');

const oneLine = (stderr) => {
  assert.match(stderr, /^ipcfuzz \S+: [^\n]+\n$/, `stderr was: ${stderr}`);
  assert.doesNotMatch(stderr, /\n\s+at /);
};

describe('ipcfuzz CLI', function () {
  let dir;
  const file = (name, content) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, content);
    return p;
  };
  let hostTag2;
  let sameRecipe;
  before(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-cli-'));
    hostTag2 = file('host-tag-2.bin', Buffer.from('00000005ff0f5c0249', 'hex'));
    sameRecipe = file('same.json', JSON.stringify({ k: 'object', props: [['a', { k: 'number', v: 1 }]] }));
  });
  after(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('info', function () {
    it('describes 26.12.1 as having ipc_serdes and 26.3.1 as not', async function () {
      const [current, old] = await Promise.all([
        cli(['info', '--json']),
        cli(['info', '--node', '26.3.1', '--json']),
      ]);
      assert.equal(current.code, 0);
      assert.equal(old.code, 0);
      const a = JSON.parse(current.stdout);
      const b = JSON.parse(old.stdout);
      assert.deepEqual([a.node, a.ipcSerdes, a.path], ['v26.12.1', true, node26]);
      assert.deepEqual([b.node, b.ipcSerdes, b.builtin], ['v26.3.1', false, true]);
    });
  });

  describe('exit 0', function () {
    it('when both codecs agree', async function () {
      const { code, stdout, stderr } = await cli(['diff', '--recipe', sameRecipe]);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^a: js in node v26\.12\.1$/m);
      assert.match(stdout, /^b: native in node v26\.12\.1$/m);
      assert.match(stdout, /^SAME$/m);
    });

    it('when every difference is known (host tag 2)', async function () {
      const { code, stdout } = await cli(['diff', '--frame', hostTag2]);
      assert.equal(code, 0);
      assert.match(stdout, /SAME except 1 known difference/);
    });

    it('for a Buffer whose constructor was set to Uint8Array', async function () {
      const { code, stdout } = await cli(['diff', '--value', fixture('buffer-constructor.js'), '--json']);
      assert.equal(code, 0);
      const result = JSON.parse(stdout);
      assert.deepEqual(result.differences, []);
      const { a, b } = result.outcomes.serialize;
      assert.equal(a.bytes, b.bytes);
      // Both write type index 1 (Uint8Array), not 10 (Buffer).
      assert.equal(a.bytes, frame('ff0f 5c00 01 05 68656c6c6f'));
    });

    it('when a stream cut into reads agrees, with --chunks', async function () {
      const stream = file('stream.bin', Buffer.from(frame('ff0f4902') + frame('ff0f4904'), 'hex'));
      const { code, stdout } = await cli(['diff', '--stream', stream, '--chunks', '3,1', '--json']);
      assert.equal(code, 0);
      const { outcomes } = JSON.parse(stdout);
      // Reads of 3, 1 and the remaining 12 bytes.
      assert.deepEqual(outcomes.stream.a.reads.map((r) => r.delivered.length), [0, 0, 2]);
    });
  });

  describe('exit 1', function () {
    it('for a Uint8Array with an own byteLength', async function () {
      const { code, stdout } = await cli(['diff', '--value', fixture('u8-bytelength.js')]);
      assert.equal(code, 1);
      assert.match(stdout, /bytes\s+DIFF/);
      assert.match(stdout, /^DIFF: 1 difference$/m);
    });

    it('for host tag 2 with --no-known: both reject, with different codes', async function () {
      const { code, stdout } = await cli(['diff', '--no-known', '--frame', hostTag2]);
      assert.equal(code, 1);
      assert.match(stdout, /reject Error\[ERR_INTERNAL_ASSERTION\]/);
      assert.match(stdout, /reject Error\[ERR_INVALID_STATE\]/);
      assert.match(stdout, /error-identity\s+DIFF/);
      assert.match(stdout, /decoding stops at 0x7: bad-host-tag: 2/);
    });

    it('for a codec that crashes, with a crash verdict', async function () {
      const port = file('port.json', JSON.stringify({ k: 'port', props: [['0', { k: 'number', v: 5 }]] }));
      const { code, stdout } = await cli(['diff', '--recipe', port]);
      assert.equal(code, 1);
      assert.match(stdout, /crash SIGSEGV/);
      assert.match(stdout, /crash\s+DIFF/);
    });
  });

  describe('sides', function () {
    it('take codecs from --a and --b and binaries from --node and --base-node', async function () {
      const { code, stdout } = await cli(['diff', '--frame', hostTag2, '--no-known', '--json',
        '--a', 'builtin', '--base-node', '26.3.1', '--b', 'builtin', '--node', node26]);
      assert.equal(code, 1);
      const result = JSON.parse(stdout);
      assert.deepEqual([result.sides.a.codec, result.sides.a.node, result.sides.b.node], ['builtin', node263, node26]);
      // 26.3.1's builtin glue is the JS codec, 26.12.1's the native one.
      const { a, b } = result.outcomes.stream;
      assert.deepEqual([a.reads[0].error.code, b.reads[0].error.code], ['ERR_INTERNAL_ASSERTION', 'ERR_INVALID_STATE']);
    });

    it('take an adapter file by relative path', async function () {
      const wrapped = path.join('test', 'fixtures', 'wrapped-js.js');
      const { code, stdout } = await cli(['diff', '--recipe', sameRecipe, '--b', wrapped]);
      assert.equal(code, 0);
      assert.match(stdout, /^b: .*wrapped-js\.js in node v26\.12\.1$/m);
    });

    it('give a hang within --timeout', async function () {
      const { code, stdout } = await cli(['diff', '--recipe', sameRecipe, '--b', fixture('hang.js'),
        '--timeout', '300']);
      assert.equal(code, 1);
      assert.match(stdout, /hang: no answer within 300 ms/);
    });
    // setTimeout turns delays above 2^31-1 ms into 1 ms: such a --timeout
    // would make every request "hang".
    it('refuse a --timeout beyond what a timer holds, or honour it', async function () {
      const { code, stdout, stderr } = await cli(['diff', '--recipe', sameRecipe, '--timeout', '3000000000']);
      assert.ok(code === 0 || code === 2, `exit ${code}`);
      if (code === 2) oneLine(stderr);
      else assert.doesNotMatch(stdout + stderr, /hang|TimeoutOverflow/);
    });
  });

  // A one-second fuzz run of the host node with a fixture preloaded (node -r).
  const fuzzWith = (preload, out) =>
    runNode(process.execPath, ['-r', fixture(preload), cliMain, 'fuzz', '--seconds', '1', '--out', out]);

  describe('exit 2 with one line on stderr', function () {
    const cases = {
      'an unknown command': () => [['frobnicate'], /unknown command/],
      'an unknown flag': () => [['diff', '--frame', hostTag2, '--bogus'], /--bogus/],
      'two input flags': () => [['diff', '--frame', hostTag2, '--recipe', sameRecipe], /exactly one of/],
      'no input flag': () => [['diff'], /exactly one of/],
      'a missing input file': () => [['diff', '--frame', path.join(dir, 'nope.bin')], /cannot read .*ENOENT/],
      'invalid recipe JSON': () => [['diff', '--recipe', file('broken.json', '{"k": ')], /not valid JSON/],
      'a bad recipe node': () => [['diff', '--recipe', file('badnode.json', '{"k":"array","items":[{"k":"nope"}]}')], /recipe \$\.items\[0\]: unknown kind/],
      'a missing node binary path': () => [['diff', '--frame', hostTag2, '--node', path.join(dir, 'no-node')], /does not exist/],
      'a node version not installed': () => [['diff', '--frame', hostTag2, '--node', '19.0.1'], /19\.0\.1 is not installed/],
      'a file that is not a node binary': () => {
        const fake = file('fake-node', '#!/bin/sh\necho not node\n');
        fs.chmodSync(fake, 0o755);
        return [['diff', '--frame', hostTag2, '--node', fake], /not a usable node binary/];
      },
      'native on 26.3.1': () => [['diff', '--frame', hostTag2, '--node', '26.3.1'], /ipc_serdes/],
      'a bad --timeout': () => [['diff', '--frame', hostTag2, '--timeout', '0'], /--timeout/],
      'a non-numeric --timeout': () => [['diff', '--frame', hostTag2, '--timeout', 'soon'], /--timeout/],
      'bad --chunks': () => [['diff', '--stream', hostTag2, '--chunks', '3,x'], /--chunks/],
      '--chunks without --stream': () => [['diff', '--frame', hostTag2, '--chunks', '3'], /--chunks/],
      '--known with --no-known': () => [['diff', '--frame', hostTag2, '--known', path.join(dir, 'k.json'), '--no-known'], /exclude each other/],
      'an unknown codec': () => [['diff', '--frame', hostTag2, '--a', 'nonesuch'], /nonesuch/],
      'a value module that exports no function': () => [['diff', '--value', file('five.js', 'module.exports = 5;\n')], /must export a function/],
    };

    for (const [name, make] of Object.entries(cases)) {
      it(`for ${name}`, async function () {
        const [args, pattern] = make();
        const { code, stdout, stderr } = await cli(args);
        assert.equal(code, 2);
        assert.equal(stdout, '');
        oneLine(stderr);
        assert.match(stderr, pattern);
      });
    }

    it('for a --repro target that exists, leaving it untouched', async function () {
      const target = file('existing-repro.js', 'keep me\n');
      const { code, stdout, stderr } = await cli(['diff', '--recipe', sameRecipe, '--repro', target]);
      assert.equal(code, 2);
      assert.equal(stdout, '');
      oneLine(stderr);
      assert.match(stderr, /exists/);
      assert.equal(fs.readFileSync(target, 'utf8'), 'keep me\n');
    });

    // A value whose construction throws is an "unbuildable" input the checks
    // skip; diff must not call that SAME.
    it('for a value module that throws while building the value', async function () {
      const throwing = file('throws.js', "module.exports = () => { throw new Error('cannot build'); };\n");
      const { code, stdout, stderr } = await cli(['diff', '--value', throwing]);
      assert.equal(code, 2, stdout);
      oneLine(stderr);
      assert.match(stderr, /cannot build/);
    });

    // The repro is written after the check: a folder that does not exist must
    // be a one-line error, not a stack trace.
    it('for a --repro target in a directory that does not exist', async function () {
      const { code, stderr } = await cli(['diff', '--recipe', sameRecipe, '--repro', path.join(dir, 'no-dir', 'r.js')]);
      assert.equal(code, 2);
      oneLine(stderr);
    });

    // Exit 1 would read as a difference found.
    it('for an npm package that is not installed', async function () {
      const out = path.join(dir, 'no-package-findings');
      const { code, stdout, stderr } = await fuzzWith('hide-fast-check.js', out);
      assert.equal(code, 2, stderr);
      assert.equal(stdout, '');
      assert.equal(stderr, 'ipcfuzz: the npm package fast-check is not installed: run make install (npm ci)\n');
      assert.equal(fs.existsSync(out), false);
    });
  });

  // Exit 1 would read as a difference found, and node's own exit for an uncaught error is 1.
  describe('exit 3 for a fault of ipcfuzz itself', function () {
    it('named in its first line, its stack after it', async function () {
      const { code, stdout, stderr } = await fuzzWith('break-known.js', path.join(dir, 'fault-findings'));
      assert.equal(code, 3, stderr);
      assert.equal(stdout, '');
      const [first, second] = stderr.split('\n');
      assert.equal(first, 'ipcfuzz: internal error, a fault of ipcfuzz and no difference: ' +
        'a bug planted by test/fixtures/break-known.js');
      assert.match(second, /^TypeError: a bug planted/);
    });
  });

  // Point 7 of the bad inputs: each is refused in one line, exit 2, before
  // any work, and leaves the folder it ran in as it was.
  describe('exit 2 with one line, creating nothing', function () {
    let cwd;
    beforeEach(function () {
      cwd = fs.mkdtempSync(path.join(dir, 'cwd-'));
      fs.writeFileSync(path.join(cwd, 'a-file'), 'not a folder\n');
      fs.writeFileSync(path.join(cwd, 'empty.bin'), '');
    });
    const listing = () => fs.readdirSync(cwd, { recursive: true }).sort();

    const cases = {
      'fuzz --out naming a file': [['fuzz', '--out', 'a-file', '--seconds', '1'],
        /--out a-file is a file, not a folder/],
      'fuzz --out below a file': [['fuzz', '--out', 'a-file/f', '--seconds', '1'], /a-file is a file, not a folder/],
      'fuzz --work naming a file': [['fuzz', '--work', 'a-file', '--out', 'f', '--engine', 'jazzer'],
        /--work a-file is a file/],
      'gate --out naming a file': [['gate', '--out', 'a-file', '--budget', '5'],
        /--out a-file is a file, not a folder/],
      'conformance --report naming a file': [['conformance', '--report', 'a-file'], /--report a-file is a file/],
      'conformance --only matching nothing': [['conformance', '--only', '^nomatch$', '--report', 'r'],
        /matches no vector/],
      'an empty --frame file': [['diff', '--frame', 'empty.bin'], /--frame empty\.bin is empty/],
      'fuzz --seconds -1': [['fuzz', '--seconds', '-1', '--out', 'f'], /--seconds must be a whole number from 1/],
      'gate --budget -1': [['gate', '--budget', '-1', '--out', 'g'], /--budget must be a whole number from 1/],
      'diff --timeout -1': [['diff', '--frame', 'a-file', '--timeout', '-1'],
        /--timeout must be a whole number from 1/],
      'conformance --timeout -5': [['conformance', '--timeout', '-5', '--report', 'r'],
        /--timeout must be a whole number/],
      'diff --chunks -1': [['diff', '--stream', 'a-file', '--chunks', '-1'], /--chunks must be/],
      'a usage error in fuzz': [['fuzz', '--out', 'f', '--property', 'nope'], /unknown property "nope"/],
      'fuzz --path without --seed': [['fuzz', '--out', 'f', '--path', '0:1'], /--path replays one finding/],
      'gate --emit-known in a missing folder': [['gate', '--out', 'g', '--emit-known', 'no/k.json'],
        /folder .* does not exist/],
      'gate --emit-known naming a file': [['gate', '--out', 'g', '--emit-known', 'a-file'],
        /exists; ipcfuzz does not overwrite/],
      'gate --node naming a file that is not node': [['gate', '--out', 'g', '--node', 'a-file'],
        /not executable|not a usable/],
      'a bad .stream.json': [['diff', '--stream', 'x.stream.json'], /"bytes" must be a non-empty array/],
      'an empty inspect file': [['inspect', 'empty.bin'], /empty\.bin is empty/],
    };

    for (const [name, [args, pattern]] of Object.entries(cases)) {
      it(`for ${name}`, async function () {
        if (args.includes('x.stream.json')) fs.writeFileSync(path.join(cwd, 'x.stream.json'), '{"bytes": []}');
        const before = listing();
        const { code, stdout, stderr } = await cli(args, { cwd });
        assert.equal(code, 2, stdout + stderr);
        assert.equal(stdout, '');
        oneLine(stderr);
        assert.match(stderr, pattern);
        assert.deepEqual(listing(), before);
      });
    }
  });

  describe('--stream with a conformance .stream.json', function () {
    // The format of conformance/vectors.js: hex parts, or repeats, and read sizes.
    it('reads its parts and read sizes, not its JSON text', async function () {
      const spec = { bytes: [frame('ff0f4902'), frame('ff0f4904')], chunks: [3, 1] };
      const stream = file('two.stream.json', JSON.stringify(spec));
      const { code, stdout, stderr } = await cli(['diff', '--stream', stream, '--json']);
      assert.equal(code, 0, stderr);
      const { input, outcomes } = JSON.parse(stdout);
      assert.equal(input.bytes, frame('ff0f4902') + frame('ff0f4904'));
      assert.deepEqual(input.chunks, [3, 1]);
      assert.deepEqual(outcomes.stream.a.reads.map((r) => r.delivered.length), [0, 0, 2]);
    });

    it('takes --chunks over the read sizes of the file', async function () {
      const spec = { bytes: [{ repeat: frame('ff0f4902'), count: 2 }], chunks: [1] };
      const stream = file('repeat.stream.json', JSON.stringify(spec));
      const { code, stdout, stderr } = await cli(['diff', '--stream', stream, '--chunks', '6', '--json']);
      assert.equal(code, 0, stderr);
      const { input } = JSON.parse(stdout);
      assert.equal(input.bytes, frame('ff0f4902').repeat(2));
      assert.deepEqual(input.chunks, [6]);
    });
  });

  describe('help and version', function () {
    const commandNames = ['info', 'diff', 'fuzz', 'gate', 'inspect', 'conformance', 'node', 'report'];

    for (const name of commandNames) {
      it(`ipcfuzz ${name} --help lists every flag it parses, with its default`, async function () {
        const { flags } = require(`../../cli/commands/${name}`);
        const { code, stdout, stderr } = await cli([name, '--help']);
        assert.equal(code, 0, stderr);
        assert.match(stdout, new RegExp(`^usage: ipcfuzz ${name} `));
        for (const flag of Object.keys(flags)) {
          assert.match(stdout, new RegExp(`^ {2}--${flag}\\b.*\\(default: [^)]+\\)$`, 'm'));
        }
        // The table is what the parser takes: a flag help does not list is refused.
        const bogus = await cli([name, ...(name === 'node' ? ['list'] : []), '--no-such-flag']);
        assert.equal(bogus.code, 2);
      });
    }

    it('lists the fuzz properties and targets the engines have', function () {
      const { flags } = require('../../cli/commands/fuzz');
      assert.equal(flags.property.shown, Object.keys(require('../../properties/definitions').properties).join(','));
      assert.equal(flags.target.shown, require('../../fuzzers/jazzer/engine').targets.join(','));
    });

    it('prints the version of package.json', async function () {
      const { code, stdout } = await cli(['--version']);
      assert.equal(code, 0);
      assert.equal(stdout, `ipcfuzz ${require('../../package.json').version}\n`);
    });
  });

  describe('--repro', function () {
    const byteLengthRecipe = {
      k: 'view', type: 'Uint8Array', bytes: '01020304',
      tamper: [{ op: 'define', key: 'byteLength', value: { k: 'number', v: 1 } }],
    };

    // Writes a repro, moves it out of the repository and runs it there.
    const withInternals = ['--expose-internals', '--no-warnings'];
    async function reproduce(inputArgs, name, { nodePath = node26, nodeArgs = withInternals } = {}) {
      const target = path.join(dir, name);
      const made = await cli(['diff', ...inputArgs, '--repro', target]);
      assert.ok(fs.existsSync(target), made.stderr);
      const away = fs.mkdtempSync(path.join(os.tmpdir(), 'ipcfuzz-repro-'));
      try {
        const moved = path.join(away, 'repro.js');
        fs.copyFileSync(target, moved);
        const run = await runNode(nodePath, [...nodeArgs, moved]);
        return { made, run };
      } finally {
        fs.rmSync(away, { recursive: true, force: true });
      }
    }

    it('reproduces a difference: shows what each codec writes and exits 1', async function () {
      const recipe = file('bytelength.json', JSON.stringify(byteLengthRecipe));
      const { made, run } = await reproduce(['--recipe', recipe], 'diff-repro.js');
      assert.equal(made.code, 1);
      assert.equal(run.code, 1, run.stderr);
      // js writes the one byte its own byteLength says; native the view's four.
      assert.match(run.stdout, /^what it writes\n {2}node v26\.12\.1: 0000000aff0f5c000104010203 ?04\n {2}Node\.js 26\.3\.1: 00000007ff0f5c00010101$/m);
      const script = fs.readFileSync(path.join(dir, 'diff-repro.js'), 'utf8');
      assert.ok(script.split('\n').filter((l) => l.trim()).length <= 60, 'a repro read in a minute');
      assert.doesNotMatch(script, /const harness = /, 'no bundled harness');
    });

    it('reproduces agreement: exits 0', async function () {
      const { made, run } = await reproduce(['--recipe', sameRecipe], 'same-repro.js');
      assert.equal(made.code, 0);
      assert.equal(run.code, 0, run.stderr);
    });

    it('reproduces a frame check', async function () {
      const agreeing = file('one.bin', Buffer.from(frame('ff0f4902'), 'hex'));
      const { run } = await reproduce(['--frame', agreeing], 'frame-repro.js');
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^what each read of the bytes delivered\n {2}node v26\.12\.1: 1$/m);
    });

    // Exit 1 is a difference: a repro that cannot run says why in one line, exit 2.
    const cannotRun = (run, pattern) => {
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr.replace(/^\(node:\d+\).*\n(\(Use .*\n)?/gm, ''), /^cannot run: [^\n]+\n$/);
      assert.match(run.stderr, pattern);
    };

    it('exits 2 with one line when node lacks --expose-internals', async function () {
      const { run } = await reproduce(['--recipe', sameRecipe], 'no-internals.js', { nodeArgs: [] });
      cannotRun(run, /Cannot find module 'internal\/test\/binding'/);
    });

    it('exits 2 with one line on a node without ipc_serdes when codec b is native', async function () {
      const { run } = await reproduce(['--recipe', sameRecipe], 'old-node.js', { nodePath: node263 });
      cannotRun(run, /ipc_serdes/);
    });

    it('is ended by the codec that crashes the process', async function () {
      const port = file('port-repro.json', JSON.stringify({ k: 'port', props: [['0', { k: 'number', v: 5 }]] }));
      const { made, run } = await reproduce(['--recipe', port], 'crash-repro.js');
      assert.equal(made.code, 1);
      assert.equal(run.signal, 'SIGSEGV', `exit ${run.code}: ${run.stderr}`);
    });

    // The known list says what a run may pass over; the repro says what the codecs do.
    it('shows a known difference as the difference it is', async function () {
      const known = await reproduce(['--frame', hostTag2], 'known-repro.js');
      assert.equal(known.made.code, 0);
      assert.equal(known.run.code, 1, known.run.stdout);
      assert.match(known.run.stdout, /node v26\.12\.1: throws Error \[ERR_INVALID_STATE\]\n {2}Node\.js 26\.3\.1: throws Error \[ERR_INTERNAL_ASSERTION\]/);
    });

    it('reproduces a difference found with --value', async function () {
      const { made, run } = await reproduce(['--value', fixture('u8-bytelength.js')], 'value-repro.js');
      assert.equal(made.code, 1);
      assert.equal(run.code, 1, run.stdout);
      assert.match(fs.readFileSync(path.join(dir, 'value-repro.js'), 'utf8'), /require\(".*u8-bytelength\.js"\)\(effects\)/);
    });
  });
});
