// polar-guard/audit: reading an audit log back. `verifyAuditLog` replays every decision from its record
// (it carries the TypeScript reference search, the policies and the guard's evaluation to re-derive
// them) and `summarizeLog` / `formatSummary` count what a log holds. A subpath of its own so the runtime
// entries, which only write logs (sinks, the chain, `decisionLine`, `recordHash`), do not ship them.
export { verifyAuditLog, type VerifyOptions, type VerifyReport, type Mismatch, type DispatchRecordCheck } from "./verify.js";
export { summarizeLog, formatSummary, type LogSummary } from "./summary.js";
