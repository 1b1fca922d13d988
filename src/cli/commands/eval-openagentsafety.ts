// `polar eval openagentsafety --data DIR [--runs DIR...] --out DIR`: POLAR's shell guard replayed on
// real coding agents' OpenAgentSafety runs (src/eval/openagentsafety). Writes openagentsafety-eval.json,
// .md and a self-contained .html into --out, with a progress bar on a terminal.
import { join } from "node:path";
import cliProgress from "cli-progress";
import { EvalError } from "../../eval/errors.js";
import { answerText, runOasEval, writeOasReports, type OasEvalReport, type WrittenOasReport } from "../../eval/openagentsafety/index.js";
import { packageRoot } from "./demo.js";

export interface EvalOasOptions {
  data: string;
  runs?: string[];
  tasks?: string;
  out: string;
  resamples?: number;
  seed?: number;
  progress?: boolean;
}

/** The command's work without the CLI: replay, write the files, return the report and the paths. */
export async function evalOpenAgentSafety(options: EvalOasOptions): Promise<{ report: OasEvalReport; files: WrittenOasReport }> {
  if (typeof options.data !== "string" || options.data === "") throw new EvalError("bad-option", "missing `--data DIR`", "an OpenAgentSafety folder: tasks/<task>/ and runs/<model>/");
  if (typeof options.out !== "string" || options.out === "") throw new EvalError("bad-option", "missing `--out DIR`");
  const bar =
    options.progress === false || !process.stderr.isTTY
      ? null
      : new cliProgress.SingleBar(
          { format: "polar eval openagentsafety [{bar}] {value}/{total} runs | {label}", hideCursor: true, clearOnComplete: true, stream: process.stderr },
          cliProgress.Presets.shades_classic,
        );
  try {
    const report = await runOasEval({
      data: options.data,
      runs: options.runs,
      tasks: options.tasks,
      resamples: options.resamples,
      seed: options.seed,
      root: packageRoot(),
      onStart: (total) => bar?.start(total, 0, { label: "" }),
      onProgress: (done, label) => bar?.update(done, { label }),
    });
    bar?.stop();
    return { report, files: writeOasReports(report, options.out, { docs: join(packageRoot(), "docs", "openagentsafety.md") }) };
  } finally {
    bar?.stop();
  }
}

/** What the command prints: the answer without Markdown, then the files. */
export function oasSummary(report: OasEvalReport, files: WrittenOasReport): string {
  return [`polar eval openagentsafety: ${answerText(report).replace(/\*\*/g, "")}`, `  wrote ${files.json}`, `        ${files.markdown}`, `        ${files.html}`, ""].join("\n");
}
