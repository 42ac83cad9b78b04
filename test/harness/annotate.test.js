'use strict';
// The annotated hex dump: what each byte range of a frame means, and where
// and why reading stops.
const assert = require('node:assert/strict');
const { annotateFrame, annotateStream, fieldAt } = require('../../harness/wire/annotate');
const { hexdump } = require('../../harness/wire/hexdump');
const { frame } = require('../fixtures/helpers');

const bytes = (hex) => Buffer.from(hex.replace(/\s+/g, ''), 'hex');
const annotate = (payloadHex) => annotateFrame(bytes(frame(payloadHex)));
const ranges = (result) => result.segments.map((s) => [s.start, s.end, s.field]);
const reason = (result) => result.stop?.reason.split(':')[0];

describe('annotate', function () {
  describe('known frames', function () {
    it('labels prefix, header and an object with its key and value', function () {
      const result = annotate('ff0f 6f 220161 4902 7b01');
      assert.equal(result.stop, undefined);
      assert.equal(result.end, 14);
      const labels = result.segments.map((s) => s.label);
      assert.equal(labels[0], 'length prefix 10 (frame of 14 bytes)');
      assert.equal(labels[1], 'header: version 15');
      assert.ok(labels.includes('one-byte-string: "a"'));
      assert.ok(labels.includes('int32 1'), 'zigzag 2 is 1');
      assert.ok(labels.includes('properties 1'));
      // Segments tile the frame: each starts where the last ended.
      for (let i = 1; i < result.segments.length; i++) {
        assert.equal(result.segments[i].start, result.segments[i - 1].end);
      }
    });

    it('labels a double -0 as -0, not 0', function () {
      const labels = (hex) => annotate(hex).segments.map((s) => s.label);
      assert.ok(labels('ff0f 4e 0000000000000080').includes('double -0'));
      assert.ok(labels('ff0f 4e 0000000000000000').includes('double 0'));
    });

    it('labels the IPC host-object fields of a view', function () {
      const result = annotate('ff0f 5c00 04 04 01000200');
      assert.deepEqual(ranges(result).slice(2), [
        [6, 7, 'tag.host-object'], [7, 8, 'host.tag'], [8, 9, 'host.index'],
        [9, 10, 'host.byteLength'], [10, 14, 'host.bytes'],
      ]);
      assert.match(result.segments[3].label, /IPC host tag 0 \(ArrayBufferView\)/);
      assert.match(result.segments[4].label, /view type index 4 \(Uint16Array\)/);
    });

    it('follows a copied host object into its value', function () {
      const result = annotate('ff0f 5c01 6f 220178 4904 7b01');
      assert.equal(result.stop, undefined);
      assert.match(result.segments[3].label, /copied object/);
      assert.ok(result.segments.some((s) => s.label === 'one-byte-string: "x"'));
    });

    it('labels two-byte strings, errors and dense arrays', function () {
      const two = annotate('ff0f 63 04 3dd8 00de');
      assert.ok(two.segments.some((s) => s.label === 'two-byte-string: "\u{1F600}"'));
      const err = annotate('ff0f 72 6d 220162 2e');
      const subtags = err.segments.filter((s) => s.field === 'error.subtag').map((s) => s.label);
      assert.deepEqual(subtags, ['error message', 'error end']);
      const dense = annotate('ff0f 4102 4902 4904 2400 02');
      assert.equal(dense.stop, undefined);
      assert.deepEqual(dense.segments.filter((s) => s.field.startsWith('begin-dense-array')).map((s) => s.label),
        ['length 2', 'properties 0', 'length 2']);
    });

    it('names the field at an offset, for signatures of byte differences', function () {
      const f = bytes(frame('ff0f 5c00 01 04 01020304'));
      assert.equal(fieldAt(f, 0), 'prefix');
      assert.equal(fieldAt(f, 5), 'header');
      assert.equal(fieldAt(f, 8), 'host.index');
      assert.equal(fieldAt(f, 9), 'host.byteLength');
      assert.equal(fieldAt(f, 11), 'host.bytes');
      assert.equal(fieldAt(f, 99), 'beyond-value');
    });

    it('names the fields around an offset as the whole frame read would, reading no further', function () {
      const { fieldsAround } = require('../../harness/wire/annotate');
      const frames = ['ff0f 6f 220161 4902 7b01', 'ff0f 5c00 01 04 01020304', 'ff0f 4102 4902 4904 2400 02',
        'ff0f 6f 2201 61 5c01 6f 7b00 7b01', 'ff0f 00 00 4902', 'ff0f 4902 ffff', 'ff0f 6f 2201',
        'ff0f 3b 5c00 0a 00 00 00 00 63 02 0004 3a02']
        .map((h) => bytes(frame(h)));
      // The field that ends at the offset (or a byte before it), padding passed over to the one before it.
      const fieldBefore = (segments, offset) => {
        const last = segments.filter((s) => s.end <= offset && s.end >= offset - 1).at(-1);
        return last?.field === 'padding' ? fieldBefore(segments, last.start) : last?.field;
      };
      for (const f of frames) {
        const { segments } = annotateFrame(f);
        for (let offset = 0; offset <= f.length; offset++) {
          const at = segments.find((s) => offset >= s.start && offset < s.end)?.field ?? 'beyond-value';
          const before = fieldBefore(segments, offset);
          assert.deepEqual(fieldsAround(f, offset), { at, before }, `${f.toString('hex')} at ${offset}`);
        }
        if (f.includes(Buffer.from('0a00000000', 'hex'))) {
          // A view that wrote two more bytes than its byteLength says reads as padding: its bytes come before.
          assert.deepEqual([12, 14].map((offset) => fieldsAround(f, offset).before), ['host.bytes', 'host.bytes']);
        }
        const stopped = annotateFrame(f, 0, { until: 6 });
        assert.ok(stopped.segments.filter((s) => s.field !== 'unread').every((s) => s.start <= 6), f.toString('hex'));
      }
    });
  });

  describe('stops', function () {
    const cases = [
      ['bad-tag', 'ff0f 01', 6],
      ['bad-host-tag', 'ff0f 5c02 49', 7],
      ['bad-view-index', 'ff0f 5c00 0e 01 aa', 8],
      ['truncated-payload', 'ff0f 5c00 01 08 0102', 10],
      ['bad-header', 'ff10 4902', 4],
      ['bad-header', 'ff0c 4902', 4],
      ['bad-header', '4902', 4],
    ];
    for (const [category, payload, offset] of cases) {
      it(`stop with ${category} at 0x${offset.toString(16)}`, function () {
        const result = annotate(payload);
        assert.equal(reason(result), category, result.stop?.reason);
        assert.equal(result.stop.offset, offset);
      });
    }

    it('stop with truncated-payload when the prefix announces more than there is', function () {
      // The prefix says 8 bytes; 4 arrive.
      const result = annotateFrame(bytes('00000008 ff0f 4902'));
      assert.equal(reason(result), 'truncated-payload');
      assert.equal(result.end, 8);
    });

    it('stop with truncated-length on fewer than 4 bytes', function () {
      const result = annotateFrame(bytes('0000'));
      assert.equal(result.stop.reason, 'truncated-length');
      assert.equal(result.end, 2);
    });

    it('name the version of a bad header and the index of a bad view', function () {
      assert.match(annotate('ff10 4902').stop.reason, /version 16/);
      assert.match(annotate('ff0f 5c00 0e 01 aa').stop.reason, /14/);
    });

    it('read on past bytes after the value, which V8 ignores', function () {
      const result = annotate('ff0f 4902 00');
      assert.equal(result.stop, undefined);
      assert.equal(result.segments.at(-1).field, 'trailing');
    });

    it('read varints as V8 does: continuation bytes consumed, bits past 32 dropped', function () {
      const result = annotate('ff0f 49 ffffffff7f');
      assert.equal(result.stop, undefined);
      assert.match(result.segments.find((s) => s.field === 'int32.value').label, /int32 -2147483648/);
    });

    it('know the immutable ArrayBuffer tag of V8 14', function () {
      const result = annotate('ff0f 43 02 0102');
      assert.equal(result.stop, undefined);
      assert.equal(result.segments.find((s) => s.field.startsWith('tag.')).field, 'tag.immutable-array-buffer');
    });

    it('mark the bytes after a stop as not read', function () {
      const result = annotate('ff0f 5c02 49 49');
      const last = result.segments.at(-1);
      assert.deepEqual([last.start, last.end, last.field], [8, 10, 'unread']);
    });
  });

  describe('streams and the dump', function () {
    it('annotates consecutive frames and a partial length at the end', function () {
      const frames = annotateStream(bytes(frame('ff0f4902') + frame('ff0f 5c02 49') + '0000'));
      assert.deepEqual(frames.map((f) => reason(f) ?? 'ok'), ['ok', 'bad-host-tag', 'truncated-length']);
      assert.deepEqual(frames.map((f) => f.end), [8, 17, 19]);
    });

    it('prints offsets, bytes and labels, and where decoding stops', function () {
      const text = hexdump(bytes(frame('ff0f 5c02 49')));
      const lines = text.split('\n');
      assert.match(lines[0], /^000000 {2}00 00 00 05 +length prefix 5 \(frame of 9 bytes\)$/);
      assert.match(lines[1], /^000004 {2}ff 0f +header: version 15$/);
      assert.ok(lines.some((l) => /^000007 {2}02 +IPC host tag 2 \(invalid\)$/.test(l)));
      assert.match(lines.at(-1), /decoding stops at 0x7: bad-host-tag: 2$/);
    });

    it('shortens long segments', function () {
      const text = hexdump(bytes(frame(`ff0f 5c00 01 80 01 ${'ab'.repeat(128)}`)));
      assert.match(text, /… \d+ more bytes/);
      assert.ok(text.split('\n').length < 20);
    });
  });
});
