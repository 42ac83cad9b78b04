'use strict';
// Lines of text as they arrive on a stream, and JSON lines: how the harness
// talks to its workers and reads the fuzzers' progress.
function onLines(stream, handle) {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (text) => {
    pending += text;
    let newline;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      handle(line);
    }
  });
}

const onJsonLines = (stream, handle) => onLines(stream, (line) => handle(JSON.parse(line)));

module.exports = { onLines, onJsonLines };
