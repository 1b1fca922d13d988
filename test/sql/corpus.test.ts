// Proof by execution (issue 25): the generated corpus of test/sql/corpus.ts on SQLite (better-sqlite3)
// and PostgreSQL (PGlite): every approved statement runs, is undone, and the database equals the one
// before (rows as multisets, schema, sequence names; sequence values are the declared residue); every
// refusal names what would be lost. Fixed seeds; 400 SQLite + 150 PGlite cases (about 3 s + 10 s of CPU here).
// A real PostgreSQL server runs the same cases through runSqlCorpus with its own makeDb.
import Database from "better-sqlite3";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { postgresAdapter, sqliteAdapter } from "../../src/sql/index.js";
import { runSqlCorpus, type CorpusReport } from "./corpus.js";

function summary(r: CorpusReport): string {
  return `${r.cases} cases: ${r.approved} approved (${r.failedToRun} of them failed when run), ${r.refused} refused, ${r.wrong} wrong; reasons ${JSON.stringify(r.reasons)}`;
}

function explain(r: CorpusReport): string {
  return r.failures.slice(0, 3).map((f) => `#${f.index} ${f.statement}\n${JSON.stringify(f.decision)}\n${f.problem.slice(0, 1500)}\n${f.schema}`).join("\n\n");
}

describe("the SQL corpus: 0 wrong", () => {
  it.each([11, 12])("SQLite, seed %i, 200 cases", async (seed) => {
    const r = await runSqlCorpus({
      dialect: "sqlite",
      seed,
      cases: 200,
      makeDb: async () => {
        const d = new Database(":memory:");
        return { db: sqliteAdapter(d), exec: async (s) => { d.exec(s); }, close: async () => { d.close(); } };
      },
    });
    console.log(`sqlite seed ${seed}: ${summary(r)}`);
    expect(r.wrong, explain(r)).toBe(0);
    expect(r.cases).toBe(200);
    // The corpus says something: both verdicts occur in numbers.
    expect(r.approved).toBeGreaterThan(60);
    expect(r.refused).toBeGreaterThan(40);
    expect(r.reasons.restore_point).toBeGreaterThan(30);
  });

  let pg: PGlite | null = null;
  afterAll(async () => {
    await pg?.close();
  });

  it("PostgreSQL (PGlite), seed 21, 150 cases", async () => {
    pg = await PGlite.create();
    const r = await runSqlCorpus({
      dialect: "postgres",
      seed: 21,
      cases: 150,
      makeDb: async () => {
        await pg!.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
        return { db: postgresAdapter(pg!, { name: "corpus" }), exec: async (s) => { await pg!.exec(s); }, close: async () => {} };
      },
    });
    console.log(`pglite seed 21: ${summary(r)}`);
    expect(r.wrong, explain(r)).toBe(0);
    expect(r.approved).toBeGreaterThan(45);
    expect(r.refused).toBeGreaterThan(30);
    expect(r.reasons.restore_point).toBeGreaterThan(25);
  }, 600_000);
});
