'use strict';
// Jazzer.js target: bytes -> read sizes + stream -> each codec's framer, read by read.
const { fuzzOne } = require('./target');
const inputs = require('./inputs');

module.exports.fuzz = (data) => fuzzOne(inputs.checkType.stream, inputs.stream, data, 'stream');
