'use strict';
// The first line of the crash a difference raises on OSS-Fuzz and
// ClusterFuzzLite (IPCFUZZ_ON_DIFFERENCE=throw): its tier and signature, what
// the platform groups issues by and what `ipcfuzz` itself would print.

const headline = (difference) => `ipcfuzz ${difference.tier} difference ${difference.signature}`;

// { text, tier, signature } of the first such line in a target's output, or null.
function headlineIn(output) {
  const m = /Uncaught Exception: (?:Jazzer\.js: )?Error: (ipcfuzz (\S+) difference (.*))$/m.exec(output);
  return m && { text: m[1], tier: m[2], signature: m[3] };
}

module.exports = { headline, headlineIn };
