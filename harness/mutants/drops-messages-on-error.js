'use strict';
// Decodes a whole read before delivering any of it, so the messages before a
// malformed frame in the same read are lost when it throws.
const { catalogEntry } = require('./catalog');
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
  ...catalogEntry(__filename),
  createFramer,
};
