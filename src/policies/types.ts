// The DecisionPolicy interface: a policy turns what the guard found (a verdict, or a fail-closed
// reason) into a route. Policies are pure and deterministic: the audit replay calls the same policy
// on the recorded input and must get the same route and text.
import type { ReasonName, ToolCall, Verdict } from "../core/types.js";
import type { ConsentContext, ConsentDetector, ConsentResult } from "./consent.js";
import type { OntologyTables } from "../ontology/tables.js";

export type Route = "Approved" | "Vetoed" | "ConsentApproved" | "ConsentEscalated" | "AdvisoryPassthrough";

export const ROUTES: readonly Route[] = ["Approved", "Vetoed", "ConsentApproved", "ConsentEscalated", "AdvisoryPassthrough"];

/** Why a decision came out as it did: the verdict's reason, or a guard-level one. */
export type GuardReason = ReasonName | "read_only" | "malformed_call" | "missing_entity" | "internal_error" | "unrequested_mutation" | "unknown_state" | "amount_exceeded";

/** Reasons no policy may turn into an approval: the guard could not judge the call at all. */
export const HARD_FAIL_REASONS: ReadonlySet<GuardReason> = new Set<GuardReason>([
  "malformed_call",
  "unknown_tool",
  "missing_entity",
  "internal_error",
  "unknown_state",
]);

/** The verdict as a decision carries it: bytes as hex so the record is plain JSON. */
export type VerdictRecord = Omit<Verdict, "bytes"> & { bytes: string };

export interface PolicyInput {
  call: ToolCall;
  /** The verdict admits the call: a complete π with φ ≥ τ. */
  admissible: boolean;
  reason: GuardReason;
  /** Null when the guard decided before searching (malformed call, unknown tool, missing entity, …). */
  verdict: VerdictRecord | null;
  /** τ as fixed point (FIXED_ONE = 1.0). */
  tau: number;
  /** The last user messages (at most three), oldest first. */
  userMessages: readonly string[];
  /** The guard's consent detector (the Escalate policy calls it). */
  consent: ConsentDetector;
  /** What the latest user message answers (`recent-messages` mode), for the detector; absent otherwise. */
  consentContext?: ConsentContext | null;
  /** Only for wording (resource and sink names); never for the decision itself. */
  tables: OntologyTables;
}

export interface PolicyOutcome {
  route: Route;
  /** The refusal or the consent question shown instead of running the call; null when it runs. */
  message: string | null;
  /** What the consent detector said, when the policy asked it. */
  consent: ConsentResult | null;
}

export interface DecisionPolicy {
  /** Recorded in every decision and the config hash; the audit replay looks custom policies up by it. */
  readonly name: string;
  decide(input: PolicyInput): PolicyOutcome;
}
