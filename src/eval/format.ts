// Number and table formatting shared by the Markdown and HTML reports.
import type { ShareEstimate } from "./bootstrap.js";

export function pct(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? "–" : `${(x * 100).toFixed(digits)}%`;
}

/** `37.5% [30.1, 44.0]` (interval in percent), or `–` without units. */
export function shareCI(e: ShareEstimate): string {
  if (e.share === null) return "–";
  const ci = e.lo === null || e.hi === null ? "" : ` [${(e.lo * 100).toFixed(1)}, ${(e.hi * 100).toFixed(1)}]`;
  return `${pct(e.share)}${ci}`;
}

/** `12/32` followed by the share with its interval. */
export function shareFull(e: ShareEstimate): string {
  return e.share === null ? "– (0)" : `${shareCI(e)} (${e.hits}/${e.n})`;
}

export function num(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined ? "–" : x.toFixed(digits);
}

/** A Markdown table; cells are escaped for `|` and newlines. */
export function mdTable(head: readonly string[], rows: readonly (readonly string[])[], align?: readonly ("l" | "r")[]): string {
  const esc = (s: string): string => s.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  const sep = head.map((_, i) => ((align?.[i] ?? "l") === "r" ? "---:" : "---"));
  return [`| ${head.map(esc).join(" | ")} |`, `| ${sep.join(" | ")} |`, ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`)].join("\n");
}

export function clip(s: string, n: number): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length <= n ? flat : `${flat.slice(0, n - 1)}…`;
}

export function compactArgs(args: Record<string, unknown>, n = 90): string {
  return clip(
    Object.entries(args)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(", "),
    n,
  );
}
