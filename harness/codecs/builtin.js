'use strict';
// What child_process itself runs in this binary: the `advanced` object of
// internal/child_process/serialization, driven through a stand-in channel.
const { advanced } = require('internal/child_process/serialization');

function serialize(value) {
  let written;
  const channel = { writeBuffer(req, buffer) { written = buffer; return 0; } };
  advanced.writeChannelMessage(channel, {}, value, undefined);
  return written;
}

function createFramer() {
  const channel = {};
  advanced.initMessageChannel(channel);
  return {
    push: (chunk) => advanced.parseChannelMessages(channel, chunk),
    buffering: () => channel.buffering,
  };
}

// The builtin glue has no payload decoder of its own, only the framer. The
// harness hands payloads that sit right after their length prefix, so the
// frame is re-read in place and views keep the payload's alignment.
function deserialize(payload) {
  const frame = payload.byteOffset >= 4 &&
    Buffer.from(payload.buffer, payload.byteOffset - 4, payload.length + 4);
  if (!frame || frame.readUInt32BE(0) !== payload.length) {
    throw new RangeError('builtin: a payload must follow its own length prefix');
  }
  const [message] = createFramer().push(frame);
  return message;
}

module.exports = { name: 'builtin', serialize, deserialize, createFramer };
