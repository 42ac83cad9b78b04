'use strict';
// The framing of IPCChannelFramer (src/node_ipc_serdes.cc on nodejs/node's
// main branch, in no release yet) around the reference decoder, behind that
// class's interface: `new IPCChannelFramer()`, `read(chunk)` returning the
// array of messages the read completes, `buffering()` whether bytes are held.
// As read from its source:
// - a frame begun in earlier reads is finished first, and decoded from a copy;
//   the frames wholly in the read are decoded in place;
// - a frame that fails to decode makes read() throw: the messages decoded
//   before it in the same read are never handed out, the bytes after it are
//   dropped, and a held frame that failed stays held (each later read meets
//   it again);
// where parseChannelMessages hands out each message before it decodes the
// next, and goes on after the bad frame at the next read.
const { catalogEntry } = require('./catalog');
const js = require('../codecs/js');
const { readLength } = require('../codecs/framing');

// The class for a payload decoder (a binding's deserialize, or the reference's).
function channelFramerClass(deserialize) {
  return class IPCChannelFramer {
    #held = Buffer.alloc(0);

    read(chunk) {
      const messages = [];
      let at = 0;
      if (this.#held.length) {
        const take = (n) => {
          const end = Math.min(chunk.length, at + Math.max(0, n - this.#held.length));
          this.#held = Buffer.concat([this.#held, chunk.subarray(at, end)]);
          at = end;
        };
        take(4);
        if (this.#held.length < 4) return messages;
        const total = readLength(this.#held) + 4;
        take(total);
        if (this.#held.length < total) return messages;
        messages.push(deserialize(this.#held.subarray(4, total)));
        this.#held = Buffer.alloc(0);
      }
      while (chunk.length - at >= 4) {
        const total = readLength(chunk.subarray(at)) + 4;
        if (chunk.length - at < total) break;
        messages.push(deserialize(chunk.subarray(at + 4, at + total)));
        at += total;
      }
      if (at < chunk.length) this.#held = Buffer.from(chunk.subarray(at));
      return messages;
    }

    buffering() {
      return this.#held.length > 0;
    }
  };
}

const IPCChannelFramer = channelFramerClass(js.deserialize);

// Driven as main's serialization.js drives it: an empty read is not read, and
// channel.buffering is set from buffering() only when read() returned.
function createFramer() {
  const framer = new IPCChannelFramer();
  let buffering = false;
  return {
    push(chunk) {
      if (chunk.length === 0) return [];
      const messages = framer.read(chunk);
      buffering = framer.buffering();
      return messages;
    },
    buffering: () => buffering,
  };
}

module.exports = {
  ...js,
  ...catalogEntry(__filename),
  createFramer,
  channelFramerClass,
};
