// Replays τ²-bench trajectories through the guard under every evaluated configuration at once and
// turns each agent tool call into one flat row: what the call was, whether it ran or errored, its
// gold label, and per scope what each configuration and policy would have decided.
//
// One replay per trajectory and scope drives several guards over one Layer B: the main guard applies
// each result to Layer B (projection rules); the others only judge and keep their own session
// sequence. Every guard is advisory (the trajectory is what it was); Veto and Escalate are then
// asked, with the exact PolicyInput the guard built, what they would have routed.
import { FIXED_ONE, Tier, Lifecycle } from "../abi.js";
import type { ToolCall } from "../core/types.js";
import { createGuard, type AuditSink, type BackendFactory, type Decision, type Guard } from "../guard/index.js";
import type { OntologyTables } from "../ontology/tables.js";
import { escalatePolicy, type GuardReason, type Route } from "../policies/index.js";
import type { ConsentContext } from "../policies/consent.js";
import type { LayerB } from "../projection/layer-b.js";
import type { ProjectionRules } from "../projection/rules.js";
import { guessFromFileName, type Tau2Task, type Trajectory } from "../tau2/adapter.js";
import { replayTrajectory, type ReplayGuard, type ReplayGuardFactory, type ReplayScope } from "../tau2/replay.js";
import { labelCall, type Label } from "./label.js";
import { allVariants, type GuardVariant } from "./variants.js";
import { scopedConsentDetector } from "../policies/consent-scoped.js";

/** τ²-bench's fixed clocks (airline and retail policy.md; telecom main_policy.md). */
export const DOMAIN_NOW: Readonly<Record<string, string>> = {
  airline: "2024-05-15T15:00:00",
  retail: "2024-05-15T15:00:00",
  telecom: "2025-02-25T12:08:00",
};

export interface DomainSetup {
  name: string;
  ontology: { tables: OntologyTables; hash: string; blob?: Uint8Array };
  rules: ProjectionRules;
  documents: Readonly<Record<string, unknown>>;
  /** The documents projected once; every trajectory starts from a clone. */
  base: LayerB;
}

/** The static baseline: a tool's worst annotated tier, read from the ontology alone. */
export interface StaticEntry {
  tool: string;
  known: boolean;
  readOnly: boolean;
  /** Live tiers of the tool's annotations, sorted. */
  tiers: string[];
  blocked: boolean;
  why: string;
}

export function staticTable(tables: OntologyTables): Map<string, StaticEntry> {
  const out = new Map<string, StaticEntry>();
  tables.tools.forEach((t, i) => {
    const edges = tables.edges.slice(tables.edgeOffsets[i], tables.edgeOffsets[i + 1]).filter((e) => e.lifecycle === Lifecycle.Live);
    const tiers = [...new Set(edges.map((e) => e.tier))].sort((a, b) => a - b);
    const worst = tiers.length > 0 ? tiers[tiers.length - 1] : 0;
    const positive = tiers.some((x) => x <= Tier.T3);
    let blocked = false;
    let why = "read-only";
    if (!t.readOnly) {
      if (worst >= Tier.T4) {
        blocked = true;
        why = `worst tier T${worst}`;
      } else if (!positive) {
        blocked = true;
        why = "no positive annotation";
      } else why = `worst tier T${worst}`;
    }
    out.set(t.name, { tool: t.name, known: true, readOnly: t.readOnly, tiers: tiers.map((x) => `T${x}`), blocked, why });
  });
  return out;
}

export function staticEntry(table: Map<string, StaticEntry>, tool: string): StaticEntry {
  return table.get(tool) ?? { tool, known: false, readOnly: false, tiers: [], blocked: true, why: "unknown tool (fail-closed)" };
}

/** The guard reason a static block stands for, so the Escalate policy words and routes it as it would
 * POLAR's: an unknown tool is a hard failure (refused, never put to the user), a T4/T5 tool consumes or
 * emits, a tool without a positive annotation has no candidate inverse. */
export function staticReason(entry: StaticEntry): GuardReason {
  if (!entry.known) return "unknown_tool";
  if (entry.tiers.includes("T5")) return "external_side_effect";
  if (entry.tiers.includes("T4")) return "irreversibly_consumes";
  return "no_candidate";
}

/** static-escalate: the static table decides whether to ask, and a blocked call asks exactly as
 * POLAR-escalate does (the same policy, consent detector and user messages). */
export function staticEscalateRoute(
  entry: StaticEntry, call: ToolCall, userMessages: readonly string[], tau: number, tables: OntologyTables, consentContext: ConsentContext | null = null,
): Route {
  if (entry.readOnly || !entry.blocked) return "Approved";
  return escalatePolicy.decide({ call, admissible: false, reason: staticReason(entry), verdict: null, tau, userMessages, consent: scopedConsentDetector, consentContext: consentContext ?? null, tables }).route;
}

/** A configuration's answer for one call. */
export interface VariantOutcome {
  admissible: boolean;
  reason: GuardReason;
  /** φ of the reported π (fixed point), null when no verdict (read-only, unknown tool, …). */
  phi: number | null;
  complete: boolean;
}

/** The main configuration's answer with what the report shows about it. */
export interface ScopeOutcome extends VariantOutcome {
  loss: number | null;
  bottleneckTool: string | null;
  bottleneckAnnotation: string | null;
  /** π as short text, most recent call's inverse first. */
  inverse: string;
  /** Calls in the forward sequence before the candidate. */
  forward: number;
  /** The bottleneck is one of those earlier calls, not the candidate itself. */
  bottleneckEarlier: boolean;
  veto: Route;
  escalate: Route;
  consentEvidence: string | null;
  /** The route static-escalate takes: the static table's block, then the same consent question. */
  staticEscalate: Route;
  variants: Record<string, VariantOutcome>;
}

export interface CallRow {
  file: string;
  /** Display name of the agent (from the results file name when it follows τ²-bench's naming). */
  model: string;
  domain: string;
  taskId: string;
  /** Bootstrap cluster: the task within its domain. */
  cluster: string;
  trial: number;
  simulation: number;
  reward: number | null;
  callIndex: number;
  tool: string;
  arguments: Record<string, unknown>;
  /** The ontology does not mark the tool read-only (unknown tools count: they fail closed). */
  write: boolean;
  /** The call got a result (the run did not end before it). */
  ran: boolean;
  errored: boolean;
  /** Gold label for writes of a task with gold actions; null otherwise. */
  label: Label | null;
  matched: string | null;
  /** The label under the stricter reading of absent `compare_args` (the action's keys too). */
  strictLabel: Label | null;
  staticBlocked: boolean;
  lastUserMessage: string | null;
  scopes: Partial<Record<ReplayScope, ScopeOutcome>>;
}

interface CallDecisions {
  main: Decision;
  guard: Guard;
  variants: Record<string, VariantOutcome>;
}

function outcome(d: Decision): VariantOutcome {
  return { admissible: d.admissible, reason: d.reason, phi: d.verdict?.phi ?? null, complete: d.verdict?.complete ?? false };
}

function shortArgs(args: Record<string, unknown> | null): string {
  if (args === null) return "";
  const text = Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
  return text.length <= 80 ? text : `${text.slice(0, 79)}…`;
}

export function inverseText(d: Decision): string {
  if (d.reason === "read_only") return "";
  const steps = d.verdict?.steps ?? [];
  if (steps.length === 0) return d.verdict?.complete ? "(nothing to undo)" : "none";
  return steps.map((s) => (s.tool === null ? `⊥${s.tier} ${s.forwardTool}` : `${s.tool}(${shortArgs(s.arguments)})`)).join(" ; ");
}

/** A replay guard that judges every call under the main configuration and every other variant. */
export function multiGuardFactory(
  setup: DomainSetup,
  variants: { main: GuardVariant; others: GuardVariant[] },
  backend: BackendFactory | undefined,
  /** A decision log for each replayed guard of the main configuration (`--audit-log`). */
  auditLog?: () => AuditSink,
): ReplayGuardFactory<CallDecisions> {
  const now = DOMAIN_NOW[setup.name];
  const make = (v: GuardVariant, state: LayerB, scope: ReplayScope, project: boolean): Guard =>
    createGuard({
      ontology: setup.ontology,
      backend,
      state,
      policy: "advisory",
      scope,
      // recent-messages: the replay cannot put the guard's question to the user (docs/guard.md, "Consent").
      config: {
        tau: v.tau, tiers: v.tiers, failClosed: v.failClosed, now, consent: "recent-messages", consentDetector: scopedConsentDetector,
        ...(project ? { projection: setup.rules } : {}),
        ...(project && auditLog !== undefined ? { log: auditLog() } : {}),
      },
    });
  return (state, scope): ReplayGuard<CallDecisions> => {
    const main = make(variants.main, state, scope, true);
    const others = variants.others.map((v) => ({ id: v.id, guard: make(v, state, scope, false) }));
    return {
      updatesState: true,
      check(call, context) {
        const ctx = { userMessages: context.userMessages, turnCalls: context.turnCalls, messages: context.messages };
        const out: Record<string, VariantOutcome> = {};
        for (const o of others) out[o.id] = outcome(o.guard.check(call, ctx));
        const d = main.check(call, ctx);
        out[variants.main.id] = outcome(d);
        return { main: d, guard: main, variants: out };
      },
      observe(call, content, info) {
        // The judging guards first: they read Layer B as it was before this result (their `before`
        // snapshot was taken at check time anyway); the main guard then applies the result.
        for (const o of others) o.guard.observe(call, content, { failed: info.error });
        return main.observe(call, content, { failed: info.error }).applied;
      },
    };
  };
}

function escalateRoute(d: Decision, guard: Guard, call: ToolCall): { route: Route; evidence: string | null } {
  if (d.reason === "read_only") return { route: "Approved", evidence: null };
  const out = escalatePolicy.decide({
    call,
    admissible: d.admissible,
    reason: d.reason,
    verdict: d.verdict,
    tau: d.tau,
    userMessages: d.userMessages,
    consent: scopedConsentDetector,
    consentContext: d.consentContext ?? null,
    tables: guard.tables,
  });
  return { route: out.route, evidence: out.consent?.evidence ?? null };
}

/** The agent's name for reports: τ²-bench's file naming (`<model>_<domain>_…`) when it applies, else
 * the run's `info.agent_info.llm`; solo runs (no user simulator) are marked. */
export function modelLabel(t: Trajectory): string {
  const fromFile = t.source.file ? guessFromFileName(t.source.file).model : null;
  const base = fromFile ?? t.model ?? "unknown";
  return t.agentImplementation !== null && /solo/i.test(t.agentImplementation) ? `${base} (solo)` : base;
}

export interface CollectOptions {
  scopes: readonly ReplayScope[];
  tau: number;
  backend?: BackendFactory;
  /** A decision log per replayed guard (the main configuration's decisions). */
  auditLog?: () => AuditSink;
}

export interface TrajectoryNotes {
  /** Initial-state parts the replay could not apply. */
  unsupported: string[];
}

/** The task states its reference plan: `evaluation_criteria.actions` is a list. An empty list is a plan
 * too (the refusal tasks: the right outcome changes nothing, so every write is unauthorized); only an
 * absent or null list leaves the task's writes unlabeled. */
export function hasGoldList(task: Tau2Task | null): boolean {
  if (task === null) return false;
  if (task.goldActions.length > 0) return true;
  const raw = task.raw as { evaluation_criteria?: { actions?: unknown } } | null;
  return Array.isArray(raw?.evaluation_criteria?.actions);
}

/** Replays one trajectory and returns a row per agent tool call. */
export function collectTrajectory(
  traj: Trajectory,
  setup: DomainSetup,
  statics: Map<string, StaticEntry>,
  factory: ReplayGuardFactory<CallDecisions>,
  options: CollectOptions,
): { rows: CallRow[]; notes: TrajectoryNotes } {
  const run = replayTrajectory(traj, { rules: setup.rules, documents: setup.documents, base: setup.base, guard: factory, scopes: options.scopes });
  const rows: CallRow[] = [];
  const model = modelLabel(traj);
  const file = traj.source.file ? traj.source.file.split(/[\\/]/).pop()! : "(results)";
  for (const rec of run.records) {
    const first = options.scopes.map((s) => rec.decisions[s]).find((d) => d !== undefined);
    if (first === undefined) continue; // another requestor's call (telecom's user): not guarded
    const call: ToolCall = { name: rec.call.name, arguments: rec.call.arguments };
    const write = first.main.reason !== "read_only";
    const st = staticEntry(statics, call.name);
    const labelled = write && hasGoldList(traj.task);
    const label = labelled ? labelCall(traj.task!, call) : null;
    const strict = labelled ? labelCall(traj.task!, call, "strict") : null;
    const scopes: Partial<Record<ReplayScope, ScopeOutcome>> = {};
    for (const s of options.scopes) {
      const cd = rec.decisions[s];
      if (cd === undefined) continue;
      const d = cd.main;
      const esc = escalateRoute(d, cd.guard, call);
      const b = d.verdict?.bottleneck ?? null;
      scopes[s] = {
        ...outcome(d),
        loss: d.verdict?.loss ?? null,
        bottleneckTool: b && b.call >= 0 ? b.tool : null,
        bottleneckAnnotation: b && b.call >= 0 ? b.annotation : null,
        inverse: inverseText(d),
        forward: d.forward.length,
        bottleneckEarlier: b !== null && b.call >= 0 && b.call < d.forward.length,
        veto: d.reason === "read_only" || d.admissible ? "Approved" : "Vetoed",
        escalate: esc.route,
        consentEvidence: esc.evidence,
        staticEscalate: write ? staticEscalateRoute(st, call, d.userMessages, d.tau, cd.guard.tables, d.consentContext ?? null) : "Approved",
        variants: cd.variants,
      };
    }
    rows.push({
      file,
      model,
      domain: traj.domain ?? setup.name,
      taskId: traj.taskId,
      cluster: `${traj.domain ?? setup.name}:${traj.taskId}`,
      trial: traj.trial,
      simulation: traj.source.index,
      reward: traj.reward,
      callIndex: rec.callIndex,
      tool: call.name,
      arguments: call.arguments,
      write,
      ran: rec.result !== null,
      errored: rec.errored,
      label: label?.label ?? null,
      matched: label?.matched ?? null,
      strictLabel: strict?.label ?? null,
      staticBlocked: write && st.blocked,
      lastUserMessage: rec.userMessagesBefore.length > 0 ? rec.userMessagesBefore[rec.userMessagesBefore.length - 1] : null,
      scopes,
    });
  }
  return { rows, notes: { unsupported: run.initial.unsupported } };
}

/** Builds the multi-configuration guard factory for a domain at the main τ. */
export function domainFactory(setup: DomainSetup, options: CollectOptions): ReplayGuardFactory<CallDecisions> {
  return multiGuardFactory(setup, allVariants(options.tau), options.backend, options.auditLog);
}

export const PHI_ONE = FIXED_ONE;
