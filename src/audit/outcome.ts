// Outcome records: what finally happened to an approved call. A decision record says what the guard
// decided; a host that runs the call (the MCP gateway) may still not run it (the inverse's tool is not
// on the server, a consent no longer covers the state) or may not learn whether it ran (cancelled,
// timed out). It appends one outcome record per approved decision, in the same hash chain, right after
// the call, so the log says what happened, not only what was allowed. Records are canonical JSON like
// decisions; `verifyAuditLog` checks that each names an approved decision earlier in the log.
export const OUTCOME_FORMAT = "polar-outcome/1";

export type CallOutcome =
  /** It ran and its answer was observed. */
  | "ran"
  /** It ran and failed, or the server refused it: known to have changed nothing. */
  | "failed"
  /** It may have run: cancelled, timed out, or its answer was lost. What it acts on is marked unknown. */
  | "unknown"
  /** The guard approved it, but the host did not run it (released). */
  | "refused";

export const CALL_OUTCOMES: readonly CallOutcome[] = ["ran", "failed", "unknown", "refused"];

export interface OutcomeRecord {
  format: typeof OUTCOME_FORMAT;
  /** The `seq` of the approved decision this is the outcome of (the nearest earlier decision record
   * with that seq, in the same guard's run). */
  seq: number;
  /** Its execution id (`x<seq>`). */
  execution: string;
  outcome: CallOutcome;
  /** Why, in words (the refusal's reason, the error); null when it ran. */
  detail: string | null;
}

export function outcomeRecord(seq: number, execution: string, outcome: CallOutcome, detail: string | null = null): OutcomeRecord {
  return { format: OUTCOME_FORMAT, seq, execution, outcome, detail };
}

/** A sink that can also take outcome records (createJsonlSink, createMemorySink). */
export interface OutcomeSink {
  outcome(record: OutcomeRecord): void;
}

export function isOutcomeSink(s: unknown): s is OutcomeSink {
  return typeof (s as { outcome?: unknown } | null)?.outcome === "function";
}

/** Problems with a parsed outcome record's shape (empty when well-formed). */
export function outcomeProblems(r: Record<string, unknown>): string[] {
  const out: string[] = [];
  const keys = ["format", "seq", "execution", "outcome", "detail", "chain"];
  for (const k of Object.keys(r)) if (!keys.includes(k)) out.push(`unknown key \`${k}\``);
  if (!Number.isInteger(r.seq) || (r.seq as number) < 1) out.push("`seq` is not a positive integer");
  if (typeof r.execution !== "string" || r.execution !== `x${String(r.seq)}`) out.push("`execution` is not `x<seq>`");
  if (!CALL_OUTCOMES.includes(r.outcome as CallOutcome)) out.push(`\`outcome\` is not one of ${CALL_OUTCOMES.join(", ")}`);
  if (r.detail !== null && typeof r.detail !== "string") out.push("`detail` is not a string or null");
  return out;
}
