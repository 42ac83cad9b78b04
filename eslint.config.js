'use strict';
// `make lint`: a subset of the rules Node core lints lib/ and test/ with, and
// one rule of this project's own: the harness is the ground floor, so a file
// under harness/ requires only harness files of its own room or of a room
// below it, Node built-ins, npm packages and package.json, never the engines,
// the conformance suite or the command line.

const path = require('node:path');
const js = require('@eslint/js');
const globals = require('globals');

const harnessDir = path.join(__dirname, 'harness');
// The project's metadata (engines, pinned binaries), not a layer above.
const packageJson = path.join(__dirname, 'package.json');

// The string a require() or require.resolve() call names, when it is a
// literal (a template without expressions counts).
function requiredPath(node) {
  const callee = node.callee;
  const isRequire = callee.type === 'Identifier' && callee.name === 'require';
  const isResolve = callee.type === 'MemberExpression' && callee.object.type === 'Identifier' &&
    callee.object.name === 'require' && callee.property.name === 'resolve';
  if (!isRequire && !isResolve) return undefined;
  const arg = node.arguments[0];
  if (arg?.type === 'Literal' && typeof arg.value === 'string') return arg.value;
  if (arg?.type === 'TemplateLiteral' && arg.expressions.length === 0) return arg.quasis[0].value.cooked;
  return undefined;
}

// The rooms of harness/, each with the rooms below it that it may require
// (docs/architecture.md). A room's files require each other freely.
const harnessRooms = {
  base: [],
  wire: ['base'],
  codecs: ['base'],
  mutants: ['codecs', 'base'],
  recipes: ['wire', 'base'],
  arbitraries: ['recipes', 'wire', 'base'],
  oracle: ['recipes', 'codecs', 'wire', 'base'],
  run: ['oracle', 'recipes', 'codecs', 'wire', 'base'],
  findings: ['oracle', 'recipes', 'codecs', 'wire', 'base'],
  observe: ['oracle', 'recipes', 'codecs', 'wire', 'base'],
};
// Packages that are engine code: only the arbitraries, which the engines
// take their generators from, may load them, never what runs in a worker.
const enginePackages = /^(fast-check|mocha)(\/|$)|^@jazzer\.js\//;

const roomOf = (file) => {
  const rel = path.relative(harnessDir, file);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(path.sep);
  // A room named as a folder (`require('../codecs')`) is that room.
  return parts.length > 1 || parts[0] in harnessRooms ? parts[0] : '';
};

const harnessFloor = {
  meta: {
    type: 'problem',
    docs: { description: 'a harness file requires only its own room, the rooms below it, built-ins and packages' },
    messages: {
      above: "harness/ must not require '{{name}}': it lies outside harness/",
      room: "harness/{{from}}/ must not require '{{name}}': {{to}}/ is not a room below it",
      loose: 'a harness file lives in one of the rooms: {{rooms}}',
      engine: "harness/{{from}}/ must not load '{{name}}': it is engine code, for harness/arbitraries/ only",
    },
    schema: [],
  },
  create(context) {
    const file = context.physicalFilename;
    const from = roomOf(file);
    return {
      Program(node) {
        if (from === '' || (from !== undefined && !(from in harnessRooms))) {
          context.report({ node, messageId: 'loose', data: { rooms: Object.keys(harnessRooms).join(', ') } });
        }
      },
      CallExpression(node) {
        const name = requiredPath(node);
        if (name === undefined) return;
        if (!/^\.{1,2}(\/|$)/.test(name)) {
          if (enginePackages.test(name) && from !== 'arbitraries') {
            context.report({ node, messageId: 'engine', data: { from, name } });
          }
          return;
        }
        const target = path.resolve(path.dirname(file), name);
        if (target === packageJson) return;
        const to = roomOf(target);
        if (to === undefined) {
          context.report({ node, messageId: 'above', data: { name } });
        } else if (to !== from && !(harnessRooms[from] ?? []).includes(to)) {
          context.report({ node, messageId: 'room', data: { from, to: to || 'harness', name } });
        }
      },
    };
  },
};

// The words harness/base/vocabulary.js defines, spelled out where an
// outcome's kind, a difference's tier, a settled status or a check's place is
// compared or made: a string compared with, switched on, or given as a
// member or variable named for one of those roles, or listed for such a
// member's `includes`. The words no other meaning shares are refused
// wherever a string spells them.
const vocabulary = require('./harness/base/vocabulary');
const vocabularyWords = new Set([...Object.values(vocabulary.Outcome), ...vocabulary.tiers,
  ...Object.values(vocabulary.Settled), ...Object.values(vocabulary.Place)]);
const ownWords = new Set(['crash', 'hang', 'reject', 'unbuildable', 'acceptance', 'error-identity', 'classification',
  'framing', 'seen-again', 'pairing', 'consequence', 'combination', 'batch apart', 'screened worker', 'left out']);
const roleNames = new Set(['kind', 'tier', 'status', 'settled', 'where']);
const isRole = (node) => (node?.type === 'Identifier' && roleNames.has(node.name)) ||
  (node?.type === 'MemberExpression' && !node.computed && roleNames.has(node.property.name));

const vocabularyRule = {
  meta: {
    type: 'problem',
    docs: { description: 'a word of harness/base/vocabulary.js is named through its table, never spelled out' },
    messages: { spelled: "'{{word}}' is a word of harness/base/vocabulary.js: name it through its table" },
    schema: [],
  },
  create(context) {
    const report = (node) => context.report({ node, messageId: 'spelled', data: { word: node.value } });
    return {
      Literal(node) {
        if (typeof node.value !== 'string' || !vocabularyWords.has(node.value)) return;
        if (ownWords.has(node.value)) return report(node);
        // A branch of a choice stands where the choice stands: `kind: failed ? 'reject' : 'ok'`.
        let at = node;
        while (['ConditionalExpression', 'LogicalExpression'].includes(at.parent.type) && at.parent.test !== at) {
          at = at.parent;
        }
        const parent = at.parent;
        const other = parent.type === 'BinaryExpression' && (parent.left === at ? parent.right : parent.left);
        const switched = parent.type === 'SwitchCase' && isRole(parent.parent.discriminant);
        const given = parent.type === 'Property' && parent.value === at && roleNames.has(parent.key.name);
        const listed = parent.type === 'ArrayExpression' && parent.parent.type === 'MemberExpression' &&
          parent.parent.property.name === 'includes' && isRole(parent.parent.parent.arguments?.[0]);
        if (isRole(other) || switched || given || listed) report(node);
      },
    };
  },
};

module.exports = [
  {
    ignores: ['node_modules/', '.ipcfuzz/', 'findings/', 'gate-out/', 'corpus/', 'fuzzers/native/build/',
      'bench/results/', 'conformance-out/'],
  },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'commonjs',
      globals: { ...globals.node },
    },
    plugins: { ipcfuzz: { rules: { 'harness-floor': harnessFloor, 'vocabulary': vocabularyRule } } },
    rules: {
      'brace-style': ['error', '1tbs', { allowSingleLine: true }],
      'comma-dangle': ['error', 'always-multiline'],
      'comma-spacing': 'error',
      'eol-last': 'error',
      'eqeqeq': ['error', 'smart'],
      'key-spacing': 'error',
      'keyword-spacing': 'error',
      'max-len': ['error', {
        code: 120, tabWidth: 2, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreTemplateLiterals: true,
      }],
      'no-multiple-empty-lines': ['error', { max: 2, maxEOF: 0, maxBOF: 0 }],
      'no-shadow-restricted-names': 'error',
      'no-trailing-spaces': 'error',
      'no-undef': ['error', { typeof: true }],
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-var': 'error',
      'object-curly-spacing': ['error', 'always'],
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: true }],
      'semi': 'error',
      'space-before-blocks': 'error',
      'space-infix-ops': 'error',
      'strict': ['error', 'global'],
    },
  },
  {
    files: ['harness/**/*.js', 'harness/**/*.cjs'],
    rules: { 'ipcfuzz/harness-floor': 'error' },
  },
  {
    files: ['**/*.js'],
    ignores: ['harness/base/vocabulary.js', 'test/**', 'eslint.config.js'],
    rules: { 'ipcfuzz/vocabulary': 'error' },
  },
  {
    files: ['**/*.test.js', 'test/**/*.js'],
    languageOptions: { globals: { ...globals.mocha } },
  },
];
