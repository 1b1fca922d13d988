// Paste the figures of a `polar eval tau2` run into docs/tau2.md: each `<!-- generated:NAME -->` …
// `<!-- /generated:NAME -->` block is replaced by the matching section of the run's Markdown report, so
// the prose around them is kept and the figures are the run's, never typed by hand.
//
//   node --import tsx src/cli/index.ts eval tau2 --data ../shared/tau2 --out docs/tau2-report
//   npx tsx scripts/tau2-doc.ts docs/tau2-report/tau2-eval.md docs/tau2.md
import { readFileSync, writeFileSync } from "node:fs";

/** A section of the report: from the line after the heading starting with `from` to the line before the
 * first heading matching `to` (or the end). `demote` turns the section's own `###` headings into `####`. */
interface Section {
  from: string;
  to: RegExp;
  includeHeading?: boolean;
  demote?: boolean;
}

const SECTIONS: Record<string, Section> = {
  runs: { from: "## The runs", to: /^## / },
  headline: { from: "## The answer:", to: /^### The guard's own criterion/ },
  protection: { from: "### The guard's own criterion", to: /^### Glossary/ },
  "detail-turn": { from: "### POLAR against its static baseline in detail — turn", to: /^##+ / },
  "labeled-turn": { from: "### Labeled evaluation — turn", to: /^##+ / },
  "paper-turn": { from: "### What the veto would block (the paper's Tables 6, 10, 11) — turn", to: /^### Where the veto disagrees with the labels — turn/, includeHeading: true, demote: true },
  "errors-turn": { from: "### Where the veto disagrees with the labels — turn", to: /^## / },
};

function section(report: string[], name: string, s: Section): string {
  const start = report.findIndex((l) => l.startsWith(s.from));
  if (start < 0) throw new Error(`tau2-doc: the report has no section \`${s.from}\` (for \`${name}\`)`);
  let end = report.findIndex((l, i) => i > start && s.to.test(l));
  if (end < 0) end = report.length;
  const lines = report.slice(s.includeHeading ? start : start + 1, end);
  const body = s.demote ? lines.map((l) => (l.startsWith("### ") ? `#${l}` : l)) : lines;
  return body.join("\n").trim();
}

export function fill(doc: string, reportText: string): string {
  const report = reportText.split("\n");
  let out = doc;
  for (const [name, s] of Object.entries(SECTIONS)) {
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const a = out.indexOf(open);
    const b = out.indexOf(close);
    if (a < 0 && b < 0) continue; // the doc does not show this section
    if (a < 0 || b < a) throw new Error(`tau2-doc: unbalanced markers for \`${name}\``);
    out = `${out.slice(0, a + open.length)}\n${section(report, name, s)}\n${out.slice(b)}`;
  }
  return out;
}

if (process.argv[1]?.endsWith("tau2-doc.ts")) {
  const [reportPath, docPath] = process.argv.slice(2);
  if (!reportPath || !docPath) {
    process.stderr.write("usage: npx tsx scripts/tau2-doc.ts REPORT.md docs/tau2.md\n");
    process.exit(2);
  }
  writeFileSync(docPath, fill(readFileSync(docPath, "utf8"), readFileSync(reportPath, "utf8")));
}
