import { mutationVitestConfig } from "./base.js";

// src/sql/guard.ts (createSqlGuard: the verdict on a statement): the suites that run the SQL guard in
// this process on SQLite (better-sqlite3) and PostgreSQL (PGlite), the SQLite ones first. Left out:
// test/sql/corpus.test.ts (550 generated cases, ~13 s of CPU per run: every mutant of judge() would
// replay it; the named cases state the same verdicts), test/sql/postgres.test.ts (a real server),
// test/sql/undo-cli.test.ts and test/mcp/sql-*.test.ts (child processes, which cannot see a mutant).
// One PGlite for the whole run (test/sql/pglite.ts): starting it costs seconds per mutant otherwise.
export default mutationVitestConfig(
  ["test/sql/guard-verdicts.test.ts", "test/sql/guard-scopes.test.ts", "test/sql/guard-points.test.ts", "test/sql/guard-approvals.test.ts", "test/sql/guard-refusals.test.ts", "test/sql/guard.test.ts", "test/sql/guard-pg.test.ts"],
  { shared: true },
);
