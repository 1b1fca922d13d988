// The audit log: decisions as chained JSONL, and the replay that re-derives every decision from its record.
export { decisionLine, createMemorySink, createJsonlSink, splitJsonl, type SinkOptions } from "./jsonl.js";
export { CHAIN_GENESIS, createChain, recordHash, type Chain, type ChainHead, type ChainLink, type ChainedDecision } from "./chain.js";
export { chainHead } from "./head.js";
export { verifyAuditLog, type VerifyOptions, type VerifyReport, type Mismatch } from "./verify.js";
export { summarizeLog, formatSummary, type LogSummary } from "./summary.js";
export { HOOK_RECORD_FORMAT } from "./hook-record.js";
