// The report as Markdown (charts are only in the HTML report).
import { cellText, type Block } from "./blocks.js";
import { mdTable } from "./format.js";

export function renderMarkdown(blocks: readonly Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    switch (b.kind) {
      case "heading":
        out.push(`${"#".repeat(b.level)} ${b.text}`);
        break;
      case "paragraph":
        out.push(b.text);
        break;
      case "list":
        out.push(b.items.map((i) => `- ${i}`).join("\n"));
        break;
      case "table":
        out.push(mdTable(b.head, b.rows.map((r) => r.map(cellText)), b.align));
        break;
      case "chart":
        break;
    }
  }
  return `${out.join("\n\n")}\n`;
}
