'use strict';
// The chart of the codec table as an SVG written by hand (no plotting
// dependency): rates by payload size, one line per codec and binary, a
// logarithmic rate axis, a bar from min to max at every median. The PNG is
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

// panel: { title, yLabel, series: [{ label, color, dash, points: [{ len, median, min, max }] }] }
function panelSvg(panel, { x0, y0, width, height, lens }) {
  const pad = { left: 64, right: 12, top: 28, bottom: 44 };
  const values = panel.series.flatMap((s) => s.points.flatMap((p) => [p.min, p.max])).filter((v) => v > 0);
  const ticks = logTicks(Math.min(...values), Math.max(...values));
  const [lo, hi] = [ticks[0], ticks.at(-1)];
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const xOf = (len) => x0 + pad.left + (lens.indexOf(len) + 0.5) * (plotW / lens.length);
  const yOf = (v) => y0 + pad.top + plotH * (1 - (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)));
  const out = [`<text x="${x0 + pad.left}" y="${y0 + 18}" font-size="15" font-weight="bold">${escape(panel.title)}</text>`];
  for (const t of ticks) {
    const y = yOf(t).toFixed(1);
    const major = Number.isInteger(Math.log10(t));
    out.push(`<line x1="${x0 + pad.left}" x2="${x0 + width - pad.right}" y1="${y}" y2="${y}" stroke="${major ? '#bbb' : '#e4e4e4'}"/>`,
      `<text x="${x0 + pad.left - 6}" y="${y}" font-size="11" text-anchor="end" dominant-baseline="middle">${tickLabel(t)}</text>`);
  }
  for (const len of lens) {
    out.push(`<text x="${xOf(len).toFixed(1)}" y="${y0 + height - pad.bottom + 16}" font-size="11" text-anchor="middle">${fmt.bytes(len)}</text>`);
  }
  out.push(`<text x="${x0 + pad.left + plotW / 2}" y="${y0 + height - 8}" font-size="12" text-anchor="middle">payload (message { payload: '.'.repeat(n) })</text>`,
    `<text transform="translate(${x0 + 14} ${y0 + pad.top + plotH / 2}) rotate(-90)" font-size="12" text-anchor="middle">${escape(panel.yLabel)}</text>`,
    `<rect x="${x0 + pad.left}" y="${y0 + pad.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`);
  panel.series.forEach((s, i) => {
    // Each series a few pixels aside, so that bars of equal values stay apart.
    const dodge = (i - (panel.series.length - 1) / 2) * 5;
    const pts = s.points.filter((p) => p.median > 0);
    out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2.2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''} ` +
      `points="${pts.map((p) => `${(xOf(p.len) + dodge).toFixed(1)},${yOf(p.median).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts) {
      const x = (xOf(p.len) + dodge).toFixed(1);
      out.push(`<line x1="${x}" x2="${x}" y1="${yOf(p.min).toFixed(1)}" y2="${yOf(p.max).toFixed(1)}" stroke="${s.color}" stroke-width="1.4"/>`,
        `<circle cx="${x}" cy="${yOf(p.median).toFixed(1)}" r="3.2" fill="${s.color}"/>`);
    }
  });
  return out.join('\n');
}

// chart: { title, note, panels: [panel], lens }; the panels share the legend of the first.
function chartSvg({ title, note, panels, lens }) {
  const panelW = 520;
  const panelH = 400;
  const width = panelW * panels.length + 20;
  const legendY = 48 + panelH + 8;
  const height = legendY + 44;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${fontFamily}">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="14" y="24" font-size="17" font-weight="bold">${escape(title)}</text>`,
    ...panels.map((p, i) => panelSvg(p, { x0: 10 + i * panelW, y0: 40, width: panelW, height: panelH, lens })),
  ];
  panels[0].series.forEach((s, i) => {
    const x = 74 + i * 200;
    parts.push(`<line x1="${x}" x2="${x + 30}" y1="${legendY}" y2="${legendY}" stroke="${s.color}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
      `<text x="${x + 36}" y="${legendY}" font-size="12" dominant-baseline="middle">${escape(s.label)}</text>`);
  });
  parts.push(`<text x="14" y="${legendY + 28}" font-size="11" fill="#444">${escape(note)}</text>`, '</svg>');
  return `${parts.join('\n')}\n`;
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

module.exports = { chartSvg, renderPng, writeChart, fontFamily };
