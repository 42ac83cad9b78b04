'use strict';
// Jazzer.js target: bytes -> recipe -> both codecs serialize, and decode each frame both ways.
const { fuzzOne } = require('./target');
const inputs = require('./inputs');

module.exports.fuzz = (data) => fuzzOne(inputs.checkType.value, inputs.value, data, 'value');
