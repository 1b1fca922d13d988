// The guard: createGuard, wrapTools, the Decision record. Runtime-neutral (no Node imports).
export {
  createGuard,
  safeCreateGuard,
  type Guard,
  type GuardOptions,
  type GuardConfig,
  type CheckContext,
  type ObserveOptions,
  type ObserveReport,
  type BackendFactory,
  type AuditSink,
  type OntologyInput,
  type SafeGuardResult,
} from "./guard.js";
export { wrapTools, isGuardRefusal, NothingChangedError, changedNothing, type ToolFunction, type GuardRefusal, type WrapOptions, type WrappedTools } from "./wrap.js";
export { GuardError, isGuardError, type GuardErrorCode } from "./errors.js";
export { SNAPSHOT_FORMAT, type GuardSnapshot, type SnapshotExecution, type SnapshotSequenceEntry, type SnapshotObserved } from "./types.js";
export { DECISION_FORMAT, type Decision, type TargetEvaluation } from "./decision.js";
export {
  DEFAULT_TAU,
  DEFAULT_TIERS,
  DEFAULT_NOW,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_NODES,
  configHash,
  resolveConfig,
  type EffectiveConfig,
  type EnvReader,
  type Scope,
} from "./config.js";
export { readsDigest, type Read } from "./reads.js";
export { jsonSafe } from "./call.js";
