import { mutationVitestConfig } from "./base.js";

// src/sql/undo.ts (restore points, the journal, undoSqlEntry, applyPoint): test/sql/undo.test.ts states
// it in-process on SQLite (every refusal, the journal, what a point puts back, run for real), then
// test/sql/guard-verdicts.test.ts (SQLite: every approval there is run, observed and undone), then the
// PostgreSQL undos on one PGlite kept for the whole run (test/sql/pglite.ts): test/sql/guard.test.ts
// (both dialects) and test/sql/guard-pg.test.ts. Per-test coverage: a mutant of the SQLite path runs
// the tests that reach it, not the PGlite ones.
export default mutationVitestConfig(
  ["test/sql/undo.test.ts", "test/sql/guard-verdicts.test.ts", "test/sql/guard.test.ts", "test/sql/guard-pg.test.ts"],
  { shared: true },
);
