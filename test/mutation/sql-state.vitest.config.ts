import { mutationVitestConfig } from "./base.js";

// src/sql/state.ts (Catalog, the rows of a scope, canonical values): test/sql/state.test.ts states it
// in-process on better-sqlite3, then test/sql/state-pg.test.ts on one PGlite (kept for the whole run:
// test/sql/pglite.ts). Per-test coverage: a mutant of the SQLite path runs only the SQLite cases, and
// none of them starts PGlite.
export default mutationVitestConfig(["test/sql/state.test.ts", "test/sql/state-pg.test.ts"], { shared: true });
