// Whether this Node.js meets `engines.node` of package.json. Written in the
// oldest JavaScript (no const, arrows or template strings) so that an old Node
// parses it and can say which version is needed instead of failing on syntax.
'use strict';
/* eslint no-var: "off" -- an old Node must parse this file */

var range = require('../../package.json').engines.node;

function parts(version) {
  return String(version).replace(/^v/, '').split('.').map(Number);
}

// a - b on [major, minor, patch].
function compare(a, b) {
  for (var i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

// The forms engines uses: alternatives joined by ||, each ^X.Y.Z or >=X.Y.Z.
function satisfies(version, wanted) {
  var v = parts(version);
  return wanted.split('||').some(function (alternative) {
    var m = /^\s*(\^|>=)(\d+)\.(\d+)\.(\d+)\s*$/.exec(alternative);
    if (!m) throw new Error('unsupported engines range: ' + alternative);
    var floor = [Number(m[2]), Number(m[3]), Number(m[4])];
    return compare(v, floor) >= 0 && (m[1] === '>=' || v[0] === floor[0]);
  });
}

// Prints one line and exits 2 when this Node is too old.
function requireSupportedNode() {
  if (satisfies(process.versions.node, range)) return;
  process.stderr.write('ipcfuzz: needs Node.js ' + range + ' (this is v' + process.versions.node + ')\n');
  process.exit(2);
}

module.exports = { satisfies: satisfies, requireSupportedNode: requireSupportedNode, range: range };
