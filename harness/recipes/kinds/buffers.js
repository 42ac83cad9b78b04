'use strict';
// ArrayBuffers and views (host objects to the IPC codec, tag 0).
const { viewTypes, bytesPerElement } = require('../../wire/tags');
const { lit, check, count, hex, oneOf, viewLayout } = require('../validate');
const { helper, globalOf } = require('../runtime');

const byteCount = (r) => (typeof r.bytes === 'string' ? r.bytes.length / 2 : 0) * (r.repeat ?? 1);
// A view's size is said when it is large (the value classes of 64 KiB ± 1
// and 3 MiB, docs/recipes.md); a small one only when it is empty.
const kSaidSize = 1024;

function arrayBufferWords(r, say) {
  const growing = r.maxByteLength === undefined ? '' : r.shared ? 'growable ' : 'resizable ';
  const what = `${growing}${r.shared ? 'SharedArrayBuffer' : 'ArrayBuffer'}`;
  const size = byteCount(r);
  return size ? `${say.a(what)} of ${say.bytes(size)}` : `an empty ${what}`;
}

// A view by its type and what it was made of: empty, from the pool, at an
// offset, on a buffer of the recipe's own, tracking a buffer's length.
function viewWords(r, say) {
  const size = byteCount(r);
  const pooled = r.type === 'Buffer' && r.pooled;
  const traits = [r.buffer === undefined && size === 0 ? 'empty' : '', r.lengthTracking ? 'length-tracking' : '',
    r.subclass ? `subclass of ${r.type}` : r.type].filter(Boolean).join(' ');
  return [say.a(traits), size >= kSaidSize ? `of ${say.bytes(size)}` : '', pooled ? 'from the pool' : '',
    r.offset ? `at byte offset ${r.offset}` : '', r.buffer === undefined ? '' : `on ${say.node(r.buffer)}`]
    .filter(Boolean).join(' ');
}

function resizableWords(r, say) {
  const view = say.a(`${r.length === undefined ? 'length-tracking ' : ''}${r.type}`);
  const buffer = r.shared ? 'a growable SharedArrayBuffer' : 'a resizable ArrayBuffer';
  const at = r.offset ? ` at byte offset ${r.offset}` : '';
  const after = r.to === undefined ? '' : `, ${r.shared ? 'grown' : 'resized'} to ${say.bytes(r.to)}`;
  return `${view}${at} on ${buffer}${after}`;
}

const kinds = {
  arraybuffer: {
    referable: true,
    check(r, path) {
      const bytes = hex(r.bytes, path);
      const size = bytes.length / 2;
      const max = r.maxByteLength === undefined ? undefined :
        Math.max(size, count(r.maxByteLength, path, 'maxByteLength'));
      return { bytes, size, max };
    },
    print(r, path, gen, { bytes, size, max }) {
      const Ctor = r.shared ? 'SharedArrayBuffer' : 'ArrayBuffer';
      const make = `new ${Ctor}(${size}${max === undefined ? '' : `, { maxByteLength: ${max} }`})`;
      return size ? `${gen.helper('fill')}(${make}, 0, ${lit(bytes)})` : make;
    },
    plan(r, path, p, { bytes, size, max }) {
      const decoded = Buffer.from(bytes, 'hex');
      const Ctor = r.shared ? SharedArrayBuffer : ArrayBuffer;
      const make = max === undefined ? () => new Ctor(size) : () => new Ctor(size, { maxByteLength: max });
      return size ? () => helper.fill(make(), 0, decoded) : make;
    },
    words: arrayBufferWords,
  },

  // A view of `bytes` at `offset` in a buffer of its own (`slack` bytes
  // longer) or in `buffer` (a recipe); a Buffer from the pool; a subclass; a
  // length-tracking view, which follows a resizable buffer's size.
  view: {
    referable: true,
    check(r, path) {
      const layout = viewLayout(r, path);
      // A pooled Buffer has no buffer of its own: its `slack` is not read.
      if (r.buffer === undefined && !(r.type === 'Buffer' && r.pooled)) {
        layout.total = layout.offset + layout.size + count(r.slack ?? 0, path, 'slack');
      }
      return layout;
    },
    print(r, path, gen, { bytes, times, size, width, offset, total }) {
      if (r.type === 'Buffer' && r.pooled) {
        return `Buffer.from(${times === 1 ? lit(bytes) : `${lit(bytes)}.repeat(${times})`}, 'hex')`;
      }
      const filled = `${offset}, ${lit(bytes)}${times === 1 ? '' : `, ${times}`}`;
      const backing = r.buffer !== undefined ? gen.emit(r.buffer, `${path}.buffer`) :
        `${gen.helper('fill')}(new ArrayBuffer(${total}), ${filled})`;
      const length = r.lengthTracking ? '' : `, ${size / width}`;
      if (r.type === 'Buffer') return `Buffer.from(${backing}, ${offset}${length})`;
      const ctor = r.subclass ? `(class ${r.type}Subclass extends ${r.type} {})` : r.type;
      return `new ${ctor}(${backing}, ${offset}${length})`;
    },
    plan(r, path, p, { bytes, times, size, width, offset, total }) {
      if (r.type === 'Buffer' && r.pooled) return () => Buffer.from(times === 1 ? bytes : bytes.repeat(times), 'hex');
      let backing;
      if (r.buffer !== undefined) {
        backing = p.emit(r.buffer, `${path}.buffer`);
      } else {
        const decoded = Buffer.from(bytes, 'hex');
        backing = () => helper.fill(new ArrayBuffer(total), offset, decoded, times);
      }
      const length = size / width;
      const tracking = r.lengthTracking;
      if (r.type === 'Buffer') {
        return tracking ? (c) => Buffer.from(backing(c), offset) : (c) => Buffer.from(backing(c), offset, length);
      }
      const type = r.type;
      const subclass = `${type}Subclass`;
      const ctor = r.subclass ? (c) => ({ [subclass]: class extends globalOf(type, c) {} })[subclass] :
        (c) => globalOf(type, c);
      return tracking ? (c) => new (ctor(c))(backing(c), offset) : (c) => new (ctor(c))(backing(c), offset, length);
    },
    words: viewWords,
  },

  // A view on a resizable ArrayBuffer or a growable SharedArrayBuffer, which
  // the buffer is resized (or grown) under once the view is made: a view
  // whose extent is computed at each read, length-tracking or fixed, and out
  // of bounds when the buffer shrank past it. The codecs learn a view's extent
  // in different ways (the JS codec from its accessors, which throw on an
  // out-of-bounds DataView), so they can disagree where a fixed buffer cannot.
  resizable: {
    binds: true,
    // type, bytes (hex: the buffer's first contents), maxByteLength, shared;
    // offset and length (elements, none: length-tracking); to (the byte length after).
    check(r, path) {
      const type = oneOf(r.type, viewTypes, path, 'type');
      const width = bytesPerElement[type] ?? 1;
      const bytes = hex(r.bytes ?? '', path);
      const size = bytes.length / 2;
      const max = count(r.maxByteLength ?? size, path, 'maxByteLength');
      check(max >= size && max <= 1 << 16, path, '"maxByteLength" must hold "bytes" and be at most 65536');
      const offset = count(r.offset ?? 0, path, 'offset');
      check(offset % width === 0, path, `a ${type} offset must be a multiple of ${width}`);
      const length = r.length === undefined ? undefined : count(r.length, path, 'length');
      check(offset + (length ?? 0) * width <= size && (length !== undefined || (size - offset) % width === 0), path,
        'the view must fit in "bytes" when it is made');
      const to = r.to === undefined ? undefined : count(r.to, path, 'to');
      check(to === undefined || (to <= max && (!r.shared || to >= size)), path,
        '"to" must be at most "maxByteLength" (and, shared, at least the bytes: a growable buffer only grows)');
      return { type, bytes, size, max, offset, length, to, resize: r.shared ? 'grow' : 'resize' };
    },
    print(r, path, gen, { type, bytes, size, max, offset, length, to, resize }) {
      const make = `new ${r.shared ? 'SharedArrayBuffer' : 'ArrayBuffer'}(${size}, { maxByteLength: ${max} })`;
      const buffer = gen.declare(size ? `${gen.helper('fill')}(${make}, 0, ${lit(bytes)})` : make);
      const args = `${buffer}, ${offset}${length === undefined ? '' : `, ${length}`}`;
      const name = gen.bind(r, path, type === 'Buffer' ? `Buffer.from(${args})` : `new ${type}(${args})`);
      if (to !== undefined) gen.lines.push(`${buffer}.${resize}(${to});`);
      return name;
    },
    plan(r, path, p, { type, bytes, size, max, offset, length, to, resize }) {
      const Ctor = r.shared ? SharedArrayBuffer : ArrayBuffer;
      const decoded = Buffer.from(bytes, 'hex');
      const make = () => new Ctor(size, { maxByteLength: max });
      const buffer = p.declare(size ? () => helper.fill(make(), 0, decoded) : make).read;
      const view = type === 'Buffer' ?
        (length === undefined ? (c) => Buffer.from(buffer(c), offset) : (c) => Buffer.from(buffer(c), offset, length)) :
        (length === undefined ? (c) => new (globalOf(type, c))(buffer(c), offset) :
          (c) => new (globalOf(type, c))(buffer(c), offset, length));
      const name = p.bind(r, path, view);
      if (to !== undefined) p.lines.push((c) => { buffer(c)[resize](to); });
      return name;
    },
    words: resizableWords,
    // Up to 4 elements, the buffer able to grow by up to 4 more; a fixed
    // view or a length-tracking one; then resized anywhere from empty to
    // its maximum (a shared one only grows).
    draw(choices, given, depth, g) {
      const type = choices.pick(viewTypes, given?.type);
      const width = bytesPerElement[type] ?? 1;
      const shared = choices.flag(given?.shared);
      const elements = choices.small(4, given && given.bytes.length / 2 / width);
      const size = elements * width;
      const node = { k: 'resizable', type, bytes: g.hexBytes(choices, size, given?.bytes) };
      if (shared) node.shared = true;
      node.maxByteLength = size + choices.small(4, given && (given.maxByteLength - size) / width) * width;
      const at = choices.small(elements, given && (given.offset ?? 0) / width);
      if (at) node.offset = at * width;
      if (!choices.flag(given && given.length === undefined)) node.length = choices.small(elements - at, given?.length);
      if (choices.flag(given?.to !== undefined)) {
        const low = shared ? size : 0;
        node.to = low + choices.small(node.maxByteLength - low, given && given.to - low);
      }
      // A shared buffer cannot be detached, the one view step that would fail to build.
      return shared ? node : g.withSteps(choices, given, node, g.viewSteps, depth);
    },
  },
};

module.exports = { kinds };
