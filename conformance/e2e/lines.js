'use strict';
// JSON lines on a stream: how the driver, the parent and the child of the
// fork cases talk, beside the IPC channel under test.
function onJsonLines(stream, handle) {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (text) => {
    pending += text;
    let newline;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      handle(JSON.parse(line));
    }
  });
}

module.exports = { onJsonLines };
