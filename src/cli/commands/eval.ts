// `polar eval tau2 --data DIR [--results FILE...] --out DIR`: the offline evaluation of the guard on
// real τ²-bench agent runs (src/eval). Writes tau2-eval.json, tau2-eval.md and a self-contained
// tau2-eval.html into --out, with a progress bar on a terminal.
import { join } from "node:path";
import type { CAC } from "cac";
import cliProgress from "cli-progress";
import { ALL, policyLabel } from "../../eval/analyze.js";
import { EvalError } from "../../eval/errors.js";
import { pct } from "../../eval/format.js";
import { runTau2Eval, DEFAULT_RESAMPLES, DEFAULT_SEED, type Tau2EvalReport } from "../../eval/tau2.js";
import { writeReports, type WrittenReport } from "../../eval/write.js";
import { attachExecution } from "../../eval/executed-protection.js";
import { runExecution } from "../../eval/execute-run.js";
import type { ReplayScope } from "../../tau2/replay.js";
import { packageRoot } from "./demo.js";
import { action, CliError } from "../errors.js";
import { auditLogFile } from "./audit-log.js";
import { evalOpenAgentSafety, oasSummary } from "./eval-openagentsafety.js";

interface Flags {
  data?: string;
  results?: string | string[] | number;
  out?: string;
  scope?: string;
  tau?: string | number;
  resamples?: string | number;
  seed?: string | number;
  backend?: string;
  progress?: boolean;
  execute?: boolean;
  tau2Src?: string;
  python?: string;
  auditLog?: string;
  runs?: string | string[];
  tasks?: string;
}

export interface EvalTau2Options {
  data: string;
  results?: string[];
  out: string;
  scopes?: ReplayScope[];
  tau?: number;
  resamples?: number;
  seed?: number;
  backend?: string;
  /** Show a progress bar (on stderr when it is a terminal). */
  progress?: boolean;
  /** `--execute`: check every verdict in τ²-bench's environment (evalTau2Execute). */
  execute?: { tau2Src?: string; python?: string };
  /** Write the decision log of the replay (the main configuration, every guard) to this file. */
  auditLog?: string;
}

function parseScopes(v: string | undefined): ReplayScope[] {
  if (v === undefined || v === "both") return ["turn", "session"];
  if (v === "turn" || v === "session") return [v];
  throw new EvalError("bad-option", `--scope \`${v}\` is not turn, session or both`);
}

function parseNumber(name: string, v: string | number | undefined, check: (n: number) => boolean, what: string): number | undefined {
  if (v === undefined) return undefined;
  // Decimal text only: `Number` would read "", " ", "0x0" and "1e3" as numbers.
  const n = /^(?:\d+(?:\.\d*)?|\.\d+)$/u.test(String(v)) ? Number(v) : Number.NaN;
  if (!Number.isFinite(n) || !check(n)) throw new EvalError("bad-option", `--${name} \`${String(v)}\` is not ${what}`);
  return n;
}

/** The command's work without the CLI: run, write the files, return the report and the paths. */
export function evalTau2(options: EvalTau2Options): { report: Tau2EvalReport; files: WrittenReport; decisions: number | null } {
  const log = options.auditLog === undefined ? null : auditLogFile(options.auditLog);
  const bar =
    options.progress === false
      ? null
      : new cliProgress.SingleBar(
          { format: "polar eval tau2 [{bar}] {value}/{total} runs | {label}", hideCursor: true, clearOnComplete: true, stream: process.stderr },
          cliProgress.Presets.shades_classic,
        );
  try {
    const report = runTau2Eval({
      data: options.data,
      results: options.results,
      scopes: options.scopes,
      tau: options.tau,
      resamples: options.resamples,
      seed: options.seed,
      backend: options.backend,
      root: packageRoot(),
      ...(log === null ? {} : { auditLog: () => log.sink() }),
      onStart: (total) => bar?.start(total, 0, { label: "" }),
      onProgress: (done, label) => bar?.update(done, { label }),
    });
    bar?.stop();
    const decisions = log === null ? null : log.write();
    return { report, files: writeReports(report, options.out, { docs: join(packageRoot(), "docs", "tau2.md") }), decisions };
  } finally {
    bar?.stop();
  }
}

/** evalTau2 plus `--execute`: the same report with `execution` (src/eval/execute.ts), then written. */
export async function evalTau2Execute(options: EvalTau2Options): Promise<{ report: Tau2EvalReport; files: WrittenReport; decisions: number | null }> {
  const { report, decisions } = evalTau2({ ...options, out: options.out });
  attachExecution(report, await runExecution({
    data: options.data,
    results: options.results,
    root: packageRoot(),
    scopes: report.meta.scopes,
    tau: report.meta.tau,
    tau2Src: options.execute?.tau2Src,
    python: options.execute?.python,
  }));
  return { report, files: writeReports(report, options.out, { docs: join(packageRoot(), "docs", "tau2.md") }), decisions };
}

/** One line per scope and pair: POLAR against its static baseline over all domains, deduplicated. */
export function headline(report: Tau2EvalReport): string[] {
  return report.dominance
    .filter((d) => d.dedup && d.domain === ALL)
    .map((d) => {
      const u = d.unauthorized;
      const a = d.authorized;
      return `  ${d.scope.padEnd(7)} ${d.polar.padEnd(14)} stops ${pct(u.polar)} of ${u.n} unauthorized and ${pct(a.polar)} of ${a.n} authorized (dedup); ${policyLabel(d.baseline)} ${pct(u.baseline)} / ${pct(a.baseline)}: ${d.verdict}`;
    });
}

function executionHeadline(x: NonNullable<Tau2EvalReport["execution"]>): string[] {
  return [
    `  executed: ${x.admitted} admitted verdicts: ${x.restored} restored, ${x.withinResidue} within residue (${x.residue.bookkeeping} bookkeeping, ${x.residue.moneyOrInventory} money or inventory), ${x.wrong} wrong, ${x.missingArguments} missing arguments; ` +
      `amounts ${x.amounts.matched} matched, ${x.amounts.mismatched} mismatched, ${x.amounts.undeclared} undeclared; ` +
      `refusals ${x.refusals.confirmed} confirmed, ${x.refusals.conservative} conservative; fidelity ${x.fidelity.mismatches}/${x.fidelity.reads} mismatches; ` +
      `replay ${x.replay.outputMismatches}/${x.replay.calls} output mismatches (${x.seconds} s)`,
  ];
}

export function register(cli: CAC): void {
  cli
    .command("eval <suite> [...results]", "Evaluate the guard offline on real agent runs (suite: tau2 or openagentsafety)")
    .option("--data <dir>", "a τ²-bench data folder laid out like data/tau2 (domains/, results/); openagentsafety: tasks/ and runs/<model>/")
    .option("--runs <dir>", "openagentsafety: a model's run folder (traj_<task>.json, labels.json; repeatable); default every folder of <data>/runs")
    .option("--tasks <file>", "openagentsafety: the task table (default data/openagentsafety/tasks.json)")
    .option("--results <file>", "a results file (repeatable; also as extra arguments); default every file in <data>/results")
    .option("--out <dir>", "folder for tau2-eval.json, tau2-eval.md and tau2-eval.html")
    .option("--scope <scope>", "turn, session or both (default both)")
    .option("--tau <tau>", "the main threshold τ (default 0.80)")
    .option("--resamples <n>", `bootstrap resamples of tasks (default ${DEFAULT_RESAMPLES})`)
    .option("--seed <n>", `bootstrap seed (default ${DEFAULT_SEED})`)
    .option("--backend <name>", "reference, wasm or auto (default reference; every backend gives the same verdicts)")
    .option("--no-progress", "no progress bar")
    .option("--execute", "run every verdict's inverse in τ²-bench's own environment (needs Python and τ²-bench's code)")
    .option("--tau2-src <dir>", "with --execute: a τ²-bench checkout or its src/ (default $POLAR_TAU2_SRC, else the installed tau2 package)")
    .option("--python <path>", "with --execute: the Python to run τ²-bench with (default $POLAR_PYTHON, else python3)")
    .option("--audit-log <file>", "write every decision of the replay to FILE (JSONL), for `polar audit verify`")
    .example("polar eval tau2 --data ../tau2-bench/data/tau2 --out eval-out")
    .example("polar eval tau2 --data ../shared/tau2 --results gpt-4.1_airline_default_user-gpt-4.1_1trial.json --out eval-out")
    .example("polar eval openagentsafety --data ../shared/openagentsafety --out oas-out")
    .action(action(async (suite: string, extra: string[], flags: Flags) => {
      try {
        if (suite === "openagentsafety") {
          const runs = flags.runs === undefined ? undefined : (Array.isArray(flags.runs) ? flags.runs : [flags.runs]).map(String);
          const { report, files } = await evalOpenAgentSafety({
            data: flags.data as string,
            runs,
            tasks: flags.tasks,
            out: flags.out as string,
            resamples: parseNumber("resamples", flags.resamples, (n) => Number.isInteger(n) && n >= 1 && n <= 1_000_000, "an integer in [1, 1000000]"),
            seed: parseNumber("seed", flags.seed, (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff, "an integer in [0, 2^32)"),
            progress: flags.progress !== false,
          });
          process.stdout.write(oasSummary(report, files));
          return;
        }
        if (suite !== "tau2") throw new EvalError("bad-option", `unknown evaluation suite \`${suite}\``, "the suites are `tau2` and `openagentsafety`: `polar eval tau2 --data DIR --out DIR`");
        if (typeof flags.data !== "string" || flags.data === "") throw new EvalError("bad-option", "missing `--data DIR`", "a folder laid out like τ²-bench's data/tau2");
        if (typeof flags.out !== "string" || flags.out === "") throw new EvalError("bad-option", "missing `--out DIR`");
        const given = flags.results === undefined ? [] : (Array.isArray(flags.results) ? flags.results : [flags.results]).map(String);
        const results = [...given, ...extra.map(String)];
        const run = flags.execute === true ? evalTau2Execute : (o: EvalTau2Options) => Promise.resolve(evalTau2(o));
        const { report, files, decisions } = await run({
          data: flags.data,
          results: results.length > 0 ? results : undefined,
          out: flags.out,
          scopes: parseScopes(flags.scope),
          tau: parseNumber("tau", flags.tau, (n) => n >= 0 && n <= 1, "a number in [0, 1]"),
          resamples: parseNumber("resamples", flags.resamples, (n) => Number.isInteger(n) && n >= 1 && n <= 1_000_000, "an integer in [1, 1000000]"),
          seed: parseNumber("seed", flags.seed, (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff, "an integer in [0, 2^32)"),
          backend: flags.backend,
          progress: flags.progress !== false,
          execute: flags.execute === true ? { tau2Src: flags.tau2Src, python: flags.python } : undefined,
          auditLog: flags.auditLog,
        });
        const writes = report.inventory.reduce((n, i) => n + i.writes, 0);
        const runs = report.inventory.reduce((n, i) => n + i.trajectories, 0);
        process.stdout.write(
          [
            `polar eval tau2: ${runs} runs, ${writes} agent write calls, domains ${report.meta.domains.join(", ")}`,
            ...headline(report),
            ...(report.execution ? executionHeadline(report.execution) : []),
            `  wrote ${files.json}`,
            `        ${files.markdown}`,
            `        ${files.html}`,
            ...(decisions === null ? [] : [`        ${flags.auditLog} (${decisions} decisions; \`polar audit verify\` re-derives them)`]),
            "",
          ].join("\n"),
        );
      } catch (err) {
        // The evaluation's own errors keep their code; a bad option is a usage error (exit 2).
        if (err instanceof EvalError) throw new CliError(err.code, err.message, (err as { help?: string }).help, err.code === "bad-option" ? 2 : 1);
        throw err;
      }
    }));
}
