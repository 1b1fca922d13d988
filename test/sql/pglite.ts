// One PGlite for a test file, made on first use (a run of SQLite tests alone does not start it). Under
// a mutation run (test/mutation/sql-*.vitest.config.ts sets POLAR_SHARED_PGLITE=1 and isolate: false)
// it is kept on globalThis for the whole test-runner process and never closed: starting PGlite costs
// seconds, and Stryker reruns the test files once per mutant.
import { PGlite } from "@electric-sql/pglite";

const shared = process.env.POLAR_SHARED_PGLITE === "1";
const KEY = Symbol.for("polar-guard.test.sql.pglite");
let mine: Promise<PGlite> | null = null;

export function pglite(): Promise<PGlite> {
  if (shared) {
    const g = globalThis as { [KEY]?: Promise<PGlite> };
    g[KEY] ??= PGlite.create();
    return g[KEY];
  }
  mine ??= PGlite.create();
  return mine;
}

/** For afterAll: closes this file's PGlite (a shared one stays open). */
export async function closePglite(): Promise<void> {
  if (shared || mine === null) return;
  const p = mine;
  mine = null;
  await (await p).close();
}
