'use strict';
// Jazzer.js target: bytes -> frame -> a fresh framer of each codec, in one read.
const { targetOfThisProcess } = require('./target');

module.exports.fuzz = (data) => targetOfThisProcess().fuzzOne('frame', data);
