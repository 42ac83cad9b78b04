'use strict';
// Jazzer.js target: bytes -> frame -> a fresh framer of each codec, in one read.
const { fuzzOne } = require('./target');
const inputs = require('./inputs');

module.exports.fuzz = (data) => fuzzOne(inputs.checkType.frame, inputs.frame, data, 'frame');
