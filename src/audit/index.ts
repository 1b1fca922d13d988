// The audit log: decisions as JSONL, and the replay that re-derives every decision from its record.
export { decisionLine, createMemorySink, createJsonlSink, splitJsonl } from "./jsonl.js";
export { verifyAuditLog, type VerifyOptions, type VerifyReport, type Mismatch } from "./verify.js";
export { summarizeLog, formatSummary, type LogSummary } from "./summary.js";
