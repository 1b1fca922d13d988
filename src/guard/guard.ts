// createGuard: what an agent developer calls. A guard holds one compiled ontology, one search backend
// (recreated after a trap), a view of Layer B and a decision policy. check() judges a proposed call
// and returns a Decision (never throws for an expected outcome); observe() feeds an executed call's
// result back into Layer B and, in session scope, into the forward sequence; checkpoint() clears it.
import type { SearchBackend } from "../core/backend.js";
import type { ExecutedCall, StateView, ToolCall } from "../core/types.js";
import { createVerifier, type Verifier } from "../core/verifier.js";
import { blobDigestHex, decodeBlob, type Sha256 } from "../blob/index.js";
import type { OntologyTables } from "../ontology/tables.js";
import { createReferenceBackend } from "../reference/index.js";
import { LayerB } from "../projection/layer-b.js";
import { applyToolResult, parseToolResult, type ApplyReport } from "../projection/project.js";
import type { ProjectionRules } from "../projection/rules.js";
import { ENGINE_VERSION } from "../version.js";
import { CONSENT_WINDOW, defaultConsentDetector, type ConsentDetector } from "../policies/consent.js";
import { REQUEST_CLASSES, type IntentParser, type RequestClassifier, type TargetState } from "../policies/classifier.js";
import { resolvePolicy, type PolicyName } from "../policies/index.js";
import type { DecisionPolicy } from "../policies/types.js";
import { checkCallShape, define, jsonSafe, safeExecuted } from "./call.js";
import { configHash, resolveConfig, tauFixed, type EffectiveConfig, type EnvReader, type Scope, type VerdictSettings } from "./config.js";
import { DECISION_FORMAT, type Decision } from "./decision.js";
import { describeError, GuardError } from "./errors.js";
import { evaluate, NO_MODEL, type ModelAnswers } from "./evaluate.js";
import { defineStateDigest } from "./reads.js";

/** Builds a search backend for an ontology: the wasm core (`core.load(blob)`) or the reference. */
export type BackendFactory = (tables: OntologyTables, blob: Uint8Array | null) => SearchBackend;

/** Where decisions go (one record per check); see src/audit for a JSONL sink. */
export interface AuditSink {
  append(record: Decision): void;
}

/** A compiled ontology: the blob bytes, or tables already decoded together with their hash. */
export type OntologyInput = Uint8Array | { tables: OntologyTables; hash: string; blob?: Uint8Array };

export interface GuardConfig extends VerdictSettings {
  /** Default: the English + Korean pattern detector (src/policies/consent.ts). */
  consentDetector?: ConsentDetector;
  /** Projection rules for observe(): tool results update Layer B (state must be a LayerB). */
  projection?: ProjectionRules;
  requestClassifier?: RequestClassifier;
  intentParser?: IntentParser;
  log?: AuditSink;
  /** A synchronous SHA-256 for the blob's digest check, the ontology hash and the reads digests
   * (`(data) => createHash("sha256").update(data).digest()` in Node); default: the JavaScript one. */
  sha256?: Sha256;
  /** Reads POLAR_ABLATION_TIERS / POLAR_DISABLE_FAIL_CLOSED; default reads nothing. In Node pass
   * `(name) => process.env[name]`. Config fields win over the environment. */
  env?: EnvReader;
}

export interface GuardOptions {
  ontology: OntologyInput;
  /** A backend, or a factory (preferred: the guard can rebuild the backend after a trap). Default: the
   * TypeScript reference backend. */
  backend?: SearchBackend | BackendFactory;
  state: StateView;
  policy?: PolicyName | DecisionPolicy;
  scope?: Scope;
  config?: GuardConfig;
}

export interface CheckContext {
  /** The conversation's user messages, oldest first; the last three are used for consent. */
  userMessages?: readonly string[];
  /** Turn scope: earlier calls of the same assistant message (forward order). Ignored in session
   * scope, where the forward sequence is what observe() recorded since the last checkpoint. */
  turnCalls?: readonly ToolCall[];
}

export interface ObserveOptions {
  /** The call failed: nothing changed, nothing is recorded. */
  failed?: boolean;
}

export interface ObserveReport {
  /** What the projection rules changed in Layer B; null without rules. */
  applied: ApplyReport | null;
  /** Calls in the session's forward sequence after this one. */
  sequenceLength: number;
}

export interface Guard {
  readonly ontologyHash: string;
  readonly configHash: string;
  readonly config: Readonly<EffectiveConfig>;
  readonly scope: Scope;
  readonly policy: string;
  readonly state: StateView;
  readonly tables: OntologyTables;
  check(call: unknown, context?: CheckContext): Decision;
  /** check() with the request classifier and intent parser awaited (model clients are async). */
  checkAsync(call: unknown, context?: CheckContext): Promise<Decision>;
  observe(call: ToolCall, result: unknown, options?: ObserveOptions): ObserveReport;
  checkpoint(): void;
  /** The session's forward sequence (executed mutating calls since the last checkpoint), a copy. */
  sequence(): ExecutedCall[];
}

export type SafeGuardResult = { ok: true; guard: Guard } | { ok: false; error: GuardError };

/** Checked-but-not-yet-observed calls whose `before` snapshot is kept. */
const MAX_PENDING = 256;

interface Engine {
  verifier: Verifier;
}

function loadOntology(input: OntologyInput, sha256: Sha256 | undefined): { tables: OntologyTables; hash: string; blob: Uint8Array | null } {
  if (input instanceof Uint8Array) {
    try {
      return { tables: decodeBlob(input, { sha256 }), hash: blobDigestHex(input, sha256), blob: input };
    } catch (e) {
      throw new GuardError("invalid-ontology", `the ontology blob is refused: ${describeError(e)}`, "compile the ontology again with `polar compile`", { cause: e });
    }
  }
  if (typeof input === "object" && input !== null && typeof input.tables === "object" && input.tables !== null && typeof input.hash === "string" && input.hash !== "") {
    return { tables: input.tables, hash: input.hash, blob: input.blob ?? null };
  }
  throw new GuardError("invalid-ontology", "`ontology` is neither a blob (Uint8Array) nor `{ tables, hash }`");
}

function isBackend(b: unknown): b is SearchBackend {
  return typeof b === "object" && b !== null && typeof (b as SearchBackend).run === "function" && typeof (b as SearchBackend).inputView === "function";
}

function isStateView(s: unknown): s is StateView {
  return typeof s === "object" && s !== null && typeof (s as StateView).hasEntity === "function" && typeof (s as StateView).slot === "function";
}

/** The last CONSENT_WINDOW user messages that are strings. */
function lastMessages(messages: readonly unknown[] | undefined): string[] {
  if (!Array.isArray(messages)) return [];
  return messages.filter((m): m is string => typeof m === "string").slice(-CONSENT_WINDOW);
}

function callKey(call: unknown): string {
  return JSON.stringify(jsonSafe(call));
}

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return typeof (x as { then?: unknown } | null)?.then === "function";
}

export function createGuard(options: GuardOptions): Guard {
  if (typeof options !== "object" || options === null) throw new GuardError("invalid-config", "createGuard needs an options object");
  const cfg: GuardConfig = options.config ?? {};
  const sha256 = cfg.sha256;
  if (sha256 !== undefined && typeof sha256 !== "function") throw new GuardError("invalid-config", "`config.sha256` is not a function");
  const { tables, hash: ontologyHash, blob } = loadOntology(options.ontology, sha256);
  const state = options.state;
  if (!isStateView(state)) throw new GuardError("invalid-state", "`state` is not a StateView (hasEntity, slot)");
  if (cfg.projection !== undefined && !(state instanceof LayerB)) {
    throw new GuardError("invalid-config", "`config.projection` needs `state` to be a LayerB", "observe() applies tool results to a LayerB");
  }
  const policy = resolvePolicy(options.policy);
  if (policy === null) throw new GuardError("invalid-config", `unknown policy \`${String(options.policy)}\``, "use veto, escalate, advisory or a DecisionPolicy");
  const scope: Scope = options.scope ?? "turn";
  if (scope !== "turn" && scope !== "session") throw new GuardError("invalid-config", `unknown scope \`${String(scope)}\``, "use turn or session");
  const detector = cfg.consentDetector ?? defaultConsentDetector;
  if (typeof detector?.detect !== "function" || typeof detector.id !== "string") {
    throw new GuardError("invalid-config", "`consentDetector` needs an `id` and a `detect` function");
  }
  const config = resolveConfig({
    tau: cfg.tau,
    tiers: cfg.tiers,
    failClosed: cfg.failClosed,
    now: cfg.now,
    maxDepth: cfg.maxDepth,
    maxNodes: cfg.maxNodes,
    env: cfg.env,
    scope,
    policy: policy.name,
    consentDetector: detector.id,
    requestClassifier: cfg.requestClassifier?.id ?? null,
    intentParser: cfg.intentParser?.id ?? null,
  });
  Object.freeze(config.tiers);
  Object.freeze(config);
  const hash = configHash(config);

  const given = options.backend ?? ((t: OntologyTables) => createReferenceBackend(t));
  const factory: BackendFactory | null = typeof given === "function" ? given : null;
  if (factory === null && !isBackend(given)) throw new GuardError("invalid-backend", "`backend` is neither a SearchBackend nor a factory");
  const build = (): Engine => {
    const backend = factory === null ? (given as SearchBackend) : factory(tables, blob);
    if (!isBackend(backend)) throw new GuardError("invalid-backend", "the backend factory did not return a SearchBackend");
    return { verifier: createVerifier(tables, backend) };
  };
  let engine: Engine;
  try {
    engine = build();
  } catch (e) {
    if (e instanceof GuardError) throw e;
    throw new GuardError("invalid-backend", `the backend could not be built: ${describeError(e)}`, undefined, { cause: e });
  }

  let seq = 0;
  /** The session's forward sequence, each call JSON-safe and frozen once at observe: every check's
   * record shares them instead of copying them again. */
  let executed: ExecutedCall[] = [];
  /** `before` snapshots taken when a mutating call was checked, by call, until observe() uses them. */
  const pending = new Map<string, { before: Record<string, unknown> | undefined; route: Decision["route"]; admissible: boolean }>();
  /** Calls that ran although this guard did not admit them (consent, advisory passthrough), by call:
   * barriers in turn scope's `turnCalls`, as they are in session scope (see observe). */
  const committed = new Set<string>();
  /** The `before` snapshot of each observed mutating call, by call (turn scope's earlier calls). */
  const observedBefore = new Map<string, Record<string, unknown>>();
  const slotsByEntity = new Map<string, string[]>();
  for (const s of tables.slots) {
    const e = tables.entities[s.entity].name;
    const list = slotsByEntity.get(e) ?? [];
    list.push(s.name);
    slotsByEntity.set(e, list);
  }

  /** The acts_on entity's declared slots as they are now (for a later inverse's `entity.slot` args).
   * Values by reference: Layer B never mutates a value in place (docs/projection.md), and observe()
   * copies the snapshot JSON-safe into the forward sequence once. */
  function snapshot(call: ToolCall): Record<string, unknown> | undefined {
    const info = engine.verifier.tool(call.name);
    if (!info.known || info.readOnly || info.actsOn === null || info.keyArg === null) return undefined;
    const key = call.arguments[info.keyArg];
    if (typeof key !== "string" && typeof key !== "number") return undefined;
    const before: Record<string, unknown> = {};
    const slots = slotsByEntity.get(info.actsOn);
    if (slots === undefined) return before;
    const id = String(key);
    for (let i = 0; i < slots.length; i++) {
      const v = state.slot(info.actsOn, id, slots[i]);
      if (v !== undefined) define(before, slots[i], v);
    }
    return before;
  }

  /** Turn scope: an earlier call of the message is searched on its entity as it was before it ran
   * (docs/semantics.md, "Operands of earlier calls"). The guard's Layer B changes only at observe(), so
   * that is the snapshot taken then or, for a call this guard has not observed, the state now. */
  function withBefore(c: unknown): unknown {
    if (typeof c !== "object" || c === null || (c as ExecutedCall).before !== undefined) return c;
    const checked = checkCallShape(c);
    if (!checked.ok) return c;
    let before: Record<string, unknown> | undefined;
    try {
      before = observedBefore.get(callKey(checked.call)) ?? snapshot(checked.call);
    } catch {
      return c; // a StateView that throws fails the whole check closed anyway
    }
    if (before !== undefined) (c as ExecutedCall).before = before;
    return c;
  }

  /** Turn scope's forward prefix: the earlier calls of the message after the last one that ran although
   * it was not admitted (that one committed everything before it, as in session scope). */
  function turnForward(turnCalls: readonly ToolCall[] | undefined): readonly ToolCall[] {
    if (!Array.isArray(turnCalls)) return [];
    if (committed.size === 0) return turnCalls;
    for (let i = turnCalls.length - 1; i >= 0; i--) {
      const c = turnCalls[i] as Partial<ToolCall> | null;
      if (committed.has(callKey({ name: c?.name, arguments: c?.arguments }))) return turnCalls.slice(i + 1);
    }
    return turnCalls;
  }

  function decide(rawCall: unknown, context: CheckContext | undefined, model: ModelAnswers): Decision {
    seq++;
    const call = jsonSafe(rawCall);
    // Session scope: the recorded calls are already JSON-safe and frozen (observe); turn scope: the
    // caller's calls, copied now.
    const forward: unknown[] = scope === "session" ? executed.slice() : turnForward(context?.turnCalls).map((c) => withBefore(safeExecuted(c)));
    const userMessages = lastMessages(context?.userMessages);
    const ev = evaluate({ tables, verifier: engine.verifier, config, policy: policy!, detector, call, forward, state, userMessages, model, sha256 });
    if (ev.backendFailed && factory !== null) {
      // After a trap the instance's memory is suspect: serve the next call from a fresh backend.
      try {
        engine = build();
      } catch {
        // Keep the old one; every failing search is a veto anyway, and the next failure retries.
      }
    }
    const decision = {
      format: DECISION_FORMAT,
      seq,
      route: ev.route,
      approved: ev.approved,
      admissible: ev.admissible,
      reason: ev.reason,
      detail: ev.detail,
      call,
      forward,
      verdict: ev.verdict,
      targets: ev.targets,
      classification: ev.classification,
      policy: policy!.name,
      tau: tauFixed(config),
      message: ev.message,
      refusal: ev.refusal,
      question: ev.question,
      userMessages,
      consent: ev.consent,
      reads: ev.reads,
    } as Decision;
    // The digest is computed on first read (serialising the record reads it), in its place among the
    // fields; the rest are assigned after it so every record keeps one field order.
    defineStateDigest(decision, ev.digest);
    decision.ontologyHash = ontologyHash;
    decision.config = config;
    decision.configHash = hash;
    decision.engineVersion = ENGINE_VERSION;
    decision.scope = scope;
    if (decision.approved && ev.reason !== "read_only") {
      const checked = ev.call !== null ? { ok: true as const, call: ev.call } : checkCallShape(call);
      if (checked.ok) {
        let before: Record<string, unknown> | undefined;
        try {
          before = snapshot(checked.call);
        } catch {
          // A StateView that throws here already made the decision fail closed above.
        }
        // Approved calls that are never observed (advisory logging, a dropped tool run) must not grow
        // this map without bound: keep the most recent ones.
        if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value as string);
        pending.set(JSON.stringify(call), { before, route: decision.route, admissible: decision.admissible });
      }
    }
    cfg.log?.append(decision);
    return decision;
  }

  function check(call: unknown, context?: CheckContext): Decision {
    if (cfg.requestClassifier === undefined && cfg.intentParser === undefined) return decide(call, context, NO_MODEL);
    // Synchronous components are allowed here; a model client that returns a promise needs checkAsync.
    const answers = askModels(call, context, true);
    if (isThenable(answers)) {
      throw new GuardError("async-required", "the request classifier or intent parser is asynchronous", "use `guard.checkAsync(call, context)`");
    }
    return decide(call, context, answers as ModelAnswers);
  }

  async function checkAsync(call: unknown, context?: CheckContext): Promise<Decision> {
    const answers = await askModels(call, context, false);
    return decide(call, context, answers);
  }

  /** The classifier's and the intent parser's answers, checked against their contracts. Any failure
   * becomes `error` (the decision then fails closed). Read-only and unknown calls skip the models. */
  function askModels(rawCall: unknown, context: CheckContext | undefined, sync: boolean): ModelAnswers | Promise<ModelAnswers> {
    const checked = checkCallShape(jsonSafe(rawCall));
    if (!checked.ok) return NO_MODEL;
    const info = engine.verifier.tool(checked.call.name);
    if (!info.known || info.readOnly) return NO_MODEL;
    const input = { userMessages: lastMessages(context?.userMessages), call: checked.call };
    let cls: unknown;
    let tgt: unknown;
    try {
      cls = cfg.requestClassifier?.classify(input) ?? null;
      tgt = cfg.intentParser?.parse(input) ?? null;
    } catch (e) {
      return { ...NO_MODEL, error: `model: component failed: ${describeError(e)}` };
    }
    if (sync && (isThenable(cls) || isThenable(tgt))) {
      // Silence the rejection of a promise nobody will await; check() throws async-required.
      for (const p of [cls, tgt]) if (isThenable(p)) Promise.resolve(p).catch(() => {});
      return Promise.resolve(NO_MODEL);
    }
    const finish = (c: unknown, t: unknown): ModelAnswers => {
      if (c !== null && !REQUEST_CLASSES.includes(c as never)) return { ...NO_MODEL, error: `model: the request classifier answered \`${String(c)}\`` };
      const targets = t === null ? null : validTargets(t);
      if (targets === undefined) return { ...NO_MODEL, error: "model: the intent parser answered something other than target states" };
      return { classification: c as ModelAnswers["classification"], targets, error: null };
    };
    if (isThenable(cls) || isThenable(tgt)) {
      return Promise.all([cls, tgt]).then(
        ([c, t]) => finish(c, t),
        (e) => ({ ...NO_MODEL, error: `model: component failed: ${describeError(e)}` }),
      );
    }
    return finish(cls, tgt);
  }

  function observe(call: ToolCall, result: unknown, opts: ObserveOptions = {}): ObserveReport {
    const safe = jsonSafe(call);
    const checked = checkCallShape(safe);
    if (!checked.ok) throw new GuardError("invalid-call", `observe: ${checked.problem}`);
    const key = JSON.stringify(safe); // = callKey(call), without a second copy
    const checkedAs = pending.get(key);
    const before = checkedAs !== undefined ? checkedAs.before : snapshot(checked.call);
    pending.delete(key);
    if (opts.failed === true) return { applied: null, sequenceLength: executed.length };
    if (before !== undefined) {
      observedBefore.delete(key);
      if (observedBefore.size >= MAX_PENDING) observedBefore.delete(observedBefore.keys().next().value as string);
      observedBefore.set(key, before);
    }
    let applied: ApplyReport | null = null;
    if (cfg.projection !== undefined) applied = applyToolResult(cfg.projection, state as LayerB, checked.call, result);
    const info = engine.verifier.tool(checked.call.name);
    if (checkedAs !== undefined && !checkedAs.admissible) {
      if (committed.size >= MAX_PENDING) committed.delete(committed.values().next().value as string);
      committed.add(key);
    }
    if (scope === "session" && checkedAs !== undefined && !checkedAs.admissible) {
      // A call the search did not admit ran anyway (the user consented, or advisory mode let it
      // through): the sequence up to it can no longer be undone as a whole, so it is committed and the
      // session's forward sequence restarts after it. Otherwise one irreversible step would hold every
      // later call to an undo path that was already given up, and every later verdict would be 0.
      executed = [];
    } else if (scope === "session" && !info.readOnly) {
      // One JSON-safe copy of the whole entry, frozen: every later check's record shares it. (jsonSafe
      // never yields undefined, so a result is always recorded, as a marker when it is not JSON.)
      const entry: ExecutedCall = { name: checked.call.name, arguments: checked.call.arguments, result: parseToolResult(result).value };
      if (before !== undefined) entry.before = before;
      executed.push(safeExecuted(entry, true) as ExecutedCall);
    }
    return { applied, sequenceLength: executed.length };
  }

  return {
    ontologyHash,
    configHash: hash,
    config,
    scope,
    policy: policy.name,
    state,
    tables,
    check,
    checkAsync,
    observe,
    checkpoint(): void {
      executed = [];
      pending.clear();
      committed.clear();
      observedBefore.clear();
    },
    sequence: () => executed.map((c) => ({ ...c })),
  };
}

function validTargets(t: unknown): TargetState[] | undefined {
  if (!Array.isArray(t)) return undefined;
  const out: TargetState[] = [];
  for (const x of t) {
    const s = jsonSafe(x) as Record<string, unknown> | null;
    if (typeof s !== "object" || s === null || !Array.isArray(s.assertions)) return undefined;
    for (const a of s.assertions as Record<string, unknown>[]) {
      if (typeof a?.entity !== "string" || typeof a.id !== "string" || typeof a.slot !== "string" || !("value" in a)) return undefined;
    }
    out.push({ label: typeof s.label === "string" ? s.label : `target ${out.length}`, assertions: s.assertions as TargetState["assertions"] });
  }
  return out;
}

/** createGuard without throwing: `{ ok: false, error }` carries the typed GuardError. */
export function safeCreateGuard(options: GuardOptions): SafeGuardResult {
  try {
    return { ok: true, guard: createGuard(options) };
  } catch (e) {
    if (e instanceof GuardError) return { ok: false, error: e };
    return { ok: false, error: new GuardError("invalid-config", describeError(e), undefined, { cause: e }) };
  }
}
