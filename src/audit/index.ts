// The audit log: decisions as chained JSONL, and the replay that re-derives every decision from its record.
export { decisionLine, createMemorySink, createJsonlSink, splitJsonl, type SinkOptions } from "./jsonl.js";
export { CHAIN_GENESIS, createChain, recordHash, type Chain, type ChainHead, type ChainLink, type ChainedDecision } from "./chain.js";
export { chainHead, AuditHeadError } from "./head.js";
export { verifyAuditLog, type VerifyOptions, type VerifyReport, type Mismatch, type DispatchRecordCheck } from "./verify.js";
export { summarizeLog, formatSummary, type LogSummary } from "./summary.js";
export { OUTCOME_FORMAT, CALL_OUTCOMES, outcomeRecord, isOutcomeSink, type OutcomeRecord, type OutcomeSink, type CallOutcome } from "./outcome.js";
export { HOOK_RECORD_FORMAT } from "./hook-record.js";
export { DISPATCH_RECORD_FORMAT, type DispatchRecord } from "./dispatch-record.js";
