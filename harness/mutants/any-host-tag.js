'use strict';
// Accepts any non-zero host-object tag as a copied object, instead of
// rejecting tags other than 0 and 1.
const { catalogEntry } = require('./catalog');
const js = require('../codecs/js');
const { createReferenceFramer } = require('../codecs/framing');

class Deserializer extends js.ChildProcessDeserializer {
  _readHostObject() {
    return this.readUint32() === 0 ? this._readView() : this.readValue();
  }
}

const deserialize = (payload) => js.deserializeWith(Deserializer, payload);

module.exports = {
  ...js,
  ...catalogEntry(__filename),
  deserialize,
  createFramer: () => createReferenceFramer(deserialize),
};
