// Typed failures of the projection layer. Expected outcomes (an unknown tool, a skipped effect) are
// data in the reports; these are for inputs we refuse: malformed rules, values that are not JSON, an
// expression that cannot be evaluated on the data it was given.

export type ProjectionErrorCode =
  | "invalid-rules"
  | "not-json"
  | "eval-error"
  | "missing-id"
  | "bad-document"
  | "bad-state";

/** One problem found in a rules document; `path` is a JSON pointer into the rules. */
export interface RuleIssue {
  code: string;
  message: string;
  path: string;
  help?: string;
}

export class ProjectionError extends Error {
  override readonly name = "ProjectionError";
  readonly code: ProjectionErrorCode;
  readonly help: string | undefined;
  /** For `invalid-rules`: every problem found, not only the first. */
  readonly issues: RuleIssue[];

  constructor(code: ProjectionErrorCode, message: string, options: { help?: string; issues?: RuleIssue[] } = {}) {
    super(message);
    this.code = code;
    this.help = options.help;
    this.issues = options.issues ?? [];
  }
}
