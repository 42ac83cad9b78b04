'use strict';
// ArrayBuffers and views (host objects to the IPC codec, tag 0).
const { lit, count, hex, viewLayout } = require('../checks');
const { helper, globalOf } = require('../runtime');

const kinds = {
  arraybuffer: {
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
  },

  // A view of `bytes` at `offset` in a buffer of its own (`slack` bytes
  // longer) or in `buffer` (a recipe); a Buffer from the pool; a subclass; a
  // length-tracking view, which follows a resizable buffer's size.
  view: {
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
  },
};

module.exports = { kinds };
