'use strict';
// Decodes a whole read before delivering any of it, so the messages before a
// malformed frame in the same read are lost when it throws.
const native = require('../codecs/native');

function createFramer() {
  const framer = native.createFramer();
  return {
    push: (chunk) => [...framer.push(chunk)],
    buffering: framer.buffering,
  };
}

module.exports = {
  ...native,
  name: 'drops-messages-on-error',
  base: 'native',
  bug: 'drops the messages of a read that also holds a malformed frame',
  expect: ['framing'],
  createFramer,
};
