// The real PostgreSQL server (Debian's package; .ci/run starts one, POLAR_PG_URL): what the SQL
// ontology's annotations rely on is checked by running it on the server, not on PGlite. Skipped by name
// without a server (test/sql/postgres-server.ts).
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { describePostgres, freshDatabase, type FreshDatabase } from "./postgres-server.js";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { createSqlGuard, postgresAdapter } from "../../src/sql/index.js";
import { runSqlCorpus } from "./corpus.js";

let db: FreshDatabase | null = null;
afterEach(async () => {
  await db?.close();
  db = null;
});

describePostgres("a real PostgreSQL server: the semantics the SQL ontology cites", () => {
  it("is a real server (not PGlite) with its own backend process", async () => {
    db = await freshDatabase();
    const r = await db.client.query("SELECT version() AS v, pg_backend_pid() AS pid");
    expect(r.rows[0].v).toMatch(/^PostgreSQL \d+/);
    expect(r.rows[0].pid).toBeGreaterThan(0);
  });

  it("DDL inside a transaction is rolled back (DROP TABLE and TRUNCATE undone by ROLLBACK)", async () => {
    db = await freshDatabase();
    const c = db.client;
    await c.query("CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    await c.query("BEGIN");
    await c.query("DROP TABLE t");
    await c.query("ROLLBACK");
    await c.query("BEGIN");
    await c.query("TRUNCATE t");
    expect((await c.query("SELECT count(*)::int AS n FROM t")).rows[0].n).toBe(0);
    await c.query("ROLLBACK");
    expect((await c.query("SELECT * FROM t ORDER BY id")).rows).toEqual([{ id: 1, v: "a" }, { id: 2, v: "b" }]);
  });

  it("ON DELETE CASCADE deletes the children too; a sequence is not rolled back (the declared residue)", async () => {
    db = await freshDatabase();
    const c = db.client;
    await c.query(`CREATE TABLE p (id serial PRIMARY KEY, name text);
      CREATE TABLE ch (id int PRIMARY KEY, p int REFERENCES p(id) ON DELETE CASCADE);
      INSERT INTO p (name) VALUES ('a'), ('b'); INSERT INTO ch VALUES (10, 1), (11, 1), (12, 2)`);
    await c.query("DELETE FROM p WHERE id = 1");
    expect((await c.query("SELECT id FROM ch ORDER BY id")).rows).toEqual([{ id: 12 }]);
    const before = (await c.query("SELECT last_value::int AS v FROM p_id_seq")).rows[0].v;
    await c.query("BEGIN");
    await c.query("INSERT INTO p (name) VALUES ('c')");
    await c.query("ROLLBACK");
    expect((await c.query("SELECT last_value::int AS v FROM p_id_seq")).rows[0].v).toBe(before + 1);
  });
});

// ---- the SQL guard (polar-guard/sql) against the real server, through node-postgres
const SCHEMA = `CREATE TABLE parent (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE child (id int PRIMARY KEY, p int REFERENCES parent(id) ON DELETE CASCADE, note text);
  CREATE TABLE t (id int PRIMARY KEY, v text);
  CREATE TABLE nokey (v text);
  INSERT INTO parent (name) VALUES ('a'), ('b'), ('c');
  INSERT INTO child VALUES (10, 1, 'x'), (11, 1, NULL), (12, 2, 'y');
  INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, NULL);
  INSERT INTO nokey VALUES ('d'), ('d'), (NULL);`;

/** Every table of `public` with its rows as a sorted multiset, and the columns. */
async function state(c: pg.Client): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const tables = (await c.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).rows as Array<{ table_name: string }>;
  for (const { table_name } of tables) {
    const cols = (await c.query("SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position", [table_name])).rows;
    const rows = (await c.query(`SELECT * FROM "${table_name}"`)).rows.map((r) => JSON.stringify(r)).sort();
    out[table_name] = { cols, rows };
  }
  return out;
}

describePostgres("the SQL guard on a real PostgreSQL server (node-postgres)", () => {
  let store = "";
  beforeAll(() => void (store = mkdtempSync(join(tmpdir(), "polar-pg-store-"))));
  // What the SQL guard answers on this schema (h-sql's ontology): approve (then undone for real) or
  // refuse; "either" where the ontology may answer both ways (a DROP's restore point).
  const cases: Array<[string, "approve" | "refuse" | "either"]> = [
    ["DELETE FROM t WHERE id = 1", "approve"],
    ["UPDATE t SET v = 'changed' WHERE id IN (2, 3)", "approve"],
    ["INSERT INTO t VALUES (9, 'nine')", "approve"],
    ["DELETE FROM parent WHERE id = 1", "approve"],
    ["DELETE FROM child WHERE p = 1 RETURNING id", "approve"],
    ["TRUNCATE nokey", "approve"],
    ["DROP TABLE t", "either"],
    ["DELETE FROM nokey WHERE v = 'd'", "approve"],
    ["UPDATE parent SET name = upper(name)", "approve"],
    ["DELETE FROM t WHERE id = 2; UPDATE t SET v = 'x' WHERE id = 3", "approve"],
    ["SELECT pg_terminate_backend(1)", "refuse"],
    ["COPY t TO PROGRAM 'cat'", "refuse"],
    ["DELETE FROM", "refuse"],
  ];
  afterAll(() => void (store && rmSync(store, { recursive: true, force: true })));
  for (const [stmt, expected] of cases) {
    it(`${stmt}: approved ⇒ runs on the server and its undo restores every table; refused ⇒ says what would be lost`, async () => {
      db = await freshDatabase();
      const c = db.client;
      await c.query(SCHEMA);
      const sg = await createSqlGuard({ db: postgresAdapter(c, { name: db.name }), store });
      const before = await state(c);
      const d = await sg.check(stmt);
      if (expected !== "either") expect(d.approved, `${stmt}: ${d.reason} ${d.message}`).toBe(expected === "approve");
      if (!d.approved) {
        expect(d.message.length).toBeGreaterThan(10);
        expect(await state(c)).toEqual(before);
        return;
      }
      await c.query(stmt);
      await sg.observe(d.execution!);
      if (d.reason === "read_only") return;
      const u = await sg.undo();
      expect(u, JSON.stringify(u)).toMatchObject({ ok: true, reason: "undone" });
      expect(await state(c)).toEqual(before);
    });
  }

  it("cases the SQL ontology must refuse or ask on the real server (side effects, COPY … PROGRAM, unparsable)", async () => {
    db = await freshDatabase();
    await db.client.query(SCHEMA);
    const sg = await createSqlGuard({ db: postgresAdapter(db.client, { name: db.name }), store });
    for (const stmt of ["SELECT pg_terminate_backend(1)", "COPY t TO PROGRAM 'cat'", "DELETE FROM", "DO $$ BEGIN EXECUTE 'DROP TABLE t'; END $$"]) {
      const d = await sg.check(stmt);
      expect(d.approved, `${stmt}: ${d.reason} ${d.message}`).toBe(false);
    }
  });

  it("polar undo --database postgres://… undoes a statement journalled on the server; changed since is refused", async () => {
    db = await freshDatabase();
    const c = db.client;
    await c.query(SCHEMA);
    const own = mkdtempSync(join(tmpdir(), "polar-pg-undo-"));
    try {
      const sg = await createSqlGuard({ db: postgresAdapter(c, { name: db.name }), store: own, session: "pg1" });
      const before = await state(c);
      for (const stmt of ["UPDATE t SET v = 'u' WHERE id = 1", "DELETE FROM t WHERE id = 2"]) {
        const d = await sg.check(stmt);
        expect(d.approved, d.message).toBe(true);
        await c.query(stmt);
        await sg.observe(d.execution!);
      }
      const repo = fileURLToPath(new URL("../..", import.meta.url));
      const polar = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(repo, "src/cli/index.ts"), "undo", "--store", own, "--sql", ...args], { encoding: "utf8", cwd: repo });
      const list = polar("--list");
      expect(list.stdout).toContain(`sql postgres:${db.name}: DELETE FROM t WHERE id = 2`);
      const undone = polar("--database", db.url);
      expect(undone.status, undone.stdout + undone.stderr).toBe(0);
      // Someone changes the UPDATE's row since: its undo is refused, the newer value kept.
      await c.query("UPDATE t SET v = 'newer' WHERE id = 1");
      const refused = polar("--database", db.url);
      expect(refused.status).toBe(1);
      expect(refused.stdout).toMatch(/changed/);
      expect((await c.query("SELECT v FROM t WHERE id = 1")).rows).toEqual([{ v: "newer" }]);
      await c.query("UPDATE t SET v = 'u' WHERE id = 1");
      expect(polar("--database", db.url).status).toBe(0);
      expect(await state(c)).toEqual(before);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describePostgres("the SQL corpus on a real PostgreSQL server: 0 wrong", () => {
  it("seed 31, 200 cases (test/sql/corpus.ts: random schemas × statements; approved ones run, undone, compared)", async () => {
    db = await freshDatabase();
    const c = db.client;
    const name = db.name;
    const r = await runSqlCorpus({
      dialect: "postgres",
      seed: 31,
      cases: 200,
      makeDb: async () => {
        // A fresh schema per case (a new database per case costs ~10× more on the server).
        await c.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
        return { db: postgresAdapter(c, { name }), exec: async (s) => void (await c.query(s)), close: async () => {} };
      },
    });
    console.log(`postgres server seed 31: ${r.cases} cases: ${r.approved} approved (${r.failedToRun} failed when run), ${r.refused} refused, ${r.wrong} wrong; reasons ${JSON.stringify(r.reasons)}`);
    expect(r.wrong, r.failures.slice(0, 3).map((f) => `#${f.index} ${f.statement}\n${JSON.stringify(f.decision)}\n${f.problem.slice(0, 1500)}\n${f.schema}`).join("\n\n")).toBe(0);
    expect(r.cases).toBe(200);
    expect(r.approved).toBeGreaterThan(60);
    expect(r.refused).toBeGreaterThan(40);
    expect(r.reasons.restore_point).toBeGreaterThan(30);
  }, 300_000);
});

describePostgres("the MCP gateway in front of a PostgreSQL MCP server (the fixture on the real server)", () => {
  it("DELETE/DROP through `query` are judged by the SQL guard; approved ones undo to the same tables; a SELECT passes; garbage is refused", async () => {
    const { sqlGateway, textOf } = await import("../mcp/sqlite-fixture.js");
    const { sqlDispatchers } = await import("../../src/mcp/sql-dispatch.js");
    const sql = await import("../../src/sql/index.js");
    const { DECISION_META_KEY } = await import("../../src/mcp/gateway.js");
    db = await freshDatabase();
    const c = db.client;
    await c.query(SCHEMA);
    const own = mkdtempSync(join(tmpdir(), "polar-pg-gw-"));
    const dispatchers = await sqlDispatchers(sql, { tools: [{ tool: "query", argument: "sql" }], database: db.url, store: own });
    const h = await sqlGateway({ ontology: "read_only(list_tables).\n", dispatchers, file: db.url });
    try {
      const before = await state(c);
      const sel = await h.call("query", { sql: "SELECT v FROM t WHERE id = 1" });
      expect(JSON.parse(textOf(sel))).toEqual({ rows: [{ v: "one" }] });
      const del = await h.call("query", { sql: "DELETE FROM parent WHERE id = 1" });
      expect(del.isError, textOf(del)).toBeFalsy();
      expect(del._meta?.[DECISION_META_KEY]).toMatchObject({ action: "allow", reason: "restore_point" });
      expect((await c.query("SELECT count(*)::int AS n FROM child")).rows[0].n).toBe(1);
      const bad = await h.call("query", { sql: "DROP TABLE" });
      expect(bad.isError).toBe(true);
      expect((bad._meta?.[DECISION_META_KEY] as { reason: string }).reason).toBe("unparsed");
      const copy = await h.call("query", { sql: "COPY t TO PROGRAM 'cat'" });
      expect(copy.isError).toBe(true);
      // The journal the gateway wrote: undone on the server, every table as before.
      const s = new sql.SqlStore(own);
      const r = await sql.undoSqlEntry(new sql.SqlJournal(s.journalFile(sql.latestSqlSession(own)!)), s, sql.postgresAdapter(c, { name: db.name }), undefined, false);
      expect(r, JSON.stringify(r)).toMatchObject({ ok: true, reason: "undone" });
      expect(await state(c)).toEqual(before);
    } finally {
      await h.close();
      for (const d of new Set(dispatchers.values())) await d.close?.();
      rmSync(own, { recursive: true, force: true });
    }
  });
});
