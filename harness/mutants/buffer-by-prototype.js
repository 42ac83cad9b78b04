'use strict';
// Classifies a view as a Buffer by its prototype instead of its constructor
// property, so a Buffer whose `constructor` was overwritten still goes as one.
const { catalogEntry } = require('./catalog');
const { withSerializer } = require('./variant');
const js = require('../codecs/js');

class Serializer extends js.ChildProcessSerializer {
  _writeHostObject(object) {
    if (Object.getPrototypeOf(object) !== Buffer.prototype) return super._writeHostObject(object);
    this._writeView(object, 10);
  }
}

module.exports = { ...js, ...catalogEntry(__filename), ...withSerializer(Serializer) };
