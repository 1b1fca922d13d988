import { mutationVitestConfig } from "./base.js";

// src/sql/state.ts (Catalog, the rows of a scope, canonical values): test/sql/state.test.ts states it
// in-process on better-sqlite3 and one PGlite (kept for the whole run: test/sql/pglite.ts).
export default mutationVitestConfig(["test/sql/state.test.ts"], { shared: true });
