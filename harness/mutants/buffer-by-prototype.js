'use strict';
// Classifies a view as a Buffer by its prototype instead of its constructor
// property, so a Buffer whose `constructor` was overwritten still goes as one.
const { catalogEntry } = require('./catalog');
const js = require('../codecs/js');
const { types: { isArrayBufferView } } = require('node:util');

class Serializer extends js.ChildProcessSerializer {
  _writeHostObject(object) {
    if (!isArrayBufferView(object) || Object.getPrototypeOf(object) !== Buffer.prototype) {
      return super._writeHostObject(object);
    }
    this.writeUint32(0);
    this.writeUint32(10);
    this.writeUint32(object.byteLength);
    this.writeRawBytes(new Uint8Array(object.buffer, object.byteOffset, object.byteLength));
  }
}

module.exports = {
  ...js,
  ...catalogEntry(__filename),
  serialize: (value) => js.serializeWith(Serializer, value),
};
