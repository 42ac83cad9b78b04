'use strict';
// What each mutant adapter gets wrong, which codec it was derived from, and
// which tiers of difference reveal it. Plain data, so tools can read it
// without loading the adapters (which need node's internals).
const path = require('node:path');
const catalog = require('./catalog.json');

function catalogEntry(file) {
  const name = path.basename(file, '.js');
  return { name, ...catalog[name] };
}

module.exports = { catalogEntry, catalog };
