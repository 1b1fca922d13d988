// The report as ONE self-contained HTML page: inline CSS, inline SVG charts, no script, no external
// reference of any kind (it opens offline, and nothing is fetched when it is opened).
import type { Block } from "./document.js";
import { escapeXml, renderChart } from "./svg.js";

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d1d1f;max-width:1180px;margin:24px auto;padding:0 16px}
h1{font-size:24px}h2{font-size:20px;margin-top:36px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:16px;margin-top:26px}
table{border-collapse:collapse;margin:10px 0 16px;font-size:12.5px}th,td{border:1px solid #ddd;padding:3px 7px;vertical-align:top}
th{background:#f4f5f7;text-align:left}td.r,th.r{text-align:right;white-space:nowrap}tr:nth-child(even) td{background:#fafbfc}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f2f4;padding:0 3px;border-radius:3px}
.chart{display:block;margin:12px 0 20px;max-width:100%;height:auto;font:12px system-ui,sans-serif}
.chart .ctitle{font-weight:600;font-size:13px}.chart .ptitle{font-weight:600}.chart .tick,.chart .legend{fill:#444;font-size:11px}
.chart .grid{stroke:#e3e3e3}.chart .frame{fill:none;stroke:#bbb}.chart .diag{stroke:#bbb;stroke-dasharray:4 3}
`;

/** Inline Markdown used in paragraphs and cells: `code` and **bold**, everything else escaped. */
export function inline(s: string): string {
  let out = "";
  const re = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    out += escapeXml(s.slice(last, m.index));
    out += m[1] !== undefined ? `<code>${escapeXml(m[1])}</code>` : `<strong>${escapeXml(m[2])}</strong>`;
    last = m.index + m[0].length;
  }
  return out + escapeXml(s.slice(last));
}

function slug(s: string, used: Map<string, number>): string {
  const base = s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "") || "section";
  const n = used.get(base) ?? 0;
  used.set(base, n + 1);
  return n === 0 ? base : `${base}-${n}`;
}

export function renderHtml(blocks: readonly Block[], title: string): string {
  const body: string[] = [];
  const toc: string[] = [];
  const ids = new Map<string, number>();
  for (const b of blocks) {
    switch (b.kind) {
      case "heading": {
        const id = slug(b.text, ids);
        if (b.level === 2) toc.push(`<li><a href="#${id}">${escapeXml(b.text)}</a></li>`);
        body.push(`<h${b.level} id="${id}">${inline(b.text)}</h${b.level}>`);
        break;
      }
      case "paragraph":
        body.push(`<p>${inline(b.text)}</p>`);
        break;
      case "list":
        body.push(`<ul>${b.items.map((i) => `<li>${inline(i)}</li>`).join("")}</ul>`);
        break;
      case "table": {
        const cls = (i: number): string => (b.align?.[i] === "r" ? ' class="r"' : "");
        const head = `<tr>${b.head.map((h, i) => `<th${cls(i)}>${inline(h)}</th>`).join("")}</tr>`;
        const rows = b.rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${inline(c)}</td>`).join("")}</tr>`).join("\n");
        body.push(`<table>\n${head}\n${rows}\n</table>`);
        break;
      }
      case "chart":
        body.push(renderChart(b.chart));
        break;
    }
  }
  // The table of contents goes after the title (the first block).
  const first = body.shift() ?? "";
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeXml(title)}</title>`,
    `<style>${CSS}</style>`,
    "</head><body>",
    first,
    `<nav><ul>${toc.join("")}</ul></nav>`,
    ...body,
    "</body></html>",
    "",
  ].join("\n");
}
