'use strict';
// Jazzer.js target: bytes -> recipe -> both codecs serialize, and decode each frame both ways.
const { targetOfThisProcess } = require('./target');

module.exports.fuzz = (data) => targetOfThisProcess().fuzzOne('value', data);
