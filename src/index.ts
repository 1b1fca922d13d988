// polar-guard's public API, the same in every runtime. Each runtime entry (src/runtimes/) re-exports
// this file and supplies its own loadGuard / loadVerifier / loadCore (how the core and the ontology
// are obtained there); the ones below are the portable defaults, which fetch the core from beside this
// file or take it as `wasm`. The compiler is not here: it lives in `polar-guard/compiler`.

// The guard: check a call before it runs, observe its result, audit the decisions.
export {
  createGuard,
  safeCreateGuard,
  wrapTools,
  isGuardRefusal,
  NothingChangedError,
  changedNothing,
  GuardError,
  isGuardError,
  DECISION_FORMAT,
  SNAPSHOT_FORMAT,
  DEFAULT_TAU,
  DEFAULT_NOW,
  type Guard,
  type GuardOptions,
  type GuardConfig,
  type CheckContext,
  type ObserveOptions,
  type ObserveReport,
  type Decision,
  type AuditSink,
  type BackendFactory,
  type ToolFunction,
  type WrapOptions,
  type GuardRefusal,
  type Scope,
  type GuardSnapshot,
} from "./guard/index.js";
// Writing the audit log. Reading it back (`verifyAuditLog`, `summarizeLog`, `formatSummary`) is the
// subpath polar-guard/audit (src/audit/api.ts), kept out of the runtime bundles.
export { createMemorySink, createJsonlSink, decisionLine, chainHead, createChain, recordHash, CHAIN_GENESIS, type ChainHead, type ChainLink } from "./audit/index.js";

// Decision policies and the consent detector.
export {
  vetoPolicy,
  escalatePolicy,
  advisoryPolicy,
  BUILTIN_POLICIES,
  defaultConsentDetector,
  detectConsent,
  type DecisionPolicy,
  type PolicyName,
  type PolicyInput,
  type PolicyOutcome,
  type Route,
  type ConsentDetector,
  type ConsentResult,
} from "./policies/index.js";

// The verifier: one verdict over a forward sequence and a view of Layer B.
export { createVerifier, VerifierError, type Verifier, type ToolInfo } from "./core/verifier.js";
export { explainVerdict } from "./core/explain.js";
export type {
  ToolCall,
  ExecutedCall,
  StateView,
  Verdict,
  VerdictStep,
  VerdictOptions,
  Bottleneck,
  ReasonName,
  TierName,
} from "./core/types.js";

// The WebAssembly core and compiled ontologies (validated on load).
export { instantiateCore, instantiateCoreSync, CoreError, type CoreInstance, type CoreSource, type CoreOptions } from "./core/wasm.js";
export type { SearchBackend } from "./core/backend.js";
export { decodeBlob, safeDecodeBlob, blobInfo, blobDigestHex, BlobError, type BlobInfo } from "./blob/index.js";
export type { OntologyTables } from "./ontology/tables.js";
export { prepareOntology, prepareOntologyAsync, type PreparedOntology, type OntologyBytes, type AsyncDigest } from "./ontology/prepared.js";

// Layer B: the state projection.
export {
  LayerB,
  parseProjectionRules,
  safeParseProjectionRules,
  projectDocument,
  applyToolResult,
  applyAction,
  canonicalJson,
  digestHex,
  ProjectionError,
  type LayerBJson,
  type ProjectionRules,
} from "./projection/index.js";

// Loading in this runtime.
export {
  RuntimeError,
  type RuntimeErrorCode,
  type LoadGuardOptions,
  type LoadVerifierOptions,
  type OntologySource,
  type CoreInput,
  type BlobSource,
  type WasmSource,
} from "./loading/shared.js";
export { loadCore, loadGuard, loadVerifier } from "./loading/portable.js";
export { VERSION, ENGINE_VERSION } from "./version.js";
