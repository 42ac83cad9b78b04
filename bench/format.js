'use strict';
// Number formats and Markdown tables shared by the parts.

function rate(x) {
  if (!Number.isFinite(x)) return '—';
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)}M`;
  if (x >= 1e4) return `${(x / 1e3).toFixed(0)}k`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)}k`;
  return x.toFixed(x >= 100 ? 0 : 1);
}

// "median [min–max]" of a summary, each formatted with `fmt`.
function range(s, fmt = rate) {
  if (!s) return '—';
  return s.n > 1 ? `${fmt(s.median)} [${fmt(s.min)}–${fmt(s.max)}]` : fmt(s.median);
}

// The median of a summary alone, to `digits` places.
function median(s, digits = 1) {
  return s ? s.median.toFixed(digits) : '—';
}

function ratio(x) {
  return Number.isFinite(x) ? `${x.toFixed(2)}×` : '—';
}

function bytes(n) {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(0)} MiB`;
  return n >= 1024 ? `${n / 1024} KiB` : `${n} B`;
}

function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

module.exports = { rate, range, median, ratio, bytes, table };
