'use strict';
const { Place } = require('./vocabulary');
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

// JSON.stringify's text of a message of plain data, written with a stack of
// its own: a worker's answer can hold the tree of a value nested deeper than
// JSON.stringify's recursion reaches (JSON.parse, iterative, reads it back). A
// BigInt is written as its digits and `n`, where JSON.stringify throws.
const kLeftOut = Symbol(Place.leftOut);
function asJson(value, key) {
  if (typeof value?.toJSON === 'function') value = value.toJSON(key);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return kLeftOut;
  return value;
}

function stringifyDeep(message) {
  const parts = [];
  // Text to write, or { value } to write as JSON; the next one is on top.
  const tasks = [{ value: asJson(message, '') }];
  while (tasks.length) {
    const task = tasks.pop();
    if (typeof task === 'string') {
      parts.push(task);
      continue;
    }
    const { value } = task;
    if (value === kLeftOut) {
      parts.push('null');  // an array's item; an object's member is left out below
    } else if (value === null || typeof value !== 'object') {
      parts.push(JSON.stringify(value));
    } else if (Array.isArray(value)) {
      tasks.push(']');
      for (let i = value.length - 1; i >= 0; i--) {
        tasks.push({ value: asJson(value[i], String(i)) });
        if (i > 0) tasks.push(',');
      }
      tasks.push('[');
    } else {
      const members = Object.keys(value).map((k) => [k, asJson(value[k], k)]).filter(([, v]) => v !== kLeftOut);
      tasks.push('}');
      for (let i = members.length - 1; i >= 0; i--) {
        tasks.push({ value: members[i][1] }, `${i > 0 ? ',' : ''}${JSON.stringify(members[i][0])}:`);
      }
      tasks.push('{');
    }
  }
  return parts.join('');
}

module.exports = { lineSplitter, jsonLines, onLines, onJsonLines, afterOutput, stringifyDeep };
