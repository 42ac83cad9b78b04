'use strict';
// Prints annotated frames as an offset / bytes / meaning table.
const { annotateStream, wireFormat } = require('./annotate');

const kBytesPerLine = 12;
const kMaxLinesPerSegment = 4;

function hexBytes(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
}

function hexdump(input) {
  const bytes = Buffer.from(input);
  const lines = [];
  const offsetWidth = Math.max(6, bytes.length.toString(16).length);
  const row = (offset, chunk, meaning) => lines.push(
    `${offset.toString(16).padStart(offsetWidth, '0')}  ${hexBytes(chunk).padEnd(kBytesPerLine * 3)} ${meaning}`);
  const format = wireFormat(bytes);
  if (format.format !== 'v8') {
    // Another format's bytes read as V8's would be described wrongly: shown as they are.
    lines.push(format.format === 'json' ? 'format: JSON lines (serialization \'json\'), not V8\'s format' :
      `format: not V8's serialization format: ${format.why}`);
    for (let at = 0; at < bytes.length; at += kBytesPerLine) row(at, bytes.subarray(at, at + kBytesPerLine), '');
    return lines.join('\n');
  }
  for (const frame of annotateStream(bytes)) {
    for (const seg of frame.segments) {
      const total = seg.end - seg.start;
      let shown = 0;
      for (let at = seg.start; at < seg.end; at += kBytesPerLine) {
        if (shown === kMaxLinesPerSegment) {
          row(at, [], `… ${seg.end - at} more bytes`);
          break;
        }
        row(at, bytes.subarray(at, Math.min(at + kBytesPerLine, seg.end)), shown ? '' : seg.label);
        shown++;
      }
      if (total === 0) row(seg.start, [], seg.label);
    }
    if (frame.stop) {
      lines.push(`${'^'.repeat(offsetWidth)}  decoding stops at 0x${frame.stop.offset.toString(16)}: ${frame.stop.reason}`);
    }
  }
  return lines.join('\n');
}

module.exports = { hexdump };
