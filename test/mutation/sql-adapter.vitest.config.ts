import { mutationVitestConfig } from "./base.js";

// src/sql/adapter.ts (sqliteAdapter, postgresAdapter): test/sql/adapter.test.ts states both in-process
// on better-sqlite3, a recording client and one PGlite (kept for the whole run: test/sql/pglite.ts).
export default mutationVitestConfig(["test/sql/adapter.test.ts"], { shared: true });
