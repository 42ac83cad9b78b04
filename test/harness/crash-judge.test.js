'use strict';
// The crash judge (harness/run/crash-judge.js) says an input reaches the known
// native crash only where a worker does crash on it, and the session applies
// its judgments only while workers agree.
const assert = require('node:assert/strict');
const { fixtureLines } = require('../fixtures/helpers');
const { KnownCrash, judgeKnownCrash } = require('../../harness/run/crash-judge');
const { buildInput } = require('../../harness/recipes/build');

const num = { k: 'number', v: 1 };
const port = (props, tamper) => ({ k: 'port', props, ...(tamper && { tamper }) });
const getter = (key, then) => ({ op: 'define', key, get: { returns: num, ...(then && { then }) } });

const withGetter = { k: 'object', props: [], tamper: [getter('g')] };

// name -> [recipe, verdict]: 'crash', 'clear' (no crash of this kind) or null (none: a worker runs it)
const cases = {
  'a port with an index key': [port([['x', num], ['0', num]]), 'crash'],
  'a certificate inside an object':
    [{ k: 'object', props: [['a', num], ['h', { k: 'host', type: 'x509', props: [['3', num]] }]] }, 'crash'],
  'an index key read by a getter': [port([], [getter('5')]), 'crash'],
  'an index key whose getter throws': [port([], [{ op: 'define', key: '0', get: { throws: 'no' } }]), null],
  'an index key whose getter takes it and another away':
    [port([['x', num]], [getter('0', [{ op: 'delete', key: '0' }, { op: 'delete', key: 'x' }])]), 'crash'],
  'an index key whose getter throws after a non-enumerable one': [port([], [
    { op: 'define', key: '0', value: num, enumerable: false },
    { op: 'define', key: '1', get: { throws: 'no' } }]), null],
  'a getter of the port itself': [port([['0', num]], [getter('x')]), 'crash'],
  'a getter met after the port': [{ k: 'array', items: [port([['0', num]]), withGetter] }, 'crash'],
  'a getter met before the port': [{ k: 'array', items: [withGetter, port([['0', num]])] }, null],
  'a getter before the port that takes its key away': [{ k: 'object', props: [['a', num], ['h', port([['0', num]])]],
    tamper: [getter('a', [{ op: 'delete', on: 'h', key: '0' }])] }, null],
  'an index key beyond the Smis': [port([['2147483648', num]]), null],
  'such a port before one with a Smi key':
    [{ k: 'array', items: [port([['2147483648', num]]), port([['0', num]])] }, null],
  'a function the codec rejects first': [{ k: 'array', items: [{ k: 'function' }, port([['0', num]])] }, null],
  'a frozen port': [port([['0', num]], [{ op: 'freeze' }]), null],
  // Judged in a worker, where such a value is built (harness/run/placement.js).
  'a setter on Object.prototype': [port([['0', num]], [{ op: 'inherited-setter', key: 'x' }]), 'crash'],
  'no host object': [{ k: 'object', props: [['0', num]] }, 'clear'],
  'a port without index keys': [port([['x', num], ['2a', num]]), 'clear'],
  'an index key a step takes away': [port([['0', num]], [{ op: 'delete', key: '0' }]), 'clear'],
  'an index key on an object inside a port': [port([['x', { k: 'object', props: [['0', num]] }]]), 'clear'],
};

describe('crash judge', function () {
  this.timeout(60_000);

  it('judges an input to reach the native crash only where a worker crashes, clear of it where none does', function () {
    const lines = fixtureLines('crash-judge.js', Object.values(cases).map(([recipe]) => recipe));
    const seen = Object.fromEntries(Object.keys(cases).map((name, i) => [name, lines[i]]));
    for (const [name, [, verdict]] of Object.entries(cases)) {
      assert.equal(seen[name].judged, verdict, name);
      if (verdict === 'crash') assert.deepEqual([seen[name].kind, seen[name].signal], ['crash', 'SIGSEGV'], name);
      if (verdict === 'clear') assert.notEqual(seen[name].kind, 'crash', name);
    }
    // User code met first may change what follows: these getters take the crash away.
    assert.equal(seen['a getter before the port that takes its key away'].kind, 'ok');
    assert.equal(seen['an index key whose getter throws'].kind, 'reject');
    assert.equal(seen['an index key whose getter throws after a non-enumerable one'].kind, 'reject');
    assert.equal(seen['a getter met before the port'].kind, 'crash');
  });

  describe('KnownCrash', function () {
    // A codec that copies a host object's keys as ipc_serdes does, reading the marker first.
    const codec = { serialize: (value) => ({ ...value }) };
    const recipe = port([['0', num]]);
    const crash = { kind: 'crash', signal: 'SIGSEGV', code: null, stderr: '' };
    const reached = (recipe) => () => judgeKnownCrash({ recipe }, codec, buildInput) === 'crash';

    it('judges once a worker has crashed on an input judged so, and has a worker check every 32nd', function () {
      const known = new KnownCrash();
      let runs = 0;
      const run = () => {
        runs++;
        return { ...crash };
      };
      const outcomes = Array.from({ length: 65 }, () => known.serialize(reached(recipe), run));
      for (const outcome of outcomes) assert.deepEqual(outcome, crash);
      assert.equal(runs, 3);  // the first, the 32nd and the 64th judged after it
      assert.equal(known.judged, 62);
    });

    it('stops judging once a worker disagrees', function () {
      const known = new KnownCrash();
      const first = known.serialize(reached(recipe), () => ({ kind: 'ok', bytes: '00' }));
      assert.equal(first.kind, 'ok');
      let runs = 0;
      known.serialize(reached(recipe), () => {
        runs++;
        return { ...crash };
      });
      assert.equal(runs, 1);
      assert.equal(known.judged, 0);
    });

    it('leaves to the worker what it cannot judge', function () {
      const known = new KnownCrash();
      let runs = 0;
      for (let i = 0; i < 3; i++) {
        known.serialize(reached(port([['x', num]])), () => {
          runs++;
          return { kind: 'ok', bytes: '00' };
        });
      }
      assert.equal(runs, 3);
      assert.equal(known.disagreed, false);
    });
  });
});
