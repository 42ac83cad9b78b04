'use strict';
// Builds every view on the frame's memory, without the copy that unaligned
// typed arrays need: they fail to construct.
const { catalogEntry } = require('./catalog');
const { withDeserializer } = require('./variant');
const js = require('../codecs/js');

class Deserializer extends js.ChildProcessDeserializer {
  _readView() {
    const ctor = js.viewIndexToType(this.readUint32());
    const byteLength = this.readUint32();
    const offset = this.buffer.byteOffset + this._readRawBytes(byteLength);
    return new ctor(this.buffer.buffer, offset, byteLength / (ctor.BYTES_PER_ELEMENT || 1));
  }
}

module.exports = { ...js, ...catalogEntry(__filename), ...withDeserializer(Deserializer) };
