// Layer B: the state projection (runtime-neutral; no Node imports). See docs/projection.md.
export { LayerB, type LayerBJson, type SlotRecord } from "./layer-b.js";
export {
  parseProjectionRules,
  safeParseProjectionRules,
  PROJECTION_FORMAT,
  type ProjectionRules,
  type ParseRulesResult,
  type EntityRule,
  type SourceRule,
  type EffectRule,
  type ReadRule,
  type ReadStep,
} from "./rules.js";
export { judgedCall, readArguments, applyReadResult, applyReadsFinally, readRuleOf, type DeriveResult } from "./reads.js";
export {
  projectDocument,
  applyToolResult,
  applyAction,
  parseToolResult,
  type ProjectDocumentOptions,
  type ApplyReport,
  type ApplyOptions,
  type ToolResultChange,
} from "./project.js";
export { canonicalJson, digestHex } from "./canonical.js";
export { parseTomlDocument } from "./toml.js";
export { ProjectionError, type ProjectionErrorCode, type RuleIssue } from "./errors.js";
