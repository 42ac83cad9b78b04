'use strict';
// Packs harness modules into one script, so a repro runs on its own: each
// module becomes a function, and `require` resolves between them first.

const fs = require('node:fs');
const path = require('node:path');

const harnessDir = path.join(__dirname, '..');

function bundle(entries) {
  const files = new Map();
  const visit = (file) => {
    if (files.has(file)) return;
    const source = fs.readFileSync(file, 'utf8');
    files.set(file, source);
    for (const [, spec] of source.matchAll(/require\('(\.{1,2}\/[^']+)'\)/g)) {
      visit(resolve(path.dirname(file), spec));
    }
  };
  for (const entry of entries) visit(resolve(harnessDir, entry));
  const modules = [...files].map(([file, source]) =>
    `  ${JSON.stringify(path.relative(harnessDir, file))}(module, exports, require) {\n${source}\n  },`);
  return `const harness = (() => {
const sources = {
${modules.join('\n')}
};
const cache = new Map();
const realRequire = require;
function load(from, spec) {
  if (!spec.startsWith('.')) return realRequire(spec);
  let id = realRequire('node:path').posix.join(realRequire('node:path').posix.dirname(from), spec);
  if (!(id in sources)) id += sources[id + '.js'] ? '.js' : '/index.js';
  if (!cache.has(id)) {
    const module = { exports: {} };
    cache.set(id, module);
    sources[id](module, module.exports, (s) => load(id, s));
  }
  return cache.get(id).exports;
}
return (id) => load('', './' + id);
})();`;
}

function resolve(dir, spec) {
  const base = path.resolve(dir, spec);
  for (const candidate of [base, `${base}.js`, path.join(base, 'index.js')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`bundle: cannot resolve ${spec} from ${dir}`);
}

module.exports = { bundle };
