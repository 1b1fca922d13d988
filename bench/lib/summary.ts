// The headline numbers and the targets (issue 6), computed from the raw results of one run.
import type { Figure } from "./stats.js";

export interface Results {
  format: string;
  date: string;
  command: string;
  quick: boolean;
  /** quick, standard or full (runs before issue 27 have only `quick`). */
  preset?: string;
  /** Wall time of the whole run, seconds. */
  durationS?: number;
  commit: string | null;
  machine: Record<string, unknown>;
  data: Record<string, unknown>;
  method: Record<string, unknown>;
  results: Record<string, unknown>[];
  failures: string[];
  summary: Summary | Record<string, never>;
}

export interface Row {
  name: string;
  figure: Figure;
}

export interface Target {
  target: string;
  measured: string;
  met: boolean | null; // null: not measured in this run
}

/** One row of the new paths' table (issue 27 §4): figures in nanoseconds, whatever the source's unit. */
export interface PathRow {
  path: string;
  p50: number | null;
  /** The tail the source measures: p99 for the in-process variants, p95 for the hook processes. */
  tail: { q: "p95" | "p99"; ns: number } | null;
  /** Samples behind the figure. */
  n: number | null;
  /** The target from its issue, or what the row is beside (e.g. "comparison"). */
  target: string;
  met: boolean | null;
  note?: string;
}

export interface Summary {
  single: Row[];
  paths: PathRow[];
  sequences: Array<{ name: string; byLength: Record<string, number> }>;
  targets: Target[];
  ratios: Record<string, number | null>;
}

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function byId(r: Results, id: string): Any | undefined {
  return r.results.find((x) => x.id === id) as Any | undefined;
}

export function fig(r: Results, id: string, history: string, n: number): Figure | undefined {
  return byId(r, id)?.figures?.[history]?.[String(n)] as Figure | undefined;
}

function ns(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return "–";
  if (x < 1000) return `${x.toFixed(0)} ns`;
  if (x < 1e6) return `${(x / 1000).toFixed(x < 1e4 ? 2 : 1)} µs`;
  return `${(x / 1e6).toFixed(x < 1e7 ? 2 : 1)} ms`;
}

export const formatNs = ns;

function ratio(a: number | undefined, b: number | undefined): number | null {
  return a !== undefined && b !== undefined && b > 0 ? a / b : null;
}

function spread(values: Array<number | undefined>): number | null {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x));
  if (v.length < 2) return null;
  return Math.max(...v) / Math.min(...v);
}

const MS = 1e6;

/** The new paths side by side (issue 27 §4): the shell verdict and restore point (issue 23), a hook call
 * through the daemon and with a fresh process (issue 24), the SQL point DELETE (issue 25). */
export function newPaths(r: Results): PathRow[] {
  const rows: PathRow[] = [];
  const row = (path: string, f: Figure | undefined, target: string, limit: number | null, note?: string) => {
    if (f === undefined) return;
    rows.push({ path, p50: f.p50, tail: { q: "p99", ns: f.p99 }, n: f.samples, target, met: limit === null ? null : f.p50 <= limit, ...(note ? { note } : {}) });
  };
  const shell = byId(r, "shell");
  if (shell?.figures) {
    const f = shell.figures as Record<string, Figure>;
    const c = shell.checks as Record<string, { command: string; reason: string }>;
    const files = Number(shell.files).toLocaleString("en-US");
    row(`shell: verdict warm, \`${c.repo.command}\` in a ${files}-file git repository (parse + reads + verdict)`, f["warm:repo"], "p50 ≤ 2 ms (issue 23)", 2 * MS, `verdict under veto: ${c.repo.reason}`);
    row(`shell: verdict warm, \`${c.plain.command}\` outside git`, f["warm:plain"], "p50 ≤ 2 ms (issue 23)", 2 * MS, `verdict under veto: ${c.plain.reason}`);
    row(`shell: verdict warm, \`${c["repo-dir"].command}\` (100 files) in the repository`, f["warm:repo-dir"], "p50 ≤ 2 ms (issue 23)", 2 * MS, `verdict under veto: ${c["repo-dir"].reason}`);
    row(`shell: verdict warm, \`${c["repo-reset"].command}\` in the repository`, f["warm:repo-reset"], "p50 ≤ 2 ms (issue 23)", 2 * MS, `verdict under veto: ${c["repo-reset"].reason}`);
    row(`shell: the same cold (git facts dropped, as after observe), \`${c.repo.command}\``, f["cold:repo"], "beside the warm figure", null);
    row(`shell: restore point of the ${files}-file repository into a new store (${Number(shell.restorePoint?.files).toLocaleString("en-US")} entries)`, f.restorePointFirst, "reported (issue 23)", null);
    row("shell: the same again (its objects already in the store)", f.restorePointAgain, "reported (issue 23)", null);
  } else if (shell?.skipped) rows.push({ path: "shell guard", p50: null, tail: null, n: null, target: "p50 ≤ 2 ms (issue 23)", met: null, note: String(shell.skipped) });
  const hooks = byId(r, "hooks");
  if (hooks) {
    type H = { n: number; p50: number; p95: number; min: number };
    type Case = { id: string; allow: boolean; command: H; http: H; fresh: H; sameAnswer: boolean; cpuMsPerCall: { commandHook: number; daemonForCommand: number; daemonForHttp: number } };
    const target = "p50 ≤ 10 ms, p95 ≤ 50 ms (issue 24, allow path)";
    for (const c of (hooks.cases as Case[] | undefined) ?? []) {
      const cpu = c.cpuMsPerCall;
      const add = (how: string, h: H, note: string) =>
        rows.push({ path: `hook ${c.id}: ${how}`, p50: h.p50 * MS, tail: { q: "p95", ns: h.p95 * MS }, n: h.n, target: c.allow ? target : "beside the allow path", met: c.allow ? h.p50 <= 10 && h.p95 <= 50 : null, note });
      add("command hook (bin/polar-hook, bash → polar serve)", c.command, `CPU ${cpu.commandHook} ms hook process + ${cpu.daemonForCommand} ms daemon per call`);
      add("http hook (Claude Code → polar serve, no process)", c.http, `CPU ${cpu.daemonForHttp} ms daemon per call`);
      rows.push({ path: `hook ${c.id}: a fresh process per call (polar hook --in-process)`, p50: c.fresh.p50 * MS, tail: { q: "p95", ns: c.fresh.p95 * MS }, n: c.fresh.n, target: "comparison", met: null, note: `same answer as the daemon: ${c.sameAnswer ? "yes" : "no"}` });
    }
    const cold = hooks.coldStart as H | undefined;
    if (cold) rows.push({ path: "hook daemon cold start (polar serve spawned → answers)", p50: cold.p50 * MS, tail: { q: "p95", ns: cold.p95 * MS }, n: cold.n, target: "reported (issue 24)", met: null });
  }
  const sql = byId(r, "sql-delete");
  const sqlFig = sql?.figures?.pointDelete as Figure | undefined;
  const cpu = (d: string, k: string): string | undefined => (typeof sql?.dialects?.[d]?.[k] === "number" ? `CPU ${sql.dialects[d][k]} ms per check` : undefined);
  const rowsOf = (d: string, dflt: unknown): string => Number(sql?.dialects?.[d]?.rows ?? dflt).toLocaleString("en-US");
  if (sqlFig) {
    row(`SQL: point DELETE's verdict on a ${rowsOf("sqlite", sql?.rows ?? 1_000_000)}-row indexed table, SQLite (parse + pre-image read + verdict + restore point)`, sqlFig, "p50 ≤ 5 ms (issue 25)", 5 * MS, cpu("sqlite", "pointDeleteCpuMs"));
    row(`SQL: the same on PostgreSQL (PGlite), ${rowsOf("postgres", "?")} rows`, sql?.figures?.pglitePointDelete as Figure | undefined, "p50 ≤ 5 ms (issue 25)", 5 * MS, cpu("postgres", "pointDeleteCpuMs"));
    row("SQL: an unbounded DELETE, SQLite: asked after a bounded count", sql?.figures?.unboundedDelete as Figure | undefined, "reported (issue 25: never reads the table)", null, cpu("sqlite", "unboundedDeleteCpuMs"));
    row("SQL: an unbounded DELETE, PGlite", sql?.figures?.pgliteUnboundedDelete as Figure | undefined, "reported (issue 25: never reads the table)", null, cpu("postgres", "unboundedDeleteCpuMs"));
  }
  else if (sql) rows.push({ path: "SQL: point DELETE's verdict on a 1,000,000-row indexed table", p50: null, tail: null, n: null, target: "p50 ≤ 5 ms (issue 25)", met: null, note: String(sql.skipped ?? "not measured") });
  return rows;
}

export function summarizeResults(r: Results): Summary {
  const single: Row[] = [];
  const add = (name: string, f: Figure | undefined) => f && single.push({ name, figure: f });
  add("wasm core (record write + search)", fig(r, "core-wasm", "mixed", 1));
  add("TS reference core (record write + search)", fig(r, "core-reference", "mixed", 1));
  add("verifier, wasm (end to end)", fig(r, "verifier-wasm", "mixed", 1));
  add("verifier, TS reference (end to end)", fig(r, "verifier-reference", "mixed", 1));
  add("the guard's decision alone, wasm (evaluate: no copy, record or lifecycle)", fig(r, "decision-wasm", "mixed", 1));
  add("guard.check, wasm (end to end)", fig(r, "guard-wasm", "mixed", 1));
  add("guard.check, TS reference (end to end)", fig(r, "guard-reference", "mixed", 1));
  add("Cedar-wasm statefulIsAuthorized (requests prebuilt)", fig(r, "cedar", "mixed", 1));
  add("Cedar-wasm incl. building the context from Layer B", byId(r, "cedar")?.withContext?.mixed?.["1"]);

  const sequences: Summary["sequences"] = [];
  for (const [id, label] of [["core-wasm", "wasm core"], ["core-reference", "TS reference core"], ["verifier-wasm", "verifier, wasm"], ["decision-wasm", "the guard's decision alone, wasm"], ["guard-wasm", "guard.check, wasm"], ["cedar", "Cedar-wasm (n authorizations)"]]) {
    const figs = byId(r, id)?.figures?.mixed as Record<string, Figure> | undefined;
    if (figs) sequences.push({ name: label, byLength: Object.fromEntries(Object.entries(figs).map(([n, f]) => [n, f.p50])) });
  }

  const core1 = fig(r, "core-wasm", "mixed", 1);
  const ref1 = fig(r, "core-reference", "mixed", 1);
  const core16 = fig(r, "core-wasm", "mixed", 16);
  const ref16 = fig(r, "core-reference", "mixed", 16);
  const ver1 = fig(r, "verifier-wasm", "mixed", 1);
  const guard1 = fig(r, "guard-wasm", "mixed", 1);
  const cedar1 = fig(r, "cedar", "mixed", 1);
  const scaleTools = [10, 100, 1000, 10000].map((t) => byId(r, `scale-tools-${t}`));
  const scaleSlots = [1000, 100_000, 1_000_000].map((s) => byId(r, `scale-slots-${s}`));
  const cold = byId(r, "cold-node");
  const layerb = byId(r, "layerb");
  const memory = byId(r, "memory");
  const ratios = {
    cedarOverCore: ratio(cedar1?.p50, core1?.p50),
    cedarOverVerifier: ratio(cedar1?.p50, ver1?.p50),
    cedarOverGuard: ratio(cedar1?.p50, guard1?.p50),
    referenceOverWasmCore1: ratio(ref1?.p50, core1?.p50),
    referenceOverWasmCore16: ratio(ref16?.p50, core16?.p50),
    toolsSpreadCore: spread(scaleTools.map((x) => x?.figures?.core?.p50)),
    toolsSpreadVerifier: spread(scaleTools.map((x) => x?.figures?.verifier?.p50)),
    toolsSpreadVerifierHot: spread(scaleTools.map((x) => x?.figures?.verifierHot?.p50)),
    toolsSpreadGuard: spread(scaleTools.map((x) => x?.figures?.guard?.p50)),
    slotsSpreadVerifier: spread(scaleSlots.map((x) => x?.figures?.verifier?.p50)),
    slotsSpreadGuard: spread(scaleSlots.map((x) => x?.figures?.guard?.p50)),
    seq64OverSeq1CoreMixed: ratio(fig(r, "core-wasm", "mixed", 64)?.p50, core1?.p50),
    seq64OverSeq1CoreSingleEdge: ratio(fig(r, "core-wasm", "single-edge", 64)?.p50, fig(r, "core-wasm", "single-edge", 1)?.p50),
  };
  const t = (target: string, measured: string, met: boolean | null): Target => ({ target, measured, met });
  const le = (x: number | undefined | null, limit: number): boolean | null => (x === undefined || x === null ? null : x <= limit);
  const ge = (x: number | undefined | null, limit: number): boolean | null => (x === undefined || x === null ? null : x >= limit);
  const x = (v: number | null) => (v === null ? "–" : `${v.toFixed(1)}×`);
  const observe = layerb?.figures?.observe as Figure | undefined;
  const project = layerb?.figures?.project as Figure | undefined;
  const parse = layerb?.figures?.parse as Figure | undefined;
  const projectCpu = layerb?.figures?.projectCpu as Figure | undefined;
  const targets: Target[] = [
    t("core verdict, one call: p50 ≤ 0.5 µs", ns(core1?.p50), le(core1?.p50, 500)),
    t("guard.check end to end: p50 ≤ 2 µs", ns(guard1?.p50), le(guard1?.p50, 2000)),
    t("guard.check end to end: p99 ≤ 10 µs", ns(guard1?.p99), le(guard1?.p99, 10_000)),
    t("≥ 20× faster than pre-parsed Cedar-wasm (verifier end to end vs Cedar, one call)", x(ratios.cedarOverVerifier), ge(ratios.cedarOverVerifier, 20)),
    t("≥ 20× faster than pre-parsed Cedar-wasm (guard.check vs Cedar, one call)", x(ratios.cedarOverGuard), ge(ratios.cedarOverGuard, 20)),
    t("wasm core ≥ 1.5× faster than the TS reference (one call)", x(ratios.referenceOverWasmCore1), ge(ratios.referenceOverWasmCore1, 1.5)),
    t("wasm core ≥ 1.5× faster than the TS reference (16 calls)", x(ratios.referenceOverWasmCore16), ge(ratios.referenceOverWasmCore16, 1.5)),
    t("flat in ontology size (wasm core p50, 10 → 10,000 tools: max/min ≤ 1.5)", x(ratios.toolsSpreadCore), le(ratios.toolsSpreadCore, 1.5)),
    t("flat in ontology size (verifier p50, calls over random tools of all N: max/min ≤ 1.5)", x(ratios.toolsSpreadVerifier), le(ratios.toolsSpreadVerifier, 1.5)),
    t("flat in ontology size (verifier p50, calls over 8 of the N tools: max/min ≤ 1.5)", x(ratios.toolsSpreadVerifierHot), le(ratios.toolsSpreadVerifierHot, 1.5)),
    t("flat in state size (verifier p50, 1k → 1M slots: max/min ≤ 1.5)", x(ratios.slotsSpreadVerifier), le(ratios.slotsSpreadVerifier, 1.5)),
    t("flat in state size (guard.check p50, 1k → 1M slots: max/min ≤ 1.5)", x(ratios.slotsSpreadGuard), le(ratios.slotsSpreadGuard, 1.5)),
    t("at most linear in sequence length (core p50 64 calls / 1 call ≤ 64, mixed history)", x(ratios.seq64OverSeq1CoreMixed), le(ratios.seq64OverSeq1CoreMixed, 64)),
    t("at most linear in sequence length (core p50 64 calls / 1 call ≤ 64, single-edge history)", x(ratios.seq64OverSeq1CoreSingleEdge), le(ratios.seq64OverSeq1CoreSingleEdge, 64)),
    t("cold start to first verdict in Node ≤ 2 ms (median)", cold ? `${Number(cold.median.toFirstVerdict).toFixed(2)} ms` : "–", le(cold?.median?.toFirstVerdict, 2)),
    t("airline projection ≤ 150 ms (projection p50; JSON.parse apart)", project ? `${ns(project.p50)} (parse ${ns(parse?.p50)})${projectCpu ? `; CPU ${ns(projectCpu.p50)}` : ""}` : "–", le(project?.p50, 150e6)),
    t("observe of one tool result ≤ 20 µs (p50)", ns(observe?.p50), le(observe?.p50, 20_000)),
    t("memory flat after 1M verdicts (no wasm page growth, heap growth < 1 MB)", memory ? `${memory.pagesGrowth} pages, ${Number(memory.heapGrowthMB).toFixed(2)} MB over ${memory.verdicts} verdicts` : "–", memory ? memory.pagesGrowth === 0 && memory.heapGrowthMB < 1 : null),
  ];
  const paths = newPaths(r);
  const pathTarget = (prefix: string, target: string) => {
    const p = paths.find((x) => x.path.startsWith(prefix) && x.target === target);
    return t(`${prefix.replace(/:$/u, "")}: ${target}`, p?.p50 == null ? p?.note ?? "–" : `${ns(p.p50)}${p.tail ? ` (${p.tail.q} ${ns(p.tail.ns)})` : ""}`, p?.met ?? null);
  };
  targets.push(pathTarget("shell: verdict warm", "p50 ≤ 2 ms (issue 23)"));
  for (const c of ["mcp-read", "shell-git-status"]) {
    for (const how of ["command hook", "http hook"]) targets.push(pathTarget(`hook ${c}: ${how}`, "p50 ≤ 10 ms, p95 ≤ 50 ms (issue 24, allow path)"));
  }
  targets.push(pathTarget("SQL:", "p50 ≤ 5 ms (issue 25)"));
  return { single, paths, sequences, targets, ratios };
}
