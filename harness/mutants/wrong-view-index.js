'use strict';
// Writes Int16Array views with the type index of Uint16Array.
const { catalogEntry } = require('./catalog');
const { withSerializer } = require('./variant');
const js = require('../codecs/js');

class Serializer extends js.ChildProcessSerializer {
  _writeHostObject(object) {
    if (!(object instanceof Int16Array)) return super._writeHostObject(object);
    this._writeView(object, 4);
  }
}

module.exports = { ...js, ...catalogEntry(__filename), ...withSerializer(Serializer) };
