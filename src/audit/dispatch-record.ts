// The format tag of an MCP gateway dispatcher tool's audit record (src/mcp/gateway.ts writes one per
// judged SQL statement or shell command, wrapping the core decisions behind the verdict, and for one it
// sends two: its decision (`pending`) before it is sent, then the same with the outcome; ./verify.ts
// replays them and checks that the verdict follows from them). It sits in the gateway's hash chain but
// not in its guard's numbering (like an outcome record); its `outcome` says what then happened.
export const DISPATCH_RECORD_FORMAT = "polar-dispatch/1";

export interface DispatchRecord {
  format: typeof DISPATCH_RECORD_FORMAT;
  /** The MCP tool called, its dispatcher (`sql`, `shell`) and the string judged. */
  tool: string;
  dispatcher: string;
  text: string;
  action: "allow" | "ask" | "deny";
  reason: string;
  /** The core decisions behind the verdict (each replayed by `polar audit verify`). */
  decisions: unknown[];
  /** A read-only approval's evidence when no core decision was asked (e.g. a SELECT). */
  readOnly?: Record<string, unknown>;
  /** A user's consent through elicitation ran this `ask`. */
  consented?: boolean;
  /** What happened: `ran`, `failed` (the server answered an error), `unknown` (sent, not answered) or
   * `refused` (never sent). `pending`: the decision of a call about to be sent, written before it is
   * (the gateway then writes the same record with its outcome; a `pending` without one is a call whose
   * outcome was never recorded, e.g. the gateway stopped). */
  outcome: "ran" | "failed" | "unknown" | "refused" | "pending";
  detail?: string | null;
}
