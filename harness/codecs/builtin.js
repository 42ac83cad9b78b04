'use strict';
// What child_process itself runs in this binary: the `advanced` object of
// internal/child_process/serialization, driven through a stand-in channel.
const { capabilities } = require('./capabilities');

// child_process's own serialization, taken at first use: what the module
// says of itself (`capabilities`) is read where internals are not exposed.
let glue = null;
const advanced = () => (glue ??= require('internal/child_process/serialization').advanced);

function serialize(value) {
  let written;
  const channel = { writeBuffer(req, buffer) { written = buffer; return 0; } };
  advanced().writeChannelMessage(channel, {}, value, undefined);
  return written;
}

function createFramer() {
  const channel = {};
  advanced().initMessageChannel(channel);
  return {
    push: (chunk) => advanced().parseChannelMessages(channel, chunk),
    buffering: () => channel.buffering,
  };
}

// The glue's own built-ins, taken as it loads: one a program replaces (a
// recipe's patch step) must see the calls of child_process, not of this glue.
const bufferFrom = Buffer.from;
const accessor = (key) => Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), key).get;
const [bufferOf, byteOffsetOf, lengthOf] = ['buffer', 'byteOffset', 'length'].map((key) => {
  const get = accessor(key);
  return (view) => Reflect.apply(get, view, []);
});

// The builtin glue has no payload decoder of its own, only the framer. The
// harness hands payloads that sit right after their length prefix, so the
// frame is re-read in place and views keep the payload's alignment.
function deserialize(payload) {
  const offset = byteOffsetOf(payload);
  const frame = offset >= 4 &&
    Reflect.apply(bufferFrom, Buffer, [bufferOf(payload), offset - 4, lengthOf(payload) + 4]);
  if (!frame || frame.readUInt32BE(0) !== lengthOf(payload)) {
    throw new RangeError('builtin: a payload must follow its own length prefix');
  }
  const [message] = createFramer().push(frame);
  return message;
}

module.exports = {
  name: 'builtin',
  capabilities: capabilities({
    needs: 'builtin', words: { full: "this build's child_process codec", short: "this build's codec" },
  }),
  serialize, deserialize, createFramer,
};
