'use strict';
// Reads the length prefix as a signed int32, as Node did before the fix of #61312:
// prefixes >= 2^31 turn negative and the framer cuts frames wrongly.
const { catalogEntry } = require('./catalog');
const native = require('../codecs/native');
const { createReferenceFramer } = require('../codecs/framing');

const signedLength = (b) => b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];

module.exports = {
  ...native,
  ...catalogEntry(__filename),
  createFramer: () => createReferenceFramer(native.deserialize, { readLength: signedLength }),
};
