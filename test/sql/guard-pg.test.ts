// The SQL guard's PostgreSQL verdicts (PGlite, one instance, a fresh schema per test): what only
// PostgreSQL has — inheritance, views written through, TRUNCATE … CASCADE, DROP … CASCADE, ALTER, the
// caller's open transaction, sequences of each kind — stated one by one; every approval that keeps rows
// is run and undone, and the database compared with the one before.
import type { PGlite } from "@electric-sql/pglite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePglite, pglite } from "./pglite.js";
import { createSqlGuard, postgresAdapter, type SqlGuard, type SqlGuardOptions } from "../../src/sql/index.js";

const SCHEMA = `
CREATE TABLE orders (id integer PRIMARY KEY, customer text, total double precision);
CREATE TABLE items (id integer PRIMARY KEY, order_id integer REFERENCES orders (id) ON DELETE CASCADE, sku text);
CREATE TABLE notes (body text);
INSERT INTO orders VALUES (1, 'ann', 10.5), (2, 'bob', 20), (3, NULL, NULL), (7, 'dee', 1);
INSERT INTO items VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'z');
INSERT INTO notes VALUES ('a'), ('a'), (NULL);`;

let store: string;
let pg: PGlite;
beforeAll(() => {
  store = mkdtempSync(join(tmpdir(), "polar-sql-pg-"));
});
afterAll(async () => {
  rmSync(store, { recursive: true, force: true });
  await closePglite();
});

async function fresh(extra = ""): Promise<PGlite> {
  pg = await pglite();
  await pg.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; ${SCHEMA} ${extra}`);
  return pg;
}

function guard(options: Partial<SqlGuardOptions> = {}): Promise<SqlGuard> {
  return createSqlGuard({ db: postgresAdapter(pg, { name: "pgtest" }), store, ...options });
}

async function state(): Promise<string> {
  const tables = (await pg.query<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).rows.map((r) => r.t);
  const out = [JSON.stringify(tables)];
  for (const t of tables) out.push(JSON.stringify((await pg.query(`SELECT to_jsonb(x)::text AS r FROM "${t}" x`)).rows.map((r) => (r as { r: string }).r).sort()));
  return out.join("\n");
}

async function roundTrip(g: SqlGuard, q: string): Promise<void> {
  const before = await state();
  const d = await g.check(q);
  expect(d.approved, `${q}: ${d.message}`).toBe(true);
  await pg.exec(q);
  await g.observe(d.execution!);
  expect(await state(), q).not.toBe(before);
  expect(await g.undo(), q).toMatchObject({ ok: true, reason: "undone" });
  expect(await state(), q).toBe(before);
}

describe("postgres: what the guard does not read", () => {
  it("a table that does not exist, a view, inheritance and a __polar_rid column are refused", async () => {
    await fresh(`CREATE VIEW big AS SELECT * FROM orders WHERE total > 5;
      CREATE TABLE base (id integer PRIMARY KEY, v text); CREATE TABLE sub () INHERITS (base);
      CREATE TABLE odd (id integer PRIMARY KEY, __polar_rid text);`);
    const g = await guard();
    expect(await g.check("DELETE FROM nope WHERE id = 1")).toMatchObject({ approved: false, action: "ask", reason: "unknown_state", message: "not judged (unknown_state): public.nope does not exist (the statement would fail)" });
    expect(await g.check("ALTER TABLE nope ADD COLUMN x int")).toMatchObject({ reason: "unknown_state" });
    expect(await g.check("DELETE FROM big WHERE id = 1")).toMatchObject({ reason: "unknown_effect", message: "not judged (unknown_effect): public.big is a view; what writing through it does is not read" });
    expect(await g.check("DELETE FROM base WHERE id = 1")).toMatchObject({ reason: "unknown_effect", message: "not judged (unknown_effect): public.base has inheritance children or partitions; the statement reaches tables the guard does not read" });
    expect(await g.check("UPDATE odd SET id = 2")).toMatchObject({ reason: "unknown_state", message: "not judged: public.odd has a column named __polar_rid" });
    expect(await g.check("DROP TABLE IF EXISTS nope")).toMatchObject({ approved: true, reason: "reversible" });
  });
});

describe("postgres: rows kept", () => {
  it("a point DELETE or UPDATE is counted and read in one statement; a composite key too", async () => {
    await fresh("CREATE TABLE pair (a integer, b integer, v text, PRIMARY KEY (a, b)); INSERT INTO pair VALUES (1, 1, 'x'), (1, 2, 'y'), (2, 1, 'z');");
    const g = await guard();
    expect((await g.check("UPDATE orders SET total = 0 WHERE id IN (1, 2)")).restorePoint).toMatchObject({ tables: ["public.orders"], rows: 2 });
    expect((await g.check("DELETE FROM pair WHERE a = 1")).restorePoint).toMatchObject({ tables: ["public.pair"], rows: 2 });
    await roundTrip(g, "DELETE FROM pair WHERE a = 1");
    await roundTrip(g, "UPDATE pair SET v = 'q' WHERE b = 1");
    await roundTrip(g, "UPDATE orders SET total = 0 WHERE id IN (1, 2)");
  });

  it("over the bound the count says so and nothing is kept; at the bound the rows are kept", async () => {
    await fresh();
    expect(await (await guard({ bounds: { maxRows: 1 } })).check("UPDATE orders SET total = 0 WHERE id IN (1, 2)")).toMatchObject({
      approved: false, reason: "over_bound", message: "not approved: UPDATE would change more than 1 rows of public.orders; that is over the restore bound (1 rows), so they were counted, not read, and no undo is possible",
    });
    const at = await guard({ bounds: { maxRows: 2 } });
    expect((await at.check("UPDATE orders SET total = 0 WHERE id IN (1, 2)")).restorePoint).toMatchObject({ rows: 2 });
    await roundTrip(at, "UPDATE orders SET total = 0 WHERE id IN (1, 2)");
  });

  it("TRUNCATE keeps the table; with CASCADE every referencing table, and both come back", async () => {
    await fresh();
    const g = await guard();
    expect((await g.check("TRUNCATE notes")).restorePoint).toMatchObject({ tables: ["public.notes"], rows: 3 });
    const c = await g.check("TRUNCATE orders CASCADE");
    expect(c).toMatchObject({ approved: true, tier: "T1", restorePoint: { tables: ["public.orders", "public.items"], rows: 7 } });
    await roundTrip(g, "TRUNCATE orders CASCADE");
    // Without CASCADE no other table is reached (PostgreSQL refuses a TRUNCATE of a referenced table).
    expect((await g.check("TRUNCATE items")).restorePoint).toMatchObject({ tables: ["public.items"] });
  });

  it("TRUNCATE … CASCADE of an empty table whose referencing table holds rows: only the cascade loses rows, and they are kept and come back", async () => {
    await fresh("CREATE TABLE hub (id integer PRIMARY KEY); CREATE TABLE spoke (id integer PRIMARY KEY, hub_id integer REFERENCES hub (id)); INSERT INTO spoke VALUES (1, NULL), (2, NULL);");
    const g = await guard();
    expect(await g.check("TRUNCATE hub CASCADE")).toMatchObject({ approved: true, reason: "restore_point", tier: "T1", restorePoint: { tables: ["public.hub", "public.spoke"], rows: 2 } });
    await roundTrip(g, "TRUNCATE hub CASCADE");
  });

  it("TRUNCATE … RESTART IDENTITY of a table that owns a sequence, or with CASCADE over referencing tables, is asked; of one without, kept and undone (regression: the undo put the rows back, said undone, and left the sequence restarted: the next INSERT failed on a duplicate key)", async () => {
    await fresh("CREATE TABLE s (id serial PRIMARY KEY, v text); INSERT INTO s (v) VALUES ('a'), ('b');");
    const g = await guard();
    expect(await g.check("TRUNCATE s RESTART IDENTITY")).toMatchObject({ approved: false, action: "ask", reason: "irreversible", message: "not approved: TRUNCATE … RESTART IDENTITY resets the sequences of public.s, and no restore point holds a sequence's value" });
    expect(await g.check("TRUNCATE orders RESTART IDENTITY CASCADE")).toMatchObject({ approved: false, reason: "irreversible", message: "not approved: TRUNCATE … RESTART IDENTITY resets the sequences of public.orders and of the tables its CASCADE empties, and no restore point holds a sequence's value" });
    expect(g.list()).toEqual([]);
    await roundTrip(g, "TRUNCATE notes RESTART IDENTITY");
    await roundTrip(g, "TRUNCATE s CONTINUE IDENTITY");
  });

  it("TRUNCATE under escalate keeps no table copy: asked, naming the rows", async () => {
    await fresh();
    const g = await guard({ policy: "escalate" });
    const d = await g.check("TRUNCATE notes");
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4" });
    expect(d.message).toMatch(/^not approved: TRUNCATE would remove 3 rows of public\.notes that nothing could give back \(sql\.truncate\.\w+\)$/);
    // After another statement on the table too (regression: approved with a copy of orders and items).
    for (const q of ["DELETE FROM orders WHERE id = 1; TRUNCATE orders CASCADE", "UPDATE orders SET total = 0 WHERE id = 7; TRUNCATE orders"]) {
      expect(await g.check(q), q).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4", restorePoint: null });
    }
    // Both statements reach items: it is named once.
    expect((await g.check("DELETE FROM orders WHERE id = 1; TRUNCATE orders CASCADE")).message).toBe("not approved: DELETE would remove 4 rows of public.orders, and foreign-key actions would also change rows of public.items; no restore point holds them");
  });

  it("DROP … CASCADE names the tables the cascade reaches; ALTER names the table; both are a rollback inside the caller's transaction", async () => {
    await fresh();
    const g = await guard();
    expect((await g.check("DROP TABLE orders CASCADE")).message).toBe("not approved: DROP would remove 4 rows of public.orders, and foreign-key actions would also change rows of public.items; no restore point holds them");
    expect((await g.check("DROP TABLE notes CASCADE")).message).toMatch(/^not approved: DROP would destroy public\.notes and its 3 rows/);
    const alter = await g.check("ALTER TABLE notes ADD COLUMN x integer");
    expect(alter).toMatchObject({ approved: false, reason: "irreversible", tier: "T4" });
    expect(alter.message).toMatch(/^not approved: ALTER TABLE public\.notes changes its definition, and nothing keeps the old one \(sql\.alter\.\w+\)$/);
    await pg.exec("BEGIN");
    try {
      const t = await g.check("ALTER TABLE notes ADD COLUMN x integer");
      // A rollback takes the transaction's other work too (T3): under the threshold, asked.
      expect(t).toMatchObject({ approved: false, action: "ask", tier: "T3", reason: "below_threshold" });
      expect(t.message).toMatch(/^not approved: below_threshold/);
      expect(t.inverse.map((s) => s.tool)).toEqual(["sql_rollback"]);
    } finally {
      await pg.exec("ROLLBACK");
    }
  });
});

describe("postgres: CREATE TABLE IF NOT EXISTS of a table that exists", () => {
  it("changes nothing: a DELETE of that table beside it is kept and undone, and the undo of a string holding it leaves the table (regression: approved as changing nothing; and the undo dropped the existing table)", async () => {
    await fresh();
    const g = await guard();
    await roundTrip(g, "CREATE TABLE IF NOT EXISTS orders (id integer PRIMARY KEY); DELETE FROM orders WHERE id = 7");
    await roundTrip(g, "CREATE TABLE IF NOT EXISTS orders (id integer PRIMARY KEY); DELETE FROM notes WHERE body = 'a'");
  });
});

describe("postgres: a table the string creates and writes to", () => {
  it("is asked, saying that its rows are not kept (regression: the text said CREATE OR REPLACE replaced its definition); a write to another table beside the CREATE is kept and undone", async () => {
    await fresh();
    const g = await guard();
    expect(await g.check("CREATE TABLE m (a integer); INSERT INTO m VALUES (1)")).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4", message: "not approved: the string creates public.m and writes to it, and no restore point holds the rows of a relation the string creates (sql.insert.unkept)" });
    await roundTrip(g, "CREATE TABLE m (a integer); INSERT INTO notes VALUES ('n')");
  });
});

describe("postgres: the caller's open transaction", () => {
  it("a DROP in it is a rollback (T3, asked) whatever the table holds: over the restore bound too, never over_bound (no bound makes a PostgreSQL DROP restorable)", async () => {
    await fresh();
    const g = await guard({ bounds: { maxRows: 1 } });
    await pg.exec("BEGIN");
    try {
      const d = await g.check("DROP TABLE notes");
      expect(d).toMatchObject({ approved: false, action: "ask", tier: "T3", reason: "below_threshold", restorePoint: null });
      expect(d.message).toMatch(/^not approved: below_threshold/);
      expect(d.inverse.map((s) => s.tool)).toEqual(["sql_rollback"]);
      // With CASCADE, what it drops besides (views, other tables' foreign keys) is not read: irreversible,
      // in the transaction or not, even when no table references this one.
      expect(await (await guard()).check("DROP TABLE notes CASCADE")).toMatchObject({ approved: false, reason: "irreversible", tier: "T4", message: "not approved: DROP would destroy public.notes and its 3 rows, and no restore point holds them (sql.drop.cascade)" });
    } finally {
      await pg.exec("ROLLBACK");
    }
  });
});

describe("postgres: a UNIQUE column a foreign key names", () => {
  const CODES = "CREATE TABLE p (id integer PRIMARY KEY, code text UNIQUE); CREATE TABLE c (id integer PRIMARY KEY, pcode text REFERENCES p (code) ON UPDATE CASCADE); INSERT INTO p VALUES (1, 'a'), (2, 'b');";

  it("an UPDATE of it is undone; a child row that references the new value since makes the undo fail, nothing changed (regression: the undo's own UPDATE set off ON UPDATE CASCADE, rewrote that newer child row, and said undone)", async () => {
    await fresh(CODES);
    const g = await guard();
    await roundTrip(g, "UPDATE p SET code = 'z' WHERE id = 1");
    // A child row at the time of the check: the cascade's table is kept whole, and comes back with p.
    await pg.exec("INSERT INTO c VALUES (5, 'b')");
    await roundTrip(g, "UPDATE p SET code = 'y' WHERE id = 2");
    const d = await g.check("UPDATE p SET code = 'z' WHERE id = 1");
    expect(d).toMatchObject({ approved: true, restorePoint: { tables: ["public.p"] } });
    await pg.exec("UPDATE p SET code = 'z' WHERE id = 1");
    await g.observe(d.execution!);
    await pg.exec("INSERT INTO c VALUES (10, 'z')");
    const after = await state();
    expect(await g.undo()).toMatchObject({ ok: false, reason: "inverse_failed", message: expect.stringMatching(/failed \(nothing was changed\): rows of public\.c reference a row of public\.p whose referenced columns the undo would change$/) });
    expect(await state()).toBe(after);
    // Once that row is gone, the undo goes through.
    await pg.exec("DELETE FROM c WHERE id = 10");
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect((await pg.query("SELECT code FROM p ORDER BY id")).rows).toEqual([{ code: "a" }, { code: "b" }]);
  });
});

describe("postgres: a json column", () => {
  it("a table with a json column is not judged; jsonb rows are kept and put back (regression: a json value came back as jsonb prints it, {\"b\":1,  \"a\":2, \"a\":3} as {\"a\": 3, \"b\": 1}, and the undo said undone)", async () => {
    await fresh(`CREATE TABLE docs (id integer PRIMARY KEY, j json); INSERT INTO docs VALUES (1, '{"b":1,  "a":2, "a":3}'); CREATE TABLE bdocs (id integer PRIMARY KEY, j jsonb); INSERT INTO bdocs VALUES (1, '{"b":1, "a":2}');`);
    const g = await guard();
    expect(await g.check("DELETE FROM docs WHERE id = 1")).toMatchObject({ approved: false, action: "ask", reason: "unknown_state", message: "not judged (unknown_state): public.docs has a json column (j): its text (whitespace, key order, repeated keys) cannot be kept exactly" });
    await roundTrip(g, "DELETE FROM bdocs WHERE id = 1");
  });
});

describe("postgres: INSERT … ON CONFLICT DO UPDATE", () => {
  it("keeps the children an ON UPDATE action of the rows it updates may change, and the undo gives them back (regression: a child's ON UPDATE SET NULL ran, the child was not kept, and the undo said undone and left its row NULL)", async () => {
    await fresh("CREATE TABLE p (id integer PRIMARY KEY, code text UNIQUE); CREATE TABLE c (id integer PRIMARY KEY, pcode text REFERENCES p (code) ON UPDATE SET NULL); CREATE TABLE k (id integer PRIMARY KEY, pcode text REFERENCES p (code)); INSERT INTO p VALUES (1, 'a'), (2, 'b'); INSERT INTO c VALUES (5, 'a'); INSERT INTO k VALUES (6, 'b');");
    const g = await guard();
    const q = "INSERT INTO p (id, code) VALUES (1, 'q') ON CONFLICT (id) DO UPDATE SET code = excluded.code";
    expect(await g.check(q)).toMatchObject({ approved: true, restorePoint: { tables: ["public.p", "public.c"], rows: 3 } });
    await roundTrip(g, q);
    // ON CONFLICT DO NOTHING updates nothing: no child is read.
    expect(await g.check("INSERT INTO p (id, code) VALUES (1, 'q') ON CONFLICT DO NOTHING")).toMatchObject({ approved: true, restorePoint: { tables: ["public.p"] } });
  });

  it("reaches the ON UPDATE actions of the tables referencing a child its ON UPDATE CASCADE sets: asked, naming the child", async () => {
    await fresh(`CREATE TABLE p (id integer PRIMARY KEY, code text UNIQUE); CREATE TABLE c (id integer PRIMARY KEY, pcode text UNIQUE REFERENCES p (code) ON UPDATE CASCADE);
      CREATE TABLE g (id integer PRIMARY KEY, ccode text REFERENCES c (pcode) ON UPDATE SET NULL); INSERT INTO p VALUES (1, 'a'); INSERT INTO c VALUES (1, 'a'); INSERT INTO g VALUES (1, 'a');`);
    const g = await guard();
    expect(await g.check("INSERT INTO p (id, code) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET code = excluded.code")).toMatchObject({
      approved: false, reason: "over_bound", message: "not approved: INSERT would add to rows of public.p, and foreign-key actions reach public.c and the tables that reference it, which the guard does not read",
    });
  });
});

describe("postgres: an INSERT that leaves the key to a sequence", () => {
  it("serial and identity keys are kept by the range above min(largest key, the sequence's last value), the sequence's value the declared residue", async () => {
    await fresh(`CREATE TABLE s (id serial PRIMARY KEY, v text); INSERT INTO s (v) VALUES ('a'), ('b');
      CREATE TABLE idt (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text); INSERT INTO idt (v) VALUES ('a');
      CREATE TABLE unused (id serial PRIMARY KEY, v text);
      CREATE TABLE behind (id serial PRIMARY KEY, v text); INSERT INTO behind VALUES (10, 'ahead of the sequence');
      CREATE TABLE small (id smallserial PRIMARY KEY, v text); INSERT INTO small (v) VALUES ('a');`);
    const g = await guard({ bounds: { maxRows: 0 } });
    for (const q of ["INSERT INTO s (v) VALUES ('c')", "INSERT INTO idt (v) VALUES ('b')", "INSERT INTO unused (v) VALUES ('x')", "INSERT INTO small (v) VALUES ('b')"]) {
      expect(await g.check(q), q).toMatchObject({ approved: true, reason: "restore_point", tier: "T3", restorePoint: { rows: 0 } });
    }
    // The sequence (at 0, before its start) is below the largest key: the range starts at the sequence,
    // so the row with key 10 is in it: over the bound 0.
    expect(await g.check("INSERT INTO behind (v) VALUES ('x')")).toMatchObject({ approved: false, reason: "over_bound" });
    const wide = await guard();
    await roundTrip(wide, "INSERT INTO s (v) VALUES ('c'), ('d')");
    await roundTrip(wide, "INSERT INTO unused (v) VALUES ('x')");
    await roundTrip(wide, "INSERT INTO idt (v) VALUES ('b')");
    await roundTrip(wide, "INSERT INTO small (v) VALUES ('b')");
  });

  it("the rows above a sequence that is behind its largest key count into the restore bound with every other table of the string", async () => {
    // behind: its sequence is at its start, the largest key 10, so the range above min(10, 0) holds the
    // row with key 10 (1 row). DELETE FROM orders WHERE id = 2 matches 1 row; its cascade reaches items,
    // kept whole (3 rows). The point holds 1 + 1 + 3 = 5 rows, in either order of the statements.
    await fresh(`CREATE TABLE behind (id serial PRIMARY KEY, v text); INSERT INTO behind VALUES (10, 'ahead of the sequence');`);
    const first = "INSERT INTO behind (v) VALUES ('x'); DELETE FROM orders WHERE id = 2";
    const last = "DELETE FROM orders WHERE id = 2; INSERT INTO behind (v) VALUES ('x')";
    for (const maxRows of [3, 4]) {
      for (const q of [first, last]) {
        const d = await (await guard({ bounds: { maxRows } })).check(q);
        expect(d, `${q} (bound ${maxRows})`).toMatchObject({ approved: false, reason: "over_bound", restorePoint: null });
      }
    }
    // Counted into the bound when the range comes after the cascade: it is the range that passes it.
    expect((await (await guard({ bounds: { maxRows: 4 } })).check(last)).message).toBe("not approved: INSERT would add to public.behind (1 rows above its largest key); with the rows kept for the string's other tables that is more than 4 rows (the restore bound)");
    const g = await guard({ bounds: { maxRows: 5 } });
    const d = await g.check(first);
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["public.behind", "public.orders", "public.items"], rows: 5 } });
    await roundTrip(g, first);
    await roundTrip(g, last);
  });

  it("a serial whose default no longer is its sequence's nextval keeps the whole table (regression: the range above the owned sequence was kept, the new key came from elsewhere, and the undo said undone and left the row)", async () => {
    await fresh(`CREATE TABLE k (id serial PRIMARY KEY, v text); INSERT INTO k (v) VALUES ('a'), ('b'); ALTER TABLE k ALTER COLUMN id SET DEFAULT -5;
      CREATE SEQUENCE other; CREATE TABLE o (id serial PRIMARY KEY, v text); INSERT INTO o VALUES (100, 'a'); SELECT setval('o_id_seq', 100); ALTER TABLE o ALTER COLUMN id SET DEFAULT nextval('other');
      CREATE TABLE neg (id serial PRIMARY KEY, v text); INSERT INTO neg (v) VALUES ('a'); ALTER TABLE neg ALTER COLUMN id SET DEFAULT -nextval('neg_id_seq');
      CREATE TABLE "Odd" ("Id" serial PRIMARY KEY, v text); INSERT INTO "Odd" (v) VALUES ('a');`);
    const g = await guard();
    for (const [t, rows] of [["k", 2], ["o", 1], ["neg", 1]] as const) {
      expect((await g.check(`INSERT INTO ${t} (v) VALUES ('n')`)).restorePoint, t).toMatchObject({ tables: [`public.${t}`], rows });
    }
    // A quoted serial whose default is still its own: the range (no rows above the key).
    expect((await g.check(`INSERT INTO "Odd" (v) VALUES ('n')`)).restorePoint).toMatchObject({ tables: ["public.Odd"], rows: 0 });
    await roundTrip(g, "INSERT INTO k (v) VALUES ('n')");
    await roundTrip(g, "INSERT INTO o (v) VALUES ('n')");
    await roundTrip(g, "INSERT INTO neg (v) VALUES ('n')");
    await roundTrip(g, `INSERT INTO "Odd" (v) VALUES ('n')`);
  });

  it("a cycling or descending sequence, a key that is not an integer, or a key of two columns (its first a serial), keeps the whole table", async () => {
    await fresh(`CREATE SEQUENCE cyc CYCLE; CREATE TABLE c (id integer PRIMARY KEY DEFAULT nextval('cyc'), v text); ALTER SEQUENCE cyc OWNED BY c.id; INSERT INTO c (v) VALUES ('a');
      CREATE SEQUENCE down INCREMENT -1 MINVALUE -100 MAXVALUE 0 START 0; CREATE TABLE d (id integer PRIMARY KEY DEFAULT nextval('down'), v text); ALTER SEQUENCE down OWNED BY d.id; INSERT INTO d (v) VALUES ('a');
      CREATE SEQUENCE num; CREATE TABLE n (id numeric PRIMARY KEY DEFAULT nextval('num'), v text); ALTER SEQUENCE num OWNED BY n.id; INSERT INTO n (v) VALUES ('a');
      CREATE TABLE plain (id integer PRIMARY KEY DEFAULT 5, v text); INSERT INTO plain VALUES (1, 'a');
      CREATE TABLE two (id serial, b integer, v text, PRIMARY KEY (id, b)); INSERT INTO two (b, v) VALUES (1, 'a');`);
    const g = await guard();
    for (const t of ["c", "d", "n", "plain", "two"]) {
      const d = await g.check(`INSERT INTO ${t} (${t === "two" ? "b, v) VALUES (2, " : "v) VALUES ("}'b')`);
      expect(d.restorePoint, t).toMatchObject({ tables: [`public.${t}`], rows: 1 });
    }
    await roundTrip(g, "INSERT INTO d (v) VALUES ('b')");
    await roundTrip(g, "INSERT INTO two (b, v) VALUES (2, 'b')");
  });
});

describe("postgres: the undo's order over tables a foreign key links", () => {
  // PostgreSQL checks a foreign key at the end of each statement (not deferred): the undo must put a
  // parent's rows back before its children's, delete children's rows before their parent's, and drop a
  // table the string created after the tables created later that reference it.
  it("rows deleted from a child and then its parent come back, the parent's first", async () => {
    await fresh();
    const g = await guard();
    await roundTrip(g, "DELETE FROM items WHERE order_id = 2; DELETE FROM orders WHERE id = 2");
  });

  it("a table that references itself comes back before its child (the point's depths skip the table's own foreign key: counted, it tied the table with its child)", async () => {
    await fresh("CREATE TABLE emp (id integer PRIMARY KEY, boss integer REFERENCES emp (id)); CREATE TABLE a_task (id integer PRIMARY KEY, emp_id integer REFERENCES emp (id)); INSERT INTO emp VALUES (1, NULL), (3, 1); INSERT INTO a_task VALUES (1, 3);");
    const g = await guard();
    await roundTrip(g, "DELETE FROM a_task WHERE id = 1; DELETE FROM emp WHERE id = 3");
  });

  it("three generations deleted grandchild first come back grandparent, parent, grandchild", async () => {
    await fresh("CREATE TABLE parts (id integer PRIMARY KEY, item_id integer REFERENCES items (id)); INSERT INTO parts VALUES (1, 3);");
    const g = await guard();
    const q = "DELETE FROM parts WHERE id = 1; DELETE FROM items WHERE id = 3; DELETE FROM orders WHERE id = 2";
    expect((await g.check(q)).restorePoint).toMatchObject({ tables: ["public.parts", "public.items", "public.orders"], rows: 5 });
    await roundTrip(g, q);
  });

  it("a child that references both its parent and that parent's own parent comes back after both (its depth is the longest path, not the last parent's)", async () => {
    await fresh("CREATE TABLE mid (id integer PRIMARY KEY, order_id integer REFERENCES orders (id)); CREATE TABLE leaf (id integer PRIMARY KEY, order_id integer REFERENCES orders (id), mid_id integer REFERENCES mid (id)); INSERT INTO mid VALUES (1, 3); INSERT INTO leaf VALUES (1, 3, 1);");
    const g = await guard();
    const q = "DELETE FROM leaf WHERE id = 1; DELETE FROM mid WHERE id = 1; DELETE FROM orders WHERE id = 3";
    expect((await g.check(q)).restorePoint).toMatchObject({ tables: ["public.leaf", "public.mid", "public.orders"], rows: 3 });
    await roundTrip(g, q);
  });

  it("a parent and a child created by one string are dropped again, the child first (regression: the undo dropped the parent first, PostgreSQL refused, and the undo failed)", async () => {
    await fresh();
    const g = await guard();
    await roundTrip(g, "CREATE TABLE p2 (id integer PRIMARY KEY); CREATE TABLE c2 (id integer PRIMARY KEY, p integer REFERENCES p2 (id))");
  });

  it("a key GENERATED ALWAYS AS IDENTITY is put back as it was (OVERRIDING SYSTEM VALUE)", async () => {
    await fresh("CREATE TABLE g (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text); INSERT INTO g (v) VALUES ('a'), ('b'), ('c');");
    const g = await guard();
    await roundTrip(g, "DELETE FROM g WHERE id = 2");
    expect((await pg.query("SELECT id, v FROM g ORDER BY id")).rows).toEqual([{ id: 1, v: "a" }, { id: 2, v: "b" }, { id: 3, v: "c" }]);
  });

  it("a child whose foreign key has two columns: the rows an INSERT into the parent added are deleted, unless a child row references one", async () => {
    await fresh("CREATE TABLE pp (a integer, b text, PRIMARY KEY (a, b)); CREATE TABLE cc (x integer, y text, FOREIGN KEY (x, y) REFERENCES pp (a, b)); INSERT INTO pp VALUES (1, 'a');");
    const g = await guard();
    await roundTrip(g, "INSERT INTO pp VALUES (2, 'b'), (3, 'c')");
    const d = await g.check("INSERT INTO pp VALUES (2, 'b'), (3, 'c')");
    expect(d.approved, d.message).toBe(true);
    await pg.exec("INSERT INTO pp VALUES (2, 'b'), (3, 'c')");
    await g.observe(d.execution!);
    await pg.exec("INSERT INTO cc VALUES (3, 'c')");
    const after = await state();
    expect(await g.undo()).toMatchObject({ ok: false, reason: "inverse_failed", message: expect.stringMatching(/failed \(nothing was changed\): rows of public\.cc reference a row of public\.pp the undo would delete$/) });
    expect(await state()).toBe(after);
  });
});

describe("postgres: the undo's order over updates, and several rows set back", () => {
  const CODES = "CREATE TABLE p (id integer PRIMARY KEY, code text UNIQUE); CREATE TABLE c (id integer PRIMARY KEY, pcode text REFERENCES p (code) ON UPDATE CASCADE); INSERT INTO p VALUES (1, 'a'), (2, 'b'); INSERT INTO c VALUES (5, 'b');";

  it("a child set back to reference a value its parent gets back in the same undo: the parent's rows are set back first", async () => {
    await fresh(CODES);
    const g = await guard();
    await roundTrip(g, "UPDATE c SET pcode = 'a' WHERE id = 5; UPDATE p SET code = 'z' WHERE id = 2");
  });

  it("several parent rows set back under a newer child row: the undo fails, nothing changed", async () => {
    await fresh("CREATE TABLE p (id integer PRIMARY KEY, code text UNIQUE); CREATE TABLE c (id integer PRIMARY KEY, pcode text REFERENCES p (code) ON UPDATE CASCADE); INSERT INTO p VALUES (1, 'a'), (2, 'b');");
    const g = await guard();
    const d = await g.check("UPDATE p SET code = code || 'x'");
    expect(d.approved, d.message).toBe(true);
    await pg.exec("UPDATE p SET code = code || 'x'");
    await g.observe(d.execution!);
    await pg.exec("INSERT INTO c VALUES (10, 'bx')");
    const after = await state();
    expect(await g.undo()).toMatchObject({ ok: false, reason: "inverse_failed", message: expect.stringMatching(/failed \(nothing was changed\): rows of public\.c reference a row of public\.p whose referenced columns the undo would change$/) });
    expect(await state()).toBe(after);
  });
});

describe("postgres: a table named like the guard's own query names", () => {
  it("a keyed DELETE on a table named c, written without its schema, is approved and undone (regression: the bounded count's CTE was named c and hid the table: internal_error)", async () => {
    await fresh("CREATE TABLE c (id integer PRIMARY KEY, v text); INSERT INTO c VALUES (1, 'a'), (2, 'b');");
    const g = await guard();
    await roundTrip(g, "DELETE FROM c WHERE id = 1");
  });
});

describe("postgres: TRUNCATE beside other statements and options", () => {
  it("TRUNCATE … RESTART IDENTITY CASCADE of a table that owns no sequence and no table references is kept and undone", async () => {
    await fresh();
    const g = await guard();
    await roundTrip(g, "TRUNCATE notes RESTART IDENTITY CASCADE");
  });

  it("a TRUNCATE after another statement of the string is kept and undone with it", async () => {
    await fresh();
    const g = await guard();
    await roundTrip(g, "DELETE FROM orders WHERE id = 7; TRUNCATE notes");
  });
});

describe("postgres: BEGIN", () => {
  it("alone is read-only; beside a DELETE the DELETE is kept, run in the transaction BEGIN opens, and undone once it is committed (regression: every string holding a BEGIN was an internal_error)", async () => {
    await fresh();
    const g = await guard();
    expect(await g.check("BEGIN")).toMatchObject({ approved: true, reason: "read_only", tier: "T0", calls: [] });
    const before = await state();
    const q = "BEGIN; DELETE FROM orders WHERE id = 7";
    const d = await g.check(q);
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["public.orders"], rows: 1 } });
    await pg.exec(q);
    try {
      await g.observe(d.execution!);
    } finally {
      await pg.exec("COMMIT");
    }
    expect(await state()).not.toBe(before);
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(await state()).toBe(before);
  });
});

describe("postgres: column names, CTEs and foreign keys that only refuse", () => {
  it("a quoted column that differs from the key only in case is another column: an UPDATE of it keeps the matched rows, not the table", async () => {
    await fresh(`CREATE TABLE q (id integer PRIMARY KEY, "ID" integer); INSERT INTO q VALUES (1, 1), (2, 2);`);
    const g = await guard();
    expect(await g.check(`UPDATE q SET "ID" = 5 WHERE id = 1`)).toMatchObject({ approved: true, restorePoint: { tables: ["public.q"], rows: 1 } });
    await roundTrip(g, `UPDATE q SET "ID" = 5 WHERE id = 1`);
  });

  it("a DELETE whose WHERE reads a data-modifying CTE is kept whole, counted without that CTE, and undone", async () => {
    await fresh();
    const g = await guard();
    const q = "WITH d AS (DELETE FROM items WHERE id = 3 RETURNING order_id) DELETE FROM orders WHERE id IN (SELECT order_id FROM d)";
    expect(await g.check(q)).toMatchObject({ approved: true, restorePoint: { tables: ["public.items", "public.orders"], rows: 7 } });
    await roundTrip(g, q);
  });

  it("a child whose ON UPDATE only refuses (RESTRICT) is not read: over the bound alone, it does not make the UPDATE over it", async () => {
    await fresh("CREATE TABLE p (code text UNIQUE, v integer); CREATE TABLE c (id integer PRIMARY KEY, pcode text REFERENCES p (code) ON UPDATE RESTRICT); INSERT INTO p VALUES ('a', 1), ('b', 2); INSERT INTO c VALUES (1, 'a'), (2, 'a'), (3, 'a');");
    const g = await guard({ bounds: { maxRows: 2 } });
    expect(await g.check("UPDATE p SET code = 'c' WHERE code = 'b'")).toMatchObject({ approved: true, restorePoint: { tables: ["public.p"], rows: 2 } });
    await roundTrip(g, "UPDATE p SET code = 'c' WHERE code = 'b'");
  });
});
