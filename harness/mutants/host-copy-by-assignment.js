'use strict';
// Copies a non-view host object by assignment instead of `{ ...object }`, so
// setters inherited from Object.prototype run (the review case of #63933).
const { catalogEntry } = require('./catalog');
const { withSerializer } = require('./variant');
const js = require('../codecs/js');
const { types: { isArrayBufferView } } = require('node:util');

class Serializer extends js.ChildProcessSerializer {
  _writeHostObject(object) {
    if (isArrayBufferView(object)) return super._writeHostObject(object);
    this.writeUint32(1);
    const copy = {};
    for (const key of Object.keys(object)) copy[key] = object[key];
    this.writeValue(copy);
  }
}

module.exports = { ...js, ...catalogEntry(__filename), ...withSerializer(Serializer) };
