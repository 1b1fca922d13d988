// Writes the three report files of `polar eval tau2` into one folder. Node only.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { reportBlocks } from "./document.js";
import { EvalError } from "./errors.js";
import { executionBlocks } from "./execute-run.js";
import { renderHtml } from "./report-html.js";
import { renderMarkdown } from "./report-md.js";
import type { Tau2EvalReport } from "./tau2.js";

export const REPORT_FILES = { json: "tau2-eval.json", markdown: "tau2-eval.md", html: "tau2-eval.html" } as const;

export interface WrittenReport {
  json: string;
  markdown: string;
  html: string;
}

/** `docs`: the path of docs/tau2.md, linked from the report (relative to the output folder) when it exists. */
export function writeReports(report: Tau2EvalReport, outDir: string, options: { docs?: string } = {}): WrittenReport {
  const dir = resolve(outDir);
  const docsHref = options.docs !== undefined && existsSync(options.docs) ? relative(dir, resolve(options.docs)).split("\\").join("/") : null;
  const blocks = [...reportBlocks(report, { docsHref }), ...executionBlocks(report.execution)];
  const paths = { json: join(dir, REPORT_FILES.json), markdown: join(dir, REPORT_FILES.markdown), html: join(dir, REPORT_FILES.html) };
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(paths.json, `${JSON.stringify(report, null, 1)}\n`);
    writeFileSync(paths.markdown, renderMarkdown(blocks));
    writeFileSync(paths.html, renderHtml(blocks, "polar eval tau2"));
  } catch (e) {
    throw new EvalError("write-failed", `cannot write the report into \`${dir}\`: ${e instanceof Error ? e.message : String(e)}`);
  }
  return paths;
}
