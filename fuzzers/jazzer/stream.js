'use strict';
// Jazzer.js target: bytes -> read sizes + stream -> each codec's framer, read by read.
const { fuzzOne } = require('./target');

module.exports.fuzz = (data) => fuzzOne('stream', data);
