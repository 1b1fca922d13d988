// `polar eval tau2 --execute`: every verdict checked against τ²-bench's own environment. Each run is
// replayed in the environment (python/polar_tau2_bridge.py: initial db, the task's initialization,
// then every executed call, each output compared with the recorded one). At every agent write call:
// the Layer B values the verdict read are compared with the environment's state (projected by the
// same rules), the call runs, and for an admitted verdict π runs on a snapshot and is compared with
// the state before the earliest call it undoes; for a refusal (bound_violated, no_candidate, or a
// conditional irreversibly_consumes beside positive edges) each positive edge of the call runs with its
// bound ignored. Node only (the bridge is a child process).
import { FIXED_ONE, Lifecycle, Tier } from "../abi.js";
import type { ToolCall, VerdictStep } from "../core/types.js";
import { createGuard, type BackendFactory, type Decision, type Guard } from "../guard/index.js";
import type { OntologyTables } from "../ontology/tables.js";
import { fieldAt } from "../core/values.js";
import { canonicalJson } from "../projection/canonical.js";
import { LayerB } from "../projection/layer-b.js";
import { parseToolResult, projectDocument } from "../projection/project.js";
import type { ProjectionRules } from "../projection/rules.js";
import type { Trajectory } from "../tau2/adapter.js";
import { Tau2Bridge, type StateChanges, type StateDiff, type ToolSignature } from "../tau2/bridge.js";
import { replayTrajectory, type ReplayGuard, type ReplayScope } from "../tau2/replay.js";
import { DOMAIN_NOW, type DomainSetup } from "./collect.js";

export type ExecClass = "restored" | "withinResidue" | "wrong" | "missingArguments";

export interface ExecFigures {
  /** Verdicts (call × scope) that admitted an agent write whose call ran without error. */
  admitted: number;
  restored: number;
  withinResidue: number;
  wrong: number;
  missingArguments: number;
  refusals: { confirmed: number; conservative: number };
  fidelity: { reads: number; mismatches: number };
  replay: { calls: number; outputMismatches: number };
  /** Within residue, split: only bookkeeping differs (new ids, timestamps, statuses, records), or money
   * or inventory (balances, payments, seats) differs too. */
  residue: { bookkeeping: number; moneyOrInventory: number };
  /** Money: verdicts whose executed π left money different (`moved`), and how the verdict's stated
   * amount compares with it: `matched` (equal to the cent, zero included), `mismatched`, or `undeclared`
   * (money moved and no step states an amount: counted wrong, never within residue). */
  amounts: { moved: number; matched: number; mismatched: number; undeclared: number };
}

export interface ExecExample {
  class: string;
  domain: string;
  file: string;
  task: string;
  trial: number;
  call: number;
  scope: ReplayScope | null;
  tool: string;
  arguments: Record<string, unknown>;
  pi: string;
  edge: string | null;
  detail: string;
  /** The state difference (leaf paths, before → after), at most 12. */
  diff: { path: string; before: unknown; after: unknown }[];
  policyForbids?: string | null;
}

export interface ExecGroup {
  key: string;
  admitted: number;
  restored: number;
  withinResidue: number;
  wrong: number;
  missingArguments: number;
  confirmed: number;
  conservative: number;
}

export interface ExecutionReport extends ExecFigures {
  format: "polar-execution/1";
  tau2: string;
  scopes: ReplayScope[];
  seconds: number;
  byDomain: Record<string, ExecFigures>;
  byScope: Partial<Record<ReplayScope, ExecFigures>>;
  byTool: ExecGroup[];
  byEdge: ExecGroup[];
  examples: Record<string, ExecExample[]>;
  /** With `keepVerdicts`: every admitted verdict and its class (tests). */
  verdicts?: ExecVerdict[];
  /** Every admitted verdict's outcome by `verdictKey` (read by the executed protection, then dropped
   * from the written report). */
  outcomes?: Record<string, ExecOutcome>;
}

export interface ExecVerdict {
  domain: string;
  file: string;
  task: string;
  call: number;
  scope: ReplayScope;
  tiers: string[];
  lossClasses: (string | null)[];
  class: ExecClass;
  /** The verdict's stated amount (currency units; null unknown; absent when no step states one). */
  amount?: number | null;
  /** The money π's execution left different (currency units), null when it could not be told. */
  moved?: number | null;
  /** Within residue: bookkeeping only, or money or inventory too. */
  residue?: "bookkeeping" | "moneyOrInventory";
}

export interface ExecuteOptions {
  /** The eval's `--data` folder: the environment reads its db from it. */
  data: string;
  tau2Src?: string;
  python?: string;
  scopes: readonly ReplayScope[];
  tau: number;
  backend?: BackendFactory;
  onProgress?: (done: number, label: string) => void;
  keepVerdicts?: boolean;
}

const MAX_EXAMPLES = 20;

function emptyFigures(): ExecFigures {
  return {
    admitted: 0, restored: 0, withinResidue: 0, wrong: 0, missingArguments: 0, refusals: { confirmed: 0, conservative: 0 }, fidelity: { reads: 0, mismatches: 0 }, replay: { calls: 0, outputMismatches: 0 },
    residue: { bookkeeping: 0, moneyOrInventory: 0 }, amounts: { moved: 0, matched: 0, mismatched: 0, undeclared: 0 },
  };
}

/** What an admitted verdict's executed π left behind, by verdict key (`verdictKey`): what §4's
 * executed protection reads. `bookkeeping`: restored within a residue of bookkeeping only. */
export type ExecOutcome = "restored" | "bookkeeping" | "moneyOrInventory" | "wrong" | "missingArguments";

/** The key of one verdict: results file (base name), task, trial, call index, scope. */
export function verdictKey(file: string, task: string, trial: number, call: number, scope: string): string {
  return `${file}\u0000${task}\u0000${trial}\u0000${call}\u0000${scope}`;
}

/** What the domain policy says about running a refused call's inverse, by edge id (policy.md text). */
const POLICY_ON_INVERSE: Readonly<Record<string, string>> = {
  "airline.flights.self": "airline policy.md: \"Basic economy flights cannot be modified\" and a flown segment or a cancelled reservation cannot be changed",
  "airline.baggages.self": "airline policy.md: \"The user can add but not remove checked bags\"",
  "airline.passengers.self": "airline policy.md: passengers can be modified but not their number",
};

// ---------------------------------------------------------------------------------------------------

interface Executed {
  name: string;
  key: string;
  pre: number | null;
}

interface CheckPayload {
  decision: Decision;
  /** Refusals: the call judged again with one positive edge and no bound, per edge. */
  unbounded: { edge: string; decision: Decision }[] | null;
}

class Tally {
  readonly overall = emptyFigures();
  readonly byDomain: Record<string, ExecFigures> = {};
  readonly byScope: Partial<Record<ReplayScope, ExecFigures>> = {};
  readonly tools = new Map<string, ExecGroup>();
  readonly edges = new Map<string, ExecGroup>();
  readonly examples: Record<string, ExecExample[]> = {};
  readonly verdicts: ExecVerdict[] = [];
  readonly outcomes: Record<string, ExecOutcome> = {};
  private readonly counts = new Map<string, number>();

  figures(domain: string, scope: ReplayScope | null): ExecFigures[] {
    const out = [this.overall, (this.byDomain[domain] ??= emptyFigures())];
    if (scope !== null) out.push((this.byScope[scope] ??= emptyFigures()));
    return out;
  }
  group(map: Map<string, ExecGroup>, key: string): ExecGroup {
    let g = map.get(key);
    if (!g) map.set(key, (g = { key, admitted: 0, restored: 0, withinResidue: 0, wrong: 0, missingArguments: 0, confirmed: 0, conservative: 0 }));
    return g;
  }
  /** Up to MAX_EXAMPLES per class and domain. */
  example(e: ExecExample): void {
    const k = `${e.class}\u0000${e.domain}`;
    const n = this.counts.get(k) ?? 0;
    if (n >= MAX_EXAMPLES) return;
    this.counts.set(k, n + 1);
    (this.examples[e.class] ??= []).push(e);
  }
}

/** The value a Layer B read saw, in canonical text (absent → `undefined`). */
function readText(v: unknown): string {
  return v === undefined ? "undefined" : canonicalJson(v);
}

/** τ²-bench's own comparison of a replayed output with the recorded one (Environment.set_state):
 * JSON-parsed when both parse, else as text. */
export function sameOutput(a: string, b: string): boolean {
  if (a === b) return true;
  const pa = tryJson(a);
  const pb = tryJson(b);
  if (pa.ok && pb.ok) return canonicalJson(pa.value) === canonicalJson(pb.value);
  return false;
}

function tryJson(s: string): { ok: boolean; value?: unknown } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

function callKey(name: string, args: unknown): string {
  try {
    return `${name}\u0000${canonicalJson(args ?? {})}`;
  } catch {
    return `${name}\u0000?`;
  }
}

// --- Layer B of the environment ------------------------------------------------------------------

/** Updates the environment's Layer B mirror with what a call changed: the changed records (and a
 * small db's whole fields) are projected as a document of their own into the mirror, after removing
 * the entities their old versions had produced. */
export function applyChanges(rules: ProjectionRules, mirror: LayerB, changes: StateChanges, documents: Set<string>): void {
  const byDoc = new Map<string, { before: Record<string, Record<string, unknown>>; after: Record<string, Record<string, unknown>> }>();
  const docOf = (name: string) => {
    let d = byDoc.get(name);
    if (!d) byDoc.set(name, (d = { before: {}, after: {} }));
    return d;
  };
  for (const r of changes.records) {
    const [doc, field, key] = r.path;
    const d = docOf(doc);
    if (r.before !== null) ((d.before[field] ??= {})[key] = r.before);
    if (r.after !== null) ((d.after[field] ??= {})[key] = r.after);
  }
  for (const [doc, fields] of Object.entries(changes.whole)) {
    const d = docOf(doc);
    Object.assign(d.after, fields);
    Object.assign(d.before, fields);
  }
  for (const [doc, { before, after }] of byDoc) {
    if (!documents.has(doc)) continue;
    // What the old records produced goes first (a deleted record's entities must not linger).
    const old = new LayerB();
    try {
      projectDocument(rules, before, old, { document: doc });
    } catch {
      // A partial document may not project (a rule needs a record that did not change): the after
      // projection below replaces what it can.
    }
    for (const type of old.entityTypes()) for (const id of old.ids(type)) mirror.deleteEntity(type, id);
    projectDocument(rules, after, mirror, { document: doc });
  }
}

// --- state differences and residue -----------------------------------------------------------------

export interface Residue {
  entity: string;
  slot: string | null;
  created: boolean;
}

interface DiffSite {
  entity: string | null;
  slot: string | null;
  recordLevel: boolean;
  kind: string;
}

/** Where a leaf difference is in Layer B terms: the projection source whose collection path is the
 * longest prefix of the difference's path gives the entity; the next field is the slot. */
export function locateDiff(rules: ProjectionRules, path: readonly (string | number)[], kind: string): DiffSite {
  const [doc, ...rest] = path.map(String);
  const sources = rules.documents.get(doc) ?? [];
  let best: { entity: string; n: number; single: boolean } | null = null;
  for (const s of sources) {
    const segs = s.from;
    if (segs.length > rest.length) continue;
    if (!segs.every((g, i) => g === "*" || g === rest[i])) continue;
    if (best === null || segs.length > best.n) best = { entity: s.entity, n: segs.length, single: s.single === true };
  }
  if (best === null) return { entity: null, slot: null, recordLevel: false, kind };
  const slotAt = best.single ? best.n : best.n + 1;
  const recordLevel = rest.length <= slotAt;
  return { entity: best.entity, slot: recordLevel ? null : rest[slotAt], recordLevel, kind };
}

export function covered(site: DiffSite, residue: readonly Residue[]): boolean {
  if (site.entity === null) return false;
  return residue.some((r) => {
    if (r.entity !== site.entity) return false;
    if (r.created) return site.recordLevel && site.kind === "created";
    if (r.slot === null) return true; // entity.*
    return !site.recordLevel && r.slot === site.slot;
  });
}

function residueOf(residues: ReadonlyMap<string, readonly Residue[]>, lossClass: string | null): readonly Residue[] {
  if (lossClass === null) return [];
  return residues.get(lossClass) ?? [];
}

// --- the bound-ignored variants of a tool's positive edges ----------------------------------------

function unboundedTables(tables: OntologyTables, tool: number, keep: number): OntologyTables {
  const edges = tables.edges.map((e, i) => {
    if (e.forward !== tool) return e;
    if (i !== keep) return { ...e, lifecycle: Lifecycle.Revoked };
    return { ...e, program: -1, lifecycle: Lifecycle.Live };
  });
  return { ...tables, edges };
}

/** Refusals whose claim the environment can test: no positive edge held (bound_violated, no_candidate),
 * or a conditional T4 edge applied where the tool also has positive edges (irreversibly_consumes). Each
 * positive edge of the call then runs with its condition dropped; a refusal is `confirmed` when none
 * restores the state. (A T5 refusal is not tried: its effect is outside the environment's db.) */
const REFUSALS_TO_CONFIRM: ReadonlySet<string> = new Set(["bound_violated", "no_candidate", "irreversibly_consumes"]);

// ---------------------------------------------------------------------------------------------------

/** A domain to execute: its setup, the runs, and each loss class's declared residue (by name, from the
 * compiled model: `compile(source).model.lossClasses[i].residue`). */
export interface ExecDomainInput {
  setup: DomainSetup;
  trajectories: readonly Trajectory[];
  residues: ReadonlyMap<string, readonly Residue[]>;
}

interface DomainExec {
  setup: DomainSetup;
  residues: ReadonlyMap<string, readonly Residue[]>;
  bridge: Tau2Bridge;
  signatures: Record<string, ToolSignature>;
  mirrorBase: LayerB;
  /** Per tool: its positive edges as bound-free single-edge ontologies. */
  unbounded: Map<string, { edge: string; ontology: { tables: OntologyTables; hash: string } }[]>;
  /** Results files the bridge has read. */
  loaded: Set<string>;
  /** The current run is in τ²-bench's solo mode (the agent calls the user's device tools). */
  solo: boolean;
}

async function openDomain(setup: DomainSetup, residues: ReadonlyMap<string, readonly Residue[]>, options: ExecuteOptions): Promise<DomainExec> {
  const bridge = await Tau2Bridge.start({ domain: setup.name, data: options.data, tau2Src: options.tau2Src, python: options.python, timeoutMs: 120_000 });
  const signatures = await bridge.tools();
  const state = await bridge.state();
  const mirrorBase = new LayerB();
  for (const name of setup.rules.documents.keys()) if (state[name] !== undefined) projectDocument(setup.rules, state[name], mirrorBase, { document: name });
  const tables = setup.ontology.tables;
  const unbounded = new Map<string, { edge: string; ontology: { tables: OntologyTables; hash: string } }[]>();
  tables.tools.forEach((t, ti) => {
    const list: { edge: string; ontology: { tables: OntologyTables; hash: string } }[] = [];
    for (let i = tables.edgeOffsets[ti]; i < tables.edgeOffsets[ti + 1]; i++) {
      const e = tables.edges[i];
      if (e.lifecycle !== Lifecycle.Live || e.tier > Tier.T3) continue;
      list.push({ edge: e.id, ontology: { tables: unboundedTables(tables, ti, i), hash: `${setup.ontology.hash}:unbounded:${e.id}` } });
    }
    if (list.length > 0) unbounded.set(t.name, list);
  });
  return { setup, residues, bridge, signatures, mirrorBase, unbounded, loaded: new Set(), solo: false };
}

function isSolo(t: Trajectory): boolean {
  return t.agentImplementation !== null && /solo/i.test(t.agentImplementation);
}

function piText(steps: readonly VerdictStep[]): string {
  if (steps.length === 0) return "(nothing to undo)";
  return steps.map((s) => (s.tool === null ? `⊥${s.tier} ${s.forwardTool}` : `${s.tool}(${canonicalJson(s.arguments ?? {})})`)).join(" ; ");
}

/** π's steps with concrete arguments: a value pending on the call's result (`new.id`) is read from
 * it (the tool's `new_key` field). Returns the steps or the first missing required parameter. */
function concreteSteps(
  steps: readonly VerdictStep[],
  signatures: Record<string, ToolSignature>,
  tables: OntologyTables,
  results: (call: number) => unknown,
): { ok: true; steps: { tool: string; args: Record<string, unknown>; step: VerdictStep }[] } | { ok: false; detail: string } {
  const out: { tool: string; args: Record<string, unknown>; step: VerdictStep }[] = [];
  for (const s of steps) {
    if (s.tool === null) return { ok: false, detail: `step for \`${s.forwardTool}\` is fail-closed` };
    const args: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.arguments ?? {})) {
      if (v !== null && typeof v === "object" && !Array.isArray(v) && "$pending" in (v as object)) {
        const fwd = tables.tools.find((t) => t.name === s.forwardTool);
        const field = fwd?.newKey ?? "id";
        const r = results(s.call) as Record<string, unknown> | null;
        const got = fieldAt(r, field);
        if (got !== undefined) args[k] = got;
      } else if (v !== undefined) args[k] = v;
    }
    const sig = signatures[s.tool];
    if (sig === undefined) return { ok: false, detail: `inverse tool \`${s.tool}\` is not a tool of the environment` };
    const missing = sig.params.filter((p) => p.required && !(p.name in args)).map((p) => p.name);
    if (missing.length > 0) return { ok: false, detail: `\`${s.tool}\` lacks required ${missing.map((m) => `\`${m}\``).join(", ")}` };
    out.push({ tool: s.tool, args, step: s });
  }
  return { ok: true, steps: out };
}

/** Runs every run of every domain in the environment and returns the figures. */
export async function executeVerdicts(
  domains: readonly ExecDomainInput[],
  options: ExecuteOptions,
): Promise<ExecutionReport> {
  const started = Date.now();
  const tally = new Tally();
  let done = 0;
  let tau2 = "";
  for (const { setup, trajectories, residues } of domains) {
    const dom = await openDomain(setup, residues, options);
    tau2 = dom.bridge.info.tau2;
    try {
      for (const t of trajectories) {
        await executeRun(dom, t, options, tally);
        done++;
        options.onProgress?.(done, `${setup.name} ${t.taskId}`);
      }
    } finally {
      await dom.bridge.close();
    }
  }
  const sortGroups = (m: Map<string, ExecGroup>) => [...m.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    format: "polar-execution/1",
    tau2,
    scopes: [...options.scopes],
    seconds: Math.round((Date.now() - started) / 100) / 10,
    ...tally.overall,
    byDomain: tally.byDomain,
    byScope: tally.byScope,
    byTool: sortGroups(tally.tools),
    byEdge: sortGroups(tally.edges),
    examples: tally.examples,
    ...(options.keepVerdicts ? { verdicts: tally.verdicts } : {}),
    outcomes: tally.outcomes,
  };
}

async function executeRun(dom: DomainExec, traj: Trajectory, options: ExecuteOptions, tally: Tally): Promise<void> {
  const { setup, bridge } = dom;
  const tables = setup.ontology.tables;
  const file = traj.source.file ? traj.source.file.split(/[\\/]/).pop()! : "(results)";
  const domain = setup.name;
  await bridge.reset();
  const solo = isSolo(traj);
  await bridge.setSolo(solo);
  dom.solo = solo;
  if (traj.source.file && !dom.loaded.has(traj.source.file)) {
    await bridge.loadResults(traj.source.file);
    dom.loaded.add(traj.source.file);
  }
  const init = traj.task?.initialState ?? null;
  let mirror: LayerB;
  const data = init?.initializationData ?? null;
  const actions = (init?.initializationActions ?? []).map((a) => ({ env_type: a.envType, func_name: a.funcName, arguments: a.arguments }));
  if ((data !== null && (data.agentData != null || data.userData != null)) || actions.length > 0) {
    const res = await bridge.initialize(data === null ? null : { agent_data: data.agentData ?? null, user_data: data.userData ?? null }, actions);
    res.forEach((r, i) => {
      if (!r.ok) tally.example({ class: "initialization", domain, file, task: traj.taskId, trial: traj.trial, call: -1, scope: null, tool: actions[i].func_name, arguments: actions[i].arguments, pi: "", edge: null, detail: r.error ?? "failed", diff: [] });
    });
    const state = await bridge.state();
    mirror = new LayerB();
    for (const name of setup.rules.documents.keys()) if (state[name] !== undefined) projectDocument(setup.rules, state[name], mirror, { document: name });
  } else mirror = dom.mirrorBase.clone();
  const docs = new Set(setup.rules.documents.keys());
  const now = DOMAIN_NOW[domain];

  // One main guard per scope, as the eval's main configuration; refusals are judged again, at check
  // time (the state before the call), with each positive edge alone and its bound dropped.
  const factory = (state: LayerB, scope: ReplayScope): ReplayGuard<CheckPayload> => {
    const main: Guard = createGuard({ ontology: setup.ontology, backend: options.backend, state, policy: "advisory", scope, config: { tau: options.tau, now, projection: setup.rules } });
    return {
      updatesState: true,
      check(call, context) {
        const decision = main.check(call, { userMessages: context.userMessages, turnCalls: context.turnCalls });
        let unbounded: CheckPayload["unbounded"] = null;
        const positive = dom.unbounded.get(call.name);
        // A refusal with no positive edge to try is not counted: nothing could confirm or contradict it.
        if (REFUSALS_TO_CONFIRM.has(decision.reason) && positive !== undefined) {
          unbounded = positive.map((u) => {
            const g = createGuard({ ontology: u.ontology, backend: options.backend, state, policy: "advisory", scope: "turn", config: { tau: 0, now } });
            return { edge: u.edge, decision: g.check(call, {}) };
          });
        }
        return { decision, unbounded };
      },
      observe: (call, content, info) => main.observe(call, content, { failed: info.error }).applied,
    };
  };

  const run = replayTrajectory(traj, { rules: setup.rules, documents: setup.documents, base: setup.base, guard: factory, scopes: options.scopes });
  const executed: Executed[] = [];
  const results = new Map<number, unknown>(); // index in `executed` → parsed result
  const snapshots: number[] = [];
  for (const rec of run.records) {
    if (rec.result === null) continue; // the run ended before this call
    const call: ToolCall = { name: rec.call.name, arguments: rec.call.arguments };
    const payloads = options.scopes.map((s) => [s, rec.decisions[s]] as const).filter((x): x is readonly [ReplayScope, CheckPayload] => x[1] !== undefined);
    const write = payloads.length > 0 && payloads[0][1].decision.reason !== "read_only";

    // 1. Layer B fidelity: each value a verdict read, against the environment projected now.
    for (const [scope, p] of payloads) {
      if (p.decision.reason === "read_only") continue;
      for (const r of p.decision.reads) {
        const [entity, id, slot] = r;
        const seen = r.length > 3 ? r[3] : undefined;
        const env = slot === null ? mirror.hasEntity(entity, id) : mirror.slot(entity, id, slot);
        for (const f of tally.figures(domain, scope)) f.fidelity.reads++;
        if (readText(seen) !== readText(env)) {
          for (const f of tally.figures(domain, scope)) f.fidelity.mismatches++;
          tally.example({ class: "fidelity", domain, file, task: traj.taskId, trial: traj.trial, call: rec.callIndex, scope, tool: call.name, arguments: call.arguments, pi: "", edge: null, detail: `${entity}(${id}).${slot ?? "exists"}: Layer B ${readText(seen)}, environment ${readText(env)}`, diff: [] });
        }
      }
    }

    // 2. Run the call as recorded; compare its output.
    const guarded = payloads.length > 0;
    const pre = write ? await bridge.snapshot() : null;
    if (pre !== null) snapshots.push(pre);
    const recorded = traj.source.file ? { file: traj.source.file, simulation: traj.source.index, call: rec.callIndex } : undefined;
    const out = await bridge.call(call.name, call.arguments, { requestor: rec.call.requestor, changes: true, recorded });
    for (const f of tally.figures(domain, null)) f.replay.calls++;
    if (out.error !== rec.result.error || !sameOutput(out.content, rec.result.content)) {
      for (const f of tally.figures(domain, null)) f.replay.outputMismatches++;
      tally.example({ class: "outputMismatch", domain, file, task: traj.taskId, trial: traj.trial, call: rec.callIndex, scope: null, tool: call.name, arguments: call.arguments, pi: "", edge: null, detail: `recorded ${rec.result.error ? "error " : ""}\`${rec.result.content.slice(0, 300)}\`, environment ${out.error ? "error " : ""}\`${out.content.slice(0, 300)}\``, diff: [] });
    }
    if (out.changes) applyChanges(setup.rules, mirror, out.changes, docs);
    if (guarded) {
      executed.push({ name: call.name, key: callKey(call.name, call.arguments), pre });
      results.set(executed.length - 1, out.error ? null : parseToolResult(out.content).value);
    }
    if (!write || out.error || pre === null) continue;

    // 3. The verdicts.
    const me = executed.length - 1;
    for (const [scope, p] of payloads) {
      const d = p.decision;
      const mapping = mapForward(d.forward, executed, me);
      if (d.admissible) {
        const steps = d.verdict?.steps ?? [];
        const edge = steps.find((s) => s.call === d.forward.length)?.annotation ?? null;
        const stated = d.verdict?.amount === undefined ? undefined : d.verdict.amount === null ? null : d.verdict.amount / FIXED_ONE;
        const outcome = await runPi(dom, steps, stated, mapping, results, executed, tally, { file, traj, rec: rec.callIndex, scope, call, edge, domain });
        const verdictClass = outcome.class;
        for (const f of tally.figures(domain, scope)) {
          f.admitted++;
          f[verdictClass]++;
          if (outcome.residue !== undefined) f.residue[outcome.residue]++;
          if (outcome.gross !== null && outcome.gross >= CENT) f.amounts.moved++;
          if (outcome.amount.matched === true) f.amounts.matched++;
          else if (outcome.amount.matched === false) f.amounts.mismatched++;
          else if (outcome.gross !== null && outcome.gross >= CENT && stated === undefined) f.amounts.undeclared++;
        }
        tally.outcomes[verdictKey(file, traj.taskId, traj.trial, rec.callIndex, scope)] =
          verdictClass === "withinResidue" ? (outcome.residue ?? "moneyOrInventory") : verdictClass;
        if (options.keepVerdicts) {
          tally.verdicts.push({
            domain, file, task: traj.taskId, call: rec.callIndex, scope, tiers: steps.map((x) => x.tier), lossClasses: steps.map((x) => x.lossClass), class: verdictClass,
            ...(stated === undefined ? {} : { amount: stated }), moved: outcome.moved, ...(outcome.residue === undefined ? {} : { residue: outcome.residue }),
          });
        }
        for (const g of [tally.group(tally.tools, call.name), tally.group(tally.edges, edge ?? "(none)")]) {
          g.admitted++;
          g[verdictClass]++;
        }
      } else if (p.unbounded !== null) {
        let restoredBy: string | null = null;
        for (const u of p.unbounded) {
          const steps = (u.decision.verdict?.steps ?? []).filter((s) => s.call === u.decision.forward.length);
          if (steps.length === 0 || !u.decision.verdict?.complete) continue;
          const got = await tryPi(dom, steps, () => pre, (c) => (c === u.decision.forward.length ? results.get(me) : undefined));
          if (got.class === "restored") {
            restoredBy = u.edge;
            break;
          }
        }
        const cls = restoredBy === null ? "confirmed" : "conservative";
        for (const f of tally.figures(domain, scope)) f.refusals[cls]++;
        tally.group(tally.tools, call.name)[cls]++;
        tally.group(tally.edges, restoredBy ?? `(refused: ${d.reason})`)[cls]++;
        if (restoredBy !== null) {
          tally.example({ class: "conservative", domain, file, task: traj.taskId, trial: traj.trial, call: rec.callIndex, scope, tool: call.name, arguments: call.arguments, pi: "", edge: restoredBy, detail: `refused \`${d.reason}\`; edge \`${restoredBy}\` without its bound restores the state`, diff: [], policyForbids: POLICY_ON_INVERSE[restoredBy] ?? null });
        }
      }
    }
  }
}

/** For each index of the decision's forward sequence (and the candidate at `forward.length`), the
 * executed call it is: matched by name and arguments from the most recent backwards. */
function mapForward(forward: readonly unknown[], executed: readonly Executed[], me: number): Map<number, number> {
  const m = new Map<number, number>([[forward.length, me]]);
  let at = me - 1;
  for (let j = forward.length - 1; j >= 0; j--) {
    const f = forward[j] as { name?: string; arguments?: unknown };
    const key = callKey(String(f?.name), f?.arguments);
    while (at >= 0 && executed[at].key !== key) at--;
    if (at < 0) break;
    m.set(j, at);
    at--;
  }
  return m;
}

interface PiResult {
  class: ExecClass;
  detail: string;
  diff: StateDiff["diffs"];
  /** What the customer pays more after the executed π than before the calls it undoes (currency units;
   * negative: paid back), null unknown. */
  moved: number | null;
  /** The money moved on all payment methods, in absolute value; null unknown. */
  gross: number | null;
  /** Inventory (seats) differs. */
  inventory: boolean;
}

/** The outcome of one admitted verdict: its class (an undo that moves money with no stated amount is
 * wrong), the residue split and the amount comparison. */
export interface VerdictOutcome extends PiResult {
  residue?: "bookkeeping" | "moneyOrInventory";
  amount: { stated: number | null | undefined; matched: boolean | null };
}

interface Where {
  file: string;
  traj: Trajectory;
  rec: number;
  scope: ReplayScope;
  call: ToolCall;
  edge: string | null;
  domain: string;
}

async function runPi(
  dom: DomainExec,
  steps: readonly VerdictStep[],
  stated: number | null | undefined,
  mapping: Map<number, number>,
  results: Map<number, unknown>,
  executed: readonly Executed[],
  tally: Tally,
  where: Where,
): Promise<VerdictOutcome> {
  const undone = steps.map((s) => s.call);
  // Nothing to undo: the state must already be the one before the call.
  let target: number | null = executed[mapping.get(Math.max(...mapping.keys()))!].pre;
  let missingMap = false;
  const earliest = undone.length === 0 ? null : Math.min(...undone);
  if (earliest !== null) {
    const idx = mapping.get(earliest);
    if (idx === undefined || executed[idx].pre === null) missingMap = true;
    else target = executed[idx].pre;
  }
  const got: PiResult = missingMap
    ? { class: "wrong" as ExecClass, detail: "the earliest call π undoes is not among the executed calls", diff: [] as StateDiff["diffs"], moved: null, gross: null, inventory: false }
    : await tryPi(dom, steps, () => target!, (c) => {
        const idx = mapping.get(c);
        return idx === undefined ? undefined : results.get(idx);
      });
  const outcome = judgeMoney(got, stated);
  if (outcome.class === "wrong" || outcome.class === "missingArguments" || outcome.class === "withinResidue" || outcome.amount.matched === false) {
    tally.example({
      class: outcome.amount.matched === false && outcome.class !== "wrong" ? "amountMismatch" : outcome.class,
      domain: where.domain,
      file: where.file,
      task: where.traj.taskId,
      trial: where.traj.trial,
      call: where.rec,
      scope: where.scope,
      tool: where.call.name,
      arguments: where.call.arguments,
      pi: piText(steps),
      edge: where.edge,
      detail: outcome.detail,
      diff: outcome.diff.slice(0, 12).map((x) => ({ path: x.path.join("/"), before: x.before, after: x.after })),
    });
  }
  return outcome;
}

const money = (x: number): string => `${x < 0 ? "−" : ""}$${Math.abs(x).toFixed(2).replace(/\.00$/, "")}`;

/**
 * docs/semantics.md, "Amounts": an executed π that leaves money different is within residue only when
 * the verdict states an amount, and that amount is compared with the money moved (to the cent). The
 * residue is bookkeeping when neither money nor inventory differs.
 */
export function judgeMoney(got: PiResult, stated: number | null | undefined): VerdictOutcome {
  const moved = got.moved;
  const gross = got.gross;
  const amount = { stated, matched: null as boolean | null };
  if (got.class === "restored") return { ...got, amount: stated === undefined ? amount : { stated, matched: stated !== null && Math.abs(stated) < CENT } };
  if (got.class !== "withinResidue" && got.class !== "wrong") return { ...got, amount };
  if (stated !== undefined) amount.matched = stated !== null && moved !== null && Math.abs(stated - moved) < CENT;
  if (got.class === "wrong") return { ...got, amount };
  if (moved === null || gross === null || (gross >= CENT && stated === undefined)) {
    const why = moved === null || gross === null ? "the money it moves could not be told" : `it moves ${money(gross)} and no step states an amount`;
    return { ...got, class: "wrong", detail: `${got.detail}; ${why}`, amount };
  }
  const residue = gross >= CENT || got.inventory ? "moneyOrInventory" : "bookkeeping";
  const detail = `${got.detail}; ${residue === "bookkeeping" ? "bookkeeping only" : `money ${money(moved)} (moved ${money(gross)})${got.inventory ? ", inventory" : ""}`}${stated === undefined ? "" : `, stated ${stated === null ? "unknown" : money(stated)}`}`;
  return { ...got, residue, detail, amount };
}

// --- money ---------------------------------------------------------------------------------------------

/** Slots whose difference is inventory (what others can no longer book), not bookkeeping. */
const INVENTORY_SLOTS: ReadonlySet<string> = new Set(["available_seats"]);
const CENT = 0.005;

/** Payment methods with a balance: their money is the balance (payments recorded on them move it). */
const BALANCE_METHOD = /^(gift_card|certificate)_/;

/**
 * The money a state difference moves, in currency units, per payment method: any method's net
 * payments recorded in the records' payment histories (a credit card's charges less its refunds), but
 * for a balance method its balance change instead (gift card, certificate: deleted is its whole
 * amount). `net`: what the customer pays more than before (payments, plus balances spent; negative when
 * they got money back), the quantity a verdict's amount states; `gross`: the sum of the methods'
 * absolute changes (money moved between methods shows here even when `net` is 0). null when the
 * difference is not listed in full.
 */
export function moneyMoved(d: StateDiff): { net: number; gross: number } | null {
  if (d.count > d.diffs.length) return null;
  const delta = new Map<string, number>();
  const add = (k: string, v: number) => delta.set(k, (delta.get(k) ?? 0) + v);
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const payments = (list: unknown, sign: number) => {
    if (!Array.isArray(list)) return;
    for (const p of list) {
      if (p === null || typeof p !== "object") continue;
      const o = p as Record<string, unknown>;
      const id = o.payment_id ?? o.payment_method_id;
      if (typeof id !== "string" || BALANCE_METHOD.test(id)) continue;
      add(id, sign * num(o.amount));
    }
  };
  for (const x of d.diffs) {
    const path = x.path.map(String);
    const ph = path.indexOf("payment_history");
    const pm = path.indexOf("payment_methods");
    if (ph >= 0) {
      if (path.length === ph + 1) {
        payments(x.before, -1);
        payments(x.after, 1);
      } else if (path.length === ph + 2) {
        payments([x.before], -1);
        payments([x.after], 1);
      } else {
        add(`${path.slice(0, ph + 2).join("/")}`, num(x.after) - num(x.before)); // a field of one payment
      }
    } else if (pm >= 0 && path.length > pm + 1) {
      const id = path[pm + 1];
      if (!BALANCE_METHOD.test(id)) continue;
      // A balance spent is money paid: the change counts negated.
      if (path.length === pm + 2) add(id, num((x.before as Record<string, unknown> | null)?.amount) - num((x.after as Record<string, unknown> | null)?.amount));
      else if (path[pm + 2] === "amount") add(id, num(x.before) - num(x.after));
    } else {
      // A whole record created or deleted: the payments it holds.
      const rec = (x.kind === "created" ? x.after : x.kind === "deleted" ? x.before : null) as Record<string, unknown> | null;
      if (rec !== null && typeof rec === "object" && "payment_history" in rec) payments(rec.payment_history, x.kind === "created" ? 1 : -1);
    }
  }
  let net = 0;
  let gross = 0;
  for (const v of delta.values()) {
    net += v;
    gross += Math.abs(v);
  }
  return { net: Math.round(net * 100) / 100, gross: Math.round(gross * 100) / 100 };
}

function touchesInventory(rules: ProjectionRules, d: StateDiff): boolean {
  return d.diffs.some((x) => {
    const site = locateDiff(rules, x.path, x.kind);
    return (site.slot !== null && INVENTORY_SLOTS.has(site.slot)) || x.path.some((p) => INVENTORY_SLOTS.has(String(p)));
  });
}

/** Runs π's steps on a snapshot of the current state, compares with `target()`, restores. */
async function tryPi(
  dom: DomainExec,
  steps: readonly VerdictStep[],
  target: () => number,
  resultOf: (call: number) => unknown,
): Promise<PiResult> {
  const tables = dom.setup.ontology.tables;
  const concrete = concreteSteps(steps, dom.signatures, tables, resultOf);
  if (!concrete.ok) return { class: concrete.detail.includes("lacks required") ? "missingArguments" : "wrong", detail: concrete.detail, diff: [], moved: null, gross: null, inventory: false };
  const bridge = dom.bridge;
  const post = await bridge.snapshot();
  try {
    for (const s of concrete.steps) {
      const sig = dom.signatures[s.tool];
      // In solo mode the agent makes the user-side calls (τ²-bench refuses user calls there).
      const out = await bridge.call(s.tool, s.args, { requestor: sig.side === "user" && !dom.solo ? "user" : "assistant" });
      if (out.error) return { class: "wrong", detail: `\`${s.tool}\` errored: ${out.content.slice(0, 300)}`, diff: [], moved: null, gross: null, inventory: false };
    }
    const d = await bridge.diff(target(), 2000);
    if (d.equal) return { class: "restored", detail: "", diff: [], moved: 0, gross: 0, inventory: false };
    const residue = concrete.steps.flatMap((s) => residueOf(dom.residues, s.step.lossClass));
    const rules = dom.setup.rules;
    const money = moneyMoved(d);
    const inventory = touchesInventory(rules, d);
    const outside = d.diffs.filter((x) => !covered(locateDiff(rules, x.path, x.kind), residue));
    if (outside.length === 0 && d.count <= d.diffs.length && residue.length > 0) return { class: "withinResidue", detail: `${d.count} differences, all declared residue`, diff: d.diffs.slice(0, 200), moved: money?.net ?? null, gross: money?.gross ?? null, inventory };
    return { class: "wrong", detail: `${d.count} differences${residue.length > 0 ? `, ${outside.length} outside the declared residue` : " (no residue declared)"}`, diff: (outside.length > 0 ? outside : d.diffs).slice(0, 200), moved: money?.net ?? null, gross: money?.gross ?? null, inventory };
  } finally {
    await bridge.restore(post);
    await bridge.release(post);
  }
}
