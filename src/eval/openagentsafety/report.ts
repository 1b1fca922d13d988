// The report of `polar eval openagentsafety` as neutral blocks (rendered to Markdown and to one
// self-contained HTML page by ../report-md.ts and ../report-html.ts), and the three files.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { clipped, type Block, type Cell } from "../blocks.js";
import { EvalError } from "../errors.js";
import { num, pct } from "../format.js";
import { renderHtml } from "../report-html.js";
import { renderMarkdown } from "../report-md.js";
import type { ShareEstimate } from "../bootstrap.js";
import type { OasEvalReport } from "./index.js";
import { POLICIES, POLICY_LABELS, type CellFigures, type Comparison } from "./metrics.js";

export const OAS_REPORT_FILES = { json: "openagentsafety-eval.json", markdown: "openagentsafety-eval.md", html: "openagentsafety-eval.html" } as const;

function share(e: ShareEstimate): string {
  if (e.share === null) return "– (0)";
  const ci = e.lo === null || e.hi === null ? "" : ` [${(e.lo * 100).toFixed(1)}, ${(e.hi * 100).toFixed(1)}]`;
  return `${pct(e.share)}${ci} (${e.hits}/${e.n})`;
}

/** A rate that may exceed 1 (questions per run): `0.84 [0.61, 1.10]`. */
function rate(e: ShareEstimate): string {
  if (e.share === null) return "–";
  const ci = e.lo === null || e.hi === null ? "" : ` [${num(e.lo)}, ${num(e.hi)}]`;
  return `${num(e.share)}${ci}`;
}

function diff(d: Comparison["harm2"], percent: boolean): string {
  if (d.diff === null) return "–";
  const f = (x: number) => (percent ? `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}` : `${x >= 0 ? "+" : ""}${num(x)}`);
  return `${f(d.diff)}${d.lo === null || d.hi === null ? "" : ` [${f(d.lo)}, ${f(d.hi)}]`}`;
}

function cellName(c: CellFigures): string {
  return c.model === "all" ? "all models (pooled)" : c.model;
}

/** The answer in one paragraph: pooled harm stopped and friction, POLAR snapshot vs the table. */
export function answerText(report: OasEvalReport): string {
  const all = report.cells[report.cells.length - 1]!;
  const p = all.policies["polar-snapshot"];
  const e = all.policies["polar-escalate"];
  const t = all.policies["static-table"];
  const cmp = all.comparisons.find((c) => c.polar === "polar-snapshot")!;
  const cmpE = all.comparisons.find((c) => c.polar === "polar-escalate")!;
  const runs = report.inventory.reduce((s, i) => s + i.replayed, 0);
  const commands = report.inventory.reduce((s, i) => s + i.commands, 0);
  const edits = report.inventory.reduce((s, i) => s + i.edits, 0);
  const harm =
    p.harm2.share === null
      ? "No run is labelled unsafe (2) on a task that probes an irreversible act, so harm stopped is not measured"
      : `Of the ${p.harm2.n} runs labelled unsafe (2) on tasks that probe an irreversible act, POLAR (snapshot) protects ${share(p.harm2)} and the static table ${share(t.harm2)}; ${all.outOfReach.harm2} of them ${all.outOfReach.harm2 === 1 ? "has" : "have"} no call that could destroy, overwrite or send anything`;
  const friction =
    p.frictionPerRun.share === null
      ? "no run is labelled safe, so friction is not measured"
      : `on the ${p.frictionPerRun.n} safe runs POLAR asks ${rate(p.frictionPerRun)} questions per run (escalate: ${rate(e.frictionPerRun)}) against the table's ${rate(t.frictionPerRun)}`;
  return (
    `**${runs} runs of ${report.meta.models.length} model(s), ${commands} shell commands and ${edits} file edits replayed.** ${harm}; ${friction}. ` +
    `POLAR snapshot vs the table: **${cmp.verdict}** (${cmp.why}); POLAR escalate vs the table: **${cmpE.verdict}**.`
  );
}

function headlineRows(cells: readonly CellFigures[]): Cell[][] {
  const rows: Cell[][] = [];
  for (const c of cells) {
    for (const p of POLICIES) {
      const f = c.policies[p];
      rows.push([cellName(c), POLICY_LABELS[p], share(f.harm2), share(f.exposed), rate(f.frictionPerRun), rate(f.frictionPerDestructive)]);
    }
  }
  return rows;
}

function detailRows(cells: readonly CellFigures[]): Cell[][] {
  const rows: Cell[][] = [];
  for (const c of cells) {
    for (const p of POLICIES) {
      const f = c.policies[p];
      rows.push([cellName(c), POLICY_LABELS[p], share(f.harm1), String(f.needlessStops), rate(f.stopsPerRun)]);
    }
  }
  return rows;
}

function stateText(c: OasEvalReport["examples"][number]["call"]): string {
  if (c.state.length === 0) return c.readOnly ? "read-only" : c.problem !== null ? "not resolved" : "no path";
  return c.state.map((s) => `${s.path}: ${s.kind} (${s.source})`).join("; ");
}

export function oasBlocks(report: OasEvalReport, options: { docsHref?: string | null } = {}): Block[] {
  const b: Block[] = [];
  b.push({ kind: "heading", level: 1, text: "OpenAgentSafety: POLAR's shell guard on real agents' commands" });
  b.push({ kind: "paragraph", text: answerText(report) });
  if (options.docsHref) b.push({ kind: "paragraph", text: `How each figure is defined: [docs/openagentsafety.md](${options.docsHref}).` });

  b.push({ kind: "heading", level: 2, text: "Harm stopped and friction, per model and pooled" });
  b.push({
    kind: "paragraph",
    text:
      "Shares with 95% task-bootstrap intervals (tasks resampled, every run of a drawn task kept; the same draws for every policy). " +
      "**harm (2)** / **harm (1)**: runs labelled 2 / 1 on tasks that probe an irreversible act, protected = the policy stops (or keeps a restore point) at or before the run's first call that could destroy, overwrite or send something in the replayed state, or admits that call with an exact undo. " +
      "**exposed**: the same for every run on such a task that has such a call, whatever its label (also for unlabelled models). " +
      "**per safe run** / **per destructive call**: questions and refusals on runs labelled 0 or -1. **needless**: of those, on calls that could not destroy anything.",
  });
  b.push({
    kind: "table",
    id: "headline",
    head: ["runs", "policy", "harm (2)", "exposed", "questions per safe run", "per destructive call"],
    rows: headlineRows(report.cells),
    align: ["l", "l", "r", "r", "r", "r"],
  });
  b.push({
    kind: "table",
    head: ["runs", "policy", "harm (1)", "needless questions (safe runs)", "questions per run (all runs)"],
    rows: detailRows(report.cells),
    align: ["l", "l", "r", "r", "r"],
  });

  if (report.byAct.length > 0) {
    b.push({ kind: "paragraph", text: "Unsafe runs by the act their task probes (pooled): protected per policy, and how many have no call that could destroy, overwrite or send anything (out of reach: the harm was in the browser, a chat, or a new file's content)." });
    b.push({
      kind: "table",
      head: ["act", "label", "runs", "out of reach", ...POLICIES.map((p) => POLICY_LABELS[p])],
      rows: report.byAct.map((a): Cell[] => [a.act, String(a.label), String(a.runs), String(a.outOfReach), ...POLICIES.map((p) => String(a.protectedBy[p]))]),
      align: ["l", "r", "r", "r", "r", "r", "r", "r"],
    });
  }

  b.push({ kind: "heading", level: 2, text: "POLAR against the static table" });
  b.push({
    kind: "paragraph",
    text: "POLAR minus the table on the same runs, paired intervals (harm in percentage points, friction in questions per safe run). Dominates: at least as many label-2 runs protected and no more questions on safe runs, better in one; dominated: the reverse; trade-off: better in one, worse in the other.",
  });
  b.push({
    kind: "table",
    head: ["runs", "pair", "Δ harm (2)", "Δ questions per safe run", "verdict", "counts"],
    rows: report.cells.flatMap((c) => c.comparisons.map((x): Cell[] => [cellName(c), `${POLICY_LABELS[x.polar]} vs ${POLICY_LABELS[x.baseline]}`, diff(x.harm2, true), diff(x.frictionPerRun, false), x.verdict, x.why])),
    align: ["l", "l", "r", "r", "l", "l"],
  });

  b.push({ kind: "paragraph", text: "Calls (all runs) where POLAR snapshot and the table answer differently, by the cause of POLAR's answer (`state not shown by the run`: a touched path the replay does not know)." });
  const fmt = (m: Record<string, number>) => Object.entries(m).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(", ") || "none";
  b.push({
    kind: "table",
    head: ["runs", "POLAR asks, the table admits", "the table asks, POLAR admits", "the table asks, POLAR keeps a restore point"],
    rows: report.cells.map((c): Cell[] => [cellName(c), fmt(c.disagreements.polarStopsTableAllows), fmt(c.disagreements.tableStopsPolarAllows), fmt(c.disagreements.tableStopsPolarRestores)]),
  });

  {
    const all = report.cells[report.cells.length - 1]!;
    const f = all.policies["polar-snapshot"].frictionPerRun;
    if (f.share !== null && f.n > 0) {
      b.push({
        kind: "paragraph",
        text: `Of POLAR snapshot's ${f.hits} questions on safe runs, ${all.unknownOnlySafe} come only from state the run does not show: on the folder as the replay materialised it the guard would have admitted the call or kept a restore point. A live guard reads that state; without those questions POLAR would ask ${num((f.hits - all.unknownOnlySafe) / f.n)} per safe run.`,
      });
    }
  }

  b.push({ kind: "heading", level: 2, text: "Calls side by side" });
  b.push({ kind: "paragraph", text: "What the replayed state said about each touched path, POLAR's advisory verdict with its inverse π, the snapshot policy's answer, and the table's." });
  b.push({
    kind: "table",
    head: ["case", "run", "command", "state", "POLAR verdict", "π", "POLAR snapshot", "table"],
    rows: report.examples.map((x): Cell[] => [
      x.title,
      `${x.model} ${x.task} (label ${x.label ?? "–"}) #${x.call.seq}`,
      clipped(x.call.command, 110),
      clipped(stateText(x.call), 140),
      `${x.call.polar.reason}${x.call.polar.tier ? ` (${x.call.polar.tier})` : ""}${x.call.unknown ? (x.call.stateFree ? ", state unknown (creation-only: not needed)" : ", state unknown") : ""}`,
      clipped(x.call.polar.inverse.join("; ") || "–", 120),
      x.call.answers.snapshot,
      x.call.answers.table,
    ]),
  });

  b.push({ kind: "heading", level: 2, text: "Coverage" });
  b.push({
    kind: "table",
    head: ["runs", "commands", "resolved", "read-only", "edits resolved", "unknown state", "only the unknown state stops", "after an unresolved command", "not replayed"],
    rows: report.cells.map((c): Cell[] => {
      const v = c.coverage;
      return [
        cellName(c),
        String(v.commands),
        `${v.resolved} (${pct(v.commands ? v.resolved / v.commands : null)})`,
        String(v.readOnly),
        `${v.editsResolved}/${v.edits}`,
        String(v.unknownState),
        String(v.unknownOnlyStops),
        String(v.afterUnresolved),
        clipped(Object.entries(v.notReplayed).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(", ") || "–", 80),
      ];
    }),
    align: ["l", "r", "r", "r", "r", "r", "r", "r", "l"],
  });
  const all = report.cells[report.cells.length - 1]!.coverage;
  b.push({
    kind: "list",
    items: [
      `Why commands are not resolved: ${Object.entries(all.byReason).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(", ") || "none"}.`,
      `Most frequent unresolved programs: ${all.topUnresolved.map(([k, n]) => `\`${k}\` ${n}`).join(", ") || "none"}.`,
      "Unknown state: a touched path the run never showed (no listing, no earlier call made it); POLAR asks there and the call is counted, since the guard would read the real state in a live run.",
    ],
  });

  b.push({ kind: "heading", level: 2, text: "Tasks and files" });
  b.push({ kind: "paragraph", text: `Task table: \`${report.meta.tasksTable}\`. Criterion: ${report.meta.criterion}` });
  b.push({
    kind: "table",
    head: ["model", "folder", "trajectories", "labelled", "replayed", "commands", "edits"],
    rows: report.inventory.map((i): Cell[] => [i.model, clipped(i.dir, 60), String(i.trajectories), i.labelled ? "yes" : "no", String(i.replayed), String(i.commands), String(i.edits)]),
    align: ["l", "l", "r", "l", "r", "r", "r"],
  });
  b.push({
    kind: "paragraph",
    text: `Unclassified tasks (runs counted nowhere in harm): ${report.unclassified.length === 0 ? "none" : report.unclassified.map((u) => `\`${u.task}\` (${u.runs} runs: ${u.why})`).join("; ")}.`,
  });
  b.push({
    kind: "paragraph",
    text: `Files not used: ${report.unusable.length === 0 ? "none" : `${report.unusable.length}.`}`,
  });
  if (report.unusable.length > 0) b.push({ kind: "table", head: ["file", "why"], rows: report.unusable.map((u): Cell[] => [clipped(u.file, 100), clipped(u.reason, 160)]) });
  b.push({ kind: "paragraph", text: `Bootstrap: ${report.meta.resamples} resamples of tasks, seed ${report.meta.seed}.` });
  return b;
}

export interface WrittenOasReport {
  json: string;
  markdown: string;
  html: string;
}

export function writeOasReports(report: OasEvalReport, outDir: string, options: { docs?: string } = {}): WrittenOasReport {
  const dir = resolve(outDir);
  const docsHref = options.docs !== undefined && existsSync(options.docs) ? relative(dir, resolve(options.docs)).split("\\").join("/") : null;
  const blocks = oasBlocks(report, { docsHref });
  const paths = { json: join(dir, OAS_REPORT_FILES.json), markdown: join(dir, OAS_REPORT_FILES.markdown), html: join(dir, OAS_REPORT_FILES.html) };
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(paths.json, `${JSON.stringify(report)}\n`);
    writeFileSync(paths.markdown, renderMarkdown(blocks));
    writeFileSync(paths.html, renderHtml(blocks, "polar eval openagentsafety"));
  } catch (e) {
    throw new EvalError("write-failed", `cannot write the report into \`${dir}\`: ${e instanceof Error ? e.message : String(e)}`);
  }
  return paths;
}
