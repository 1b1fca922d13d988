// A Decision: what the guard answers for one call, as plain JSON data. It is also the audit record
// (one JSONL line per decision): everything needed to re-derive it is inside (docs/guard.md, "Audit").
import type { ConsentContext, ConsentResult } from "../policies/consent.js";
import type { GuardReason, Route, VerdictRecord } from "../policies/types.js";
import type { RequestClass, TargetState } from "../policies/classifier.js";
import type { EffectiveConfig, Scope } from "./config.js";
import type { Read } from "./reads.js";
import type { UnknownMark } from "./unknown.js";

export const DECISION_FORMAT = "polar-decision/1";

/** One candidate target state of the intent parser and the verdict against it. */
export interface TargetEvaluation {
  label: string;
  assertions: TargetState["assertions"];
  admissible: boolean;
  reason: GuardReason;
  verdict: VerdictRecord | null;
  reads: Read[];
  stateDigest: string;
}

/** Frozen all the way down, and owning its data: nothing in it is shared with Layer B or the guard. */
export interface Decision {
  format: typeof DECISION_FORMAT;
  /** 1-based, per guard. */
  seq: number;
  route: Route;
  /** The call may run (Approved, ConsentApproved, AdvisoryPassthrough). */
  approved: boolean;
  /** The execution this approval created (`x<seq>`): pass it to `observe` (it ran) or `release` (it
   * did not). Null for a refused or read-only call. Until then the call is in every later forward. */
  execution: string | null;
  /** The verdict alone admits the call: read-only, or a complete π with φ ≥ τ. */
  admissible: boolean;
  reason: GuardReason;
  /** The underlying error for `malformed_call` / `internal_error`, else null. */
  detail: string | null;
  /** The call as judged (a JSON copy; non-JSON values are `{ "$nonjson": kind }`). */
  call: unknown;
  /** The calls before the candidate in the forward sequence (session: executed since the checkpoint;
   * turn: the earlier calls of the same assistant message), then the pending executions (marked
   * `pending: true`, no result); only the last `maxDepth` mutating ones. */
  forward: unknown[];
  verdict: VerdictRecord | null;
  /** The intent parser's candidates, each with its own verdict; null without an intent parser. */
  targets: TargetEvaluation[] | null;
  /** The request classifier's answer; null without a classifier or for read-only calls. */
  classification: RequestClass | null;
  policy: string;
  /** τ in fixed point (FIXED_ONE = 1.0). */
  tau: number;
  /** What to show instead of running the call: the refusal or the consent question; null if it runs. */
  message: string | null;
  refusal: string | null;
  question: string | null;
  /** The last three user messages the policy saw, and what the consent detector said (if asked). */
  userMessages: string[];
  consent: ConsentResult | null;
  /** `recent-messages` mode, when the latest user message decided alone: the assistant message it answers
   * and the words naming the call, which the detector read with it. Absent otherwise. */
  consentContext?: ConsentContext;
  /** The unknown marks (src/guard/unknown.ts) the decision's reads hit; null when none. */
  unknown: UnknownMark[] | null;
  /** Layer B values the decision read and their digest (SHA-256 of the canonical JSON of `reads`). */
  reads: Read[];
  stateDigest: string;
  ontologyHash: string;
  config: EffectiveConfig;
  configHash: string;
  engineVersion: string;
  scope: Scope;
}
