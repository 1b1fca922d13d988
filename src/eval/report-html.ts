// The report as ONE self-contained HTML page: inline CSS, inline SVG charts, no script, no external
// reference of any kind (it opens offline, and nothing is fetched when it is opened).
import type { Block, Cell } from "./blocks.js";
import { escapeXml, renderChart } from "./svg.js";

// Nothing may be wider than a 1,280 px window: the body is capped, tables take at most its width and
// long cells wrap anywhere (file names, arguments); shortened cells carry their full text in `title`.
const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d1d1f;max-width:1180px;margin:24px auto;padding:0 16px;overflow-wrap:break-word}
h1{font-size:24px}h2{font-size:20px;margin-top:36px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:16px;margin-top:26px}
table{border-collapse:collapse;margin:10px 0 16px;font-size:12.5px;max-width:100%}th,td{border:1px solid #ddd;padding:3px 7px;vertical-align:top;overflow-wrap:break-word}td.wrap{overflow-wrap:anywhere}
th{background:#f4f5f7;text-align:left}td.r,th.r{text-align:right}tr:nth-child(even) td{background:#fafbfc}
td[title]{cursor:help;text-decoration:underline dotted #999}
table#headline{font-size:13.5px}table#headline td{padding:4px 8px;white-space:nowrap}.verdict-dominates{color:#1a7f37;font-weight:600}.verdict-dominated{color:#b3261e;font-weight:600}
.answer{border-left:4px solid #3b6ea5;padding:2px 0 2px 14px}dl.glossary dt{font-weight:600;float:left;clear:left;width:120px}dl.glossary dd{margin:0 0 6px 130px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f2f4;padding:0 3px;border-radius:3px}
.chart{display:block;margin:12px 0 20px;max-width:100%;height:auto;font:12px system-ui,sans-serif}
.chart .ctitle{font-weight:600;font-size:13px}.chart .ptitle{font-weight:600}.chart .tick,.chart .legend{fill:#444;font-size:11px}
.chart .grid{stroke:#e3e3e3}.chart .frame{fill:none;stroke:#bbb}.chart .diag{stroke:#bbb;stroke-dasharray:4 3}
`;

/** Inline Markdown used in paragraphs and cells: `code`, **bold** and [links](relative/path) (a link
 * to another host is rendered as plain text: the page references nothing outside itself), everything
 * else escaped. */
export function inline(s: string): string {
  let out = "";
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    out += escapeXml(s.slice(last, m.index));
    if (m[1] !== undefined) out += `<code>${escapeXml(m[1])}</code>`;
    else if (m[2] !== undefined) out += `<strong>${escapeXml(m[2])}</strong>`;
    else out += /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(m[4]) ? escapeXml(m[3]) : `<a href="${escapeXml(m[4])}">${escapeXml(m[3])}</a>`;
    last = m.index + m[0].length;
  }
  return out + escapeXml(s.slice(last));
}

/** Cells longer than this may break anywhere (long arguments, file names); shorter ones only between
 * words, so a squeezed table does not split `0.810` or a short label mid-word. */
const WRAP_ANYWHERE = 32;

function cell(tag: "td" | "th", c: Cell, cls: string): string {
  const text = typeof c === "string" ? c : c.text;
  const classes = [cls.replace(/^ class="|"$/g, ""), tag === "td" && text.length > WRAP_ANYWHERE ? "wrap" : ""].filter((x) => x !== "").join(" ");
  const attr = classes === "" ? "" : ` class="${classes}"`;
  if (typeof c === "string") return `<${tag}${attr}>${inline(c)}</${tag}>`;
  return `<${tag}${attr} title="${escapeXml(c.full)}">${inline(c.text)}</${tag}>`;
}

const VERDICT_CLASS: Record<string, string> = { dominates: "verdict-dominates", dominated: "verdict-dominated" };

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
        const id = b.id ?? slug(b.text, ids);
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
        const head = `<tr>${b.head.map((h, i) => cell("th", h, cls(i))).join("")}</tr>`;
        const rows = b.rows
          .map((r) => `<tr>${r.map((c, i) => {
            const v = VERDICT_CLASS[typeof c === "string" ? c.split(" ")[0] : ""];
            return cell("td", c, v ? ` class="${v}"` : cls(i));
          }).join("")}</tr>`)
          .join("\n");
        body.push(`<table${b.id ? ` id="${escapeXml(b.id)}"` : ' class="detail"'}>\n${head}\n${rows}\n</table>`);
        break;
      }
      case "chart":
        body.push(renderChart(b.chart));
        break;
    }
  }
  // The page opens with its answer: the table of contents goes after the first section (the title and
  // the answer), before the second level-2 heading (the details).
  const h2 = body.map((html, i) => (html.startsWith("<h2") ? i : -1)).filter((i) => i >= 0);
  const cut = h2.length >= 2 ? h2[1] : Math.min(1, body.length);
  const first = body.splice(0, cut).join("\n");
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
