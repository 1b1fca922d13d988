// `polar eval tau2`: the offline evaluation on real τ²-bench agent runs. Reads a data folder laid out
// like τ²-bench's data/tau2 (domains/, results/), replays every trajectory through the guard under
// every configuration in turn and session scope, labels the writes against the tasks' gold actions,
// and returns one report object (rendered to JSON, Markdown and HTML by ./report-*.ts). Node only.
import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { instantiateCoreSync } from "../core/wasm.js";
import type { AuditSink, BackendFactory } from "../guard/index.js";
import { createReferenceBackend } from "../reference/index.js";
import type { Trajectory } from "../tau2/adapter.js";
import { readTau2Data } from "../tau2/data.js";
import { DomainLoadError, hasDomainOntology, loadCoreBackend, loadDomainOntology, loadDomainRules } from "../tau2/domains.js";
import { projectAll, type ReplayScope } from "../tau2/replay.js";
import { ENGINE_VERSION } from "../version.js";
import {
  errorCounts,
  errorExamples,
  inventory,
  labeledEvaluation,
  labelQuality,
  paperTables,
  type ErrorExample,
  type InventoryRow,
  type LabeledCell,
  type LabelQuality,
  type PaperTables,
  type TrajectoryInfo,
} from "./analyze.js";
import { collectTrajectory, domainFactory, modelLabel, staticTable, type CallRow, type DomainSetup, type StaticEntry } from "./collect.js";
import { matchTasks } from "./task-match.js";
import { EvalError } from "./errors.js";
import { dominance, protection, type DominanceEntry } from "./dominance.js";
import { inferDomain, type DomainEvidence } from "./infer-domain.js";
import type { ExecutionReport } from "./execute.js";
import type { ExecutedUndoCounts } from "./executed-protection.js";
import { allVariants, DEFAULT_TAU, type GuardVariant } from "./variants.js";

export const REPORT_FORMAT = "polar-eval-tau2/1";

export interface Tau2EvalOptions {
  /** A τ²-bench data folder (domains/, optionally results/). */
  data: string;
  /** Results files; default every `.json` in `<data>/results`. A bare name is also looked up there. */
  results?: readonly string[];
  scopes?: readonly ReplayScope[];
  tau?: number;
  resamples?: number;
  seed?: number;
  /** `auto` (wasm core when built), `wasm` or `reference`; default `reference`. */
  backend?: string;
  /** Where `ontologies/<domain>/` are; default the package root. */
  root: string;
  onStart?: (total: number) => void;
  onProgress?: (done: number, label: string) => void;
  /** A decision log for each replayed guard (`--audit-log`): the main configuration's decisions. */
  auditLog?: () => AuditSink;
}

export interface ScopeReport {
  paper: PaperTables;
  labeled: LabeledCell[];
  errors: { kind: string; domain: string; tool: string; reason: string; count: number }[];
  examples: ErrorExample[];
}

export interface Tau2EvalReport {
  format: typeof REPORT_FORMAT;
  meta: {
    engine: string;
    data: string;
    files: {
      file: string;
      domain: string | null;
      /** How the domain is known: stated by the file, or inferred (and from what); null when unknown. */
      domainFrom: string | null;
      model: string | null;
      trajectories: number;
      used: boolean;
      /** Why the file is skipped; null when used. */
      note: string | null;
    }[];
    domains: string[];
    scopes: ReplayScope[];
    tau: number;
    backend: string;
    bootstrap: { resamples: number; seed: number; level: number; unit: string };
    variants: GuardVariant[];
    ontologies: Record<string, { hash: string; source: string }>;
    notes: string[];
  };
  inventory: InventoryRow[];
  staticTable: Record<string, StaticEntry[]>;
  scopes: Partial<Record<ReplayScope, ScopeReport>>;
  /** POLAR against its static baseline per (scope, domain, pair), deduplicated and over every call. */
  dominance: DominanceEntry[];
  /** The same pairs on the guard's own criterion: an unauthorized write counts when it is stopped or let
   * through with an undo (`unauthorized` holds shares protected); the authorized side as in `dominance`. */
  protection: DominanceEntry[];
  labelQuality: LabelQuality;
  /** Every agent write call with its outcome (read-only calls are counted in `inventory` only). */
  writes: CallRow[];
  /** `--execute`: the verdicts checked in τ²-bench's environment (src/eval/execute.ts). */
  execution?: ExecutionReport;
  /** `--execute` (issue 22 §4): `protection` where a write let through "with an undo" counts only when
   * the executed π restored the state exactly or within bookkeeping residue
   * (src/eval/executed-protection.ts). */
  protectionExecuted?: DominanceEntry[];
  /** `--execute`: the unauthorized writes let through with an undo, by what the executed undo left. */
  executedUndos?: ExecutedUndoCounts[];
}

export const DEFAULT_RESAMPLES = 2000;
/** The paper's bootstrap seed (its Appendix D). */
export const DEFAULT_SEED = 6793;

/** A domain's tool names: its manifest (`tools/<domain>.json`) and its ontology; null when neither exists. */
function domainTools(dataRoot: string, root: string, domain: string): Set<string> | null {
  const out = new Set<string>();
  let known = false;
  const manifest = join(dataRoot, "tools", `${domain}.json`);
  if (existsSync(manifest)) {
    try {
      const list: unknown = JSON.parse(readFileSync(manifest, "utf8"));
      if (Array.isArray(list)) {
        known = true;
        for (const t of list) if (t !== null && typeof t === "object" && typeof (t as { name?: unknown }).name === "string") out.add((t as { name: string }).name);
      }
    } catch {
      // An unreadable manifest is no evidence; the ontology may still be.
    }
  }
  if (hasDomainOntology(root, domain)) {
    known = true;
    for (const t of loadDomainOntology(root, domain).ontology.tables.tools) out.add(t.name);
  }
  return known ? out : null;
}

function resolveResults(dataRoot: string, given: readonly string[] | undefined, listed: string[]): string[] {
  if (given === undefined || given.length === 0) {
    if (listed.length === 0) throw new EvalError("no-results", `\`${dataRoot}\` has no results files in \`results/\``, "pass results files with --results");
    return listed;
  }
  return given.map((f) => {
    if (existsSync(f)) return resolve(f);
    const inResults = join(dataRoot, "results", f);
    if (existsSync(inResults)) return inResults;
    throw new EvalError("no-such-file", `results file \`${f}\` not found`, `looked in the current folder and in \`${join(dataRoot, "results")}\``);
  });
}

/** Domain-loading failures surface as the evaluation's own typed errors (same code and help). */
function withEvalErrors<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof DomainLoadError) throw new EvalError(e.code, e.message, e.help);
    throw e;
  }
}

export function runTau2Eval(options: Tau2EvalOptions): Tau2EvalReport {
  const scopes: ReplayScope[] = [...(options.scopes ?? ["turn", "session"])];
  const tau = options.tau ?? DEFAULT_TAU;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_SEED;
  let data;
  try {
    data = readTau2Data(options.data);
  } catch (e) {
    throw new EvalError("bad-data", e instanceof Error ? e.message : String(e), (e as { help?: string }).help);
  }
  const files = resolveResults(data.root, options.results, data.resultsFiles());
  const backend = withEvalErrors(() => loadCoreBackend(options.root, options.backend ?? "reference"));
  const notes: string[] = [];

  // Read every file first so the progress bar knows the total.
  const fileInfo: Tau2EvalReport["meta"]["files"] = [];
  const byDomain = new Map<string, Trajectory[]>();
  let evidence: DomainEvidence[] | null = null;
  const domainEvidence = (): DomainEvidence[] => (evidence ??= data.domainNames.map((d) => ({ name: d, taskIds: new Set(data.domain(d).tasks.keys()), tools: domainTools(data.root, options.root, d) })));
  for (const f of files) {
    let trajs: Trajectory[];
    try {
      trajs = data.readResultsFile(f);
    } catch (e) {
      throw new EvalError("bad-results", `cannot read \`${basename(f)}\`: ${e instanceof Error ? e.message : String(e)}`);
    }
    let domain = trajs[0]?.domain ?? null;
    let domainFrom: string | null = domain === null ? null : "stated (info or file name)";
    let note: string | null = null;
    if (trajs.length === 0) note = "no simulations";
    else if (domain === null) {
      const inferred = inferDomain(trajs, domainEvidence());
      if (inferred.domain === null) note = `domain unknown (not in the file's info nor its name), and ${inferred.reason}`;
      else {
        const d = inferred.domain;
        domain = d;
        domainFrom = inferred.how;
        const tasks = data.domain(d).tasks;
        trajs = trajs.map((t) => ({ ...t, domain: d, task: t.task ?? tasks.get(t.taskId) ?? null }));
        notes.push(`\`${basename(f)}\`: domain ${d} ${inferred.how}`);
      }
    }
    if (note === null && domain !== null) {
      if (!data.domainNames.includes(domain)) note = `domain \`${domain}\` is not in the data folder`;
      else if (!hasDomainOntology(options.root, domain)) note = `no ontology for domain \`${domain}\``;
    }
    fileInfo.push({ file: basename(f), domain, domainFrom, model: trajs[0] ? modelLabel(trajs[0]) : null, trajectories: trajs.length, used: note === null, note });
    if (note !== null) {
      notes.push(`skipped \`${basename(f)}\`: ${note}`);
      continue;
    }
    // A run whose reward_info names another task's actions: labelled against that task, or left out (./task-match.ts).
    const matched = matchTasks(trajs, data.domain(domain!).tasks);
    trajs = matched.kept;
    notes.push(...matched.notes);
    const list = byDomain.get(domain!) ?? [];
    list.push(...trajs);
    byDomain.set(domain!, list);
  }
  const domains = [...byDomain.keys()].sort();
  const total = domains.reduce((n, d) => n + byDomain.get(d)!.length, 0);
  if (total === 0) throw new EvalError("no-trajectories", "no trajectory of a domain with an ontology in the given results", "domains with ontologies: airline, retail, telecom");
  options.onStart?.(total);

  const rows: CallRow[] = [];
  const infos: TrajectoryInfo[] = [];
  const statics: Record<string, StaticEntry[]> = {};
  const ontologies: Record<string, { hash: string; source: string }> = {};
  let done = 0;
  for (const domain of domains) {
    const { ontology: loaded, note } = withEvalErrors(() => loadDomainOntology(options.root, domain));
    const rules = withEvalErrors(() => loadDomainRules(options.root, domain));
    const dom = data.domain(domain);
    const setup: DomainSetup = { name: domain, ontology: loaded, rules, documents: dom.documents, base: projectAll(rules, dom.documents) };
    ontologies[domain] = { hash: loaded.hash, source: note };
    const table = staticTable(loaded.tables);
    statics[domain] = [...table.values()].filter((e) => !e.readOnly).sort((a, b) => (a.tool < b.tool ? -1 : 1));
    const factory = domainFactory(setup, { scopes, tau, backend: backend.factory, auditLog: options.auditLog });
    const unsupported = new Map<string, number>();
    for (const t of byDomain.get(domain)!) {
      const { rows: rs, notes: n } = collectTrajectory(t, setup, table, factory, { scopes, tau, backend: backend.factory });
      rows.push(...rs);
      infos.push({ domain, model: modelLabel(t), cluster: `${domain}:${t.taskId}`, reward: t.reward });
      for (const u of n.unsupported) unsupported.set(u, (unsupported.get(u) ?? 0) + 1);
      if (t.task === null) notes.push(`${domain} task \`${t.taskId}\` has no task definition: its writes are unlabeled`);
      done++;
      options.onProgress?.(done, `${domain} ${modelLabel(t)}`);
    }
    for (const [u, k] of unsupported) notes.push(`${domain}: ${u} (${k} trajectories)`);
  }

  const scopeReports: Partial<Record<ReplayScope, ScopeReport>> = {};
  for (const s of scopes) {
    scopeReports[s] = {
      paper: paperTables(rows, s, tau, domains),
      labeled: labeledEvaluation(rows, s, { resamples, seed }),
      errors: errorCounts(rows, s),
      examples: errorExamples(rows, s),
    };
  }
  return {
    format: REPORT_FORMAT,
    meta: {
      engine: ENGINE_VERSION,
      data: basename(data.root),
      files: fileInfo,
      domains,
      scopes,
      tau,
      backend: backend.name,
      bootstrap: { resamples, seed, level: 0.95, unit: "task (all trials of a task together)" },
      variants: (() => {
        const v = allVariants(tau);
        return [v.main, ...v.others];
      })(),
      ontologies,
      notes: [...new Set(notes)],
    },
    inventory: inventory(rows, infos),
    staticTable: statics,
    scopes: scopeReports,
    dominance: scopes.flatMap((s) => dominance(rows, s, { resamples, seed })),
    protection: scopes.flatMap((s) => protection(rows, s, { resamples, seed })),
    labelQuality: labelQuality(rows),
    writes: rows.filter((r) => r.write),
  };
}
