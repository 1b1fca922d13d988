// The guard's shared types: the neutral API (options, the Guard, its reports) and the snapshot's data
// format with its limits. Types and constants only: every part of the guard imports from here and this
// module imports no part of it that imports it back (test/guard/import-cycles.test.ts).
import type { SearchBackend } from "../core/backend.js";
import type { ExecutedCall, StateView, ToolCall } from "../core/types.js";
import type { Sha256 } from "../blob/index.js";
import type { OntologyTables } from "../ontology/tables.js";
import type { ApplyReport } from "../projection/project.js";
import type { ProjectionRules } from "../projection/rules.js";
import type { ConsentDetector } from "../policies/consent.js";
import type { IntentParser, RequestClassifier } from "../policies/classifier.js";
import type { PolicyName } from "../policies/index.js";
import type { DecisionPolicy } from "../policies/types.js";
import { MAX_CALLS } from "../abi.js";
import type { ConsentMode, EffectiveConfig, EnvReader, Scope, VerdictSettings } from "./config.js";
import type { Decision } from "./decision.js";
import type { GuardError } from "./errors.js";
import type { UnknownMark } from "./unknown.js";

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

// ---- The snapshot's data (src/guard/snapshot.ts reads and writes it; src/guard/lifecycle.ts exports
// and restores its part of it) ----

export const SNAPSHOT_FORMAT = "polar-guard-snapshot/1";

/** Open consent questions kept at most (the oldest is forgotten past it). */
export const MAX_QUESTIONS = 256;

/** An approved execution not yet observed nor released (its id is `x<seq>`). */
export interface SnapshotExecution {
  seq: number;
  call: ToolCall;
  /** The acts_on entity's slots when it was checked (absent: the call acts on none). */
  before?: Record<string, unknown>;
  /** The search admitted it (observed unadmitted, it is a barrier). */
  admitted: boolean;
  /** A barrier or checkpoint came while it was pending: observed, it does not join the sequence. */
  committed: boolean;
}

/** One call of the session's forward sequence, and the seq of the check behind it (0: observed
 * without a check). */
export interface SnapshotSequenceEntry {
  seq: number;
  call: ExecutedCall;
}

/** An observed call, as turn scope's barrier search and `before` lookup remember it. */
export interface SnapshotObserved {
  call: ToolCall;
  admitted: boolean;
  before?: Record<string, unknown>;
}

export interface GuardSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  ontologyHash: string;
  configHash: string;
  policy: string;
  scope: Scope;
  /** The last decision's seq (the next check is seq + 1). */
  seq: number;
  /** Pending executions in check order, committed ones included. */
  executions: SnapshotExecution[];
  /** Session scope's observed, uncommitted calls, oldest first (at most `maxDepth`). */
  sequence: SnapshotSequenceEntry[];
  /** Observed calls since the last checkpoint, oldest first. */
  history: SnapshotObserved[];
  /** Open consent questions, oldest first: the call's hash and how many user messages there were when
   * the guard asked. */
  questions: { hash: string; asked: number }[];
  /** Unknown marks, in the order they were made (one with `id: null` stands for everything). */
  unknown: UnknownMark[];
}

/** What a snapshot must match: the guard being built. */
export interface SnapshotBinding {
  ontologyHash: string;
  configHash: string;
  policy: string;
  scope: Scope;
  maxDepth: number;
}


/** Executions kept for an observe that names them; past it the oldest committed ones are forgotten
 * (an observe then re-reads `before` from Layer B, which for a committed call changes no verdict). */
export const MAX_TRACKED = 512;
/** Observed executions remembered for turn scope's barriers (a message has far fewer calls). */
export const MAX_HISTORY = MAX_CALLS;

/** The lifecycle's state as data (src/guard/snapshot.ts): values by reference, the caller copies. */
export interface LifecycleState {
  executions: SnapshotExecution[];
  sequence: SnapshotSequenceEntry[];
  history: SnapshotObserved[];
}
