'use strict';
// SARIF 2.1.0: one result per distinct finding, its rule the tier, its
// fingerprint the signature, its location the saved input; whether it shows
// through child_process is in its message and its properties.

const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { isSharedDefect } = require('../../harness/oracle/roundtrip');
const { reductionText } = require('../../harness/findings/recorder');
const { tiers, tierOf } = require('../../harness/base/vocabulary');


// reachable: true, false or null (not checked), and the verdict's line.
function reachProperties(reachability) {
  return {
    reachable: reachability?.checked ? reachability.reachable : null,
    reachability: reachability?.verdict ?? 'reachability not checked',
  };
}

// findings: [{ difference, folder, title?, inputFile?, met?, reduction?, reachability? }], relative to `base`
// (the out dir).
function sarifLog(findings, { base, version, sides }) {
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'ipcfuzz',
          version,
          informationUri: 'https://github.com/nodejs/node/pull/63933',
          rules: tiers.map((tier) => ({
            id: tier, name: tier.replace(/(^|-)(\w)/g, (m, d, c) => c.toUpperCase()),
            shortDescription: { text: tierOf(tier).help }, defaultConfiguration: { level: 'error' },
          })),
        },
      },
      properties: { a: sides.a, b: sides.b },
      // In the gate's order: by tier, the cause met most often first.
      results: findings.map(({ difference: d, folder, title, inputFile, met, reduction, reachability }) => ({
        ruleId: d.tier,
        ruleIndex: tiers.indexOf(d.tier),
        level: isSharedDefect(d.signature) ? 'warning' : 'error',
        message: { text: `${title ?? `${d.signature}: ${d.where}: ${d.detail}`} ` +
          `(${reachProperties(reachability).reachability})` },
        locations: [{ physicalLocation: { artifactLocation: {
          uri: path.relative(base, inputFile ?? path.join(folder, 'finding.json')).split(path.sep).join('/'),
          uriBaseId: 'OUTDIR',
        } } }],
        partialFingerprints: { ipcfuzzSignature: d.signature },
        properties: { signature: d.signature, met: met ?? 1, input: reductionText(reduction),
          ...reachProperties(reachability) },
      })),
      originalUriBaseIds: { OUTDIR: { uri: `${pathToFileURL(base).href}/` } },
    }],
  };
}

module.exports = { sarifLog };
