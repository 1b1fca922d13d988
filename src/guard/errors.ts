// The guard's typed failures: misuse of the API (bad config, a corrupt ontology, an unusable backend).
// Expected outcomes of a check (a veto, a question, a fail-closed reason) are Decisions, never errors.

export type GuardErrorCode =
  | "invalid-ontology"
  | "invalid-backend"
  | "invalid-config"
  | "invalid-state"
  | "invalid-call"
  | "async-required"
  | "bad-snapshot"
  | "snapshot-not-authentic"
  | "snapshot-other-session";

export class GuardError extends Error {
  override readonly name = "GuardError";
  readonly code: GuardErrorCode;
  readonly help: string | undefined;

  constructor(code: GuardErrorCode, message: string, help?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.help = help;
  }
}

export function isGuardError(e: unknown): e is GuardError {
  return e instanceof GuardError;
}

/** A one-line description of anything thrown, for a decision's `detail`. */
export function describeError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${e.message}` : `${e.name}: ${e.message}`;
  }
  return String(e);
}
