'use strict';
// Lines of text as they arrive on a stream, and JSON lines: how the harness
// talks to its workers and reads the fuzzers' progress.

// Calls handle(line) for each line ended in the pieces of text given to the
// function it returns. The text of a line not ended yet is kept in pieces:
// only each new piece is searched and the line joined once, as one answer
// can be megabytes long.
function lineSplitter(handle) {
  let pending = [];
  return (text) => {
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
  };
}

function onLines(stream, handle) {
  stream.setEncoding('utf8');
  stream.on('data', lineSplitter(handle));
}

// A blank line (a worker driven by hand) is no message.
const jsonLines = (handle) => (line) => {
  if (line.trim() !== '') handle(JSON.parse(line));
};
const onJsonLines = (stream, handle) => onLines(stream, jsonLines(handle));

// Calls done(code, signal) once a child has exited and its last lines are
// read: 'exit' can come before its pipes are drained. A grandchild that keeps
// a pipe open past the child's end holds it up for drainMs at most. Removing
// the child's 'exit' listeners cancels the call.
function afterOutput(child, done, drainMs = 1000) {
  child.once('exit', (code, signal) => {
    const finish = () => {
      clearTimeout(timer);
      child.removeListener('close', finish);
      done(code, signal);
    };
    const timer = setTimeout(finish, drainMs);
    child.once('close', finish);  // emitted after the 'exit' listeners have run
  });
}

module.exports = { lineSplitter, jsonLines, onLines, onJsonLines, afterOutput };
