'use strict';
// Lines of text as they arrive on a stream, and JSON lines: how the harness
// talks to its workers and reads the fuzzers' progress.
function onLines(stream, handle) {
  // The text of a line not ended yet, in pieces: only each new piece is
  // searched and the line joined once, as one answer can be megabytes long.
  let pending = [];
  stream.setEncoding('utf8');
  stream.on('data', (text) => {
    let start = 0;
    let newline;
    while ((newline = text.indexOf('\n', start)) !== -1) {
      pending.push(text.slice(start, newline));
      const line = pending.join('');
      pending = [];
      start = newline + 1;
      handle(line);
    }
    if (start < text.length) pending.push(text.slice(start));
  });
}

const onJsonLines = (stream, handle) => onLines(stream, (line) => handle(JSON.parse(line)));

module.exports = { onLines, onJsonLines };
