'use strict';
// Jazzer.js target: bytes -> frame -> a fresh framer of each codec, in one read.
const { fuzzOne } = require('./target');

module.exports.fuzz = (data) => fuzzOne('frame', data);
