// `polar demo [--data DIR]`: the guard on real τ²-bench agent runs. With no arguments it replays the
// built-in sample (samples/tau2-airline: two real airline sessions and the part of the airline db they
// touch) through the airline ontology, in advisory mode (the session is what it was), and prints per
// tool call what the guard would have said: route, φ, bottleneck and the inverse sequence π.
// `--data DIR` takes a folder laid out like τ²-bench's data/tau2 (domains/, results/) instead.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { CAC } from "cac";
import { fixedToDecimal } from "../../core/explain.js";
import type { Decision } from "../../guard/index.js";
import { openDomainReplay } from "../../tau2/domains.js";
import { replayAll, type ReplayRecord, type ReplayScope } from "../../tau2/replay.js";
import type { Trajectory } from "../../tau2/adapter.js";
import { action, CliError, usageError } from "../errors.js";
import { auditLogFile } from "./audit-log.js";

interface Flags {
  data?: string;
  domain?: string;
  task?: string;
  limit?: string | number;
  scope?: string;
  backend?: string;
  json?: boolean;
  auditLog?: string;
}

/** A demo failure; `bad-option` is a usage error (exit 2). */
class DemoError extends CliError {
  constructor(code: string, message: string, help?: string) {
    super(code, message, help, code === "bad-option" ? 2 : 1);
  }
}

export const SAMPLE_DIR = "samples/tau2-airline";

/** The package root: the nearest folder above this module with polar-guard's package.json (works from
 * src/cli/commands when run from source and from dist/cli when installed). */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const pj = join(dir, "package.json");
    if (existsSync(pj)) {
      try {
        if ((JSON.parse(readFileSync(pj, "utf8")) as { name?: string }).name === "polar-guard") return dir;
      } catch {
        // Not ours; keep walking up.
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new DemoError("no-package-root", "cannot find the polar-guard package folder above the CLI");
    dir = up;
  }
}

// Domain loading lives in src/tau2/domains.ts (the library); re-exported for existing callers.
export { loadDomainOntology, loadDomainRules } from "../../tau2/domains.js";

function parseScopes(v: string | undefined): ReplayScope[] {
  if (v === undefined || v === "both") return ["turn", "session"];
  if (v === "turn" || v === "session") return [v];
  throw new DemoError("bad-option", `--scope \`${v}\` is not turn, session or both`);
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

function compactArgs(args: Record<string, unknown> | null): string {
  if (args === null) return "";
  return Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
}

/** π as text: `tool(args) ; ⊥T5` (most recent call's inverse first). */
export function inverseText(d: Decision): string {
  const steps = d.verdict?.steps ?? [];
  if (d.reason === "read_only") return "";
  if (steps.length === 0) return d.verdict?.complete ? "(nothing to undo)" : "none";
  return steps.map((s) => (s.tool === null ? `⊥ ${s.tier} ${s.forwardTool}` : `${s.tool}(${clip(compactArgs(s.arguments), 70)})`)).join(" ; ");
}

export function bottleneckText(d: Decision): string {
  const b = d.verdict?.bottleneck;
  if (!b || b.call < 0) return d.verdict === null && d.reason !== "read_only" && d.reason !== "ok" ? d.reason : "";
  return `${b.tool ?? "?"}${b.annotation ? ` [${b.annotation}]` : ""}`;
}

export function phiText(d: Decision): string {
  return d.verdict === null ? "-" : fixedToDecimal(d.verdict.phi);
}

/** The widest line the text output prints (a terminal's width, and a pasteable log). Wider cells are
 * clipped with `…`; `--json` has everything whole. */
export const DEMO_WIDTH = 100;

interface Row {
  n: string;
  call: string;
  scope: string;
  route: string;
  reason: string;
  phi: string;
  /** Lines under the row: bottleneck and inverse sequence π (once when both scopes agree). */
  details: string[];
}

const HEAD = { n: "#", call: "tool call", scope: "scope", route: "route", reason: "reason", phi: "φ" };
const COLUMNS = ["n", "call", "scope", "route", "reason", "phi"] as const;

function rowsFor(rec: ReplayRecord<Decision>, scopes: ReplayScope[]): Row[] {
  const ran = rec.result === null ? " [no result]" : rec.errored ? " [error]" : "";
  const call = `${rec.call.name}(${compactArgs(rec.call.arguments)})${ran}`;
  const n = String(rec.callIndex + 1);
  const decided = scopes.filter((s) => rec.decisions[s] !== undefined);
  if (decided.length === 0) return [{ n, call, scope: "-", route: `(${rec.call.requestor}'s call)`, reason: "", phi: "", details: [] }];
  const first = rec.decisions[decided[0]]!;
  if (first.reason === "read_only") return [{ n, call, scope: "-", route: first.route, reason: "read_only", phi: "", details: [] }];
  const explain = (d: Decision): string[] => {
    const out: string[] = [];
    const b = bottleneckText(d);
    if (b !== "") out.push(`bottleneck  ${b}`);
    const inv = inverseText(d);
    if (inv !== "") out.push(`π           ${inv}`);
    return out;
  };
  const all = decided.map((s) => explain(rec.decisions[s]!));
  const same = all.every((e) => e.join("\n") === all[0].join("\n"));
  const details = same ? all[0] : decided.flatMap((s, i) => all[i].map((l) => `${`${s}:`.padEnd(9)}${l}`));
  return decided.map((s, i) => {
    const d = rec.decisions[s]!;
    return { n: i === 0 ? n : "", call: i === 0 ? call : "", scope: s, route: d.route, reason: d.reason, phi: phiText(d), details: i === decided.length - 1 ? details : [] };
  });
}

function formatTable(rows: Row[]): string {
  const all = [HEAD, ...rows];
  const natural = (k: (typeof COLUMNS)[number]): number => Math.max(...all.map((r) => [...r[k]].length));
  const widths = COLUMNS.map(natural);
  // The call column gets what the others leave of DEMO_WIDTH (at least 24).
  const others = widths.reduce((a, w, i) => (COLUMNS[i] === "call" ? a : a + w), 0) + 2 * (COLUMNS.length - 1);
  widths[1] = Math.max(24, Math.min(widths[1], DEMO_WIDTH - others));
  const cell = (text: string, i: number): string => {
    const t = clip(text, widths[i]);
    return i === COLUMNS.length - 1 ? t : t + " ".repeat(widths[i] - [...t].length);
  };
  const line = (r: typeof HEAD): string => COLUMNS.map((k, i) => cell(r[k], i)).join("  ").trimEnd();
  const indent = " ".repeat(widths[0] + 4);
  const out = [line(HEAD), widths.map((w) => "─".repeat(w)).join("  ")];
  for (const r of rows) {
    out.push(line(r));
    for (const d of r.details) out.push(clip(indent + d, DEMO_WIDTH));
  }
  return out.join("\n");
}

function header(t: Trajectory): string {
  const file = t.source.file ? t.source.file.split(/[\\/]/).pop() : "(results)";
  return [
    `τ²-bench ${t.domain ?? "?"} · task ${t.taskId} · trial ${t.trial} · reward ${t.reward ?? "?"} · ${t.messages.length} messages`,
    `  agent ${t.model ?? "?"}`,
    `  from ${file}`,
  ].map((l) => clip(l, DEMO_WIDTH)).join("\n");
}

export interface DemoOptions {
  data?: string;
  domain?: string;
  task?: string;
  limit?: number;
  scopes?: ReplayScope[];
  backend?: string;
  json?: boolean;
  /** Write the decision log of every replayed guard here (JSONL; `polar audit verify` re-derives it). */
  auditLog?: string;
  out: (text: string) => void;
}

export function runDemo(options: DemoOptions): void {
  const root = packageRoot();
  const usingSample = options.data === undefined;
  const dataDir = options.data ?? join(root, SAMPLE_DIR);
  const domain = options.domain ?? "airline";
  const scopes = options.scopes ?? ["turn", "session"];
  const limit = options.limit ?? (usingSample ? Infinity : 3);
  const log = options.auditLog === undefined ? null : auditLogFile(options.auditLog);
  const { ontologyNote: note, backendName, rules, documents, base, guard, trajectories } = openDomainReplay({
    root,
    dataDir,
    domain,
    task: options.task,
    limit,
    backend: options.backend ?? "auto",
    ...(log === null ? {} : { log: () => log.sink() }),
  });
  if (!options.json) {
    const shown = usingSample ? `built-in sample ${SAMPLE_DIR} (τ²-bench, MIT: see its LICENSE)` : relative(process.cwd(), dataDir) || ".";
    options.out(
      [
        `polar demo: the guard on real τ²-bench agent runs, advisory`,
        `  (every call ran as it did; this is what the guard would have said)`,
        `  data      ${shown}`,
        `  ontology  ${note}`,
        `  state     Layer B from domains/${domain}/ (${base.size()} entities) + every executed call's result`,
        `  backend   ${backendName}; τ = 0.80; now = 2024-05-15T15:00:00`,
        "",
      ].join("\n") + "\n",
    );
  }
  for (const t of trajectories) {
    const { initial, records } = replayAll(t, { rules, documents, base, guard, scopes });
    if (options.json) {
      for (const r of records) {
        options.out(JSON.stringify({
          task: t.taskId, trial: t.trial, model: t.model, call: r.call, errored: r.errored,
          decisions: Object.fromEntries(Object.entries(r.decisions).map(([s, d]) => [s, { route: d.route, reason: d.reason, phi: d.verdict?.phi ?? null, bottleneck: d.verdict?.bottleneck ?? null, steps: d.verdict?.steps ?? [] }])),
        }));
      }
      continue;
    }
    const rows: Row[] = [];
    let lastUser = "";
    const lines: string[] = [header(t)];
    for (const w of initial.unsupported) lines.push(clip(`  note: ${w}`, DEMO_WIDTH));
    for (const r of records) rows.push(...rowsFor(r, scopes));
    lines.push("", formatTable(rows));
    const writes = records.filter((r) => {
      const d = r.decisions[scopes[0]];
      return d !== undefined && d.reason !== "read_only";
    });
    const flagged = writes.filter((r) => scopes.some((s) => r.decisions[s] && !r.decisions[s]!.admissible));
    lines.push("", `  ${records.length} tool calls, ${writes.length} mutating; the guard would have stopped ${flagged.length} of them under veto`, "  (τ = 0.80).");
    for (const r of flagged) {
      const u = r.userMessagesBefore[r.userMessagesBefore.length - 1] ?? "";
      if (u !== lastUser && u !== "") {
        lines.push(clip(`    #${r.callIndex + 1} ${r.call.name}: last user message:`, DEMO_WIDTH), clip(`      "${u.replace(/\s+/g, " ")}`, DEMO_WIDTH - 1) + '"');
      }
      lastUser = u;
    }
    options.out(lines.join("\n") + "\n");
  }
  if (log !== null) {
    const n = log.write();
    if (!options.json) {
      options.out(`audit log: ${n} decisions written to ${options.auditLog}; check them with\n  polar audit verify ${options.auditLog} \\\n    --ontology ontologies/${domain}/${domain}.blob\n`);
    }
  }
}

export function register(cli: CAC): void {
  cli
    .command("demo", "Replay real τ²-bench agent runs through the guard (advisory) and show each verdict")
    .option("--data <dir>", "a τ²-bench data folder (domains/, results/); default: the built-in airline sample")
    .option("--domain <name>", "domain to replay (default airline)")
    .option("--task <id>", "only this task id")
    .option("--limit <n>", "at most n trajectories (default: all of the sample, 3 with --data)")
    .option("--scope <scope>", "turn, session or both (default both)")
    .option("--backend <name>", "wasm, reference or auto (default auto: wasm when built)")
    .option("--json", "one JSON line per tool call")
    .option("--audit-log <file>", "write every decision of the replay to FILE (JSONL), for `polar audit verify`")
    .example("polar demo")
    .example("polar demo --audit-log decisions.jsonl")
    .example("polar demo --data ../tau2-bench/data/tau2 --task 35")
    .action(action((flags: Flags) => {
      // `polar demo | head`: a closed pipe ends the output quietly.
      process.stdout.on("error", (err: NodeJS.ErrnoException) => {
        if (err.code === "EPIPE") process.exit(0);
        throw err;
      });
      {
        const limit = flags.limit === undefined ? undefined : /^\d+$/u.test(String(flags.limit)) ? Number(flags.limit) : Number.NaN;
        if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) throw usageError("bad-option", `--limit \`${String(flags.limit)}\` is not a positive integer`);
        runDemo({
          data: flags.data,
          domain: flags.domain,
          task: flags.task === undefined ? undefined : String(flags.task),
          limit,
          scopes: parseScopes(flags.scope),
          backend: flags.backend,
          json: flags.json === true,
          auditLog: flags.auditLog,
          out: (s) => process.stdout.write(s.endsWith("\n") ? s : `${s}\n`),
        });
      }
    }));
}
