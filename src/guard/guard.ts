// createGuard: what an agent developer calls. A guard holds one compiled ontology, one search backend
// (recreated after a trap), a view of Layer B and a decision policy. check() judges a proposed call
// and returns a Decision (never throws for an expected outcome); observe() feeds an executed call's
// result back into Layer B and, in session scope, into the forward sequence; checkpoint() clears it.
import type { SearchBackend } from "../core/backend.js";
import type { ExecutedCall, StateView, ToolCall } from "../core/types.js";
import { fieldAt } from "../core/values.js";
import { createVerifier, entityKey, type Verifier } from "../core/verifier.js";
import { blobDigestHex, decodeBlob, type Sha256 } from "../blob/index.js";
import type { OntologyTables } from "../ontology/tables.js";
import { createReferenceBackend } from "../reference/index.js";
import { LayerB } from "../projection/layer-b.js";
import { applyToolResult, parseToolResult, type ApplyReport } from "../projection/project.js";
import type { ProjectionRules } from "../projection/rules.js";
import { ENGINE_VERSION } from "../version.js";
import { CONSENT_WINDOW, defaultConsentDetector, type ConsentContext, type ConsentDetector } from "../policies/consent.js";
import { consentNames, recentConsentMessages } from "./recent-consent.js";
import { REQUEST_CLASSES, type IntentParser, type RequestClassifier, type TargetState } from "../policies/classifier.js";
import { BUILTIN_POLICIES, resolvePolicy, type PolicyName } from "../policies/index.js";
import type { DecisionPolicy, VerdictRecord } from "../policies/types.js";
import { checkCallShape, define, freezeOwn, frozenJsonSafe, jsonSafe, safeExecuted } from "./call.js";
import { NOT_JSON, ownedJson } from "../util/owned-json.js";
import { canonicalJsonFast } from "./canonical-fast.js";
import { Lifecycle, type Before, type Execution } from "./lifecycle.js";
import { UnknownMarks, type UnknownMark } from "./unknown.js";
import { MAX_QUESTIONS, plainCopy, readSnapshot, SNAPSHOT_FORMAT, type GuardSnapshot } from "./snapshot.js";
import { MAX_CALLS } from "../abi.js";
import { sha256Hex } from "../util/sha256.js";
import { refusalText } from "../policies/text.js";
import { vetoPolicy } from "../policies/veto.js";
import { configHash, resolveConfig, tauFixed, type ConsentMode, type EffectiveConfig, type EnvReader, type Scope, type VerdictSettings } from "./config.js";
import { DECISION_FORMAT, type Decision } from "./decision.js";
import { describeError, GuardError } from "./errors.js";
import { evaluate, NO_MODEL, type Evaluation, type ModelAnswers } from "./evaluate.js";
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
  /** Which user messages may carry consent: `question` (default; only an answer to the guard's own
   * question about this exact call) or `recent-messages` (the paper's, for offline replays). */
  consent?: ConsentMode;
  /** Default: the English + Korean pattern detector (src/policies/consent.ts). */
  consentDetector?: ConsentDetector;
  /** Projection rules for observe(): tool results update Layer B (state must be a LayerB). */
  projection?: ProjectionRules;
  requestClassifier?: RequestClassifier;
  intentParser?: IntentParser;
  log?: AuditSink;
  /** A synchronous SHA-256 for the blob's digest check, the ontology and config hashes and the reads digests
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
  /** Go on from `guard.snapshot()` of an earlier guard with the same ontology, config, policy and scope
   * (after JSON or storage, as plain data). `state` must be that guard's Layer B as it was when the
   * snapshot was taken: the snapshot does not hold Layer B. A snapshot that does not fit is a
   * GuardError `bad-snapshot`. */
  resume?: GuardSnapshot;
}

/** One entry of the conversation, for the `recent-messages` consent mode. */
export interface ConversationMessage {
  role: "user" | "assistant" | string;
  content: string;
}

export interface CheckContext {
  /** The conversation's user messages, oldest first, all of them: consent reads the last three, and
   * in the default `question` mode only those after the guard asked about this exact call. */
  userMessages?: readonly string[];
  /** The conversation with roles, oldest first (the `recent-messages` consent mode reads which
   * assistant message each user message answers). */
  messages?: readonly ConversationMessage[];
  /** Turn scope: earlier calls of the same assistant message (forward order). Ignored in session
   * scope, where the forward sequence is what observe() recorded since the last checkpoint. */
  turnCalls?: readonly ToolCall[];
}

export interface ObserveOptions {
  /** The call failed and is known to have changed nothing: nothing is recorded (the execution is
   * released). */
  failed?: boolean;
  /** `"unknown"`: the call failed but may have changed something (it threw after writing, timed out,
   * was cancelled, its answer was lost). It stays in the forward sequence and what it acts on (its key
   * argument's entity, or everything when it names none) is marked unknown: later decisions that read
   * it fail closed (`unknown_state`) until `markKnown`. The result is not projected. */
  outcome?: "unknown";
  /** The execution the call ran as (`decision.execution`); default the oldest pending execution of
   * the same call. */
  execution?: string;
}

export interface ObserveReport {
  /** What the projection rules changed in Layer B; null without rules. */
  applied: ApplyReport | null;
  /** Calls in the session's forward sequence after this one. */
  sequenceLength: number;
  /** The execution observed (null: the call was observed without a pending check). */
  execution: string | null;
  /** The result could not be projected: these entities are unknown to later decisions until
   * `markKnown` (null when the result was usable). */
  unknown: UnknownMark[] | null;
}

/** A call approved and not yet observed nor released (`guard.pending()`). */
export interface PendingExecution {
  execution: string;
  seq: number;
  call: ToolCall;
}

export interface Guard {
  readonly ontologyHash: string;
  readonly configHash: string;
  readonly config: Readonly<EffectiveConfig>;
  readonly scope: Scope;
  readonly policy: string;
  readonly state: StateView;
  readonly tables: OntologyTables;
  /** Judges a call. An approved mutating call becomes a pending execution (`decision.execution`),
   * part of every later check's forward sequence until it is observed or released. */
  check(call: unknown, context?: CheckContext): Decision;
  /** check() with the request classifier and intent parser awaited (model clients are async). */
  checkAsync(call: unknown, context?: CheckContext): Promise<Decision>;
  /** The call ran: its result updates Layer B and (session scope) the forward sequence. */
  observe(call: ToolCall, result: unknown, options?: ObserveOptions): ObserveReport;
  /** An approved call did not run: it leaves the forward sequence. False for an unknown or finished id. */
  release(execution: string): boolean;
  /** Approved calls not yet observed nor released, in check order. */
  pending(): PendingExecution[];
  /** The state was read again (all of it, or one entity): unknown marks on it are lifted. */
  markKnown(entity?: string, id?: string): void;
  /** Commits everything: the forward sequence restarts empty; pending executions stay observable. */
  checkpoint(): void;
  /** The session's forward sequence (executed mutating calls since the last checkpoint, at most
   * `maxDepth` of the most recent), a copy. */
  sequence(): ExecutedCall[];
  /** The guard's own state as plain JSON data of its own (pending executions, the forward sequence,
   * open consent questions, unknown marks, the last seq), for `createGuard({ …, resume })`. Layer B
   * is not in it: it is the caller's (`state`). */
  snapshot(): GuardSnapshot;
}

export type SafeGuardResult = { ok: true; guard: Guard } | { ok: false; error: GuardError };

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

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return typeof (x as { then?: unknown } | null)?.then === "function";
}

const OPTION_KEYS = ["ontology", "backend", "state", "policy", "scope", "config", "resume"];
const CONFIG_KEYS = [
  "tau", "tiers", "failClosed", "now", "maxDepth", "maxNodes", "maxAmount", "consent", "consentDetector", "projection",
  "requestClassifier", "intentParser", "log", "sha256", "env",
];

/** Unknown keys are typos (`polcy`, `threshold`): refused, never ignored. */
function checkKeys(obj: object, known: readonly string[], where: string): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) throw new GuardError("invalid-config", `unknown option \`${where}${k}\``, `the options are ${known.join(", ")}`);
  }
}

function isProjectionRules(r: unknown): r is ProjectionRules {
  const x = r as Partial<ProjectionRules> | null;
  return typeof x === "object" && x !== null && x.tools instanceof Map && x.actions instanceof Map && x.entities instanceof Map && x.documents instanceof Map;
}

function checkConfig(cfg: GuardConfig): void {
  checkKeys(cfg, CONFIG_KEYS, "config.");
  if (cfg.log !== undefined && (typeof cfg.log !== "object" || cfg.log === null || typeof cfg.log.append !== "function")) {
    throw new GuardError("invalid-config", "`config.log` is not an AuditSink (an object with `append(decision)`)", "use `createJsonlSink(write)` or `createMemorySink()`");
  }
  if (cfg.projection !== undefined && !isProjectionRules(cfg.projection)) {
    throw new GuardError("invalid-config", "`config.projection` is not parsed projection rules", "pass `parseProjectionRules(json)`, not the JSON itself");
  }
  for (const [name, v, fn] of [["requestClassifier", cfg.requestClassifier, "classify"], ["intentParser", cfg.intentParser, "parse"]] as const) {
    if (v === undefined) continue;
    const c = v as unknown as Record<string, unknown> | null;
    if (typeof c !== "object" || c === null || typeof c.id !== "string" || typeof c[fn] !== "function") {
      throw new GuardError("invalid-config", `\`config.${name}\` needs an \`id\` and a \`${fn}\` function`);
    }
  }
}

/** A caller's array read without calling anything of it but indexes (no species, no iterator): the
 * last `max` entries, or an error for a value that is not an array. */
function tail(value: unknown, max: number, what: string): { items: unknown[]; start: number; length: number } {
  if (!Array.isArray(value)) throw new Error(`\`context.${what}\` is not an array`);
  const length = (value as unknown[]).length;
  const start = Math.max(0, length - max);
  const items: unknown[] = [];
  for (let i = start; i < length; i++) items.push((value as unknown[])[i]);
  return { items, start, length };
}

/** How far back consent and conversation reads go: a hostile million-entry array costs no more. */
const MAX_SCAN = 1000;

/** The context as plain data, read once; a context that throws or has a wrong shape is an error
 * (the decision fails closed). */
interface ContextData {
  /** The last CONSENT_WINDOW string user messages, oldest first, and their index among all. */
  users: string[];
  userIndex: number[];
  /** The number of user messages in the conversation. */
  userCount: number;
  /** The tail of `context.messages` (role, content), oldest first; null when not given. */
  conversation: ConversationMessage[] | null;
  turnCalls: unknown[] | null;
  error: string | null;
}

const NO_CONTEXT: ContextData = Object.freeze({ users: [], userIndex: [], userCount: 0, conversation: null, turnCalls: null, error: null }) as ContextData;

function readContext(context: unknown): ContextData {
  if (context === undefined || context === null) return NO_CONTEXT;
  const out: ContextData = { users: [], userIndex: [], userCount: 0, conversation: null, turnCalls: null, error: null };
  try {
    if (typeof context !== "object") throw new Error("the context is not an object");
    const c = context as Record<string, unknown>;
    const userMessages = c.userMessages;
    const messages = c.messages;
    const turnCalls = c.turnCalls;
    if (userMessages !== undefined) {
      const t = tail(userMessages, MAX_SCAN, "userMessages");
      out.userCount = t.length;
      for (let i = t.items.length - 1; i >= 0 && out.users.length < CONSENT_WINDOW; i--) {
        const m = t.items[i];
        if (typeof m === "string") {
          out.users.unshift(m);
          out.userIndex.unshift(t.start + i);
        }
      }
    }
    if (messages !== undefined) {
      const t = tail(messages, MAX_SCAN, "messages");
      const conv: ConversationMessage[] = [];
      for (const m of t.items) {
        if (typeof m !== "object" || m === null) throw new Error("an entry of `context.messages` is not an object");
        const role = (m as Record<string, unknown>).role;
        const content = (m as Record<string, unknown>).content;
        if (typeof role !== "string") throw new Error("an entry of `context.messages` has no string `role`");
        conv.push({ role, content: typeof content === "string" ? content : "" });
      }
      out.conversation = conv;
    }
    if (turnCalls !== undefined) out.turnCalls = tail(turnCalls, MAX_CALLS + 1, "turnCalls").items;
  } catch (e) {
    return { ...NO_CONTEXT, error: `context: ${describeError(e)}` };
  }
  return out;
}

export function createGuard(options: GuardOptions): Guard {
  if (typeof options !== "object" || options === null) throw new GuardError("invalid-config", "createGuard needs an options object");
  checkKeys(options, OPTION_KEYS, "");
  if (options.config !== undefined && (typeof options.config !== "object" || options.config === null)) {
    throw new GuardError("invalid-config", "`config` is not an object");
  }
  const cfg: GuardConfig = options.config ?? {};
  checkConfig(cfg);
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
  if (typeof options.policy === "object" && Object.prototype.hasOwnProperty.call(BUILTIN_POLICIES, policy.name) && BUILTIN_POLICIES[policy.name as PolicyName] !== policy) {
    throw new GuardError("invalid-config", `a custom policy cannot be named \`${policy.name}\``, "the built-in policies' names are veto, escalate and advisory; the audit replay looks policies up by name");
  }
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
    maxAmount: cfg.maxAmount,
    env: cfg.env,
    scope,
    policy: policy.name,
    consentDetector: detector.id,
    requestClassifier: cfg.requestClassifier?.id ?? null,
    intentParser: cfg.intentParser?.id ?? null,
    consent: cfg.consent,
  });
  Object.freeze(config.tiers);
  Object.freeze(config);
  const hash = configHash(config, sha256);

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
  const lifecycle = new Lifecycle(scope, config.maxDepth, callKey);
  const unknown = new UnknownMarks();
  /** Open consent questions (question mode): call hash → how many user messages there were when the
   * guard asked. Only messages after that answer it. */
  const questions = new Map<string, number>();
  const slotsByEntity = new Map<string, string[]>();
  for (const s of tables.slots) {
    const e = tables.entities[s.entity].name;
    const list = slotsByEntity.get(e) ?? [];
    list.push(s.name);
    slotsByEntity.set(e, list);
  }
  if (options.resume !== undefined) {
    const snap = readSnapshot(options.resume, { ontologyHash, configHash: hash, policy: policy.name, scope, maxDepth: config.maxDepth });
    seq = snap.seq;
    lifecycle.restoreState(snap);
    unknown.restore(snap.unknown);
    for (const q of snap.questions) questions.set(q.hash, q.asked);
  }

  function takeSnapshot(): GuardSnapshot {
    const data: GuardSnapshot = {
      format: SNAPSHOT_FORMAT,
      ontologyHash,
      configHash: hash,
      policy: policy!.name,
      scope,
      seq,
      ...lifecycle.exportState(),
      questions: [...questions].map(([h, asked]) => ({ hash: h, asked })),
      unknown: unknown.list() ?? [],
    };
    // Plain JSON of its own: nothing of it is shared with the guard (or with Layer B).
    return plainCopy(data) as GuardSnapshot;
  }

  /** The acts_on entity's declared slots as they are now (for a later inverse's `entity.slot` args),
   * frozen, each value the guard's own (copied on read, see ownValue): the caller's objects are never
   * held, so a tool changing them in place changes no `before`. */
  function snapshot(call: ToolCall): Record<string, unknown> | undefined {
    const b = keepBefore(call);
    return typeof b === "function" ? b() : b;
  }

  /** snapshot(call), or with a LayerB a function that makes it later from the entity's record, which
   * Layer B keeps unchanged for it (keptRecord): an approved check then costs one lookup, not a copy
   * of every slot (most executions are released or observed by id before anything reads it). */
  function keepBefore(call: ToolCall): Before {
    const info = engine.verifier.tool(call.name);
    if (!info.known || info.readOnly || info.actsOn === null) return undefined;
    const id = entityKey(info, call.arguments);
    if (id === null) return undefined;
    const slots = slotsByEntity.get(info.actsOn);
    if (slots === undefined) return Object.freeze({});
    if (state instanceof LayerB) {
      const rec = state.keptRecord(info.actsOn, id);
      return () => beforeOf(slots, rec);
    }
    const before: Record<string, unknown> = {};
    for (let i = 0; i < slots.length; i++) {
      const v = state.slot(info.actsOn, id, slots[i]);
      if (v !== undefined) define(before, slots[i], ownValue(v));
    }
    return Object.freeze(before);
  }

  function isMutating(copy: unknown): boolean {
    const name = (copy as { name?: unknown } | null)?.name;
    if (typeof name !== "string") return true;
    const info = engine.verifier.tool(name);
    return !info.known || !info.readOnly;
  }

  function forwardFor(ctx: ContextData): unknown[] {
    if (scope === "session") return lifecycle.sessionForward();
    const raw = ctx.turnCalls ?? [];
    const calls = raw.map((c) => {
      const copy = safeExecuted(c, true);
      const checked = checkCallShape(copy);
      if (!checked.ok) return { copy, key: null };
      const key = callKey(checked.call);
      return { copy: withBefore(copy as ExecutedCall, key, checked.call), key };
    });
    return lifecycle.turnForward(calls, isMutating);
  }

  /** Turn scope: an earlier call of the message is searched on its entity as it was before it ran
   * (docs/semantics.md, "Operands of earlier calls"). The guard's Layer B changes only at observe(), so
   * that is the snapshot taken then or, for a call this guard has not observed, the state now. */
  function withBefore(copy: ExecutedCall, key: string, call: ToolCall): ExecutedCall {
    if (copy.before !== undefined) return copy;
    // A snapshot is frozen (snapshot()), so the record is frozen all the way down.
    const before = lifecycle.observedBefore(key) ?? snapshot(call);
    return before === undefined ? copy : Object.freeze({ ...copy, before });
  }

  /** The user messages the policy may read as consent (docs/guard.md, "Consent"). */
  function consentMessages(ctx: ContextData, lazy: LazyCall): { messages: string[]; context: ConsentContext | null } {
    if (config.consent === "question") {
      if (questions.size === 0 || lazy.shape() === null) return NO_CONSENT_INPUT;
      const asked = questions.get(lazy.hash());
      if (asked === undefined) return NO_CONSENT_INPUT;
      const out: string[] = [];
      for (let i = 0; i < ctx.users.length; i++) if (ctx.userIndex[i] >= asked) out.push(ctx.users[i]);
      return { messages: out, context: null };
    }
    // recent-messages: the answer to the latest question decides (./recent-consent.ts).
    const call = lazy.shape();
    if (call === null) return NO_CONSENT_INPUT;
    const conversation = ctx.conversation ?? ctx.users.map((content) => ({ role: "user", content }));
    return recentConsentMessages(conversation, callNames(call), detector);
  }

  function callNames(call: ToolCall): string[] {
    const info = engine.verifier.tool(call.name);
    return consentNames(call.name, call.arguments, info.keyArg === null ? null : (fieldAt(call.arguments, info.keyArg) as string | number | null));
  }

  interface Judged {
    decision: Decision;
    approve: { call: ToolCall; before: Before; admitted: boolean } | null;
    question: { hash: string; asked: number } | null;
    answered: string | null;
  }

  function judge(s: number, rawCall: unknown, context: unknown, model: ModelAnswers): Judged {
    const call = frozenJsonSafe(rawCall);
    const ctx = readContext(context);
    // The call's shape and hash only when consent needs them (the evaluation checks the shape anyway).
    const lazy = new LazyCall(call);
    const forward = ctx.error === null ? forwardFor(ctx) : NO_FORWARD;
    const consentInput = ctx.error === null ? consentMessages(ctx, lazy) : NO_CONSENT_INPUT;
    const userMessages = consentInput.messages;
    const consentContext = consentInput.context;
    const ev = evaluate({
      tables,
      verifier: engine.verifier,
      config,
      policy: policy!,
      detector,
      call,
      forward,
      state,
      userMessages,
      consentContext,
      model: ctx.error === null ? model : { ...NO_MODEL, error: ctx.error },
      sha256,
      unknown: unknown.empty ? null : unknown.list(),
    });
    if (ev.backendFailed && factory !== null) {
      // After a trap the instance's memory is suspect: serve the next call from a fresh backend.
      try {
        engine = build();
      } catch {
        // Keep the old one; every failing search is a veto anyway, and the next failure retries.
      }
    }
    let approve: Judged["approve"] = null;
    if (ev.approved && ev.reason !== "read_only" && ev.call !== null) {
      let before: Before;
      try {
        before = keepBefore(ev.call);
      } catch {
        // A StateView that throws here already made the decision fail closed above.
      }
      approve = { call: ev.call, before, admitted: ev.admissible };
    }
    let question: Judged["question"] = null;
    let answered: string | null = null;
    if (config.consent === "question" && (ev.route === "ConsentEscalated" || ev.route === "ConsentApproved") && lazy.shape() !== null) {
      if (ev.route === "ConsentEscalated") question = { hash: lazy.hash(), asked: ctx.userCount };
      else answered = lazy.hash();
    }
    const decision = record(s, ev, call, forward, userMessages, approve !== null ? `x${s}` : null, consentContext);
    return { decision, approve, question, answered };
  }

  function record(
    s: number, ev: Evaluation, call: unknown, forward: unknown[], userMessages: string[], execution: string | null, consentContext: ConsentContext | null = null,
  ): Decision {
    const decision = {
      format: DECISION_FORMAT,
      seq: s,
      route: ev.route,
      approved: ev.approved,
      execution,
      admissible: ev.admissible,
      reason: ev.reason,
      detail: ev.detail,
      call,
      forward: forward.length === 0 ? NO_FORWARD : Object.freeze(forward),
      verdict: ev.verdict === null ? null : ownVerdict(ev.verdict),
      targets: ev.targets === null ? null : frozenJsonSafe(ev.targets),
      classification: ev.classification,
      policy: policy!.name,
      tau: tauFixed(config),
      message: ev.message,
      refusal: ev.refusal,
      question: ev.question,
      userMessages: userMessages.length === 0 ? NO_MESSAGES : Object.freeze(userMessages),
      consent: ev.consent === null ? null : frozenJsonSafe(ev.consent),
      ...(consentContext === null ? {} : { consentContext: frozenJsonSafe(consentContext) }),
      unknown: ev.unknown === null ? null : Object.freeze(ev.unknown),
      reads: ev.reads,
    } as unknown as Decision;
    // The digest is computed on first read (serialising the record reads it), in its place among the
    // fields; the rest are assigned after it so every record keeps one field order.
    defineStateDigest(decision, ev.digest);
    decision.ontologyHash = ontologyHash;
    decision.config = config;
    decision.configHash = hash;
    decision.engineVersion = ENGINE_VERSION;
    decision.scope = scope;
    return Object.freeze(decision);
  }

  /** A record for a check that failed in a way nothing above foresaw: vetoed, never thrown. */
  function fallback(s: number, rawCall: unknown, e: unknown): Decision {
    const call = frozenJsonSafe(rawCall);
    const shape = checkCallShape(call);
    const ev = evaluate({
      tables,
      verifier: engine.verifier,
      config,
      policy: vetoPolicy,
      detector,
      call,
      forward: [],
      state: EMPTY_STATE,
      userMessages: [],
      model: { ...NO_MODEL, error: `guard: ${describeError(e)}` },
      sha256,
    });
    const vetoed: Evaluation = { ...ev, route: "Vetoed", approved: false, admissible: false, reason: "internal_error", detail: `guard: ${describeError(e)}`, verdict: null, targets: null, consent: null, question: null, unknown: null };
    vetoed.refusal = vetoed.message = refusalText({ call: shape.ok ? shape.call : { name: "", arguments: {} }, admissible: false, reason: "internal_error", verdict: null, tau: tauFixed(config), userMessages: [], consent: detector, tables });
    return record(s, vetoed, call, [], [], null);
  }

  function decide(rawCall: unknown, context: unknown, model: ModelAnswers): Decision {
    const s = seq + 1;
    let j: Judged;
    try {
      j = judge(s, rawCall, context, model);
    } catch (e) {
      j = { decision: fallback(s, rawCall, e), approve: null, question: null, answered: null };
    }
    // A record that could not be written was never decided: no seq, no pending execution, no question.
    cfg.log?.append(j.decision);
    seq = s;
    if (j.approve !== null) lifecycle.approve(s, j.approve.call, j.approve.before, j.approve.admitted, j.decision.execution ?? undefined);
    if (j.question !== null) {
      questions.delete(j.question.hash);
      questions.set(j.question.hash, j.question.asked);
      if (questions.size > MAX_QUESTIONS) questions.delete(questions.keys().next().value as string);
    }
    if (j.answered !== null) questions.delete(j.answered); // an answer approves one execution
    return j.decision;
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
    const ctx = readContext(context);
    if (ctx.error !== null) return NO_MODEL; // the decision fails closed on the context itself
    const input = { userMessages: ctx.users, call: checked.call };
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
    if (typeof opts !== "object" || opts === null) throw new GuardError("invalid-call", "observe: the options are not an object");
    if (opts.failed !== undefined && typeof opts.failed !== "boolean") throw new GuardError("invalid-call", "observe: `failed` is not a boolean");
    if (opts.execution !== undefined && typeof opts.execution !== "string") throw new GuardError("invalid-call", "observe: `execution` is not a string");
    if (opts.outcome !== undefined && opts.outcome !== "unknown") throw new GuardError("invalid-call", "observe: `outcome` is not `\"unknown\"`");
    if (opts.outcome === "unknown" && opts.failed === true) throw new GuardError("invalid-call", "observe: a call cannot be both `failed` (nothing changed) and of `unknown` outcome", "a call whose outcome is unknown may have changed something: pass only `outcome`");
    const safe = frozenJsonSafe(call);
    const checked = checkCallShape(safe);
    if (!checked.ok) throw new GuardError("invalid-call", `observe: ${checked.problem}`);
    const key = callKey(checked.call);
    let x: Execution | undefined;
    if (opts.execution !== undefined) {
      x = lifecycle.get(opts.execution);
      if (x === undefined || x.state !== "pending") throw new GuardError("invalid-call", `observe: execution \`${opts.execution}\` is not pending`, "pass the `execution` of an approved decision, once");
      if (x.key !== key) throw new GuardError("invalid-call", `observe: execution \`${opts.execution}\` approved another call (\`${x.call.name}\`)`);
    } else x = lifecycle.match(key);
    if (opts.failed === true) {
      if (x !== undefined) lifecycle.release(x);
      return { applied: null, sequenceLength: lifecycle.sequence().length, execution: x?.id ?? null, unknown: null };
    }
    const before = x !== undefined ? x.entry.before : snapshot(checked.call);
    const info = engine.verifier.tool(checked.call.name);
    const mutating = !info.known || !info.readOnly;
    const markActed = (): UnknownMark => {
      const k = info.keyArg === null ? undefined : fieldAt(checked.call.arguments, info.keyArg);
      const id = info.actsOn !== null && (typeof k === "string" || typeof k === "number") ? String(k) : null;
      const m: UnknownMark = { entity: info.actsOn ?? "*", id, tool: checked.call.name, execution: x?.id ?? null };
      unknown.mark(m);
      return m;
    };
    if (opts.outcome === "unknown") {
      // Nothing to project; the call stays in the forward sequence (it may have run) and what it acts
      // on is unknown (a read-only call changed nothing: it is observed as run).
      const marks = mutating ? [markActed()] : null;
      const entry: ExecutedCall = { name: checked.call.name, arguments: checked.call.arguments };
      if (before !== undefined) entry.before = before;
      lifecycle.observe(x, key, scope === "session" && mutating ? (safeExecuted(entry, true) as ExecutedCall) : entry, mutating);
      return { applied: null, sequenceLength: lifecycle.sequence().length, execution: x?.id ?? null, unknown: marks };
    }
    let applied: ApplyReport | null = null;
    let marks: UnknownMark[] | null = null;
    // Parsed once: the projection and the session record share the value (the guard's own).
    const parsed = parseToolResult(result);
    if (cfg.projection !== undefined) {
      try {
        applied = applyToolResult(cfg.projection, state as LayerB, checked.call, result, { ownCall: true, parsed });
      } catch (e) {
        applied = { tool: checked.call.name, matched: true, changes: [], skipped: [`the projection failed: ${describeError(e)}`] };
      }
      // A write whose result the rules could not project (an effect skipped: no record, no entity id):
      // what it touched is unknown from now on. Effects that apply to nothing (a `when` that does not
      // hold, an empty `forEach`) are the rules' answer, not a failure.
      if (mutating && applied.matched && applied.skipped.length > 0) marks = [markActed()];
    }
    const entry: ExecutedCall = { name: checked.call.name, arguments: checked.call.arguments, result: parsed.value };
    if (before !== undefined) entry.before = before;
    lifecycle.observe(x, key, scope === "session" && mutating ? (safeExecuted(entry, true) as ExecutedCall) : entry, mutating);
    return { applied, sequenceLength: lifecycle.sequence().length, execution: x?.id ?? null, unknown: marks };
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
    release(execution: string): boolean {
      const x = typeof execution === "string" ? lifecycle.get(execution) : undefined;
      if (x === undefined || x.state !== "pending") return false;
      lifecycle.release(x);
      return true;
    },
    pending: () => lifecycle.pending().map((x) => ({ execution: x.id, seq: x.seq, call: x.call })),
    markKnown(entity?: string, id?: string): void {
      unknown.clear(entity, id);
    },
    checkpoint(): void {
      lifecycle.checkpoint();
    },
    sequence: () => lifecycle.sequence().map((c) => ({ ...c })),
    snapshot: takeSnapshot,
  };
}

/** The verdict frozen in place (the verifier builds it fresh per verdict). */
function ownVerdict(v: VerdictRecord): VerdictRecord {
  const steps = v.steps;
  for (let i = 0; i < steps.length; i++) {
    // A fresh object per step. Its values are frozen copies the guard owns (the call's, the forward
    // sequence's, the values read through the RecordingView: Layer B's own or copied on read), shared
    // as they are, or fresh values of the verdict (a literal, a `$pending` marker), frozen here.
    const args = (steps[i] as { arguments: unknown }).arguments;
    if (typeof args === "object" && args !== null) {
      for (const k of Object.keys(args)) freezeOwn((args as Record<string, unknown>)[k]);
      Object.freeze(args);
    }
    Object.freeze(steps[i]);
  }
  Object.freeze(steps);
  Object.freeze(v.bottleneck);
  return Object.freeze(v);
}

/** The declared `slots` of a Layer B record (none when it is undefined), frozen. */
function beforeOf(slots: readonly string[], rec: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const before: Record<string, unknown> = {};
  if (rec !== undefined) {
    for (let i = 0; i < slots.length; i++) {
      const v = rec[slots[i]];
      if (v !== undefined) define(before, slots[i], ownValue(v));
    }
  }
  return Object.freeze(before);
}

/** A StateView's value as the guard keeps it (a `before` snapshot): Layer B's own frozen copy as it
 * is, any other object copied (frozen); what is not JSON becomes a frozen JSON-safe copy with markers
 * (never the caller's object). */
function ownValue(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  const c = ownedJson(v, false);
  return c === NOT_JSON ? frozenJsonSafe(v) : c;
}

/** The canonical text of a call, which identifies it across copies and key orders. */
function callKey(call: ToolCall): string {
  return canonicalJsonFast({ name: call.name, arguments: call.arguments });
}

/** A judged call's shape and consent hash, worked out only when consent asks for them. */
class LazyCall {
  private shaped: ToolCall | null | undefined = undefined;
  private hashed: string | null = null;
  constructor(private readonly call: unknown) {}

  shape(): ToolCall | null {
    if (this.shaped === undefined) {
      const c = checkCallShape(this.call);
      this.shaped = c.ok ? c.call : null;
    }
    return this.shaped;
  }

  /** SHA-256 of the call's canonical JSON: what a consent question is bound to. */
  hash(): string {
    return (this.hashed ??= sha256Hex(callKey(this.shape()!)));
  }
}

const NO_MESSAGES: string[] = Object.freeze([]) as unknown as string[];
const NO_CONSENT_INPUT: { messages: string[]; context: ConsentContext | null } = Object.freeze({ messages: NO_MESSAGES, context: null });
const NO_FORWARD: unknown[] = Object.freeze([]) as unknown as unknown[];

const EMPTY_STATE: StateView = { hasEntity: () => false, slot: () => undefined };

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
