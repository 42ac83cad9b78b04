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

// The flags of a table's own entry (--base 26.3.1, --head the default
// binary, --reps, --quick, --json FILE): { values, binaries: [base, head] }.
function parseTableFlags(script) {
  const { resolveNode, defaultVersion } = require('../harness/base/binaries');
  const { binary } = require('./machine');
  const { values } = parseFlags(script, { options: {
    base: { type: 'string', default: '26.3.1' }, head: { type: 'string', default: defaultVersion },
    reps: { type: 'string' }, quick: { type: 'boolean', default: false }, json: { type: 'string' },
  } });
  return { values, binaries: ['base', 'head'].map((role) => binary(role, resolveNode(values[role]))) };
}

module.exports = { parseFlags, parseTableFlags };
