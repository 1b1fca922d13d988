// Typed failures of `polar eval`: a stable code, a one-line message, an optional help text.
export type EvalErrorCode =
  | "bad-option"
  | "bad-data"
  | "bad-results"
  | "no-results"
  | "no-such-file"
  | "no-trajectories"
  | "core-unavailable"
  | "write-failed"
  | "no-ontology"
  | "ontology-errors"
  | "no-projection"
  | "no-domain";

export class EvalError extends Error {
  constructor(
    readonly code: EvalErrorCode,
    message: string,
    readonly help?: string,
  ) {
    super(message);
    this.name = "EvalError";
  }
}
