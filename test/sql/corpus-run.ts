// Quick runner: npx tsx test/sql/corpus-run.ts sqlite|postgres SEED CASES
import Database from "better-sqlite3";
import { PGlite } from "@electric-sql/pglite";
import { postgresAdapter, sqliteAdapter } from "../../src/sql/index.js";
import { runSqlCorpus, type CorpusDb } from "./corpus.js";

const [dialect, seed, cases] = [process.argv[2] as "sqlite" | "postgres", Number(process.argv[3] ?? 1), Number(process.argv[4] ?? 50)];
let pg: PGlite | null = null;
const makeDb = async (): Promise<CorpusDb> => {
  if (dialect === "sqlite") {
    const d = new Database(":memory:");
    return { db: sqliteAdapter(d), exec: async (s) => { d.exec(s); }, close: async () => { d.close(); } };
  }
  pg ??= await PGlite.create();
  await pg.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
  return { db: postgresAdapter(pg, { name: "corpus" }), exec: async (s) => void (await pg!.exec(s)), close: async () => {} };
};
const t0 = performance.now();
const r = await runSqlCorpus({ dialect, makeDb, seed, cases });
console.log(JSON.stringify({ ...r, failures: r.failures.length }, null, 0), `${((performance.now() - t0) / 1000).toFixed(1)} s`);
for (const f of r.failures.slice(0, Number(process.env.SHOW ?? 3))) console.log("\n#", f.index, f.statement, "\n", f.decision, "\n", f.problem.slice(0, 3000), "\nschema:", f.schema);
