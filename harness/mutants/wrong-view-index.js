'use strict';
// Writes Int16Array views with the type index of Uint16Array.
const { catalogEntry } = require('./catalog');
const js = require('../codecs/js');

class Serializer extends js.ChildProcessSerializer {
  _writeHostObject(object) {
    if (!(object instanceof Int16Array)) return super._writeHostObject(object);
    this.writeUint32(0);
    this.writeUint32(4);
    this.writeUint32(object.byteLength);
    this.writeRawBytes(new Uint8Array(object.buffer, object.byteOffset, object.byteLength));
  }
}

module.exports = {
  ...js,
  ...catalogEntry(__filename),
  serialize: (value) => js.serializeWith(Serializer, value),
};
