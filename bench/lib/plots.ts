// Hand-written SVG line charts (log-log) of p50 latency against sequence length, ontology size and
// Layer B size. No chart library, no network: plain <path> and <text>.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Figure } from "./stats.js";
import { byId, formatNs, type Results } from "./summary.js";

interface Series {
  name: string;
  points: Array<[number, number]>; // x, p50 ns
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"];
const W = 720;
const H = 420;
const M = { left: 80, right: 220, top: 40, bottom: 50 };

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function decades(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
}

export function lineChart(title: string, xLabel: string, series: Series[]): string {
  const pts = series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && y > 0);
  if (pts.length === 0) return "";
  const xs = decades(Math.min(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[0])));
  const ys = decades(Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1])));
  const [x0, x1] = [Math.log10(xs[0]), Math.log10(xs[xs.length - 1])];
  const [y0, y1] = [Math.log10(ys[0]), Math.log10(ys[ys.length - 1])];
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const sx = (x: number) => M.left + ((Math.log10(x) - x0) / Math.max(1e-9, x1 - x0)) * pw;
  const sy = (y: number) => M.top + ph - ((Math.log10(y) - y0) / Math.max(1e-9, y1 - y0)) * ph;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="24" font-size="15" font-weight="bold">${esc(title)}</text>`,
  ];
  for (const y of ys) {
    parts.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${sy(y).toFixed(1)}" y2="${sy(y).toFixed(1)}" stroke="#ddd"/>`);
    parts.push(`<text x="${M.left - 6}" y="${(sy(y) + 4).toFixed(1)}" text-anchor="end">${esc(formatNs(y))}</text>`);
  }
  for (const x of xs) {
    parts.push(`<line x1="${sx(x).toFixed(1)}" x2="${sx(x).toFixed(1)}" y1="${M.top}" y2="${M.top + ph}" stroke="#eee"/>`);
    parts.push(`<text x="${sx(x).toFixed(1)}" y="${M.top + ph + 18}" text-anchor="middle">${x.toLocaleString("en-US")}</text>`);
  }
  parts.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#444"/>`);
  parts.push(`<text x="${M.left + pw / 2}" y="${H - 12}" text-anchor="middle">${esc(xLabel)} (log)</text>`);
  parts.push(`<text transform="translate(16 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">p50 latency per verdict (log)</text>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const p = s.points.filter(([x, y]) => x > 0 && y > 0);
    if (p.length === 0) return;
    const d = p.map(([x, y], k) => `${k === 0 ? "M" : "L"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ");
    parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const [x, y] of p) parts.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="3" fill="${color}"><title>${esc(`${s.name}: ${x} → ${formatNs(y)}`)}</title></circle>`);
    const ly = M.top + 10 + i * 18;
    parts.push(`<line x1="${W - M.right + 12}" x2="${W - M.right + 32}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    parts.push(`<text x="${W - M.right + 38}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

function seqSeries(r: Results, id: string, history: string, name: string): Series | null {
  const figs = byId(r, id)?.figures?.[history] as Record<string, Figure> | undefined;
  if (!figs) return null;
  return { name, points: Object.entries(figs).map(([n, f]) => [Number(n), f.p50] as [number, number]).sort((a, b) => a[0] - b[0]) };
}

function scaleSeries(r: Results, prefix: string, xs: number[], key: "tools" | "slots", what: string, name: string): Series | null {
  const points: Array<[number, number]> = [];
  for (const x of xs) {
    const f = byId(r, `${prefix}${x}`)?.figures?.[what] as Figure | undefined;
    if (f) points.push([x, f.p50]);
  }
  void key;
  return points.length ? { name, points } : null;
}

/** Writes the plots into `dir`; returns their paths. */
export function writePlots(r: Results, dir: string): string[] {
  const written: string[] = [];
  const write = (file: string, svg: string) => {
    if (svg === "") return;
    writeFileSync(join(dir, file), svg);
    written.push(join(dir, file));
  };
  const seq = [
    seqSeries(r, "core-wasm", "mixed", "wasm core, mixed"),
    seqSeries(r, "core-wasm", "single-edge", "wasm core, single-edge"),
    seqSeries(r, "core-reference", "mixed", "TS reference, mixed"),
    seqSeries(r, "verifier-wasm", "mixed", "verifier wasm, mixed"),
    seqSeries(r, "verifier-wasm", "single-edge", "verifier wasm, single-edge"),
    seqSeries(r, "guard-wasm", "mixed", "guard.check wasm, mixed"),
    seqSeries(r, "cedar", "mixed", "Cedar-wasm (n calls)"),
  ].filter((s): s is Series => s !== null);
  write("sequence-length.svg", lineChart("Verdict latency vs sequence length (airline, full τ²-bench state)", "calls in the forward sequence", seq));
  const tools = [10, 100, 1000, 10000];
  const label = (w: string) => (w === "guard" ? "guard.check" : w === "verifierHot" ? "verifier, 8 tools called" : w === "verifier" ? "verifier, all tools called" : w);
  const ts = ["core", "verifier", "verifierHot", "guard"].map((w) => scaleSeries(r, "scale-tools-", tools, "tools", w, label(w))).filter((s): s is Series => s !== null);
  write("ontology-size.svg", lineChart("Single-call latency vs ontology size (generated, wasm)", "tools in the ontology", ts));
  const slots = [1000, 100_000, 1_000_000];
  const ss = ["core", "verifier", "guard"].map((w) => scaleSeries(r, "scale-slots-", slots, "slots", w, w === "guard" ? "guard.check" : w)).filter((s): s is Series => s !== null);
  write("state-size.svg", lineChart("Single-call latency vs Layer B size (generated, wasm)", "slots in Layer B", ss));
  return written;
}
