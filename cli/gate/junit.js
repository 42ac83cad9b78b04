'use strict';
// JUnit XML (the Ant/Jenkins dialect CI systems read): one <testsuite> per
// gate stage, one <testcase> per vector, property, target or known entry.

const escape = (text) => String(text)
  .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD]/gu, '\uFFFD')
  .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// suites: [{ name, seconds, cases: [{ name, classname, seconds, failure?: { message, body }, skipped?: text }] }]
function junitXml(suites, { name = 'ipcfuzz gate', timestamp = new Date() } = {}) {
  const count = (pick) => suites.reduce((n, s) => n + s.cases.filter(pick).length, 0);
  const total = suites.reduce((t, s) => t + s.seconds, 0);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escape(name)}" tests="${count(() => true)}" failures="${count((c) => c.failure)}" ` +
      `errors="0" skipped="${count((c) => c.skipped !== undefined)}" time="${total.toFixed(3)}">`];
  for (const [id, suite] of suites.entries()) {
    lines.push(`  <testsuite name="${escape(suite.name)}" id="${id}" tests="${suite.cases.length}" ` +
      `failures="${suite.cases.filter((c) => c.failure).length}" errors="0" ` +
      `skipped="${suite.cases.filter((c) => c.skipped !== undefined).length}" time="${suite.seconds.toFixed(3)}" ` +
      `timestamp="${timestamp.toISOString().slice(0, 19)}" hostname="localhost">`);
    for (const c of suite.cases) {
      const open = `    <testcase name="${escape(c.name)}" classname="${escape(c.classname ?? suite.name)}" time="${(c.seconds ?? 0).toFixed(3)}"`;
      if (c.failure) {
        lines.push(`${open}>`, `      <failure message="${escape(c.failure.message)}" type="${escape(c.failure.type ?? 'difference')}">` +
          `${escape(c.failure.body ?? '')}</failure>`, '    </testcase>');
      } else if (c.skipped !== undefined) {
        lines.push(`${open}>`, `      <skipped message="${escape(c.skipped)}"/>`, '    </testcase>');
      } else {
        lines.push(`${open}/>`);
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

module.exports = { junitXml };
