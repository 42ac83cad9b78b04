'use strict';
// Jazzer.js target: bytes -> recipe -> both codecs serialize, and decode each frame both ways.
const { fuzzOne } = require('./target');

module.exports.fuzz = (data) => fuzzOne('value', data);
