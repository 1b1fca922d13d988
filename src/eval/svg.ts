// Hand-written SVG charts for the HTML report: horizontal bars, grouped bars, lines, and panels of
// points with 95% whiskers. Inline SVG, no script, no external font or stylesheet. Coordinates are
// rounded to one decimal so the output is stable text.
import type { Chart, CIPoint, Series } from "./document.js";

export const PALETTE = ["#3b6ea5", "#d1495b", "#edae49", "#00798c", "#66a182", "#8d6a9f", "#5c5c5c"];

export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const r1 = (x: number): string => String(Math.round(x * 10) / 10);

function text(x: number, y: number, s: string, attrs = ""): string {
  return `<text x="${r1(x)}" y="${r1(y)}"${attrs ? ` ${attrs}` : ""}>${escapeXml(s)}</text>`;
}

function svgOpen(width: number, height: number, title: string): string {
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(title)}"><title>${escapeXml(title)}</title>`;
}

function legend(series: readonly { name: string; shape?: "circle" | "square" }[], x: number, y: number): string {
  let out = "";
  let cx = x;
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    out += s.shape === "circle" ? `<circle cx="${r1(cx + 5)}" cy="${r1(y - 4)}" r="5" fill="${color}"/>` : `<rect x="${r1(cx)}" y="${r1(y - 9)}" width="10" height="10" fill="${color}"/>`;
    out += text(cx + 14, y, s.name, 'class="legend"');
    cx += 24 + s.name.length * 6.5;
  });
  return out;
}

function hbar(c: Extract<Chart, { type: "hbar" }>): string {
  const labelW = 190;
  const barW = 380;
  const rowH = 22;
  const width = labelW + barW + 120;
  const height = 30 + c.bars.length * rowH + 10;
  const max = Math.max(1, ...c.bars.map((b) => b.value));
  let out = svgOpen(width, height, c.title) + text(0, 16, c.title, 'class="ctitle"');
  c.bars.forEach((b, i) => {
    const y = 30 + i * rowH;
    const w = (b.value / max) * barW;
    out += text(labelW - 6, y + 14, b.label, 'text-anchor="end"');
    out += `<rect x="${labelW}" y="${r1(y + 3)}" width="${r1(Math.max(w, 1))}" height="${rowH - 6}" fill="${PALETTE[0]}"/>`;
    out += text(labelW + w + 6, y + 14, b.text);
  });
  return `${out}</svg>`;
}

function yAxis(x0: number, y0: number, h: number, w: number, ticks: readonly number[], fmt: (v: number) => string): string {
  let out = "";
  for (const t of ticks) {
    const y = y0 + h - t * h;
    out += `<line x1="${x0}" y1="${r1(y)}" x2="${r1(x0 + w)}" y2="${r1(y)}" class="grid"/>`;
    out += text(x0 - 6, y + 4, fmt(t), 'text-anchor="end" class="tick"');
  }
  return out;
}

const pctTick = (v: number): string => `${Math.round(v * 100)}%`;

function grouped(c: Extract<Chart, { type: "grouped" }>): string {
  const x0 = 50;
  const y0 = 40;
  const h = 200;
  const groupW = 130;
  const width = x0 + c.categories.length * groupW + 20;
  const height = y0 + h + 50;
  const max = c.percent ? 1 : Math.max(1, ...c.series.flatMap((s) => s.values.map((v) => v ?? 0)));
  let out = svgOpen(width, height, c.title) + text(0, 16, c.title, 'class="ctitle"') + legend(c.series, x0, 32);
  out += yAxis(x0, y0, h, c.categories.length * groupW, [0, 0.25, 0.5, 0.75, 1], c.percent ? pctTick : (v) => String(Math.round(v * max)));
  const bw = (groupW - 24) / Math.max(1, c.series.length);
  c.categories.forEach((cat, gi) => {
    const gx = x0 + gi * groupW + 12;
    c.series.forEach((s, si) => {
      const v = s.values[gi];
      if (v === null || v === undefined) return;
      const bh = (v / max) * h;
      out += `<rect x="${r1(gx + si * bw)}" y="${r1(y0 + h - bh)}" width="${r1(bw - 2)}" height="${r1(Math.max(bh, 0.5))}" fill="${PALETTE[si % PALETTE.length]}"><title>${escapeXml(`${cat} · ${s.name}: ${c.percent ? `${(v * 100).toFixed(1)}%` : v}`)}</title></rect>`;
    });
    out += text(gx + (groupW - 24) / 2, y0 + h + 16, cat.length > 22 ? `${cat.slice(0, 21)}…` : cat, 'text-anchor="middle" class="tick"');
  });
  return `${out}</svg>`;
}

function line(c: Extract<Chart, { type: "line" }>): string {
  const x0 = 50;
  const y0 = 40;
  const h = 200;
  const w = 440;
  const width = x0 + w + 40;
  const height = y0 + h + 45;
  let out = svgOpen(width, height, c.title) + text(0, 16, c.title, 'class="ctitle"') + legend(c.series, x0, 32);
  out += yAxis(x0, y0, h, w, [0, 0.25, 0.5, 0.75, 1], pctTick);
  const xs = c.x.map((_, i) => x0 + (c.x.length === 1 ? w / 2 : (i / (c.x.length - 1)) * w));
  c.x.forEach((label, i) => (out += text(xs[i], y0 + h + 16, label, 'text-anchor="middle" class="tick"')));
  out += text(x0 + w / 2, y0 + h + 34, c.xLabel, 'text-anchor="middle" class="tick"');
  c.series.forEach((s: Series, si) => {
    const color = PALETTE[si % PALETTE.length];
    const pts = s.values.map((v, i) => (v === null ? null : [xs[i], y0 + h - v * h] as const)).filter((p): p is readonly [number, number] => p !== null);
    if (pts.length > 1) out += `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map(([x, y]) => `${r1(x)},${r1(y)}`).join(" ")}"/>`;
    for (const [x, y] of pts) out += `<circle cx="${r1(x)}" cy="${r1(y)}" r="3" fill="${color}"/>`;
  });
  return `${out}</svg>`;
}

/** Markers closer than this (px) would hide each other. */
const COINCIDE = 6;

/** Groups of point indices whose markers would overlap (transitively), in input order. */
export function coincident(pts: readonly (readonly [number, number])[]): number[][] {
  const group = pts.map((_, i) => i);
  const find = (i: number): number => (group[i] === i ? i : (group[i] = find(group[i])));
  for (let i = 0; i < pts.length; i++) {
    for (let j = 0; j < i; j++) if (Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]) < COINCIDE) group[find(i)] = find(j);
  }
  const out = new Map<number, number[]>();
  pts.forEach((_, i) => out.set(find(i), [...(out.get(find(i)) ?? []), i]));
  return [...out.values()];
}

/** Deterministic offsets that keep coinciding markers visible: the members of a group sit on a small
 * circle around their common place, in input order (no randomness, the same chart every run). */
export function spread(pts: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = pts.map(() => [0, 0]);
  for (const g of coincident(pts)) {
    if (g.length < 2) continue;
    g.forEach((idx, k) => {
      const angle = Math.PI / 4 + (2 * Math.PI * k) / g.length;
      out[idx] = [COINCIDE * Math.cos(angle), -COINCIDE * Math.sin(angle)];
    });
  }
  return out;
}

function marker(shape: "circle" | "square", x: number, y: number, color: string): string {
  if (shape === "square") return `<rect x="${r1(x - 4)}" y="${r1(y - 4)}" width="8" height="8" fill="${color}" stroke="#fff"/>`;
  return `<circle cx="${r1(x)}" cy="${r1(y)}" r="4.5" fill="${color}" stroke="#fff"/>`;
}

function scatterPanel(title: string, points: readonly CIPoint[], ox: number, oy: number, size: number, colors: Map<string, string>): string {
  let out = text(ox + size / 2, oy - 12, title, 'text-anchor="middle" class="ptitle"');
  out += `<rect x="${ox}" y="${oy}" width="${size}" height="${size}" class="frame"/>`;
  for (const t of [0, 0.5, 1]) {
    out += `<line x1="${r1(ox + t * size)}" y1="${oy}" x2="${r1(ox + t * size)}" y2="${oy + size}" class="grid"/>`;
    out += `<line x1="${ox}" y1="${r1(oy + size - t * size)}" x2="${ox + size}" y2="${r1(oy + size - t * size)}" class="grid"/>`;
    out += text(ox + t * size, oy + size + 14, pctTick(t), 'text-anchor="middle" class="tick"');
    out += text(ox - 4, oy + size - t * size + 4, pctTick(t), 'text-anchor="end" class="tick"');
  }
  // The diagonal: a policy on it stops authorized and unauthorized writes alike (no better than chance).
  out += `<line x1="${ox}" y1="${oy + size}" x2="${ox + size}" y2="${oy}" class="diag"/>`;
  const X = (v: number): number => ox + v * size;
  const Y = (v: number): number => oy + size - v * size;
  const offsets = spread(points.map((p) => [X(p.x), Y(p.y)] as const));
  for (const [i, p] of points.entries()) {
    const color = colors.get(p.label) ?? PALETTE[6];
    const [dx, dy] = offsets[i];
    out += `<g><title>${escapeXml(`${p.label}: authorized stopped ${(p.x * 100).toFixed(1)}% [${(p.xlo * 100).toFixed(1)}, ${(p.xhi * 100).toFixed(1)}], unauthorized stopped ${(p.y * 100).toFixed(1)}% [${(p.ylo * 100).toFixed(1)}, ${(p.yhi * 100).toFixed(1)}]`)}</title>`;
    out += `<line x1="${r1(X(p.xlo))}" y1="${r1(Y(p.y) + dy)}" x2="${r1(X(p.xhi))}" y2="${r1(Y(p.y) + dy)}" stroke="${color}" stroke-width="1.5"/>`;
    out += `<line x1="${r1(X(p.x) + dx)}" y1="${r1(Y(p.ylo))}" x2="${r1(X(p.x) + dx)}" y2="${r1(Y(p.yhi))}" stroke="${color}" stroke-width="1.5"/>`;
    out += marker(p.shape ?? "circle", X(p.x) + dx, Y(p.y) + dy, color);
    out += "</g>";
  }
  // Where points coincide, say how many there are.
  for (const g of coincident(points.map((p) => [X(p.x), Y(p.y)] as const))) {
    if (g.length < 2) continue;
    const [x, y] = [X(points[g[0]].x), Y(points[g[0]].y)];
    out += text(x + 9, y - 7, `×${g.length}`, 'class="tick"');
  }
  return out;
}

function scatter(c: Extract<Chart, { type: "scatter" }>): string {
  const size = 200;
  const gap = 60;
  const ox = 50;
  const oy = 72;
  const width = ox + c.panels.length * (size + gap);
  const height = oy + size + 50;
  const labels = [...new Set(c.panels.flatMap((p) => p.points.map((q) => q.label)))];
  const colors = new Map(labels.map((l, i) => [l, PALETTE[i % PALETTE.length]]));
  const shapes = new Map(c.panels.flatMap((p) => p.points.map((q) => [q.label, q.shape ?? "circle"] as const)));
  let out = svgOpen(width, height, c.title) + text(0, 16, c.title, 'class="ctitle"') + legend(labels.map((name) => ({ name, shape: shapes.get(name) })), ox, 34);
  c.panels.forEach((p, i) => (out += scatterPanel(p.title, p.points, ox + i * (size + gap), oy, size, colors)));
  out += text(ox + (c.panels.length * (size + gap) - gap) / 2, oy + size + 36, `x: ${c.xLabel} · y: ${c.yLabel}`, 'text-anchor="middle" class="tick"');
  return `${out}</svg>`;
}

export function renderChart(c: Chart): string {
  switch (c.type) {
    case "hbar":
      return hbar(c);
    case "grouped":
      return grouped(c);
    case "line":
      return line(c);
    case "scatter":
      return scatter(c);
  }
}
