// The real PostgreSQL server (Debian's package; .ci/run starts one, POLAR_PG_URL): what the SQL
// ontology's annotations rely on is checked by running it on the server, not on PGlite. Skipped by name
// without a server (test/sql/postgres-server.ts).
import { afterEach, expect, it } from "vitest";
import { describePostgres, freshDatabase, type FreshDatabase } from "./postgres-server.js";

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
