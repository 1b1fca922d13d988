// The restore point the SQL guard takes: the bound over every table it holds (a table kept whole counts
// all its rows, not only the matched ones), a table reached both by the string and by a cascade kept
// once, the tables a cascade's children reach in turn, and the order the undo puts tables back in
// (parents first, so foreign keys hold). SQLite in memory; TRUNCATE … CASCADE on PostgreSQL (PGlite).
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePglite, pglite } from "./pglite.js";
import { createSqlGuard, postgresAdapter, sqliteAdapter, type SqlGuard, type SqlGuardOptions } from "../../src/sql/index.js";
import { SHOP_SCHEMA as SCHEMA } from "./shop-schema.js";


let store: string;
beforeAll(() => {
  store = mkdtempSync(join(tmpdir(), "polar-sql-points-"));
});
afterAll(async () => {
  rmSync(store, { recursive: true, force: true });
  await closePglite();
});

interface Db {
  raw: Database.Database;
  guard(options?: Partial<SqlGuardOptions>): Promise<SqlGuard>;
}

function fresh(extra = ""): Db {
  const raw = new Database(":memory:");
  raw.pragma("foreign_keys = ON");
  raw.exec(SCHEMA + extra);
  return { raw, guard: (options = {}) => createSqlGuard({ db: sqliteAdapter(raw), store, ...options }) };
}

function state(raw: Database.Database): string {
  const tables = raw.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[];
  return tables.map((t) => `${t.name}: ${JSON.stringify((raw.prepare(`SELECT * FROM "${t.name}"`).all() as unknown[]).map((r) => JSON.stringify(r)).sort())}`).join("\n");
}

async function roundTrip(h: Db, g: SqlGuard, q: string): Promise<void> {
  const before = state(h.raw);
  const d = await g.check(q);
  expect(d.approved, `${q}: ${d.message}`).toBe(true);
  h.raw.exec(q);
  await g.observe(d.execution!);
  expect(state(h.raw), q).not.toBe(before);
  expect(await g.undo(), q).toMatchObject({ ok: true, reason: "undone" });
  expect(state(h.raw), q).toBe(before);
}

describe("the bound over the restore point", () => {
  it("a table without a key is kept whole: its rows count, not only the matched ones, whichever statement comes first", async () => {
    const h = fresh();
    // Matched: 1 row of notes and 1 of orders (2 ≤ 3); kept: notes' 3 rows and 1 of orders (4 > 3).
    expect(await (await h.guard({ bounds: { maxRows: 3 } })).check("DELETE FROM notes WHERE body IS NULL; DELETE FROM orders WHERE id = 7")).toMatchObject({
      approved: false, action: "ask", reason: "over_bound", tier: "T4", message: "not approved: DELETE would remove more than 3 rows (the restore bound)",
    });
    expect(await (await h.guard({ bounds: { maxRows: 3 } })).check("DELETE FROM orders WHERE id = 7; DELETE FROM notes WHERE body IS NULL")).toMatchObject({
      approved: false, reason: "over_bound", message: "not approved: DELETE would remove a table of more than 3 rows (the restore bound); it was counted, not read",
    });
    const g = await h.guard({ bounds: { maxRows: 4 } });
    expect(await g.check("DELETE FROM orders WHERE id = 7; DELETE FROM notes WHERE body IS NULL")).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.notes"], rows: 4 } });
    await roundTrip(h, g, "DELETE FROM orders WHERE id = 7; DELETE FROM notes WHERE body IS NULL");
  });

  it("a restore point that meets the bound exactly is taken, whatever scope comes after the table that filled it", async () => {
    const h = fresh();
    const g = await h.guard({ bounds: { maxRows: 3 } });
    for (const q of ["DELETE FROM notes WHERE body IS NULL; INSERT INTO orders (customer) VALUES ('x')", "DELETE FROM notes WHERE body IS NULL; DELETE FROM items WHERE id = 99"]) {
      expect(await g.check(q), q).toMatchObject({ approved: true, restorePoint: { rows: 3 } });
    }
    await roundTrip(h, g, "DELETE FROM notes WHERE body IS NULL; INSERT INTO orders (customer) VALUES ('x')");
  });

  it("the children a cascade reaches count toward the bound with the parent's rows", async () => {
    const h = fresh();
    expect(await (await h.guard({ bounds: { maxRows: 3 } })).check("DELETE FROM orders WHERE id = 1")).toMatchObject({ approved: false, reason: "over_bound", message: "not approved: foreign-key actions from main.orders change rows of main.items, a table over the restore bound (3 rows)" });
    expect(await (await h.guard({ bounds: { maxRows: 4 } })).check("DELETE FROM orders WHERE id = 1")).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.items"], rows: 4 } });
  });
});

describe("tables kept once, put back parents first", () => {
  it("a child the string writes after its parent's cascade reached it is kept once, whole", async () => {
    const h = fresh();
    const g = await h.guard();
    const q = "DELETE FROM orders WHERE id = 2; DELETE FROM items WHERE id = 1";
    expect(await g.check(q)).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.items"], rows: 4 } });
    await roundTrip(h, g, q);
  });

  it("a child the string inserts into before its parent's cascade reaches it is kept whole, and the undo gives back the cascaded rows (regression: only the rows above its largest key were kept, and the undo said undone with the children lost)", async () => {
    const h = fresh();
    const g = await h.guard();
    const q = "INSERT INTO items (sku) VALUES ('n'); DELETE FROM orders WHERE id = 1";
    expect(await g.check(q)).toMatchObject({ approved: true, restorePoint: { tables: ["main.items", "main.orders"], rows: 4 } });
    await roundTrip(h, g, q);
  });

  it("a child the string drops after its parent's cascade reached it is asked (regression: approved, and the undo refused as the table was gone)", async () => {
    const h = fresh();
    const g = await h.guard();
    expect(await g.check("DELETE FROM orders WHERE id = 1; DROP TABLE items")).toMatchObject({
      approved: false, action: "ask", reason: "over_bound", restorePoint: null, execution: null,
      message: "not approved: foreign-key actions from main.orders change rows of main.items, which the string also drops; no restore point holds both",
    });
    // Without rows to cascade to, the DROP is kept as a DROP and undone.
    await roundTrip(h, g, "DELETE FROM orders WHERE id = 7; DROP TABLE items");
  });

  it("a child the string writes before its parent is put back after it", async () => {
    const h = fresh();
    const g = await h.guard();
    for (const q of ["DELETE FROM items WHERE id = 3; DELETE FROM orders WHERE id = 1", "UPDATE items SET sku = 'q' WHERE id = 1; DELETE FROM orders WHERE id IN (1, 2)"]) {
      const d = await g.check(q);
      expect(d.restorePoint!.tables, q).toEqual(["main.items", "main.orders"]);
      await roundTrip(h, g, q);
    }
  });

  it("three generations: a grandchild the string writes is put back after its parent and grandparent", async () => {
    const h = fresh("CREATE TABLE parts (id INTEGER PRIMARY KEY, item_id INTEGER REFERENCES items (id) ON DELETE RESTRICT); INSERT INTO parts VALUES (1, 3), (2, 2);");
    const g = await h.guard();
    const q = "DELETE FROM parts WHERE id = 1; DELETE FROM items WHERE id = 3; DELETE FROM orders WHERE id = 7";
    expect((await g.check(q)).restorePoint!.tables).toEqual(["main.parts", "main.items", "main.orders"]);
    await roundTrip(h, g, q);
  });

  it("a grandchild held by RESTRICT is not reached: the parent's cascade is kept and undone", async () => {
    const h = fresh("CREATE TABLE parts (id INTEGER PRIMARY KEY, item_id INTEGER REFERENCES items (id) ON DELETE RESTRICT);");
    const g = await h.guard();
    expect(await g.check("DELETE FROM orders WHERE id = 7")).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders"], rows: 1 } });
    // items 3 → order 2 is reached; parts is empty, so RESTRICT does not stop it.
    expect(await g.check("DELETE FROM orders WHERE id = 2")).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.items"], rows: 4 } });
    await roundTrip(h, g, "DELETE FROM orders WHERE id = 2");
  });
});

describe("the tables referencing a child the actions update", () => {
  const CHAIN = `CREATE TABLE p (id INTEGER PRIMARY KEY, code TEXT UNIQUE);
    CREATE TABLE c (id INTEGER PRIMARY KEY, pcode TEXT UNIQUE REFERENCES p (code) ON DELETE SET NULL ON UPDATE CASCADE);
    INSERT INTO p VALUES (1, 'a'), (2, 'b'); INSERT INTO c VALUES (1, 'a'), (2, 'b');`;

  it("a grandchild's ON UPDATE action is reached when the child's rows are set (ON DELETE SET NULL, ON UPDATE CASCADE): asked, naming the child (regression: DELETE FROM p set c's key to NULL, its ON UPDATE CASCADE set g's to NULL too; approved, and the undo said undone and left g's row NULL)", async () => {
    const h = fresh(CHAIN + "CREATE TABLE g (id INTEGER PRIMARY KEY, ccode TEXT REFERENCES c (pcode) ON UPDATE CASCADE); INSERT INTO g VALUES (1, 'a');");
    const g = await h.guard();
    const before = state(h.raw);
    expect(await g.check("DELETE FROM p WHERE id = 1")).toMatchObject({ approved: false, action: "ask", reason: "over_bound", message: "not approved: DELETE would remove rows of main.p, and foreign-key actions reach main.c and the tables that reference it, which the guard does not read" });
    expect(state(h.raw)).toBe(before);
  });

  it("ON DELETE SET DEFAULT sets the child's rows too: a grandchild's ON UPDATE action is reached, asked", async () => {
    const h = fresh(`CREATE TABLE p (id INTEGER PRIMARY KEY, code TEXT UNIQUE);
      CREATE TABLE c (id INTEGER PRIMARY KEY, pcode TEXT UNIQUE REFERENCES p (code) ON DELETE SET DEFAULT ON UPDATE CASCADE);
      CREATE TABLE g (id INTEGER PRIMARY KEY, ccode TEXT REFERENCES c (pcode) ON UPDATE CASCADE);
      INSERT INTO p VALUES (1, 'a'), (2, 'b'); INSERT INTO c VALUES (1, 'a'), (2, 'b'); INSERT INTO g VALUES (1, 'a');`);
    const g = await h.guard();
    expect(await g.check("DELETE FROM p WHERE id = 1")).toMatchObject({ approved: false, action: "ask", reason: "over_bound", message: "not approved: DELETE would remove rows of main.p, and foreign-key actions reach main.c and the tables that reference it, which the guard does not read" });
    // What the guard foresees: the DELETE sets c's key to its default (NULL), and g's row follows it.
    h.raw.exec("DELETE FROM p WHERE id = 1");
    expect(h.raw.prepare("SELECT ccode FROM g").all()).toEqual([{ ccode: null }]);
  });

  it("a grandchild's ON UPDATE action is not reached when the child's rows are deleted, not set: kept and undone", async () => {
    // d's rows are deleted by the cascade: its children's ON UPDATE never runs.
    const k = fresh(`CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE d (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p (id) ON DELETE CASCADE, code TEXT UNIQUE);
      CREATE TABLE e (id INTEGER PRIMARY KEY, dcode TEXT REFERENCES d (code) ON UPDATE CASCADE); INSERT INTO p VALUES (1), (2); INSERT INTO d VALUES (1, 1, 'x'), (2, 2, 'y'); INSERT INTO e VALUES (1, 'y');`);
    const gk = await k.guard();
    expect(await gk.check("DELETE FROM p WHERE id = 1")).toMatchObject({ approved: true, restorePoint: { tables: ["main.p", "main.d"], rows: 3 } });
    await roundTrip(k, gk, "DELETE FROM p WHERE id = 1");
  });

  // c's foreign key acts on both events; g follows c's code on UPDATE only (its ON DELETE refuses).
  const BOTH = `CREATE TABLE p (id INTEGER PRIMARY KEY, code TEXT UNIQUE);
    CREATE TABLE c (id INTEGER PRIMARY KEY, pcode TEXT UNIQUE REFERENCES p (code) ON DELETE CASCADE ON UPDATE CASCADE);
    CREATE TABLE g (id INTEGER PRIMARY KEY, ccode TEXT REFERENCES c (pcode) ON UPDATE CASCADE);
    INSERT INTO p VALUES (1, 'a'), (2, 'b'); INSERT INTO c VALUES (1, 'a'), (2, 'b'); INSERT INTO g VALUES (1, 'a');`;

  it("a DELETE sets no child row, alone or after an INSERT, even where the child's ON UPDATE acts: kept and undone", async () => {
    const h = fresh(BOTH);
    const g = await h.guard();
    await roundTrip(h, g, "DELETE FROM p WHERE id = 2");
    await roundTrip(h, g, "INSERT INTO p VALUES (3, 'c'); DELETE FROM p WHERE id = 2");
  });

  it("a parent with another child: only the foreign key of the child reached decides whether its rows are set", async () => {
    // n's rows are set to NULL by the DELETE; d's are deleted, so e (following d on UPDATE) is not reached.
    const k = fresh(`CREATE TABLE p (id INTEGER PRIMARY KEY);
      CREATE TABLE n (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p (id) ON DELETE SET NULL);
      CREATE TABLE d (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p (id) ON DELETE CASCADE, code TEXT UNIQUE);
      CREATE TABLE e (id INTEGER PRIMARY KEY, dcode TEXT REFERENCES d (code) ON UPDATE CASCADE);
      INSERT INTO p VALUES (1), (2); INSERT INTO n VALUES (1, 1); INSERT INTO d VALUES (1, 1, 'x'), (2, 2, 'y'); INSERT INTO e VALUES (1, 'y');`);
    const gk = await k.guard();
    expect(await gk.check("DELETE FROM p WHERE id = 1")).toMatchObject({ approved: true, restorePoint: { tables: ["main.p", "main.d", "main.n"], rows: 4 } });
    await roundTrip(k, gk, "DELETE FROM p WHERE id = 1");
  });
});

describe("postgres: TRUNCATE … CASCADE", () => {
  it("reaching a grandchild is asked, whatever its action; without one it is kept and undone", async () => {
    const pg = await pglite();
    await pg.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; ${SCHEMA.replace(/REAL/g, "double precision")}
      CREATE TABLE parts (id integer PRIMARY KEY, item_id integer REFERENCES items (id) ON DELETE RESTRICT); INSERT INTO parts VALUES (1, 3);`);
    const g = await createSqlGuard({ db: postgresAdapter(pg, { name: "points" }), store });
    expect(await g.check("TRUNCATE orders CASCADE")).toMatchObject({ approved: false, reason: "over_bound", message: "not approved: TRUNCATE would remove rows of public.orders, and foreign-key actions reach public.items and the tables that reference it, which the guard does not read" });
    await pg.exec("DROP TABLE parts");
    expect(await g.check("TRUNCATE orders CASCADE")).toMatchObject({ approved: true, restorePoint: { tables: ["public.orders", "public.items"], rows: 7 } });
  });

  it("after another statement on the table it is read the same (regression: only the table's first statement was read for TRUNCATE; `UPDATE orders …; TRUNCATE orders CASCADE` was approved and the cascade emptied a grandchild no point held)", async () => {
    const pg = await pglite();
    await pg.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; ${SCHEMA.replace(/REAL/g, "double precision")}
      CREATE TABLE parts (id integer PRIMARY KEY, item_id integer REFERENCES items (id) ON DELETE RESTRICT); INSERT INTO parts VALUES (1, 3);`);
    const g = await createSqlGuard({ db: postgresAdapter(pg, { name: "points" }), store });
    expect(await g.check("UPDATE orders SET total = 0 WHERE id = 1; TRUNCATE orders CASCADE")).toMatchObject({ approved: false, reason: "over_bound", message: "not approved: UPDATE would change rows of public.orders, and foreign-key actions reach public.items and the tables that reference it, which the guard does not read" });
  });

  it("an UPDATE whose ON UPDATE CASCADE sets a child's referenced column reaches the child's children's ON UPDATE actions: asked (regression: a grandchild's ON UPDATE SET NULL ran, and the undo said undone and left it NULL)", async () => {
    const pg = await pglite();
    await pg.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public;
      CREATE TABLE p (id integer PRIMARY KEY, code text UNIQUE); CREATE TABLE c (id integer PRIMARY KEY, pcode text UNIQUE REFERENCES p (code) ON UPDATE CASCADE);
      CREATE TABLE g (id integer PRIMARY KEY, ccode text REFERENCES c (pcode) ON UPDATE SET NULL); INSERT INTO p VALUES (1, 'a'); INSERT INTO c VALUES (1, 'a'); INSERT INTO g VALUES (1, 'a');`);
    const g = await createSqlGuard({ db: postgresAdapter(pg, { name: "points" }), store });
    expect(await g.check("UPDATE p SET code = 'z' WHERE id = 1")).toMatchObject({ approved: false, reason: "over_bound", message: "not approved: UPDATE would change rows of public.p, and foreign-key actions reach public.c and the tables that reference it, which the guard does not read" });
    // Without the grandchild's action the child is kept and the UPDATE undone.
    await pg.exec("ALTER TABLE g DROP CONSTRAINT g_ccode_fkey; ALTER TABLE g ADD FOREIGN KEY (ccode) REFERENCES c (pcode)");
    expect(await g.check("UPDATE p SET code = 'z' WHERE id = 1")).toMatchObject({ approved: true, restorePoint: { tables: ["public.p", "public.c"], rows: 2 } });
  });

  it("an UPDATE among the string's statements on the parent sets the child's rows, whatever else the string does to the parent and whichever other children the parent has: asked", async () => {
    const pg = await pglite();
    await pg.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public;
      CREATE TABLE p (id integer PRIMARY KEY, code text UNIQUE); CREATE TABLE c (id integer PRIMARY KEY, pcode text UNIQUE REFERENCES p (code) ON DELETE CASCADE ON UPDATE CASCADE);
      CREATE TABLE g (id integer PRIMARY KEY, ccode text REFERENCES c (pcode) ON UPDATE CASCADE); INSERT INTO p VALUES (1, 'a'), (2, 'b'); INSERT INTO c VALUES (1, 'a'), (2, 'b'); INSERT INTO g VALUES (1, 'a');`);
    const g = await createSqlGuard({ db: postgresAdapter(pg, { name: "points" }), store });
    const reached = (verb: string) => `not approved: ${verb} rows of public.p, and foreign-key actions reach public.c and the tables that reference it, which the guard does not read`;
    expect(await g.check("DELETE FROM p WHERE id = 2; UPDATE p SET code = 'z' WHERE id = 1")).toMatchObject({ approved: false, reason: "over_bound", message: reached("DELETE would remove") });
    // Another child of p, whose rows the UPDATE sets too: c's foreign key still decides for c.
    await pg.exec("CREATE TABLE x (id integer PRIMARY KEY, pcode text REFERENCES p (code) ON UPDATE CASCADE); INSERT INTO x VALUES (1, 'a');");
    expect(await g.check("UPDATE p SET code = 'z' WHERE id = 1")).toMatchObject({ approved: false, reason: "over_bound", message: reached("UPDATE would change") });
  });
});
