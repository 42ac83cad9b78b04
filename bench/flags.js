'use strict';
// The flags of a bench script: one it does not know, or one missing its value,
// ends the script with one line naming it and exit 2, before any work.
const { parseArgs } = require('node:util');

function parseFlags(script, config) {
  try {
    return parseArgs(config);
  } catch (err) {
    console.error(`${script}: ${err.message}`);
    process.exit(2);
  }
}

module.exports = { parseFlags };
