'use strict';
// The chart of the bench as an SVG written by hand (no plotting
// dependency): rates by payload size (or by a grid's cells), one line per
// codec and binary, a logarithmic rate axis, a bar from min to max at every
// median. The PNG is
// drawn from it by resvg with the DejaVu Sans files of the pinned npm package
// dejavu-fonts-ttf and no system fonts, so the same SVG gives the same PNG on
// every machine.

const fs = require('node:fs');
const path = require('node:path');
const { Resvg } = require('@resvg/resvg-js');
const fmt = require('./format');

const fontFamily = 'DejaVu Sans';
const fontDir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const fontFiles = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((f) => path.join(fontDir, f));

const escape = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// Ticks 1, 2, 5 × 10^k from the last one at or below lo to the first one at or above hi.
function logTicks(lo, hi) {
  const all = [];
  for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); p++) {
    all.push(...[1, 2, 5].map((m) => m * 10 ** p));
  }
  return all.filter((t, i) => all[i + 1] > lo && (all[i - 1] ?? 0) < hi);
}

function tickLabel(t) {
  if (t >= 1e6) return `${t / 1e6}M`;
  return t >= 1e3 ? `${t / 1e3}k` : String(t);
}

// The colour of each binary's series, in every panel.
const roleColors = { base: '#d9480f', head: '#1c7ed6' };

// An x axis of payload sizes, for points keyed by their size.
const payloadAxis = (lens) => lens.map((len) => ({ key: len, label: fmt.bytes(len) }));
const payloadLabel = "payload (message { payload: '.'.repeat(n) })";

function marker(shape, x, y, color) {
  if (shape === 'square') {
    return `<rect x="${(x - 3.4).toFixed(1)}" y="${(y - 3.4).toFixed(1)}" width="6.8" height="6.8" fill="#fff" stroke="${color}" stroke-width="1.6"/>`;
  }
  return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3.2" fill="${color}"/>`;
}

// panel: { title, yLabel, xLabel, x: [{ key, label, group }], series: [{ label, color, dash, marker, thin,
// points: [{ x: key, median, min, max }] }] }. Ticks of one group share a label under theirs, and a
// series' line is broken between groups.
function panelSvg(panel, { x0, y0, width, height }) {
  const pad = { left: 64, right: 12, top: 28, bottom: panel.x.some((t) => t.group) ? 60 : 44 };
  const values = panel.series.flatMap((s) => s.points.flatMap((p) => [p.min, p.max])).filter((v) => v > 0);
  const ticks = logTicks(Math.min(...values), Math.max(...values));
  const [lo, hi] = [ticks[0], ticks.at(-1)];
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const slot = plotW / panel.x.length;
  const index = new Map(panel.x.map((t, i) => [t.key, i]));
  const xOf = (key) => x0 + pad.left + (index.get(key) + 0.5) * slot;
  const yOf = (v) => y0 + pad.top + plotH * (1 - (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)));
  const bottom = y0 + height - pad.bottom;
  const out = [`<text x="${x0 + pad.left}" y="${y0 + 18}" font-size="15" font-weight="bold">${escape(panel.title)}</text>`];
  for (const t of ticks) {
    const y = yOf(t).toFixed(1);
    const major = Number.isInteger(Math.log10(t));
    out.push(`<line x1="${x0 + pad.left}" x2="${x0 + width - pad.right}" y1="${y}" y2="${y}" stroke="${major ? '#bbb' : '#e4e4e4'}"/>`,
      `<text x="${x0 + pad.left - 6}" y="${y}" font-size="11" text-anchor="end" dominant-baseline="middle">${tickLabel(t)}</text>`);
  }
  const groups = [];
  panel.x.forEach((t, i) => {
    out.push(`<text x="${xOf(t.key).toFixed(1)}" y="${bottom + 16}" font-size="${slot < 40 ? 9 : 11}" text-anchor="middle">${escape(t.label)}</text>`);
    if (t.group !== undefined && groups.at(-1)?.label !== t.group) groups.push({ label: t.group, from: i, to: i });
    else if (t.group !== undefined) groups.at(-1).to = i;
  });
  const groupOf = (key) => groups.findIndex((g) => index.get(key) >= g.from && index.get(key) <= g.to);
  for (const [i, g] of groups.entries()) {
    const left = x0 + pad.left + g.from * slot;
    out.push(`<text x="${(left + ((g.to - g.from + 1) * slot) / 2).toFixed(1)}" y="${bottom + 34}" font-size="12" font-weight="bold" ` +
      `text-anchor="middle">${escape(g.label)}</text>`);
    if (i > 0) out.push(`<line x1="${left.toFixed(1)}" x2="${left.toFixed(1)}" y1="${y0 + pad.top}" y2="${bottom + 38}" stroke="#888"/>`);
  }
  out.push(`<text x="${x0 + pad.left + plotW / 2}" y="${y0 + height - 8}" font-size="12" text-anchor="middle">${escape(panel.xLabel)}</text>`,
    `<text transform="translate(${x0 + 14} ${y0 + pad.top + plotH / 2}) rotate(-90)" font-size="12" text-anchor="middle">${escape(panel.yLabel)}</text>`,
    `<rect x="${x0 + pad.left}" y="${y0 + pad.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`);
  panel.series.forEach((s, i) => {
    // Each series a few pixels aside, so that bars of equal values stay apart.
    const dodge = (i - (panel.series.length - 1) / 2) * Math.min(5, slot / (panel.series.length + 1));
    const pts = s.points.filter((p) => p.median > 0 && index.has(p.x));
    const lines = [];
    for (const p of pts) {
      if (!lines.length || groupOf(lines.at(-1).at(-1).x) !== groupOf(p.x)) lines.push([]);
      lines.at(-1).push(p);
    }
    for (const line of lines) {
      out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="${s.thin ? 1.3 : 2.2}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''} ` +
        `points="${line.map((p) => `${(xOf(p.x) + dodge).toFixed(1)},${yOf(p.median).toFixed(1)}`).join(' ')}"/>`);
    }
    for (const p of pts) {
      const x = xOf(p.x) + dodge;
      out.push(`<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${yOf(p.min).toFixed(1)}" y2="${yOf(p.max).toFixed(1)}" stroke="${s.color}" stroke-width="1.4"/>`,
        marker(s.marker, x, yOf(p.median), s.color));
    }
  });
  return out.join('\n');
}

const kPanelWidth = 520;
const kPanelHeight = 400;

// The legend of a row's series (each label once), wrapped to `width`; returns { svg, height }.
function legendSvg(series, { y0, width }) {
  const out = [];
  let x = 74;
  let y = y0 + 8;
  for (const s of [...new Map(series.map((s) => [s.label, s])).values()]) {
    const w = 50 + 7.2 * s.label.length;
    if (x + w > width && x > 74) {
      x = 74;
      y += 22;
    }
    out.push(`<line x1="${x}" x2="${x + 30}" y1="${y}" y2="${y}" stroke="${s.color}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
      marker(s.marker, x + 15, y, s.color),
      `<text x="${x + 36}" y="${y}" font-size="12" dominant-baseline="middle">${escape(s.label)}</text>`);
    x += w;
  }
  return { svg: out.join('\n'), height: y - y0 + 22 };
}

// chart: { title, note, rows: [[panel, ...], ...] }: the panels of a row side by side (a panel's `width`,
// or 520), with the legend of their series under them.
function chartSvg({ title, note, rows }) {
  const widthOf = (p) => p.width ?? kPanelWidth;
  const width = Math.max(...rows.map((row) => row.reduce((w, p) => w + widthOf(p), 0))) + 20;
  const parts = [];
  let y = 40;
  for (const row of rows) {
    let x = 10;
    for (const p of row) {
      parts.push(panelSvg(p, { x0: x, y0: y, width: widthOf(p), height: kPanelHeight }));
      x += widthOf(p);
    }
    const legend = legendSvg(row.flatMap((p) => p.series), { y0: y + kPanelHeight, width });
    parts.push(legend.svg);
    y += kPanelHeight + legend.height + 12;
  }
  const height = y + 16;
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${fontFamily}">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="14" y="24" font-size="17" font-weight="bold">${escape(title)}</text>`,
    ...parts,
    `<text x="14" y="${height - 12}" font-size="11" fill="#444">${escape(note)}</text>`, '</svg>',
  ].join('\n')}\n`;
}

// The SVG drawn at 1.5 times its size, as { png, width, height, pixels (RGBA) }.
function renderPng(svg) {
  const image = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 1.5 },
    font: { loadSystemFonts: false, fontFiles, defaultFontFamily: fontFamily },
  }).render();
  return { png: image.asPng(), width: image.width, height: image.height, pixels: image.pixels };
}

// Writes FILE.svg and FILE.png; returns their paths.
function writeChart(base, chart) {
  const svg = chartSvg(chart);
  fs.writeFileSync(`${base}.svg`, svg);
  fs.writeFileSync(`${base}.png`, renderPng(svg).png);
  return { svg: `${base}.svg`, png: `${base}.png` };
}

module.exports = { chartSvg, renderPng, writeChart, fontFamily, roleColors, payloadAxis, payloadLabel, kPanelWidth };
