// `polar eval openagentsafety`: POLAR's shell guard replayed on real coding agents' runs of the
// OpenAgentSafety tasks, against a static command table and allow-all (docs/openagentsafety.md).
import { join, resolve } from "node:path";
import { EvalError } from "../errors.js";
import { loadData, readTaskTable, type Run, type TaskTable, type Unusable } from "./format.js";
import { cellFigures, examples, groupOf, harmIndex, POLICIES, protects, stopsOf, type CellFigures, type Example, type Policy } from "./metrics.js";
import { lossTools, readShellOntology, replayRun, type RunReplay } from "./replay.js";

export * from "./format.js";
export * from "./metrics.js";
export { replayRun, lossTools, editCall, type RunReplay, type CallRecord, type Answer } from "./replay.js";
export { World, type Knowledge } from "./world.js";
export { writeOasReports, oasBlocks, answerText, OAS_REPORT_FILES, type WrittenOasReport } from "./report.js";

export const OAS_REPORT_FORMAT = "polar-openagentsafety-eval/1";
export const OAS_DEFAULT_RESAMPLES = 2000;
export const OAS_DEFAULT_SEED = 20260;

export interface OasEvalOptions {
  data: string;
  /** Model folders (traj_<task>.json, labels.json); default every folder of <data>/runs. */
  runs?: readonly string[];
  /** The task table; default data/openagentsafety/tasks.json of the package. */
  tasks?: string;
  resamples?: number;
  seed?: number;
  /** The package root (ontologies/shell/shell.polar, data/openagentsafety/tasks.json). */
  root: string;
  onStart?: (total: number) => void;
  onProgress?: (done: number, label: string) => void;
}

export interface RunSummary {
  model: string;
  task: string;
  label: Run["label"];
  group: string | null;
  calls: number;
  /** 1-based seq of the first destructive call, null when none. */
  firstDestructive: number | null;
  protects: Record<Policy, boolean>;
  stops: Record<Policy, number>;
}

export interface OasEvalReport {
  format: typeof OAS_REPORT_FORMAT;
  meta: { data: string; tasksTable: string; criterion: string; resamples: number; seed: number; models: string[] };
  inventory: { model: string; dir: string; trajectories: number; labelled: boolean; runs: number; replayed: number; commands: number; edits: number }[];
  /** One per model, then `all` (pooled). */
  cells: CellFigures[];
  examples: Example[];
  /** Runs labelled 2 or 1 on irreversible tasks, by the task's act: how many, protected per policy, out of reach. */
  byAct: { act: string; label: 1 | 2; runs: number; outOfReach: number; protectedBy: Record<Policy, number> }[];
  /** Tasks with runs that the task table does not decide (missing, or `irreversible: null`). */
  unclassified: { task: string; runs: number; why: string }[];
  unusable: Unusable[];
  runs: RunSummary[];
  replays: RunReplay[];
}

export async function runOasEval(options: OasEvalOptions): Promise<OasEvalReport> {
  const resamples = options.resamples ?? OAS_DEFAULT_RESAMPLES;
  const seed = options.seed ?? OAS_DEFAULT_SEED;
  const tasksFile = resolve(options.tasks ?? join(options.root, "data", "openagentsafety", "tasks.json"));
  const table: TaskTable = readTaskTable(tasksFile);
  const data = loadData(options.data, options.runs);
  let loss: Set<string>;
  try {
    loss = lossTools(readShellOntology(options.root));
  } catch (e) {
    throw new EvalError("no-ontology", `the shell ontology cannot be read: ${(e as Error).message}`);
  }
  const unusable = [...data.unusable];
  const replays: RunReplay[] = [];
  options.onStart?.(data.runs.length);
  let done = 0;
  for (const run of data.runs) {
    const r = await replayRun(run, { tasksDir: data.tasksDir, loss });
    if (r.error !== null) unusable.push({ file: run.file, reason: `replay failed: ${r.error}` });
    else replays.push(r);
    options.onProgress?.(++done, `${run.model} ${run.task}`);
  }
  const models = data.models.map((m) => m.model);
  const cells = [...models.map((m) => cellFigures(m, replays.filter((r) => r.model === m), table, { resamples, seed })), cellFigures("all", replays, table, { resamples, seed })];
  const counts = new Map<string, number>();
  for (const r of replays) counts.set(r.task, (counts.get(r.task) ?? 0) + 1);
  const unclassified = [...counts]
    .filter(([t]) => table.tasks.get(t)?.irreversible === undefined || table.tasks.get(t)?.irreversible === null)
    .map(([task, runs]) => ({ task, runs, why: table.tasks.has(task) ? table.tasks.get(task)!.reason : "not in the task table" }))
    .sort((a, b) => a.task.localeCompare(b.task));
  const summaries: RunSummary[] = replays.map((r) => {
    const h = harmIndex(r);
    return {
      model: r.model,
      task: r.task,
      label: r.label,
      group: groupOf(r, table),
      calls: r.calls.length,
      firstDestructive: h < 0 ? null : h + 1,
      protects: Object.fromEntries(POLICIES.map((p) => [p, protects(r, p)])) as Record<Policy, boolean>,
      stops: Object.fromEntries(POLICIES.map((p) => [p, stopsOf(r, p)])) as Record<Policy, number>,
    };
  });
  const byAct: OasEvalReport["byAct"] = [];
  for (const label of [2, 1] as const) {
    const acts = [...new Set([...table.tasks.values()].filter((c) => c.irreversible === true).map((c) => c.act!))].sort();
    for (const act of acts) {
      const rs = replays.filter((r) => r.label === label && table.tasks.get(r.task)?.irreversible === true && table.tasks.get(r.task)?.act === act);
      if (rs.length === 0) continue;
      byAct.push({
        act,
        label,
        runs: rs.length,
        outOfReach: rs.filter((r) => harmIndex(r) < 0).length,
        protectedBy: Object.fromEntries(POLICIES.map((p) => [p, rs.filter((r) => protects(r, p)).length])) as Record<Policy, number>,
      });
    }
  }
  return {
    format: OAS_REPORT_FORMAT,
    meta: { data: data.data, tasksTable: tasksFile, criterion: table.criterion, resamples, seed, models },
    inventory: data.models.map((m) => {
      const rs = replays.filter((r) => r.model === m.model);
      return {
        ...m,
        runs: data.runs.filter((r) => r.model === m.model).length,
        replayed: rs.length,
        commands: rs.reduce((s, r) => s + r.calls.filter((c) => c.kind === "run").length, 0),
        edits: rs.reduce((s, r) => s + r.calls.filter((c) => c.kind === "edit").length, 0),
      };
    }),
    cells,
    examples: examples(replays, table),
    byAct,
    unclassified,
    unusable,
    runs: summaries,
    replays,
  };
}
