'use strict';
// The two serializations of child_process as this binary runs them, each as
// serialize(value) -> the frame child_process writes to its channel,
// decode(frame) -> the value, and createFramer() -> { push(chunk) -> the
// messages completed }: `advanced` is the `builtin` codec (the child_process
// glue itself: [uint32 BE length][payload]), `json` the line child_process
// writes and its own line parser. Loaded with --expose-internals.

const { loadCodec } = require('../harness/codecs');
const childSerialization = require('internal/child_process/serialization');

// json.writeChannelMessage writes JSON.stringify(value) + '\n' as UTF-8.
const json = {
  serialize: (value) => Buffer.from(`${JSON.stringify(value)}\n`),
  decode: (frame) => JSON.parse(frame.toString('utf8', 0, frame.length - 1)),
  createFramer() {
    const channel = {};
    childSerialization.json.initMessageChannel(channel);
    return { push: (chunk) => childSerialization.json.parseChannelMessages(channel, chunk) };
  },
};

// A codec of the harness (js, native, builtin) or `json`, with decode(frame).
function framedCodec(name) {
  if (name === 'json') return json;
  const codec = loadCodec(name);
  return { ...codec, decode: (frame) => codec.deserialize(frame.subarray(4)) };
}

function serializationOf(name) {
  if (name !== 'advanced' && name !== 'json') throw new Error(`no serialization ${JSON.stringify(name)}`);
  return framedCodec(name === 'advanced' ? 'builtin' : 'json');
}

module.exports = { framedCodec, serializationOf };
