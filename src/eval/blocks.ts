// The neutral blocks a report is made of (headings, paragraphs, tables, charts). Built once from the
// report object (./document.ts, ./headline.ts); ./report-md.ts and ./report-html.ts only render them.

export interface Bar {
  label: string;
  value: number;
  text: string;
}

export interface Series {
  name: string;
  values: (number | null)[];
}

export interface CIPoint {
  label: string;
  x: number;
  xlo: number;
  xhi: number;
  y: number;
  ylo: number;
  yhi: number;
  /** Marker: POLAR policies are circles, their static baselines squares. */
  shape?: "circle" | "square";
}

export type Chart =
  | { type: "hbar"; title: string; bars: Bar[] }
  | { type: "grouped"; title: string; categories: string[]; series: Series[]; percent: boolean }
  | { type: "line"; title: string; x: string[]; series: Series[]; xLabel: string; yLabel: string }
  | { type: "scatter"; title: string; xLabel: string; yLabel: string; panels: { title: string; points: CIPoint[] }[] };

/** A table cell: its text, or a shortened text with the full text on hover (HTML `title`). */
export type Cell = string | { text: string; full: string };

export type Block =
  | { kind: "heading"; level: 1 | 2 | 3; text: string; id?: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; items: string[] }
  /** `id` marks a table a reader (or a test) looks for, e.g. the headline; every other table is a detail. */
  | { kind: "table"; head: string[]; rows: Cell[][]; align?: ("l" | "r")[]; id?: string }
  | { kind: "chart"; chart: Chart };

export function cellText(c: Cell): string {
  return typeof c === "string" ? c : c.text;
}

/** A cell shortened to `n` characters (whitespace collapsed) that keeps its full text for hovering. */
export function clipped(s: string, n: number): Cell {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length <= n ? flat : { text: `${flat.slice(0, n - 1)}…`, full: flat };
}
