'use strict';
// A view on a resizable ArrayBuffer or a growable SharedArrayBuffer, which
// the buffer is resized (or grown) under once the view is made: a view
// whose extent is computed at each read, length-tracking or fixed, and out
// of bounds when the buffer shrank past it. The codecs learn a view's extent
// in different ways (the JS codec from its accessors, which throw on an
// out-of-bounds DataView), so they can disagree where a fixed buffer cannot.
const { viewTypes, bytesPerElement } = require('../../wire/tags');
const { lit, check, count, hex, oneOf } = require('../checks');
const { helper, globalOf } = require('../runtime');

const kinds = {
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
    // Up to 4 elements, the buffer able to grow by up to 4 more; a fixed
    // view or a length-tracking one; then resized anywhere from empty to
    // its maximum (a shared one only grows).
    draw(ch, r, depth, g) {
      const type = ch.pick(viewTypes, r?.type);
      const width = bytesPerElement[type] ?? 1;
      const shared = ch.flag(r?.shared);
      const elements = ch.small(4, r && r.bytes.length / 2 / width);
      const size = elements * width;
      const node = { k: 'resizable', type, bytes: g.hexBytes(ch, size, r?.bytes) };
      if (shared) node.shared = true;
      node.maxByteLength = size + ch.small(4, r && (r.maxByteLength - size) / width) * width;
      const at = ch.small(elements, r && (r.offset ?? 0) / width);
      if (at) node.offset = at * width;
      if (!ch.flag(r && r.length === undefined)) node.length = ch.small(elements - at, r?.length);
      if (ch.flag(r?.to !== undefined)) {
        const low = shared ? size : 0;
        node.to = low + ch.small(node.maxByteLength - low, r && r.to - low);
      }
      // A shared buffer cannot be detached, the one view step that would fail to build.
      return shared ? node : g.withSteps(ch, r, node, g.viewSteps, depth);
    },
  },
};

module.exports = { kinds };
