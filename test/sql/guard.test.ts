// polar-guard/sql on SQLite (better-sqlite3) and PostgreSQL (PGlite): the verdicts of issue 25 run for
// real — a point DELETE is approved with its pre-image and undone exactly, an unbounded one is asked
// after a bounded count, cascades, triggers, DDL, unknown statements and SQLite misreadings are asked,
// and an undo whose rows changed since is refused.
import Database from "better-sqlite3";
import type { PGlite } from "@electric-sql/pglite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePglite, pglite as sharedPglite } from "./pglite.js";
import { createSqlGuard, postgresAdapter, sqliteAdapter, SqlGuardError, type SqlAdapter, type SqlGuard } from "../../src/sql/index.js";

const SCHEMA = (real: string) => `
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total ${real});
CREATE TABLE items (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders (id) ON DELETE CASCADE, sku TEXT);
CREATE TABLE notes (body TEXT);
INSERT INTO orders VALUES (1, 'ann', 10.5), (2, 'bob', 20), (3, NULL, NULL), (7, 'dee', 1);
INSERT INTO items VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'z');
INSERT INTO notes VALUES ('a'), ('a'), (NULL);`;

interface Db {
  db: SqlAdapter;
  exec(sql: string): Promise<void>;
  rows(sql: string): Promise<unknown[]>;
}

let store: string;
// Made on first use (test/sql/pglite.ts): a run of the SQLite tests alone does not start PGlite.
let pglite: PGlite;
beforeAll(() => {
  store = mkdtempSync(join(tmpdir(), "polar-sql-test-"));
});
afterAll(async () => {
  rmSync(store, { recursive: true, force: true });
  await closePglite();
});

async function fresh(dialect: "sqlite" | "postgres"): Promise<Db> {
  if (dialect === "sqlite") {
    const d = new Database(":memory:");
    d.pragma("foreign_keys = ON");
    d.exec(SCHEMA("REAL"));
    return { db: sqliteAdapter(d), exec: async (s) => void d.exec(s), rows: async (s) => d.prepare(s).all() };
  }
  pglite = await sharedPglite();
  await pglite.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
  await pglite.exec(SCHEMA("double precision"));
  return { db: postgresAdapter(pglite, { name: "test" }), exec: async (s) => void (await pglite.exec(s)), rows: async (s) => (await pglite.query(s)).rows };
}

async function guard(h: Db, maxRows = 10_000, policy?: "snapshot" | "escalate" | "veto"): Promise<SqlGuard> {
  return createSqlGuard({ db: h.db, store, bounds: { maxRows }, ...(policy ? { policy } : {}) });
}

async function state(h: Db): Promise<string> {
  const out = [];
  for (const t of ["orders", "items", "notes"]) out.push(JSON.stringify((await h.rows(`SELECT * FROM ${t} ORDER BY 1`)).map((r) => JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? String(v) : v))).sort()));
  return out.join("\n");
}

describe.each(["sqlite", "postgres"] as const)("%s", (dialect) => {
  it("a point DELETE is approved with its pre-image (T1), runs, and the undo puts the row back", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    const before = await state(h);
    const d = await g.check("DELETE FROM orders WHERE id = 7");
    expect(d).toMatchObject({ approved: true, action: "allow", reason: "restore_point", tier: "T1" });
    expect(d.restorePoint).toMatchObject({ rows: 1, tables: [dialect === "sqlite" ? "main.orders" : "public.orders"] });
    expect(d.calls).toEqual([{ name: "sql_delete", arguments: { table: dialect === "sqlite" ? "main.orders" : "public.orders" }, source: "DELETE FROM orders WHERE id = 7" }]);
    await h.exec("DELETE FROM orders WHERE id = 7");
    expect((await g.observe(d.execution!)).journaled).toMatch(/^q-/);
    expect(g.list()).toHaveLength(1);
    expect(await state(h)).not.toBe(before);
    const u = await g.undo();
    expect(u).toMatchObject({ ok: true, reason: "undone" });
    expect(await state(h)).toBe(before);
    expect((await g.undo()).reason).toBe("nothing_to_undo");
  });

  it("a DELETE that cascades keeps the children in the restore point too, and the undo gives both back", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    const before = await state(h);
    const d = await g.check("DELETE FROM orders WHERE id = 1");
    expect(d.approved).toBe(true);
    expect(d.restorePoint!.tables.map((t) => t.replace(/^\w+\./, ""))).toEqual(["orders", "items"]);
    await h.exec("DELETE FROM orders WHERE id = 1");
    expect(await h.rows("SELECT * FROM items WHERE order_id = 1")).toEqual([]);
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await state(h)).toBe(before);
  });

  it("a cascade over the bound is asked, naming the child table", async () => {
    const h = await fresh(dialect);
    const g = await guard(h, 2);
    const d = await g.check("DELETE FROM orders WHERE id = 1");
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "over_bound" });
    expect(d.message).toMatch(/items/);
  });

  it("an unbounded DELETE over the bound is asked after a bounded count, never read", async () => {
    const h = await fresh(dialect);
    const g = await guard(h, 2);
    const d = await g.check("DELETE FROM notes");
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "over_bound", restorePoint: null, execution: null });
    expect(d.message).toMatch(/more than 2 rows of \w+\.notes/);
  });

  it("UPDATE is undone by key; an undo whose rows changed since is refused and changes nothing", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    const d = await g.check("UPDATE orders SET total = 99 WHERE customer = 'bob'");
    expect(d).toMatchObject({ approved: true, tier: "T1" });
    expect(d.inverse.map((s) => s.tool)).toEqual(["sql_restore_rows"]);
    await h.exec("UPDATE orders SET total = 99 WHERE customer = 'bob'");
    await g.observe(d.execution!);
    await h.exec("UPDATE orders SET total = 100 WHERE id = 2");
    const changed = await state(h);
    const u = await g.undo();
    expect(u).toMatchObject({ ok: false, reason: "changed_since" });
    expect(u.message).toMatch(/orders/);
    expect(await state(h)).toBe(changed);
  });

  it("INSERT is undone by deleting the new rows", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    const before = await state(h);
    const d = await g.check("INSERT INTO orders (id, customer, total) VALUES (9, 'zed', 3), (10, 'zoe', NULL)");
    expect(d).toMatchObject({ approved: true, tier: "T1" });
    expect(d.inverse.map((s) => s.tool)).toEqual(["sql_delete_inserted"]);
    await h.exec("INSERT INTO orders (id, customer, total) VALUES (9, 'zed', 3), (10, 'zoe', NULL)");
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await state(h)).toBe(before);
  });

  it("the undo reads the tables it writes again: a trigger created since is refused (changed_since), a child table created since whose rows reference a row it would delete fails it; nothing is changed (regression: the undo's own INSERT fired the new trigger, which emptied another table, and the new child's rows went with the parent's ON DELETE CASCADE; both undos said undone)", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    await h.exec("CREATE TABLE audit (x TEXT); INSERT INTO audit VALUES ('keep')");
    const run = async (q: string): Promise<void> => {
      const d = await g.check(q);
      expect(d.approved, q).toBe(true);
      await h.exec(q);
      await g.observe(d.execution!);
    };
    await run("DELETE FROM notes WHERE body IS NULL");
    await h.exec(dialect === "sqlite"
      ? "CREATE TRIGGER tt AFTER INSERT ON notes BEGIN DELETE FROM audit; END"
      : "CREATE FUNCTION tf() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM audit; RETURN NULL; END $$; CREATE TRIGGER tt AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION tf()");
    const after = await state(h);
    const s = dialect === "sqlite" ? "main" : "public";
    expect(await g.undo()).toMatchObject({ ok: false, reason: "changed_since", message: `refused: ${s}.notes has a trigger now (tt), which the undo's own writes would fire (code the guard does not read)` });
    expect(await state(h)).toBe(after);
    expect(await h.rows("SELECT x FROM audit")).toEqual([{ x: "keep" }]);
    await h.exec("DROP TRIGGER tt" + (dialect === "sqlite" ? "" : " ON notes"));
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    await run("INSERT INTO orders (id, customer) VALUES (9, 'zed')");
    await h.exec("CREATE TABLE kid (id INTEGER PRIMARY KEY, o INTEGER REFERENCES orders (id) ON DELETE CASCADE); INSERT INTO kid VALUES (1, 9)");
    expect(await g.undo()).toMatchObject({ ok: false, reason: "inverse_failed", message: expect.stringMatching(new RegExp(`failed \\(nothing was changed\\): rows of ${s}\\.kid reference a row of ${s}\\.orders the undo would delete$`)) });
    expect(await h.rows("SELECT * FROM kid")).toEqual([{ id: 1, o: 9 }]);
    await h.exec("DELETE FROM kid");
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(await h.rows("SELECT id FROM orders WHERE id = 9")).toEqual([]);
  });

  it("an INSERT that leaves the key to the database is kept by the range above the largest key, whatever the table's size", async () => {
    const h = await fresh(dialect);
    if (dialect === "postgres") await h.exec("CREATE SEQUENCE orders_id_seq OWNED BY orders.id; ALTER TABLE orders ALTER COLUMN id SET DEFAULT nextval('orders_id_seq'); SELECT setval('orders_id_seq', 7)");
    const g = await guard(h, 2); // the table (4 rows) is over the bound: a whole-table copy would be refused
    const before = await state(h);
    const q = "INSERT INTO orders (customer, total) VALUES ('new', 1), ('newer', 2)";
    const d = await g.check(q);
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    expect(d.restorePoint!.rows).toBe(0);
    await h.exec(q);
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await state(h)).toBe(before);
    // With the key given, the whole table would be kept: over the bound, asked.
    expect((await g.check("INSERT INTO orders (id, customer) VALUES (50, 'x')")).reason).toBe("over_bound");
  });

  it("an INSERT … SELECT that adds more rows than the bound is observed by a count, and its undo refused", async () => {
    const h = await fresh(dialect);
    if (dialect === "postgres") await h.exec("CREATE SEQUENCE orders_id_seq OWNED BY orders.id; ALTER TABLE orders ALTER COLUMN id SET DEFAULT nextval('orders_id_seq'); SELECT setval('orders_id_seq', 7)");
    const g = await guard(h, 3);
    const q = "INSERT INTO orders (customer, total) SELECT customer, total FROM orders";
    const d = await g.check(q);
    expect(d.approved).toBe(true);
    await h.exec(q);
    await h.exec(q);
    await g.observe(d.execution!);
    const u = await g.undo();
    expect(u).toMatchObject({ ok: false, reason: "unknown_state" });
    expect(u.message).toMatch(/more rows than the restore bound/);
  });

  it("a DELETE of duplicate rows in a table without a key is undone as a multiset", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    const before = await state(h);
    const d = await g.check("DELETE FROM notes WHERE body = 'a'");
    expect(d.approved).toBe(true);
    await h.exec("DELETE FROM notes WHERE body = 'a'");
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await state(h)).toBe(before);
  });

  it("a trigger makes the statement unknown: asked, naming the trigger and the table", async () => {
    const h = await fresh(dialect);
    if (dialect === "sqlite") await h.exec("CREATE TRIGGER audit AFTER DELETE ON notes BEGIN INSERT INTO notes VALUES ('deleted'); END");
    else await h.exec("CREATE FUNCTION audit_fn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END $$; CREATE TRIGGER audit AFTER DELETE ON notes FOR EACH ROW EXECUTE FUNCTION audit_fn()");
    const g = await guard(h);
    const d = await g.check("DELETE FROM notes WHERE body IS NULL");
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "irreversible" });
    expect(d.message).toMatch(/trigger audit on \w+\.notes/);
  });

  it("side-effecting functions, COPY … PROGRAM and unknown commands are never approved", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    for (const [q, reason] of [
      ["DELETE FROM orders WHERE id = nextval('s')", "unknown_effect"],
      ["SELECT pg_terminate_backend(1)", "unknown_effect"],
      ["COPY orders FROM PROGRAM 'rm -rf /'", "unknown_command"],
      ["GRANT ALL ON orders TO public", "unknown_command"],
      ["COMMIT", "unknown_command"],
      ["DELETE FROM", "unparsed"],
    ] as const) {
      const d = await g.check(q);
      expect(d, q).toMatchObject({ approved: false, action: "ask", reason });
    }
  });

  it("several statements in one string: each is judged, and the undo takes all back", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    const before = await state(h);
    const q = "DELETE FROM orders WHERE id = 7; UPDATE orders SET customer = 'x' WHERE id = 3; INSERT INTO notes VALUES ('n')";
    const d = await g.check(q);
    expect(d.approved).toBe(true);
    expect(d.calls.map((c) => c.name)).toEqual(["sql_delete", "sql_update", "sql_insert"]);
    await h.exec(q);
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await state(h)).toBe(before);
  });

  it("CREATE TABLE is undone by dropping it; an existing table is left alone", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    const d = await g.check("CREATE TABLE fresh (x INTEGER)");
    expect(d).toMatchObject({ approved: true, tier: "T1" });
    await h.exec("CREATE TABLE fresh (x INTEGER)");
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await h.rows(dialect === "sqlite" ? "SELECT name FROM sqlite_schema WHERE name = 'fresh'" : "SELECT to_regclass('fresh') AS r")).toEqual(dialect === "sqlite" ? [] : [{ r: null }]);
  });

  it("a tool call carries the statement; a malformed one is denied", async () => {
    const h = await fresh(dialect);
    const g = await guard(h);
    expect((await g.check({ tool: "query", args: { sql: "SELECT 1" } })).reason).toBe("read_only");
    expect((await g.check({ name: "execute_sql", arguments: { query: "DELETE FROM orders WHERE id = 7" } })).approved).toBe(true);
    for (const bad of [null, 7, { tool: "q", args: {} }, { tool: "q", args: { sql: 1 } }, { tool: "q", args: { sql: "x", query: "y" } }, { tool: "q", args: { sql: "DELETE FROM orders WHERE id = $1", params: [7] } }]) {
      expect(await g.check(bad), JSON.stringify(bad)).toMatchObject({ approved: false, action: "deny", reason: "malformed_call" });
    }
  });

  it("the veto policy denies what it would ask", async () => {
    const h = await fresh(dialect);
    const g = await guard(h, 2, "veto");
    expect(await g.check("DELETE FROM notes")).toMatchObject({ approved: false, action: "deny" });
  });
});

describe("sqlite only", () => {
  it("DROP TABLE under the snapshot policy: the definition and rows are kept, and the undo creates them again", async () => {
    const h = await fresh("sqlite");
    const g = await guard(h);
    const before = await state(h);
    const d = await g.check("DROP TABLE notes");
    expect(d).toMatchObject({ approved: true, tier: "T1" });
    expect(d.inverse.map((s) => s.tool)).toEqual(["sql_recreate"]);
    await h.exec("DROP TABLE notes");
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await state(h)).toBe(before);
  });

  it("DROP TABLE under the escalate policy (no table copies) is asked, naming the table and its rows", async () => {
    const h = await fresh("sqlite");
    const g = await guard(h, 10_000, "escalate");
    const d = await g.check("DROP TABLE notes");
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4" });
    expect(d.message).toMatch(/main\.notes and its 3 rows/);
  });

  it("a statement SQLite reads differently from PostgreSQL's parser is asked, never mis-judged", async () => {
    const h = await fresh("sqlite");
    const g = await guard(h);
    // SQLite: ('bob' || 1) + 2; PostgreSQL's grammar: 'bob' || (1 + 2).
    const d = await g.check("DELETE FROM orders WHERE customer || 1 + 2 = 'bob3'");
    expect(d).toMatchObject({ approved: false, reason: "unparsed" });
    expect(d.message).toMatch(/reads statement 1 differently/);
    expect((await g.check("INSERT OR REPLACE INTO orders VALUES (1, 'a', 1)")).reason).toBe("unparsed");
  });

  it("with PRAGMA foreign_keys off no cascade runs, so only the parent's rows are kept", async () => {
    const d0 = new Database(":memory:");
    d0.pragma("foreign_keys = OFF"); // better-sqlite3 turns them on by default
    d0.exec(SCHEMA("REAL"));
    const g = await createSqlGuard({ db: sqliteAdapter(d0), store });
    const d = await g.check("DELETE FROM orders WHERE id = 1");
    expect(d.restorePoint!.tables).toEqual(["main.orders"]);
  });
});

describe("postgres only", () => {
  it("TRUNCATE is kept by a table copy under the snapshot policy and undone", async () => {
    const h = await fresh("postgres");
    const g = await guard(h);
    const before = await state(h);
    const d = await g.check("TRUNCATE notes");
    expect(d).toMatchObject({ approved: true, tier: "T1" });
    await h.exec("TRUNCATE notes");
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await state(h)).toBe(before);
  });

  it("DROP TABLE outside a transaction is T4 (no definition is kept); inside the caller's transaction it is a rollback (T3: the transaction's other work goes too)", async () => {
    const h = await fresh("postgres");
    const g = await guard(h);
    const d = await g.check("DROP TABLE notes");
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4" });
    expect(d.message).toMatch(/public\.notes and its 3 rows/);
    await h.exec("BEGIN");
    try {
      const t = await g.check("DROP TABLE notes");
      expect(t.inverse.map((s) => s.tool)).toEqual(["sql_rollback"]);
      expect(t.tier).toBe("T3");
      // The guard's reads did not end or abort the caller's transaction.
      expect(await h.db.inTransaction()).toBe(true);
    } finally {
      await h.exec("ROLLBACK");
    }
  });

  it("a data-modifying CTE is judged as the calls it makes", async () => {
    const h = await fresh("postgres");
    const g = await guard(h);
    const before = await state(h);
    const q = "WITH d AS (DELETE FROM orders WHERE id = 7 RETURNING id) INSERT INTO notes SELECT 'gone ' || id FROM d";
    const d = await g.check(q);
    expect(d.calls.map((c) => c.name)).toEqual(["sql_delete", "sql_insert"]);
    expect(d.approved).toBe(true);
    await h.exec(q);
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await state(h)).toBe(before);
  });

  it("DELETE … USING reads the joined rows once each and is undone", async () => {
    const h = await fresh("postgres");
    const g = await guard(h);
    const before = await state(h);
    const q = "DELETE FROM items i USING orders o WHERE i.order_id = o.id AND o.customer = 'ann' RETURNING i.id";
    const d = await g.check(q);
    expect(d).toMatchObject({ approved: true });
    expect(d.restorePoint!.rows).toBe(2);
    await h.exec(q);
    await g.observe(d.execution!);
    expect((await g.undo()).ok).toBe(true);
    expect(await state(h)).toBe(before);
  });

  it("the catalog's prepared statement survives DEALLOCATE ALL, and names with quotes and backslashes are read", async () => {
    const h = await fresh("postgres");
    await h.exec(`CREATE TABLE "we'ird\\name" (id integer PRIMARY KEY, v text); INSERT INTO "we'ird\\name" VALUES (1, 'a')`);
    const g = await guard(h);
    expect((await g.check("DELETE FROM orders WHERE id = 7")).approved).toBe(true);
    await h.exec("DEALLOCATE ALL");
    expect((await g.check("DELETE FROM orders WHERE id = 7")).approved).toBe(true);
    const d = await g.check(`DELETE FROM "we'ird\\name" WHERE id = 1`);
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    expect(d.restorePoint!.rows).toBe(1);
  });

  it("a point DELETE costs four round trips (the driver reports the transaction; count and pre-image are one statement), and over the bound no row is read", async () => {
    const h = await fresh("postgres");
    await h.exec("CREATE TABLE plain (id int PRIMARY KEY, v text); INSERT INTO plain SELECT i, 'v' || i FROM generate_series(1, 50) AS g(i)");
    const sent: { sql: string; rows: number }[] = [];
    const client = {
      query: async (sql: string, params?: unknown[]) => {
        const r = await pglite.query<Record<string, unknown>>(sql, params);
        sent.push({ sql, rows: r.rows.length });
        return r;
      },
      exec: async (sql: string) => {
        sent.push({ sql, rows: 0 });
        return pglite.exec(sql);
      },
      isInTransaction: () => pglite.isInTransaction(),
    };
    const g = await createSqlGuard({ db: postgresAdapter(client, { name: "test" }), store, bounds: { maxRows: 10 } });
    expect((await g.check("DELETE FROM plain WHERE id = 1")).approved).toBe(true); // prepares the catalog query
    sent.length = 0;
    const d = await g.check("DELETE FROM plain WHERE id = 7");
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { rows: 1 } });
    expect(sent.map((x) => x.sql.split(/\s/)[0])).toEqual(["BEGIN", "EXECUTE", "WITH", "ROLLBACK"]);
    sent.length = 0;
    const over = await g.check("DELETE FROM plain WHERE id > 0");
    expect(over).toMatchObject({ approved: false, reason: "over_bound" });
    expect(sent.find((x) => x.sql.startsWith("WITH"))!.rows).toBe(1); // the count's row only
  });

  it("a Pool is refused: the reads and the undo must share one connection", () => {
    expect(() => postgresAdapter({ query: async () => ({ rows: [] }), totalCount: 0, idleCount: 0 } as never)).toThrow(/Pool/);
  });
});

describe("options", () => {
  it("bad options are errors with a code", async () => {
    const h = await fresh("sqlite");
    await expect(createSqlGuard({ db: h.db, store, bogus: 1 } as never)).rejects.toMatchObject({ code: "bad-option" });
    await expect(createSqlGuard({ db: {} as never, store })).rejects.toMatchObject({ code: "bad-db" });
    await expect(createSqlGuard({ db: h.db, store: "" })).rejects.toBeInstanceOf(SqlGuardError);
    await expect(createSqlGuard({ db: h.db, store, policy: "yolo" as never })).rejects.toMatchObject({ code: "bad-option" });
  });
});
