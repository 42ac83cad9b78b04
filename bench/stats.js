'use strict';
// Repeated measurements: the order they run in, and their summaries (the
// median with min and max and the number of runs, never a mean, so one
// disturbed run cannot move a figure).

// The items of one repetition in a turned order: a different one goes first
// each time, so drift in the machine's load (or a cold start) falls on every
// item alike.
function turned(items, rep) {
  const shift = rep % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// { median, min, max, n } of finite values; a not-found result is Infinity
// and counts like a value larger than any other (the median may be one).
function summarize(values) {
  if (!values.length) return null;
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

// How far apart repeated runs of one cell are, relative to their median.
function spread(s) {
  return s && s.median > 0 ? (s.max - s.min) / s.median : 0;
}

module.exports = { median, summarize, spread, turned };
