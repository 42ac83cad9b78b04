'use strict';
// Jazzer.js target: bytes -> read sizes + stream -> each codec's framer, read by read.
const { targetOfThisProcess } = require('./target');

module.exports.fuzz = (data) => targetOfThisProcess().fuzzOne('stream', data);
