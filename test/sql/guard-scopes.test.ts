// The SQL guard's scopes where a string holds several statements, or one statement reaches several rows
// of a table through a join: which rows the restore point holds, how the bound counts them, and that the
// undo gives the database back (SQLite in memory; PostgreSQL through PGlite, made on first use).
import Database from "better-sqlite3";
import type { PGlite } from "@electric-sql/pglite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePglite, pglite } from "./pglite.js";
import { createSqlGuard, postgresAdapter, sqliteAdapter, type SqlAdapter, type SqlGuard, type SqlGuardOptions } from "../../src/sql/index.js";
import { SHOP_SCHEMA as SCHEMA } from "./shop-schema.js";


let store: string;
beforeAll(() => {
  store = mkdtempSync(join(tmpdir(), "polar-sql-scopes-"));
});
afterAll(async () => {
  rmSync(store, { recursive: true, force: true });
  await closePglite();
});

interface Db {
  db: SqlAdapter;
  exec(sql: string): Promise<void>;
  state(): Promise<string>;
}

function sqlite(extra = ""): Db {
  const raw = new Database(":memory:");
  raw.pragma("foreign_keys = ON");
  raw.exec(SCHEMA + extra);
  return {
    db: sqliteAdapter(raw),
    exec: async (s) => void raw.exec(s),
    state: async () => {
      const tables = raw.prepare("SELECT name, sql FROM sqlite_schema ORDER BY name").all() as { name: string; sql: string | null }[];
      const out = [JSON.stringify(tables)];
      for (const t of tables.filter((x) => (x.sql ?? "").startsWith("CREATE TABLE"))) out.push(JSON.stringify((raw.prepare(`SELECT * FROM "${t.name}"`).all() as unknown[]).map((r) => JSON.stringify(r)).sort()));
      return out.join("\n");
    },
  };
}

async function postgres(extra = ""): Promise<Db> {
  const pg: PGlite = await pglite();
  await pg.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; ${SCHEMA.replace(/REAL/g, "double precision")} ${extra}`);
  return {
    db: postgresAdapter(pg, { name: "scopes" }),
    exec: async (s) => void (await pg.exec(s)),
    state: async () => {
      const tables = (await pg.query<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).rows.map((r) => r.t);
      const out = [JSON.stringify(tables)];
      for (const t of tables) out.push(JSON.stringify((await pg.query<{ r: string }>(`SELECT to_jsonb(x)::text AS r FROM "${t}" x`)).rows.map((r) => r.r).sort()));
      return out.join("\n");
    },
  };
}

function guard(h: Db, options: Partial<SqlGuardOptions> = {}): Promise<SqlGuard> {
  return createSqlGuard({ db: h.db, store, ...options });
}

async function roundTrip(h: Db, g: SqlGuard, q: string): Promise<void> {
  const before = await h.state();
  const d = await g.check(q);
  expect(d.approved, `${q}: ${d.message}`).toBe(true);
  await h.exec(q);
  await g.observe(d.execution!);
  expect(await h.state(), q).not.toBe(before);
  expect(await g.undo(), q).toMatchObject({ ok: true, reason: "undone" });
  expect(await h.state(), q).toBe(before);
}

describe("several statements in one string", () => {
  it("a created relation is dropped by the undo and holds no rows; the other statement's rows are kept", async () => {
    const h = sqlite();
    const g = await guard(h);
    const d = await g.check("CREATE TABLE t9 (x INTEGER); DELETE FROM orders WHERE id = 7");
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.orders"], rows: 1 } });
    expect(d.inverse.map((s) => s.tool)).toEqual(["sql_put_back", "sql_drop_created"]);
    await roundTrip(h, g, "CREATE TABLE t9 (x INTEGER); DELETE FROM orders WHERE id = 7");
    for (const q of ["CREATE VIEW v2 AS SELECT 1 AS one", "CREATE INDEX i2 ON orders (customer)", "CREATE TABLE t8 (x INTEGER)"]) {
      expect(await g.check(q), q).toMatchObject({ approved: true, reason: "reversible", tier: "T1", restorePoint: null });
      await roundTrip(h, g, q);
    }
  });

  it.each(["sqlite", "postgres"] as const)("%s: a statement whose rows depend on a table an earlier statement of the string writes keeps its table whole; one that reads only its own table keeps its rows (regression: the rows it matched were read before the earlier statement ran, other rows changed, and the undo said undone and left them)", async (dialect) => {
    const h = dialect === "sqlite" ? sqlite("CREATE TABLE picks (id INTEGER PRIMARY KEY, n INTEGER); INSERT INTO picks VALUES (1, 1);") : await postgres("CREATE TABLE picks (id INTEGER PRIMARY KEY, n INTEGER); INSERT INTO picks VALUES (1, 1);");
    const g = await guard(h);
    const s = dialect === "sqlite" ? "main" : "public";
    for (const q of [
      "UPDATE picks SET n = 2 WHERE id = 1; UPDATE orders SET total = 0 WHERE id IN (SELECT n FROM picks)",
      "DELETE FROM picks WHERE id = 1; DELETE FROM orders WHERE id NOT IN (SELECT n FROM picks) AND id < 3",
      "INSERT INTO picks VALUES (5, 3); DELETE FROM orders WHERE id IN (SELECT n FROM picks)",
      "UPDATE picks SET n = 7 WHERE id = 1; WITH p AS (SELECT n FROM picks) DELETE FROM orders WHERE id IN (SELECT n FROM p)",
      // SQLite has no DELETE … USING; its UPDATE … FROM.
      dialect === "sqlite" ? "UPDATE picks SET n = 7 WHERE id = 1; UPDATE orders SET total = 0 FROM picks WHERE orders.id = picks.n" : "UPDATE picks SET n = 7 WHERE id = 1; DELETE FROM orders USING picks WHERE orders.id = picks.n",
    ]) {
      // orders is kept whole (4 rows), beside picks (and items, which the cascade may reach).
      const d = await g.check(q);
      expect(d.restorePoint, q).toMatchObject({ tables: expect.arrayContaining([`${s}.picks`, `${s}.orders`]) });
      expect(d.restorePoint!.rows, q).toBeGreaterThanOrEqual(4);
      await roundTrip(h, g, q);
    }
    // Its own table only: the rows it matches are its rows.
    const own = "UPDATE picks SET n = 2 WHERE id = 1; DELETE FROM orders WHERE id = 7";
    expect(await g.check(own)).toMatchObject({ approved: true, restorePoint: { tables: [`${s}.picks`, `${s}.orders`], rows: 2 } });
    await roundTrip(h, g, own);
  });

  it("a DROP … IF EXISTS of nothing beside a DELETE keeps only the DELETE's rows", async () => {
    const h = sqlite();
    const g = await guard(h);
    const q = "DROP TABLE IF EXISTS nope; DELETE FROM orders WHERE id = 7";
    expect(await g.check(q)).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders"], rows: 1 } });
    await roundTrip(h, g, q);
  });

  it("an INSERT beside another statement on its table keeps the table whole", async () => {
    const h = sqlite();
    const g = await guard(h);
    const q = "INSERT INTO orders (customer) VALUES ('new'); DELETE FROM orders WHERE id = 7";
    // The DELETE, after another statement on orders, may cascade to any row of items (which rows it matches
    // depends on the INSERT): items is kept whole with it.
    expect(await g.check(q)).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.items"], rows: 7 } });
    await roundTrip(h, g, q);
    const mixed = "DELETE FROM orders WHERE id = 7; INSERT INTO notes VALUES ('x')";
    expect(await g.check(mixed)).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.notes"], rows: 4 } });
    await roundTrip(h, g, mixed);
  });

  it("the bound counts the rows of all the statements together", async () => {
    const h = sqlite();
    const q = "DELETE FROM orders WHERE id IN (3, 7); UPDATE items SET sku = 'q' WHERE id IN (1, 3)";
    expect(await (await guard(h, { bounds: { maxRows: 3 } })).check(q)).toMatchObject({
      approved: false, action: "ask", reason: "over_bound", tier: "T4", restorePoint: null, execution: null,
      message: "not approved: DELETE would remove 2 rows of main.orders; that is over the restore bound (3 rows), so they were counted, not read, and no undo is possible",
    });
    await roundTrip(h, await guard(h, { bounds: { maxRows: 4 } }), q);
  });

  it("a trigger on a dropped table is named", async () => {
    const h = sqlite("CREATE TRIGGER keep AFTER INSERT ON notes BEGIN SELECT 1; END;");
    expect(await (await guard(h)).check("DROP TABLE notes")).toMatchObject({
      approved: false, action: "ask", reason: "irreversible", tier: "T4",
      message: "not approved: the trigger keep on main.notes runs code the guard does not read (for the statement and for its undo): what else DROP would remove 3 rows of main.notes would change is unknown",
    });
  });
});

describe("rows reached twice", () => {
  it("SQLite: an UPDATE … FROM that joins a row twice keeps it once", async () => {
    const h = sqlite();
    const g = await guard(h);
    const q = "UPDATE orders SET total = 0 FROM items WHERE items.order_id = orders.id";
    expect(await g.check(q)).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders"], rows: 2 } });
    await roundTrip(h, g, q);
  });

  it("PostgreSQL: an UPDATE … FROM that joins a row twice keeps it once", async () => {
    const h = await postgres();
    const g = await guard(h);
    const q = "UPDATE orders SET total = 0 FROM items WHERE items.order_id = orders.id";
    expect(await g.check(q)).toMatchObject({ approved: true, restorePoint: { tables: ["public.orders"], rows: 2 } });
    await roundTrip(h, g, q);
  });
});

describe("postgres: the scopes of TRUNCATE and DROP", () => {
  it("TRUNCATE without CASCADE keeps only its table; DROP without CASCADE reaches no child; CASCADE on a table nothing references changes nothing", async () => {
    const h = await postgres();
    const g = await guard(h);
    expect(await g.check("TRUNCATE orders")).toMatchObject({ approved: true, restorePoint: { tables: ["public.orders"], rows: 4 } });
    expect(await g.check("DROP TABLE orders")).toMatchObject({ approved: false, reason: "irreversible", tier: "T4", message: "not approved: DROP would destroy public.orders and its 4 rows, and no restore point holds them (sql.drop.lost)" });
    expect((await g.check("DROP TABLE notes CASCADE")).message).toBe("not approved: DROP would destroy public.notes and its 3 rows, and no restore point holds them (sql.drop.lost)");
    expect(await g.check("DELETE FROM orders WHERE id = 99")).toMatchObject({ approved: true, reason: "reversible", restorePoint: null });
  });

  it("a bounded count that returns no number is unknown_state, never a count of 0 (regression: a boolean, a list holding a number and a text JavaScript reads as a number were 1)", async () => {
    const h = await postgres();
    for (const bad of [[], [{ n: null, rid: null }], [{ n: -1 }], [{ n: "many" }], [{ n: 1 }, { n: 1 }], [{ n: 1.5 }], [{ n: true }], [{ n: [1] }], [{ n: "0x1" }], [{ n: "1e0" }]]) {
      const db: SqlAdapter = { ...h.db, read: async (sql, params) => (sql.startsWith("WITH __polar_n AS MATERIALIZED") ? bad : h.db.read(sql, params)) };
      expect(await (await guard({ ...h, db })).check("DELETE FROM orders WHERE id = 7"), JSON.stringify(bad)).toMatchObject({ approved: false, reason: "unknown_state", message: "not judged (unknown_state): the bounded count returned no number" });
    }
  });
});
