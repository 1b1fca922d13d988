// Refusals the SQL guard keeps whatever the bound: what no restore point can make undoable (ALTER
// TABLE's old definition) is refused for what it is, never as "over the bound", and no row of the table
// is read for it (PostgreSQL through PGlite).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePglite, pglite } from "./pglite.js";
import { createSqlGuard, postgresAdapter, type SqlAdapter } from "../../src/sql/index.js";

let store: string;
beforeAll(() => {
  store = mkdtempSync(join(tmpdir(), "polar-sql-refusals-"));
});
afterAll(async () => {
  rmSync(store, { recursive: true, force: true });
  await closePglite();
});

describe("what no restore point can undo", () => {
  it("ALTER TABLE is refused as irreversible at any bound, and no row of the table is read", async () => {
    const pg = await pglite();
    await pg.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public; CREATE TABLE notes (body text); INSERT INTO notes VALUES ('a'), ('b'), ('c');");
    const base = postgresAdapter(pg, { name: "refusals" });
    const reads: string[] = [];
    const db: SqlAdapter = { ...base, read: (sql, params) => (reads.push(sql), base.read(sql, params)) };
    for (const maxRows of [0, 1, 10_000]) {
      reads.length = 0;
      const d = await (await createSqlGuard({ db, store, bounds: { maxRows } })).check("ALTER TABLE notes ADD COLUMN x integer");
      expect(d, String(maxRows)).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4", restorePoint: null });
      expect(d.message).toMatch(/^not approved: ALTER TABLE public\.notes changes its definition/);
      expect(reads.filter((s) => s.includes('FROM "public"."notes"'))).toEqual([]);
    }
  });
});

describe("what no restore point can undo, beside what one could keep", () => {
  it("a DELETE over the bound and an ALTER TABLE in one string are refused as irreversible at any bound, never as over the bound", async () => {
    const pg = await pglite();
    await pg.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public; CREATE TABLE notes (body text); INSERT INTO notes VALUES ('a'), ('b'), ('c'); CREATE TABLE log (id integer);");
    for (const maxRows of [1, 10_000]) {
      const d = await (await createSqlGuard({ db: postgresAdapter(pg, { name: "refusals" }), store, bounds: { maxRows } })).check("DELETE FROM notes; ALTER TABLE log ADD COLUMN x integer");
      expect(d, String(maxRows)).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4", restorePoint: null });
    }
  });
});

describe("what a refusal names", () => {
  it("ALTER TABLE of a table with a trigger is refused for its definition (an ALTER fires no trigger); a DELETE of it names the trigger", async () => {
    const pg = await pglite();
    await pg.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; CREATE TABLE notes (id integer PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'a');
      CREATE FUNCTION nop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE TRIGGER notes_t AFTER DELETE ON notes FOR EACH ROW EXECUTE FUNCTION nop();`);
    const g = await createSqlGuard({ db: postgresAdapter(pg, { name: "refusals" }), store });
    const d = await g.check("ALTER TABLE notes ADD COLUMN x integer");
    expect(d).toMatchObject({ approved: false, reason: "irreversible", tier: "T4" });
    expect(d.message).toMatch(/^not approved: ALTER TABLE public\.notes changes its definition, and nothing keeps the old one \(sql\.alter\.\w+\)$/);
    expect((await g.check("DELETE FROM notes WHERE id = 1")).message).toBe("not approved: the trigger notes_t on public.notes runs code the guard does not read (for the statement and for its undo): what else DELETE would remove 1 rows of public.notes would change is unknown");
  });
});

describe("CREATE OR REPLACE of a view with a trigger", () => {
  it("is refused for the definition it replaces, not for the trigger (a CREATE fires no trigger; regression: the message named the INSTEAD OF trigger and 'what else it would change 0 rows of public.v')", async () => {
    const pg = await pglite();
    await pg.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; CREATE TABLE t (x integer); CREATE VIEW v AS SELECT x FROM t;
      CREATE FUNCTION nop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE TRIGGER v_t INSTEAD OF INSERT ON v FOR EACH ROW EXECUTE FUNCTION nop();`);
    const g = await createSqlGuard({ db: postgresAdapter(pg, { name: "refusals" }), store });
    expect(await g.check("CREATE OR REPLACE VIEW v AS SELECT x, 1 AS y FROM t")).toMatchObject({ approved: false, reason: "irreversible", tier: "T4", message: "not approved: CREATE OR REPLACE replaces the definition of public.v, and nothing keeps the old one (sql.create.replace)" });
  });
});

describe("CREATE OR REPLACE", () => {
  it("of an existing view is refused for the definition it replaces (regression: the message said 'it would change 0 rows of public.v'); of a new one it is undone by dropping it", async () => {
    const pg = await pglite();
    await pg.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public; CREATE TABLE t (x integer); CREATE VIEW v AS SELECT x FROM t;");
    const g = await createSqlGuard({ db: postgresAdapter(pg, { name: "refusals" }), store });
    expect(await g.check("CREATE OR REPLACE VIEW v AS SELECT x, 1 AS y FROM t")).toMatchObject({ approved: false, reason: "irreversible", tier: "T4", message: "not approved: CREATE OR REPLACE replaces the definition of public.v, and nothing keeps the old one (sql.create.replace)" });
    expect(await g.check("CREATE OR REPLACE VIEW w AS SELECT x FROM t")).toMatchObject({ approved: true, reason: "reversible", message: "approved: undo is DROP VIEW public.w" });
  });
});
