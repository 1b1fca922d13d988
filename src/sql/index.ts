// polar-guard/sql (Node only): SQL statements judged on the rows they would change, with restore points
// and undo, for SQLite (better-sqlite3) and PostgreSQL (PGlite, node-postgres). docs/sql.md.
// The parser (libpg-query) and deparser (pgsql-deparser) are optional peer dependencies of this subpath.
export {
  createSqlGuard,
  SqlGuardError,
  SQL_DECISION_FORMAT,
  DEFAULT_SQL_BOUNDS,
  type SqlGuard,
  type SqlGuardOptions,
  type SqlGuardErrorCode,
  type SqlDecision,
  type SqlTypedCall,
  type SqlPolicy,
  type SqlAction,
  type SqlBounds,
} from "./guard.js";
export { sqliteAdapter, postgresAdapter, SqlAdapterError, type SqlAdapter, type SqlDialect, type Row } from "./adapter.js";
export { dispatchSql, loadSqlParser, targetSelect, type SqlCall, type Problem, type ProblemReason, type Dispatch, type DmlPlan } from "./parse.js";
export {
  SqlStore,
  SqlJournal,
  undoSqlEntry,
  latestSqlSession,
  describeSqlStep,
  type SqlRestorePoint,
  type SqlRestoreSummary,
  type SqlJournalEntry,
  type SqlUndoEntry,
  type SqlUndoResult,
  type SqlUndoSelector,
  type SqlInverseStep,
} from "./undo.js";
