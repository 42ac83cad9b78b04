'use strict';
// Functions the printed code of a recipe defines once, as source: printed into
// repro scripts (codegen.js) and evaluated once for planned recipes (runtime.js).

const helpers = {
  // Puts `descriptor` in the place of `target[key]` for one codec call; gives
  // the function that puts back what was there (or deletes what was not).
  replace: 'const replace = (target, key, descriptor) => { const old = Object.getOwnPropertyDescriptor(target, key); ' +
    'Object.defineProperty(target, key, descriptor); ' +
    'return () => (old ? Object.defineProperty(target, key, old) : delete target[key]); };',
  // Writes `bytes` (hex, or a Buffer the interpreter decoded once) `times`
  // over from `offset`: a long view costs no long string.
  fill: 'const fill = (buffer, offset, bytes, times = 1) => { ' +
    'const b = typeof bytes === \'string\' ? Buffer.from(bytes, \'hex\') : bytes; ' +
    'if (b.length) Buffer.from(buffer, offset, b.length * times).fill(b); return buffer; };',
  nest: 'const nest = (v, depth, wrap) => { for (let i = 0; i < depth; i++) v = wrap(v); return v; };',
  // String shapes: a concatenation, a slice of a longer string, a string
  // made by Buffer#toString (external when long), and a copy used as a
  // property key (internalized, leaving the copy thin).
  cons: 'const cons = (s) => s.slice(0, s.length >> 1) + s.slice(s.length >> 1);',
  sliced: 'const sliced = (s) => (\'\\u0000\'.repeat(16) + s).slice(16);',
  external: 'const external = (s) => Buffer.from(s, \'utf16le\').toString(\'utf16le\');',
  thin: 'const thin = (s) => { const t = (\' \' + s).slice(1); ({})[t] = 0; return t; };',
  // Makes an interceptor-backed store (process.env, sessionStorage) hold
  // `pairs` alone; gives the function that puts back what it held. A Web
  // Storage object is filled through its API (setItem): an index key assigned
  // as a property goes through V8's index interceptor, which stores 2^31 as
  // -2^31, before either codec sees it.
  holding: 'const holding = (store, pairs) => { const api = typeof store.setItem === \'function\'; ' +
    'const keys = api ? Array.from({ length: store.length }, (_, i) => store.key(i)) : Object.keys(store); ' +
    'const held = keys.map((k) => [k, api ? store.getItem(k) : store[k]]); ' +
    'const empty = () => { if (api) store.clear(); else for (const k of Object.keys(store)) delete store[k]; }; ' +
    'const put = (k, v) => { if (api) store.setItem(k, v); else store[k] = v; }; ' +
    'empty(); for (const [k, v] of pairs) put(k, v); ' +
    'return () => { empty(); for (const [k, v] of held) put(k, v); }; };',
  // The descriptor that puts a recorder in the place of a built-in method
  // or accessor (found on `owner` or up its prototype chain): each call made
  // while a codec runs records itself in `effects`, then each does what the
  // built-in did.
  recording: 'const recording = (owner, key, effects, label) => { let o = owner; let d; ' +
    'while (o && !(d = Object.getOwnPropertyDescriptor(o, key))) o = Object.getPrototypeOf(o); ' +
    'if (!d) throw new TypeError(`${label} is not there to patch`); ' +
    'const out = { configurable: true, enumerable: d.enumerable }; ' +
    'if (typeof d.value === \'function\') { const f = d.value; out.writable = true; ' +
    'out.value = function (...args) { if (effects.codecRunning) effects.push(`call ${label}`); ' +
    'return new.target ? Reflect.construct(f, args, new.target) : Reflect.apply(f, this, args); }; return out; } ' +
    'const get = d.get ?? (() => d.value); ' +
    'out.get = function () { if (effects.codecRunning) effects.push(`get ${label}`); ' +
    'return Reflect.apply(get, this, []); }; ' +
    'if (d.set) out.set = function (v) { if (effects.codecRunning) effects.push(`set ${label}`); ' +
    'Reflect.apply(d.set, this, [v]); }; ' +
    'return out; };',
  // The descriptor that puts `value` in a built-in prototype's place as an
  // accessor, so that each read a codec makes of it records itself in
  // `effects` (one codec may read it, the other not); an assignment makes
  // an own property, as one to a writable data property there would.
  watched: 'const watched = (key, value, effects, label, enumerable) => ({ configurable: true, enumerable, ' +
    'get() { if (effects.codecRunning) effects.push(`get ${label}`); return value; }, ' +
    'set(v) { Object.defineProperty(this, key, { value: v, writable: true, enumerable: true, ' +
    'configurable: true }); } });',
};

module.exports = { helpers };
