// polar-guard/shell (Node only): a coding agent's shell commands, git and file edits judged on the
// workspace they meet, with restore points and undo. docs/shell.md.
export {
  createShellGuard,
  undoEntry,
  ShellGuardError,
  SHELL_DECISION_FORMAT,
  type ShellGuard,
  type ShellGuardOptions,
  type ShellGuardErrorCode,
  type ShellDecision,
  type ShellToolCall,
  type ShellPolicy,
  type ShellAction,
  readOnlyChecker,
  type ReadOnlyChecker,
  type ReadOnlyEvidence,
} from "./guard.js";
export { dispatchCommand, parseCatalogue, type TypedCall, type Problem, type ProblemReason, type Dispatch, type Catalogue } from "./dispatch.js";
export { loadBashParser, parseCommandLine, MAX_COMMAND_BYTES, type SimpleCommand, type Word, type ParseResult } from "./parse.js";
export { RestoreStore, RestoreError, DEFAULT_BOUNDS, type RestoreBounds, type RestorePoint, type RestoreSummary } from "./restore.js";
export { Journal, latestSession, type UndoEntry, type UndoResult, type UndoSelector, type InverseStep } from "./undo.js";
export { Workspace, WorkspaceReadError, type PathFacts, type RepoFacts } from "./workspace.js";
export { CREATION_ONLY_TOOLS, creationOnly } from "./creation.js";
