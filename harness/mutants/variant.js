'use strict';
// The codec functions of a variant of the reference with its own serializer
// or deserializer class.
const js = require('../codecs/js');
const { createReferenceFramer } = require('../codecs/framing');

const withSerializer = (Serializer) => ({ serialize: (value) => js.serializeWith(Serializer, value) });

function withDeserializer(Deserializer) {
  const deserialize = (payload) => js.deserializeWith(Deserializer, payload);
  return { deserialize, createFramer: () => createReferenceFramer(deserialize) };
}

module.exports = { withSerializer, withDeserializer };
