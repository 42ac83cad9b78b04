'use strict';
// Accepts any non-zero host-object tag as a copied object, instead of
// rejecting tags other than 0 and 1.
const { catalogEntry } = require('./catalog');
const { withDeserializer } = require('./variant');
const js = require('../codecs/js');

class Deserializer extends js.ChildProcessDeserializer {
  _readHostObject() {
    return this.readUint32() === 0 ? this._readView() : this.readValue();
  }
}

module.exports = { ...js, ...catalogEntry(__filename), ...withDeserializer(Deserializer) };
