// The SQL guard's verdicts, stated one by one on SQLite (better-sqlite3, in memory): the options it
// refuses, the shapes of a call, the refusals of what SQLite reads differently or what the guard cannot
// read, the scope of rows each statement keeps, the bound, the policies, and what observe and undo do
// with what was approved. Every approval that keeps rows is run and undone here, and the database
// compared with the one before. (test/sql/guard.test.ts runs the common cases on both dialects.)
import Database from "better-sqlite3";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlGuard, sqliteAdapter, type SqlAdapter, type SqlGuard, type SqlGuardOptions } from "../../src/sql/index.js";

const SCHEMA = `
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL);
CREATE TABLE items (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders (id) ON DELETE CASCADE, sku TEXT);
CREATE TABLE notes (body TEXT);
CREATE VIEW big AS SELECT * FROM orders WHERE total > 5;
CREATE INDEX notes_body ON notes (body);
INSERT INTO orders VALUES (1, 'ann', 10.5), (2, 'bob', 20), (3, NULL, NULL), (7, 'dee', 1);
INSERT INTO items VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'z');
INSERT INTO notes VALUES ('a'), ('a'), (NULL);`;

let store: string;
beforeAll(() => {
  store = mkdtempSync(join(tmpdir(), "polar-sql-verdicts-"));
});
afterAll(() => {
  rmSync(store, { recursive: true, force: true });
});

interface Db {
  raw: Database.Database;
  db: SqlAdapter;
}

function fresh(extra = ""): Db {
  const raw = new Database(":memory:");
  raw.pragma("foreign_keys = ON");
  raw.exec(SCHEMA + extra);
  return { raw, db: sqliteAdapter(raw) };
}

function guard(h: Db | SqlAdapter, options: Partial<SqlGuardOptions> = {}): Promise<SqlGuard> {
  return createSqlGuard({ db: "raw" in h ? h.db : h, store, ...options });
}

/** Every table's rows (as a sorted multiset) and the schema. */
function state(h: Db): string {
  const tables = h.raw.prepare("SELECT name, sql FROM sqlite_schema ORDER BY name").all() as { name: string; sql: string | null }[];
  const out: string[] = [JSON.stringify(tables)];
  for (const t of tables.filter((x) => (x.sql ?? "").startsWith("CREATE TABLE"))) out.push(JSON.stringify((h.raw.prepare(`SELECT * FROM "${t.name}"`).all() as unknown[]).map((r) => JSON.stringify(r)).sort()));
  return out.join("\n");
}

/** Checks, runs, observes and undoes `q`; the database must be as before. */
async function roundTrip(h: Db, g: SqlGuard, q: string): Promise<void> {
  const before = state(h);
  const d = await g.check(q);
  expect(d.approved, `${q}: ${d.message}`).toBe(true);
  h.raw.exec(q);
  expect((await g.observe(d.execution!)).journaled).toMatch(/^q-\d+-[0-9a-f]{6}$/);
  expect(state(h), q).not.toBe(before);
  const u = await g.undo();
  expect(u, q).toMatchObject({ ok: true, reason: "undone" });
  expect(state(h), q).toBe(before);
}

/** A SQLite adapter whose `bytecode` agrees with every reading, to reach the guard's own checks
 * behind SQLite's (a statement SQLite would reject is then judged by the guard alone). */
function trusting(h: Db): SqlAdapter {
  return { ...h.db, bytecode: async () => "same" };
}

describe("createSqlGuard: options", () => {
  it("refuses each wrong option with its code and a one-line message", async () => {
    const h = fresh();
    const cases: [unknown, string, RegExp][] = [
      [null, "bad-option", /^createSqlGuard needs \{ db, store \}$/],
      [7, "bad-option", /^createSqlGuard needs \{ db, store \}$/],
      [{ db: h.db, store, bogus: 1 }, "bad-option", /^unknown option `bogus` \(the options are db, store, session, policy, bounds, log\)$/],
      [{ db: null, store }, "bad-db", /^`db` is not a SqlAdapter \(use sqliteAdapter\(database\) or postgresAdapter\(client\)\)$/],
      [{ db: "sqlite", store }, "bad-db", /not a SqlAdapter/],
      [{ db: (({ writeTransaction: _w, ...rest }) => rest)(h.db), store }, "bad-db", /not a SqlAdapter/],
      [{ db: { ...h.db, dialect: "mysql" }, store }, "bad-db", /^unknown dialect `mysql`$/],
      [{ db: { ...h.db, bytecode: undefined }, store }, "bad-db", /needs bytecode\(\)/],
      [{ db: h.db, store: 5 }, "bad-store", /^`store` is not a path$/],
      [{ db: h.db, store: "" }, "bad-store", /^`store` is not a path$/],
      [{ db: h.db, store, policy: "yolo" }, "bad-option", /^unknown policy `yolo` \(snapshot, escalate, veto, advisory\)$/],
      [{ db: h.db, store, session: "a b" }, "bad-option", /^`session` must be 1–128 characters/],
      [{ db: h.db, store, session: "" }, "bad-option", /session/],
      [{ db: h.db, store, session: "x".repeat(129) }, "bad-option", /session/],
      [{ db: h.db, store, session: 12 }, "bad-option", /session/],
      [{ db: h.db, store, session: "ok\nx" }, "bad-option", /session/],
      [{ db: h.db, store, bounds: { maxRows: -1 } }, "bad-option", /^bounds\.maxRows must be a non-negative integer$/],
      [{ db: h.db, store, bounds: { maxRows: 1.5 } }, "bad-option", /maxRows/],
      [{ db: h.db, store, bounds: { maxRows: "5" } }, "bad-option", /maxRows/],
      // A wrong shape is an error, never the default (regression: each of these was 10,000 rows, the
      // snapshot policy or a random session).
      [{ db: h.db, store, bounds: { maxrows: 5 } }, "bad-option", /^unknown bound `maxrows` \(the bounds are maxRows\)$/],
      [{ db: h.db, store, bounds: { maxRows: 5, rows: 1 } }, "bad-option", /^unknown bound `rows`/],
      [{ db: h.db, store, bounds: null }, "bad-option", /^`bounds` must be an object \{ maxRows \}$/],
      [{ db: h.db, store, bounds: 5 }, "bad-option", /^`bounds` must be an object/],
      [{ db: h.db, store, bounds: "5" }, "bad-option", /^`bounds` must be an object/],
      [{ db: h.db, store, bounds: [5] }, "bad-option", /^`bounds` must be an object/],
      [{ db: h.db, store, policy: null }, "bad-option", /^unknown policy `null`/],
      [{ db: h.db, store, session: null }, "bad-option", /^`session` must be/],
    ];
    for (const [options, code, message] of cases) {
      const e = await createSqlGuard(options as never).then(() => null, (x: unknown) => x as { code: string; message: string; name: string });
      expect(e, JSON.stringify(options, (_k, v) => (typeof v === "function" ? "fn" : v))?.slice(0, 80)).toMatchObject({ code, name: "SqlGuardError" });
      expect(e!.message).toMatch(message);
    }
  });

  it("a store that cannot be made is bad-store", async () => {
    const file = join(store, "a-file");
    writeFileSync(file, "x");
    await expect(createSqlGuard({ db: fresh().db, store: join(file, "below") })).rejects.toMatchObject({ code: "bad-store", name: "SqlGuardError" });
  });

  it("the defaults: a random session, the snapshot policy, 10,000 rows; a PostgreSQL adapter needs no bytecode", async () => {
    const h = fresh();
    const g = await guard(h);
    expect(g.session).toMatch(/^[0-9a-f]{12}$/);
    expect((await guard(h)).session).not.toBe(g.session);
    expect(g.policy).toBe("snapshot");
    expect(g.dialect).toBe("sqlite");
    const d = await g.check("DELETE FROM orders WHERE id = 7");
    h.raw.exec("DELETE FROM orders WHERE id = 7");
    await g.observe(d.execution!);
    expect(g.list()[0]!.maxRows).toBe(10_000);
    // Given bounds keep the default for what they leave out; 0 is a bound (nothing may be kept).
    const zero = await guard(h, { bounds: { maxRows: 0 }, session: "s.0_-Z", policy: "escalate" });
    expect(zero).toMatchObject({ session: "s.0_-Z", policy: "escalate" });
    expect(await zero.check("DELETE FROM orders WHERE id = 1")).toMatchObject({ approved: false, reason: "over_bound" });
    expect(await (await guard(h, { bounds: {} })).check("DELETE FROM orders WHERE id = 1")).toMatchObject({ approved: true });
    expect((await guard(h, { session: "x".repeat(128) })).session).toHaveLength(128);
    const pg = await createSqlGuard({ db: { ...h.db, dialect: "postgres", bytecode: undefined }, store });
    expect(pg.dialect).toBe("postgres");
  });
});

describe("the call", () => {
  it("a string or a tool call carries the statement; anything else is denied as malformed, with what is wrong", async () => {
    const g = await guard(fresh());
    expect(await g.check({ tool: "q", args: { sql: undefined, query: "SELECT 1" } })).toMatchObject({ approved: true, reason: "read_only" });
    expect(await g.check({ name: "q", arguments: { statement: "SELECT 1" } })).toMatchObject({ approved: true, reason: "read_only" });
    const cases: [unknown, string][] = [
      [null, "a statement is a string or a tool call { tool, args: { sql } }"],
      [7, "a statement is a string or a tool call { tool, args: { sql } }"],
      [{ tool: "q" }, "a tool call's args must be an object"],
      [{ tool: "q", args: null }, "a tool call's args must be an object"],
      [{ name: "q", arguments: null }, "a tool call's args must be an object"],
      [{ tool: "q", args: "SELECT 1" }, "a tool call's args must be an object"],
      [{ tool: "q", args: ["SELECT 1"] }, "a tool call's args must be an object"],
      [{ tool: "q", args: {} }, "the tool call must carry exactly one of `sql`, `query`, `statement`"],
      [{ tool: "q", args: { query: "SELECT 1", statement: "SELECT 2" } }, "the tool call must carry exactly one of `sql`, `query`, `statement`"],
      [{ tool: "q", args: { statement: 5 } }, "`statement` is not a string"],
      [{ tool: "q", args: { sql: "SELECT 1", params: [] } }, "bound parameters are not judged (the statement's rows depend on them)"],
      [{ tool: "q", args: { sql: "SELECT 1", parameters: {} } }, "bound parameters are not judged (the statement's rows depend on them)"],
      [{ tool: "q", args: { sql: "SELECT 1", bindings: undefined } }, "bound parameters are not judged (the statement's rows depend on them)"],
    ];
    for (const [input, why] of cases) {
      expect(await g.check(input), JSON.stringify(input)).toMatchObject({
        approved: false, action: "deny", route: "Vetoed", reason: "malformed_call", message: `not judged (malformed_call): ${why}`,
        tier: null, restorePoint: null, execution: null, inverse: [], core: null, calls: [], problems: [],
      });
    }
  });

  it("every decision is numbered, names its session and dialect, and is frozen", async () => {
    const g = await guard(fresh(), { session: "frozen" });
    const a = await g.check(null);
    const b = await g.check("SELECT 1");
    const c = await g.check("DELETE FROM orders WHERE id = 7");
    expect([a.seq, b.seq, c.seq]).toEqual([1, 2, 3]);
    for (const d of [a, b, c]) expect(d).toMatchObject({ format: "polar-sql-decision/1", session: "frozen", dialect: "sqlite" });
    expect(c.execution).toBe("frozen:3");
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.calls[0]!.arguments)).toBe(true);
    expect(Object.isFrozen(c.restorePoint)).toBe(true);
    expect(Object.isFrozen(c.inverse[0])).toBe(true);
  });

  it("a read-only statement is allowed at T0 with nothing to undo", async () => {
    const g = await guard(fresh());
    expect(await g.check("SELECT * FROM orders; SELECT 1")).toEqual(expect.objectContaining({
      approved: true, action: "allow", route: "Approved", reason: "read_only", message: "read-only: nothing to undo", tier: "T0",
      restorePoint: null, execution: null, inverse: [], core: null, calls: [], problems: [],
    }));
  });

  it("the parser's problems are refusals with the parser's reason and detail, the typed calls kept", async () => {
    const g = await guard(fresh());
    const d = await g.check("DELETE FROM orders WHERE id = random()");
    expect(d).toMatchObject({ approved: false, action: "ask", route: "ConsentEscalated", reason: "unknown_effect", message: "not judged (unknown_effect): the function random() may have effects the guard cannot see" });
    expect(d.calls).toEqual([{ name: "sql_delete", arguments: { table: "orders" }, source: "DELETE FROM orders WHERE id = random()" }]);
    expect(d.problems).toHaveLength(1);
    const v = await guard(fresh(), { policy: "veto" });
    expect(await v.check("VACUUM")).toMatchObject({ approved: false, action: "deny", route: "Vetoed", reason: "unknown_command" });
  });

  it("a statement that reads the clock is not judged (regression: DELETE … WHERE d < date('now') was approved with the rows matched when the guard read them; run later, it matches rows the point does not hold, and the undo cannot put them back)", async () => {
    const g = await guard(fresh());
    for (const [q, what] of [["DELETE FROM orders WHERE total < julianday('now')", "'now'"], ["UPDATE orders SET total = 0 WHERE CURRENT_TIMESTAMP > customer", "CURRENT_TIMESTAMP"]]) {
      expect(await g.check(q!), q).toMatchObject({ approved: false, action: "ask", reason: "unknown_effect", message: `not judged (unknown_effect): ${what} is the time when the statement runs, not when the guard read its rows` });
    }
  });
});

describe("SQLite's own reading", () => {
  it("a statement SQLite rejects is asked, naming which statement of the string", async () => {
    const g = await guard(fresh());
    expect(await g.check("SELECT 1; DELETE FROM missing WHERE id = 1")).toMatchObject({ approved: false, reason: "unparsed", message: "not judged (unparsed): SQLite rejects statement 2: no such table: missing" });
    // CREATE is only checked to be accepted as written (SQLite keeps its text).
    expect(await g.check("CREATE TABLE orders (x INTEGER)")).toMatchObject({ approved: false, reason: "unparsed", message: "not judged (unparsed): SQLite rejects statement 1: table orders already exists" });
    expect(await g.check("SELECT 1; CREATE TABLE t2 (x INTEGER)")).toMatchObject({ approved: true, reason: "reversible", tier: "T1" });
  });

  it("a reading SQLite cannot run as printed, or runs differently, is asked", async () => {
    const g = await guard(fresh());
    // PostgreSQL's parser prints the cast as `id::text`, which SQLite rejects.
    expect(await g.check("DELETE FROM orders WHERE CAST(id AS TEXT) = '1'")).toMatchObject({
      approved: false, reason: "unparsed", message: expect.stringMatching(/^not judged \(unparsed\): SQLite reads statement 1 differently from PostgreSQL's parser \(.+\)$/),
    });
    expect(await g.check("SELECT 1; DELETE FROM orders WHERE customer || 1 + 2 = 'bob3'")).toMatchObject({ approved: false, reason: "unparsed", message: "not judged (unparsed): SQLite reads statement 2 differently from PostgreSQL's parser" });
  });

  it("the bytecode is asked of every statement of the string, each as written and as read", async () => {
    const h = fresh();
    const asked: string[] = [];
    const g = await guard({ ...h.db, bytecode: async (sql: string) => { asked.push(sql); return h.db.bytecode!(sql); } });
    expect((await g.check("DELETE FROM orders WHERE id = 7; CREATE TABLE t3 (x INTEGER); UPDATE notes SET body = 'b' WHERE body = 'a'")).approved).toBe(true);
    expect(asked).toHaveLength(5);
    expect(asked[0]).toBe("DELETE FROM orders WHERE id = 7");
    expect(asked[2]).toMatch(/CREATE TABLE t3/);
  });
});

describe("what the guard cannot read is not judged", () => {
  it("a failing adapter is a refusal with the reason, never a rejection", async () => {
    const h = fresh();
    const broken = await guard({ ...h.db, inTransaction: async () => { throw new Error("connection lost"); } });
    expect(await broken.check("DELETE FROM orders WHERE id = 7")).toMatchObject({ approved: false, action: "ask", reason: "internal_error", message: "not judged (internal_error): connection lost", restorePoint: null, execution: null });
    const veto = await guard({ ...h.db, inTransaction: async () => { throw new Error("connection lost"); } }, { policy: "veto" });
    expect(await veto.check("DELETE FROM orders WHERE id = 7")).toMatchObject({ action: "deny", reason: "internal_error" });
    // A read-only statement needs no read of the database.
    expect((await broken.check("SELECT 1")).approved).toBe(true);
  });

  it("a read that fails while the statement is judged is a refusal, not read again: only a catalog that changed under the guard is read once more", async () => {
    const h = fresh();
    let failed = false;
    const once = await guard({ ...h.db, read: async (sql, params) => {
      if (!failed) {
        failed = true;
        throw new Error("read failed once");
      }
      return h.db.read(sql, params);
    } });
    expect(await once.check("DELETE FROM orders WHERE id = 7")).toMatchObject({ approved: false, action: "ask", reason: "internal_error", message: "not judged (internal_error): read failed once" });
    expect(await once.check("DELETE FROM orders WHERE id = 7")).toMatchObject({ approved: true, reason: "restore_point" });
  });

  it("a name that is also a temporary table is unknown_state; named with its schema it is judged", async () => {
    const h = fresh("CREATE TEMP TABLE orders (id INTEGER PRIMARY KEY);");
    const g = await guard(h);
    expect(await g.check("DELETE FROM main.orders WHERE id = 7")).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.orders"], rows: 1 } });
    expect(await g.check("DELETE FROM orders WHERE id = 7")).toMatchObject({ approved: false, reason: "unknown_state", message: expect.stringMatching(/^not judged \(unknown_state\): orders is also a temporary relation/) });
  });

  it("a table that does not exist, a view written through, a DROP of the wrong kind and a __polar_rid column are refused", async () => {
    const h = fresh("CREATE TABLE odd (id INTEGER PRIMARY KEY, __polar_rid TEXT); INSERT INTO odd VALUES (1, 'x');");
    const g = await guard(trusting(h));
    expect(await g.check("DELETE FROM nope WHERE id = 1")).toMatchObject({ approved: false, action: "ask", reason: "unknown_state", message: "not judged (unknown_state): main.nope does not exist (the statement would fail)" });
    expect(await g.check("UPDATE nope SET x = 1")).toMatchObject({ reason: "unknown_state" });
    expect(await g.check("INSERT INTO nope VALUES (1)")).toMatchObject({ reason: "unknown_state" });
    expect(await g.check("DROP TABLE nope")).toMatchObject({ reason: "unknown_state", message: "not judged (unknown_state): main.nope does not exist (the statement would fail)" });
    expect(await g.check("DELETE FROM big WHERE id = 1")).toMatchObject({ approved: false, reason: "unknown_effect", message: "not judged (unknown_effect): main.big is a view; what writing through it does is not read" });
    expect(await g.check("INSERT INTO notes_body VALUES (1)")).toMatchObject({ reason: "unknown_effect", message: expect.stringMatching(/main\.notes_body is a index/) });
    expect(await g.check("DROP VIEW orders")).toMatchObject({ approved: false, reason: "unknown_state", message: "not judged: main.orders is a table, not a view" });
    expect(await g.check("DROP INDEX big")).toMatchObject({ reason: "unknown_state", message: "not judged: main.big is a view, not a index" });
    expect(await g.check("DELETE FROM odd WHERE id = 1")).toMatchObject({ approved: false, reason: "unknown_state", message: "not judged: main.odd has a column named __polar_rid" });
    expect(await g.check("CREATE TABLE nope (x INTEGER)")).toMatchObject({ approved: true, reason: "reversible" });
    // DROP … IF EXISTS of nothing changes nothing.
    const none = await g.check("DROP TABLE IF EXISTS nope");
    expect(none).toMatchObject({ approved: true, action: "allow", reason: "reversible", tier: "T1", restorePoint: null, message: "approved: undo is nothing to undo (sql_drop changed nothing)" });
    expect(none.inverse.map((s) => s.tool)).toEqual(["nothing"]);
  });

  it("a write through a virtual table (FTS5, R*Tree) is not judged: its module's code is not read (regression: FTS5's `INSERT INTO f(f) VALUES('delete-all')` emptied an external-content index and `('rank', …)` changed its configuration; both were approved, and the undo said undone and left them)", async () => {
    const h = fresh(`CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO docs VALUES (1, 'hello world'), (2, 'other');
      CREATE VIRTUAL TABLE fe USING fts5(body, content='docs', content_rowid='id'); INSERT INTO fe(fe) VALUES ('rebuild');
      CREATE VIRTUAL TABLE ft USING fts5(a, b); INSERT INTO ft VALUES ('x y', 'z');
      CREATE VIRTUAL TABLE rt USING rtree(id, x0, x1); INSERT INTO rt VALUES (1, 0, 1);`);
    const g = await guard(h);
    const before = state(h);
    for (const [q, t] of [["INSERT INTO fe(fe) VALUES ('delete-all')", "fe"], ["INSERT INTO ft(ft, rank) VALUES ('rank', 'bm25(10.0)')", "ft"], ["DELETE FROM ft WHERE b = 'z'", "ft"], ["INSERT INTO ft VALUES ('n', 'm')", "ft"], ["UPDATE ft SET b = 'w'", "ft"], ["DELETE FROM rt WHERE id = 1", "rt"]]) {
      expect(await g.check(q), q).toMatchObject({ approved: false, action: "ask", reason: "unknown_effect", message: `not judged (unknown_effect): main.${t} is a virtual table; what writing through it does is not read` });
    }
    // Its DROP removes the module's storage with it: not the table a DROP TABLE keeps.
    expect(await g.check("DROP TABLE ft")).toMatchObject({ approved: false, reason: "unknown_state", message: "not judged: main.ft is a virtual table, not a table" });
    // Nothing was approved, nothing journaled; the index still finds the row.
    expect(g.list()).toEqual([]);
    expect(state(h)).toBe(before);
    expect(h.raw.prepare("SELECT rowid FROM fe WHERE fe MATCH 'hello'").all()).toEqual([{ rowid: 1 }]);
  });
});

describe("the rows kept", () => {
  it("a point DELETE keeps its row; a key that matches nothing keeps none and is reversible", async () => {
    const h = fresh();
    const g = await guard(h);
    const d = await g.check("DELETE FROM orders WHERE id = 3");
    expect(d).toMatchObject({ approved: true, action: "allow", route: "Approved", reason: "restore_point", tier: "T1" });
    expect(d.restorePoint).toMatchObject({ tables: ["main.orders"], rows: 1 });
    expect(d.message).toBe(`approved: restore point ${d.restorePoint!.id} keeps 1 rows of main.orders; undo: insert again the rows restore point ${d.restorePoint!.id} holds`);
    const none = await g.check("DELETE FROM items WHERE id = 99");
    expect(none).toMatchObject({ approved: true, reason: "reversible", tier: "T1", restorePoint: null, message: "approved: undo is nothing to undo (sql_delete changed nothing)" });
    expect(none.execution).not.toBeNull();
    await roundTrip(h, g, "DELETE FROM orders WHERE id = 3");
  });

  it("a table named with its schema is read and undone like the unqualified one (regression: SQLite refuses `main.t.*`, so every such statement was an internal_error)", async () => {
    const h = fresh();
    const g = await guard(h);
    expect(await g.check("DELETE FROM main.orders WHERE id = 1")).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.items"], rows: 4 } });
    expect(await g.check("UPDATE main.orders AS o SET total = 0 WHERE o.id = 2")).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders"], rows: 1 } });
    await roundTrip(h, g, "DELETE FROM main.orders WHERE id = 1");
    await roundTrip(h, g, "UPDATE main.orders SET total = 0 WHERE customer IS NULL");
  });

  it("an UPDATE of other columns keeps the matched rows; an UPDATE of the key keeps the whole table", async () => {
    const h = fresh();
    const g = await guard(h);
    expect((await g.check("UPDATE orders SET customer = 'q' WHERE id = 1")).restorePoint).toMatchObject({ tables: ["main.orders"], rows: 1 });
    const key = await g.check("UPDATE orders SET id = 100 WHERE id = 7");
    expect(key.restorePoint).toMatchObject({ tables: ["main.orders"], rows: 4 });
    expect(key.inverse.map((s) => s.tool)).toEqual(["sql_restore_rows"]);
    await roundTrip(h, g, "UPDATE orders SET customer = 'q' WHERE id = 1");
    await roundTrip(h, g, "UPDATE orders SET id = 100 WHERE id = 7");
  });

  it("a table without a key is kept whole, and its matched rows are what the bound counts", async () => {
    const h = fresh();
    expect((await (await guard(h)).check("DELETE FROM notes WHERE body = 'a'")).restorePoint).toMatchObject({ tables: ["main.notes"], rows: 3 });
    // 2 rows matched, but the table's 3 rows are what a restore point would hold.
    const d = await (await guard(h, { bounds: { maxRows: 2 } })).check("DELETE FROM notes WHERE body = 'a'");
    expect(d).toMatchObject({ approved: false, reason: "over_bound", tier: "T4", message: "not approved: DELETE would remove more than 2 rows of main.notes; that is over the restore bound (2 rows), so they were counted, not read, and no undo is possible" });
    expect(d.core).not.toBeNull();
    await roundTrip(h, await guard(h, { bounds: { maxRows: 3 } }), "DELETE FROM notes WHERE body = 'a'");
  });

  it("two statements on one table keep the table whole; a DROP among them is judged first", async () => {
    const h = fresh();
    const g = await guard(h);
    const d = await g.check("DELETE FROM orders WHERE id = 1; DELETE FROM orders WHERE id = 2");
    expect(d.restorePoint).toMatchObject({ tables: ["main.orders", "main.items"], rows: 7 });
    const drop = await g.check("DELETE FROM notes WHERE body = 'a'; DROP TABLE notes");
    expect(drop).toMatchObject({ approved: true, reason: "restore_point", tier: "T1" });
    expect(drop.restorePoint).toMatchObject({ tables: ["main.notes"], rows: 3 });
    expect(drop.inverse.map((s) => s.tool)).toEqual(["sql_recreate", "sql_put_back"]);
    await roundTrip(h, g, "DELETE FROM orders WHERE id = 1; DELETE FROM orders WHERE id = 2");
    await roundTrip(h, g, "DELETE FROM notes WHERE body = 'a'; DROP TABLE notes");
  });

  it("an INSERT into an AUTOINCREMENT table that the string then drops is T1: the undo creates the table again with its rows and its sequence's value (an INSERT alone leaves the sequence advanced: T3)", async () => {
    const h = fresh("CREATE TABLE seqd (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT); INSERT INTO seqd VALUES (3, 'a');");
    const g = await guard(h);
    const alone = await g.check("INSERT INTO seqd (v) VALUES ('b')");
    expect(alone).toMatchObject({ approved: true, tier: "T3" });
    expect(alone.inverse.map((s) => s.annotation)).toEqual(["sql.insert.sequence"]);
    const q = "INSERT INTO seqd (v) VALUES ('b'); DROP TABLE seqd";
    const d = await g.check(q);
    expect(d).toMatchObject({ approved: true, reason: "restore_point", tier: "T1", restorePoint: { tables: ["main.seqd"], rows: 1 } });
    expect(d.inverse.map((s) => s.annotation)).toEqual(["sql.drop.copy", "sql.insert.by_key"]);
    await roundTrip(h, g, q);
    expect(h.raw.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'seqd'").get()).toEqual({ seq: 3 });
  });

  it("a child written by the string and reached by a cascade is kept once, whole, and put back after its parent", async () => {
    const h = fresh();
    const g = await guard(h);
    const d = await g.check("DELETE FROM items WHERE id = 3; DELETE FROM orders WHERE id = 1");
    expect(d.restorePoint).toMatchObject({ tables: ["main.items", "main.orders"], rows: 4 });
    await roundTrip(h, g, "DELETE FROM items WHERE id = 3; DELETE FROM orders WHERE id = 1");
  });

  it("an INSERT that leaves the rowid to SQLite keeps the rows above the largest key; otherwise the whole table", async () => {
    const h = fresh(`CREATE TABLE plain (id INT PRIMARY KEY, v TEXT); INSERT INTO plain VALUES (1, 'a');
      CREATE TABLE pair (a INTEGER, b INTEGER, PRIMARY KEY (a, b)); INSERT INTO pair VALUES (1, 1);
      CREATE TABLE empty (id INTEGER PRIMARY KEY, v TEXT);
      CREATE TABLE top (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO top VALUES (9223372036854775807, 'max');`);
    const g = await guard(h);
    const rows = async (q: string) => (await g.check(q)).restorePoint?.rows;
    expect(await rows("INSERT INTO orders (customer) VALUES ('new')")).toBe(0);
    expect(await rows("INSERT INTO orders (id, customer) VALUES (50, 'new')")).toBe(4);
    expect(await rows("INSERT INTO orders VALUES (NULL, 'new', 1)")).toBe(4);
    expect(await rows("INSERT INTO orders (customer) VALUES ('new') ON CONFLICT DO NOTHING")).toBe(4);
    expect(await rows("INSERT INTO plain (v) VALUES ('b')")).toBe(1); // INT PRIMARY KEY is no rowid alias
    expect(await rows("INSERT INTO pair (a) VALUES (2)")).toBe(1);
    expect(await rows("INSERT INTO top (v) VALUES ('x')")).toBe(1); // the largest rowid: the next is random
    expect(await rows("INSERT INTO notes (body) VALUES ('x')")).toBe(3);
    expect(await rows("INSERT INTO empty (v) VALUES ('x')")).toBe(0);
    await roundTrip(h, g, "INSERT INTO orders (customer) VALUES ('new'), ('newer')");
    await roundTrip(h, g, "INSERT INTO empty (v) VALUES ('x'), ('y')");
    await roundTrip(h, g, "INSERT INTO plain (v) VALUES ('b')");
    await roundTrip(h, g, "INSERT INTO orders (customer) VALUES ('new') ON CONFLICT DO NOTHING");
  });

  it("SQLite names a column in any case, and the rowid alias also as rowid, oid, _rowid_: each sets or changes the key (regression: an INSERT naming the key so, or an UPDATE changing it so, was read as leaving the key alone; the undo said undone and left the row)", async () => {
    const h = fresh(`CREATE TABLE u (Id INTEGER PRIMARY KEY, v TEXT); INSERT INTO u VALUES (1, 'a');
      CREATE TABLE p (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO p VALUES (1, 'a'), (2, 'b');
      CREATE TABLE c (id INTEGER PRIMARY KEY, p INTEGER REFERENCES p (id) ON UPDATE CASCADE); INSERT INTO c VALUES (1, 1);`);
    const g = await guard(h);
    for (const q of [`INSERT INTO orders ("ID", customer) VALUES (-1, 'x')`, "INSERT INTO u (id, v) VALUES (-1, 'x')", "INSERT INTO orders (rowid, customer) VALUES (-1, 'x')", "INSERT INTO orders (_rowid_, customer) VALUES (-1, 'x')", "INSERT INTO orders (OID, customer) VALUES (-1, 'x')"]) {
      // The whole table, not the (empty) range above the largest key.
      expect((await g.check(q)).restorePoint?.rows, q).toBeGreaterThan(0);
      await roundTrip(h, g, q);
    }
    // The whole table (orders: 4 rows), not the row the WHERE matches by its key.
    for (const q of [`UPDATE orders SET "ID" = 10 WHERE id = 3`, "UPDATE orders SET rowid = 11 WHERE id = 3"]) {
      expect((await g.check(q)).restorePoint?.rows, q).toBe(4);
      await roundTrip(h, g, q);
    }
    await roundTrip(h, g, `UPDATE u SET id = 10 WHERE "Id" = 1`);
    // The child an ON UPDATE CASCADE changes is kept too.
    for (const q of [`UPDATE p SET "ID" = 10 WHERE id = 1`, "UPDATE p SET _ROWID_ = 10 WHERE id = 1"]) {
      expect((await g.check(q)).restorePoint?.tables, q).toEqual(["main.p", "main.c"]);
      await roundTrip(h, g, q);
    }
  });

  it("a table whose UNIQUE constraint resolves conflicts by REPLACE: an INSERT, or an UPDATE of a constrained column, may delete other rows and is not judged (regression: the rows REPLACE deleted were outside the kept range or keys, and the undo said undone and lost them)", async () => {
    const h = fresh(`CREATE TABLE r (id INTEGER PRIMARY KEY, v TEXT UNIQUE ON CONFLICT REPLACE, w TEXT); INSERT INTO r VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'z');`);
    const g = await guard(h);
    for (const q of ["INSERT INTO r (v) VALUES ('a')", "UPDATE r SET v = 'b' WHERE id = 1", "SELECT 1; INSERT INTO r (w) VALUES ('q')"]) {
      const n = q.startsWith("SELECT") ? 2 : 1;
      expect(await g.check(q), q).toMatchObject({ approved: false, action: "ask", reason: "unknown_effect", message: `not judged (unknown_effect): statement ${n} may delete other rows of main.r (a REPLACE conflict clause), and an undo's own writes would be replaced the same way` });
    }
    // An UPDATE of other columns, or one that changes the key (kept whole), deletes no other row.
    expect((await g.check("UPDATE r SET w = 'q' WHERE id = 1")).restorePoint).toMatchObject({ rows: 1 });
    await roundTrip(h, g, "UPDATE r SET w = 'q' WHERE id = 1");
    await roundTrip(h, g, "DELETE FROM r WHERE id = 2");
  });

  it("INTEGER PRIMARY KEY DESC and WITHOUT ROWID keys are no rowid alias: the whole table is kept, and the new row goes again (regression: the DESC key was read as the rowid, the row the INSERT added with a NULL key was outside the kept range, and the undo said undone and left it)", async () => {
    const h = fresh(`CREATE TABLE d (id INTEGER PRIMARY KEY DESC, v TEXT); INSERT INTO d VALUES (5, 'a');
      CREATE TABLE wr (id INTEGER PRIMARY KEY, v TEXT) WITHOUT ROWID; INSERT INTO wr VALUES (5, 'a');
      CREATE TABLE asc_ (id INTEGER PRIMARY KEY ASC, v TEXT); INSERT INTO asc_ VALUES (5, 'a');
      CREATE TABLE tc (id INTEGER, v TEXT, PRIMARY KEY (id DESC)); INSERT INTO tc VALUES (5, 'a');`);
    const g = await guard(h);
    // lang_createtable.html ("ROWID"): the DESC column constraint is the exception; ASC and the table
    // constraint with DESC are aliases, so only the rows above the largest key are kept.
    for (const [t, rows, tables] of [["d", 1, ["main.d"]], ["wr", 1, ["main.wr"]], ["asc_", 0, ["main.asc_"]], ["tc", 0, ["main.tc"]]] as const) {
      expect((await g.check(`INSERT INTO ${t} (v) VALUES ('b')`)).restorePoint, t).toMatchObject({ rows, tables });
    }
    await roundTrip(h, g, "INSERT INTO d (v) VALUES ('b')");
    await roundTrip(h, g, "INSERT INTO asc_ (v) VALUES ('b')");
    await roundTrip(h, g, "INSERT INTO tc (v) VALUES ('b')");
    await roundTrip(h, g, "INSERT INTO wr (id, v) VALUES (6, 'b')");
  });

  it("a WITHOUT ROWID table's rows are named by their key: an UPDATE or DELETE of some of its rows keeps those rows (also through a join that matches a row twice, a composite key, a NOCASE key, blobs) and is undone exactly (regression: every such statement was an internal_error: the pre-image asked the table for a rowid it has not)", async () => {
    const h = fresh(`CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID; INSERT INTO kv VALUES ('a', '1'), ('b', '2'), ('q', '3');
      CREATE TABLE w2 (id INT, k TEXT COLLATE NOCASE, b BLOB, PRIMARY KEY (k, id)) WITHOUT ROWID; INSERT INTO w2 VALUES (1, 'A', x'00ff'), (2, 'b', NULL), (3, 'C', x'');
      CREATE TABLE src (k TEXT, v INT); INSERT INTO src VALUES ('a', 10), ('a', 11), ('b', 20);
      CREATE TABLE wp (id TEXT PRIMARY KEY, n INT) WITHOUT ROWID; INSERT INTO wp VALUES ('a', 1), ('b', 2);
      CREATE TABLE wc (id INTEGER PRIMARY KEY, pid TEXT REFERENCES wp (id) ON DELETE CASCADE, x TEXT); INSERT INTO wc VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z');`);
    const g = await guard(h);
    for (const [q, rows] of [
      ["UPDATE kv SET v = '9' WHERE k = 'a'", 1],
      ["UPDATE kv SET v = src.v FROM src WHERE src.k = kv.k", 2],
      ["DELETE FROM kv WHERE k IN (SELECT k FROM src)", 2],
      ["DELETE FROM w2 WHERE k = 'a'", 1],
      ["UPDATE w2 SET b = x'01' WHERE id < 3", 2],
    ] as const) {
      const d = await g.check(q);
      expect({ q, action: d.action, reason: d.reason, rows: d.restorePoint?.rows }).toEqual({ q, action: "allow", reason: "restore_point", rows });
    }
    for (const q of ["UPDATE kv SET v = '9' WHERE k = 'a'", "UPDATE kv SET v = src.v FROM src WHERE src.k = kv.k", "DELETE FROM kv WHERE k IN (SELECT k FROM src)", "DELETE FROM w2 WHERE k = 'a'", "UPDATE w2 SET b = x'01' WHERE id < 3", "UPDATE kv SET v = '0' WHERE k = 'q' RETURNING *", "DELETE FROM wp WHERE id = 'a'"]) await roundTrip(h, g, q);
  });

  it("SQLite lets a PRIMARY KEY of a rowid table hold NULL, more than once: a table with such rows is not judged; without them the key names rows, also after a statement that sets keys to NULL (regression: DELETE … WHERE v = 1 kept the row (NULL, 1) by its key; the undo found the other NULL-key row by that key, set it to v = 1 and said undone: the row (NULL, 2) was lost)", async () => {
    const h = fresh("CREATE TABLE nk (k TEXT PRIMARY KEY, v INTEGER); INSERT INTO nk VALUES ('a', 1), ('b', 2), ('c', 3);");
    const g = await guard(h);
    for (const q of ["DELETE FROM nk WHERE v = 1", "UPDATE nk SET v = 7 WHERE k = 'b'", "UPDATE nk SET k = NULL WHERE v < 3", "INSERT INTO nk VALUES (NULL, 9), (NULL, 9)"]) await roundTrip(h, g, q);
    h.raw.exec("INSERT INTO nk VALUES (NULL, 1), (NULL, 2)");
    const before = state(h);
    for (const q of ["DELETE FROM nk WHERE v = 1", "UPDATE nk SET v = 5 WHERE v = 1", "UPDATE nk SET v = v + 10", "INSERT INTO nk VALUES ('d', 4)", "DELETE FROM nk WHERE k = 'a'"]) {
      expect(await g.check(q), q).toMatchObject({ approved: false, action: "ask", reason: "unknown_state", message: "not judged (unknown_state): rows of main.nk have NULL in their primary key (SQLite allows it), so the key names no single row" });
    }
    expect(state(h)).toBe(before);
    // A composite key with a NULL in either column; an INTEGER PRIMARY KEY and a NOT NULL key never hold one.
    h.raw.exec("CREATE TABLE ck (a INTEGER, b TEXT, v INTEGER, PRIMARY KEY (a, b)); INSERT INTO ck VALUES (1, 'x', 1), (2, NULL, 2);");
    expect(await g.check("DELETE FROM ck WHERE a = 1")).toMatchObject({ reason: "unknown_state", message: "not judged (unknown_state): rows of main.ck have NULL in their primary key (SQLite allows it), so the key names no single row" });
    expect(g.list().every((e) => e.undone)).toBe(true);
    await roundTrip(h, g, "DELETE FROM orders WHERE id = 2");
  });

  it("an INSERT into a table over the bound that leaves the key to SQLite is approved; naming the key is asked", async () => {
    const h = fresh();
    const g = await guard(h, { bounds: { maxRows: 3 } });
    expect(await g.check("INSERT INTO orders (customer) VALUES ('new')")).toMatchObject({ approved: true, reason: "restore_point" });
    expect(await g.check("INSERT INTO orders (id, customer) VALUES (60, 'new')")).toMatchObject({ approved: false, reason: "over_bound", message: "not approved: INSERT would add to more than 3 rows of main.orders; that is over the restore bound (3 rows), so they were counted, not read, and no undo is possible" });
  });
});

describe("foreign-key actions", () => {
  const FK = `
    CREATE TABLE kids (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders (id) ON DELETE SET NULL ON UPDATE CASCADE);
    CREATE TABLE held (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders (id) ON DELETE RESTRICT ON UPDATE RESTRICT);
    CREATE TABLE loose (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders (id));
    INSERT INTO kids VALUES (1, 2), (2, 7);
    INSERT INTO loose VALUES (1, 3);`;

  it("the children whose rows an action changes are kept with the parent's rows; others are not read", async () => {
    const h = fresh(FK);
    const g = await guard(h);
    const tables = async (q: string) => (await g.check(q)).restorePoint?.tables;
    expect(await tables("DELETE FROM orders WHERE id = 2")).toEqual(["main.orders", "main.items", "main.kids"]);
    expect(await tables("DELETE FROM orders WHERE id = 7")).toEqual(["main.orders", "main.kids"]);
    // No child row references order 3 through an action (loose: NO ACTION).
    expect(await tables("DELETE FROM orders WHERE id = 3")).toEqual(["main.orders"]);
    // ON UPDATE CASCADE reaches kids only when the SET changes the referenced key.
    expect(await tables("UPDATE orders SET customer = 'x' WHERE id = 7")).toEqual(["main.orders"]);
    expect(await tables("UPDATE orders SET id = 70 WHERE id = 7")).toEqual(["main.orders", "main.kids"]);
    await roundTrip(h, g, "DELETE FROM orders WHERE id = 2");
    await roundTrip(h, g, "UPDATE orders SET id = 70 WHERE id = 7");
  });

  it("a child over the bound, a grandchild reached, or a child's trigger is asked, naming them", async () => {
    const h = fresh(`CREATE TABLE parts (id INTEGER PRIMARY KEY, item_id INTEGER REFERENCES items (id) ON DELETE CASCADE);`);
    const g = await guard(h);
    expect(await g.check("DELETE FROM orders WHERE id = 2")).toMatchObject({ approved: false, reason: "over_bound", tier: "T4", message: "not approved: DELETE would remove rows of main.orders, and foreign-key actions reach main.items and the tables that reference it, which the guard does not read" });
    const t = fresh("CREATE TRIGGER log_items AFTER DELETE ON items BEGIN SELECT 1; END;");
    expect(await (await guard(t)).check("DELETE FROM orders WHERE id = 2")).toMatchObject({ approved: false, reason: "over_bound", message: "not approved: foreign-key actions from main.orders change rows of main.items, whose trigger log_items the guard does not read" });
    expect(await (await guard(fresh(), { bounds: { maxRows: 3 } })).check("DELETE FROM orders WHERE id = 2")).toMatchObject({ approved: false, reason: "over_bound", message: "not approved: foreign-key actions from main.orders change rows of main.items, a table over the restore bound (3 rows)" });
    expect(await (await guard(fresh(), { bounds: { maxRows: 4 } })).check("DELETE FROM orders WHERE id = 2")).toMatchObject({ approved: true, restorePoint: { rows: 4 } });
  });

  it("DROP of a parent whose children hold rows is asked; with empty children it is kept and undone", async () => {
    const h = fresh();
    const g = await guard(h);
    expect(await g.check("DROP TABLE orders")).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4", message: "not approved: DROP would remove 4 rows of main.orders, and foreign-key actions would also change rows of main.items; no restore point holds them" });
    h.raw.exec("DELETE FROM items");
    expect(await g.check("DROP TABLE orders")).toMatchObject({ approved: true, tier: "T1", restorePoint: { tables: ["main.orders"], rows: 4 } });
    await roundTrip(h, g, "DROP TABLE orders");
    // A self-reference is no child to read.
    const s = fresh("CREATE TABLE tree (id INTEGER PRIMARY KEY, up INTEGER REFERENCES tree (id) ON DELETE CASCADE); INSERT INTO tree VALUES (1, NULL), (2, 1);");
    await roundTrip(s, await guard(s), "DROP TABLE tree");
  });
});

describe("a UNIQUE column a foreign key names", () => {
  it("an UPDATE of it is undone; a child row that references the new value since makes the undo fail, saying so, nothing changed", async () => {
    const h = fresh("CREATE TABLE p (id INTEGER PRIMARY KEY, a TEXT, b TEXT, UNIQUE (a, b)); CREATE TABLE c (id INTEGER PRIMARY KEY, pa TEXT, pb TEXT, FOREIGN KEY (pa, pb) REFERENCES p (a, b)); INSERT INTO p VALUES (1, 'a', 'x'), (2, 'b', 'x');");
    const g = await guard(h);
    await roundTrip(h, g, "UPDATE p SET a = 'z' WHERE id = 1");
    const d = await g.check("UPDATE p SET a = a || 'z' WHERE id < 3");
    h.raw.exec("UPDATE p SET a = a || 'z' WHERE id < 3");
    await g.observe(d.execution!);
    // A row that references the new value of row 1, and one with a NULL that references nothing.
    h.raw.exec("INSERT INTO c VALUES (10, 'az', 'x'), (11, 'bz', NULL)");
    const after = state(h);
    expect(await g.undo()).toMatchObject({ ok: false, reason: "inverse_failed", message: expect.stringMatching(/failed \(nothing was changed\): rows of main\.c reference a row of main\.p whose referenced columns the undo would change$/) });
    expect(state(h)).toBe(after);
    h.raw.exec("DELETE FROM c WHERE id = 10");
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(h.raw.prepare("SELECT a FROM p ORDER BY id").all()).toEqual([{ a: "a" }, { a: "b" }]);
  });
});

describe("triggers", () => {
  it("one trigger or several on a written table are named, with the rows the statement would change", async () => {
    const one = fresh("CREATE TRIGGER t1 AFTER UPDATE ON orders BEGIN SELECT 1; END;");
    expect(await (await guard(one)).check("DELETE FROM orders WHERE id = 7")).toMatchObject({
      approved: false, action: "ask", reason: "irreversible", tier: "T4",
      message: "not approved: the trigger t1 on main.orders runs code the guard does not read (for the statement and for its undo): what else DELETE would remove 1 rows of main.orders would change is unknown",
    });
    const two = fresh("CREATE TRIGGER t1 AFTER INSERT ON notes BEGIN SELECT 1; END; CREATE TRIGGER t2 BEFORE DELETE ON notes BEGIN SELECT 1; END;");
    expect((await (await guard(two)).check("UPDATE notes SET body = 'z' WHERE body IS NULL")).message).toBe(
      "not approved: the triggers t1, t2 on main.notes run code the guard does not read (for the statement and for its undo): what else UPDATE would change 1 rows of main.notes would change is unknown",
    );
    expect((await (await guard(two)).check("INSERT INTO notes VALUES ('n')")).message).toMatch(/what else INSERT would add to 3 rows of main\.notes/);
  });

  it("a TEMP trigger on a table of the main database is a trigger of that table (regression: it was not read, DELETE FROM orders WHERE id = 1 was approved, the trigger emptied another table, and the undo said undone and left it empty)", async () => {
    const h = fresh("CREATE TABLE audit (x TEXT); INSERT INTO audit VALUES ('keep'); CREATE TEMP TRIGGER tt AFTER DELETE ON main.orders BEGIN DELETE FROM audit; END;");
    const g = await guard(h);
    expect(await g.check("DELETE FROM orders WHERE id = 1")).toMatchObject({
      approved: false, action: "ask", reason: "irreversible",
      message: "not approved: the trigger temp.tt on main.orders runs code the guard does not read (for the statement and for its undo): what else DELETE would remove 1 rows of main.orders would change is unknown",
    });
    // Named in another case, and on a table of an attached database of the same name: counted too.
    h.raw.exec("ATTACH ':memory:' AS aux; CREATE TABLE aux.ORDERS (id INTEGER PRIMARY KEY); INSERT INTO aux.orders VALUES (1);");
    expect(await g.check("DELETE FROM aux.orders WHERE id = 1")).toMatchObject({ approved: false, reason: "irreversible", message: expect.stringMatching(/^not approved: the trigger temp\.tt on aux\.ORDERS runs code/) });
    // A table no TEMP trigger names is judged as before.
    await roundTrip(h, g, "DELETE FROM items WHERE id = 3");
  });
});

describe("policies", () => {
  it("escalate keeps rows but no table copy: a DROP is asked, naming what it destroys", async () => {
    const h = fresh();
    const g = await guard(h, { policy: "escalate" });
    expect(await g.check("DELETE FROM orders WHERE id = 7")).toMatchObject({ approved: true, reason: "restore_point" });
    expect(await g.check("DROP TABLE notes")).toMatchObject({ approved: false, action: "ask", route: "ConsentEscalated", reason: "irreversible", tier: "T4", message: "not approved: DROP would destroy main.notes and its 3 rows, and no restore point holds them (sql.drop.lost)" });
    expect((await g.check("DROP INDEX notes_body")).message).toBe("not approved: DROP would destroy main.notes_body, and no restore point holds its definition (sql.drop.lost)");
    expect((await g.check("DROP VIEW big")).message).toBe("not approved: DROP would destroy main.big, and no restore point holds its definition (sql.drop.lost)");
    expect((await (await guard(h, { policy: "escalate", bounds: { maxRows: 2 } })).check("DROP TABLE notes")).message).toBe("not approved: DROP would remove more than 2 rows of main.notes; that is over the restore bound (2 rows), so they were counted, not read, and no undo is possible");
    const v = await guard(h, { policy: "veto" });
    expect(await v.check("DROP TABLE orders")).toMatchObject({ approved: false, action: "deny", route: "Vetoed", reason: "irreversible", execution: null, restorePoint: null });
    expect((await v.check("DROP TABLE orders")).inverse).toHaveLength(1);
  });

  it("snapshot keeps an index's or a view's definition and undoes its DROP", async () => {
    const h = fresh();
    const g = await guard(h);
    const d = await g.check("DROP VIEW big");
    expect(d).toMatchObject({ approved: true, reason: "restore_point", tier: "T1", restorePoint: { tables: ["main.big"], rows: 0 } });
    await roundTrip(h, g, "DROP VIEW big");
    await roundTrip(h, g, "DROP INDEX notes_body");
  });

  it("advisory lets what it would refuse run, recorded with the refusal's reason, and journals it with nothing to undo", async () => {
    const h = fresh();
    const g = await guard(h, { policy: "advisory" });
    const d = await g.check("DROP TABLE orders");
    expect(d).toMatchObject({ approved: true, action: "allow", route: "AdvisoryPassthrough", reason: "irreversible", tier: "T4", restorePoint: null, inverse: [] });
    expect(d.message).toMatch(/^not approved: DROP would remove 4 rows of main\.orders/);
    expect(d.execution).toBe(`${g.session}:1`);
    h.raw.exec("DROP TABLE items; DROP TABLE orders");
    expect((await g.observe(d.execution!)).journaled).toMatch(/^q-1-/);
    expect(g.list()[0]).toMatchObject({ tier: "T4", inverse: [], restorePoint: null, statement: "DROP TABLE orders" });
    expect(await g.check("DELETE FROM notes WHERE body IS NULL")).toMatchObject({ approved: true, route: "Approved", reason: "restore_point" });
    // What the guard did not judge stays refused.
    expect(await g.check("DELETE FROM notes WHERE body = random()")).toMatchObject({ approved: false, action: "ask", reason: "unknown_effect" });
  });
});

describe("observe and undo", () => {
  it("observe journals an approved execution once; anything else is not journaled", async () => {
    const h = fresh();
    const g = await guard(h, { session: "obs" });
    expect(await g.observe("obs:99")).toEqual({ journaled: null });
    const d = await g.check("UPDATE orders SET total = 0 WHERE id = 2");
    h.raw.exec("UPDATE orders SET total = 0 WHERE id = 2");
    const first = await g.observe(d.execution!);
    expect(first.journaled).toMatch(/^q-1-[0-9a-f]{6}$/);
    expect(await g.observe(d.execution!)).toEqual({ journaled: null });
    const e = g.list();
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({
      id: first.journaled, execution: "obs:1", statement: "UPDATE orders SET total = 0 WHERE id = 2", dialect: "sqlite", database: h.db.describe(),
      calls: [{ name: "sql_update", arguments: { table: "main.orders" } }], tier: "T1", restorePoint: d.restorePoint, point: d.restorePoint!.id, maxRows: 10_000, undone: false,
    });
    expect(e[0]!.inverse).toEqual(d.inverse);
    expect(Object.keys(e[0]!.after)).toEqual(["main.orders"]);
    expect(e[0]!.after["main.orders"]).not.toMatch(/^unreadable/);
    // A refused check has no execution to observe.
    expect((await g.check("DELETE FROM orders WHERE id = random()")).execution).toBeNull();
  });

  it("what the statement left cannot be read: journaled as unreadable, and its undo refused, nothing touched", async () => {
    const h = fresh();
    let fail = false;
    const db: SqlAdapter = { ...h.db, readTransaction: async (fn) => { if (fail) throw new Error("disk gone"); return h.db.readTransaction(fn); } };
    const g = await guard(db);
    const d = await g.check("DELETE FROM orders WHERE id = 7");
    h.raw.exec("DELETE FROM orders WHERE id = 7");
    fail = true;
    await g.observe(d.execution!);
    expect(g.list()[0]!.after).toEqual({ "main.orders": "unreadable: disk gone" });
    fail = false;
    const after = state(h);
    expect(await g.undo()).toMatchObject({ ok: false });
    expect(state(h)).toBe(after);
  });

  it("a table of the point that cannot be read when observed is journaled as unreadable, the tables read before it keep their fingerprint, and the undo's refusal names it", async () => {
    const h = fresh();
    let fail = false;
    const db: SqlAdapter = { ...h.db, read: async (sql, params) => { if (fail && sql.includes('"items"')) throw new Error("items gone"); return h.db.read(sql, params); } };
    const g = await guard(db);
    const d = await g.check("DELETE FROM orders WHERE id = 1");
    expect(d.restorePoint).toMatchObject({ tables: ["main.orders", "main.items"] });
    h.raw.exec("DELETE FROM orders WHERE id = 1");
    fail = true;
    const { journaled } = await g.observe(d.execution!);
    fail = false;
    const after = g.list()[0]!.after;
    expect(Object.keys(after)).toEqual(["main.orders", "main.items"]);
    expect(after["main.orders"]).toMatch(/^keys:[0-9a-f]{64}$/);
    expect(after["main.items"]).toBe("unreadable: items gone");
    const now = state(h);
    expect(await g.undo()).toMatchObject({ ok: false, reason: "unknown_state", message: `refused: what ${journaled} left in main.items was not readable when it was observed` });
    expect(state(h)).toBe(now);
  });

  it("an undo that throws is refused as unknown_state, with the error", async () => {
    const h = fresh();
    let broken = false;
    const g = await guard({ ...h.db, describe: () => { if (broken) throw new Error("no name"); return h.db.describe(); } });
    const d = await g.check("DELETE FROM orders WHERE id = 7");
    h.raw.exec("DELETE FROM orders WHERE id = 7");
    await g.observe(d.execution!);
    broken = true;
    expect(await g.undo()).toEqual({ ok: false, id: null, reason: "unknown_state", message: "the undo could not be judged: no name", steps: [] });
  });

  it("a dry run shows the undo and changes nothing", async () => {
    const h = fresh();
    const g = await guard(h);
    const d = await g.check("DELETE FROM orders WHERE id = 7");
    h.raw.exec("DELETE FROM orders WHERE id = 7");
    await g.observe(d.execution!);
    const after = state(h);
    expect(await g.undo(undefined, { dryRun: true })).toMatchObject({ ok: true, reason: "dry_run" });
    expect(state(h)).toBe(after);
    expect(await g.undo(1)).toMatchObject({ ok: true, reason: "undone" });
  });
});

describe("several statements on one table", () => {
  it("an INSERT or UPDATE, then a DELETE on the same table: the DELETE's cascade is read too, and the children come back with the table (regression: only the first call on a table was read, the cascaded rows of items were not kept, and the undo said undone without them)", async () => {
    for (const q of ["INSERT INTO orders (customer) VALUES ('new'); DELETE FROM orders WHERE id = 1", "UPDATE orders SET total = 0 WHERE id = 2; DELETE FROM orders WHERE id = 1"]) {
      const h = fresh();
      const g = await guard(h);
      expect(await g.check(q), q).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.items"] } });
      await roundTrip(h, g, q);
    }
  });
});

describe("BEGIN", () => {
  it("opens the caller's transaction and changes no row: alone it is read-only (T0); beside a statement that one is judged alone, and its undo runs once the transaction is committed (regression: a BEGIN's call has no table, and every string holding one was an internal_error)", async () => {
    const h = fresh();
    const g = await guard(h);
    for (const q of ["BEGIN", "BEGIN TRANSACTION", "BEGIN; SELECT 1"]) {
      expect(await g.check(q), q).toEqual(expect.objectContaining({ approved: true, action: "allow", reason: "read_only", message: "read-only: nothing to undo", tier: "T0", calls: [], execution: null }));
    }
    const before = state(h);
    const q = "BEGIN; DELETE FROM orders WHERE id = 7";
    const d = await g.check(q);
    expect(d).toMatchObject({ approved: true, reason: "restore_point", tier: "T1", restorePoint: { tables: ["main.orders"], rows: 1 } });
    expect(d.calls).toEqual([{ name: "sql_delete", arguments: { table: "main.orders" }, source: "DELETE FROM orders WHERE id = 7" }]);
    h.raw.exec(q);
    expect(h.raw.inTransaction).toBe(true);
    h.raw.exec("COMMIT");
    await g.observe(d.execution!);
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(state(h)).toBe(before);
    // Inside the open transaction the next statement is judged as any other.
    h.raw.exec("BEGIN");
    expect(await g.check("DELETE FROM orders WHERE id = 2; BEGIN")).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.orders", "main.items"], rows: 4 } });
    h.raw.exec("ROLLBACK");
  });
});

describe("a count the database answers with no number", () => {
  /** The SQLite adapter, with the answer to the guard's counts replaced. */
  function counting(h: Db, answer: (rows: Record<string, unknown>[]) => Record<string, unknown>[]): SqlAdapter {
    return { ...h.db, read: async (sql, params) => { const r = await h.db.read(sql, params); return sql.startsWith("SELECT count(*) AS n FROM (") ? answer(r) : r; } };
  }

  it("is unknown_state, never a count (a null was 0: a child with rows counted as empty; a NaN passed every bound; a fraction was compared with the bound)", async () => {
    const h = fresh();
    for (const [name, answer] of [["no row", () => []], ["two rows", (r) => [...r, ...r]], ["null", () => [{ n: null }]], ["a missing n", () => [{}]], ["text", () => [{ n: "two" }]], ["an empty text", () => [{ n: "" }]], ["-1", () => [{ n: -1 }]], ["NaN", () => [{ n: Number.NaN }]], ["a boolean", () => [{ n: true }]], ["a fraction", () => [{ n: 1.5 }]], ["a text of a fraction", () => [{ n: "1.5" }]], ["a text that JavaScript reads as a number", () => [{ n: "0x1" }]], ["a digit text with a sign", () => [{ n: "+1" }]], ["a list holding a number", () => [{ n: [1] }]]] as [string, (r: Record<string, unknown>[]) => Record<string, unknown>[]][]) {
      const g = await guard(counting(h, answer));
      for (const q of ["DELETE FROM orders WHERE id = 1", "DELETE FROM notes WHERE body = 'a'", "DROP TABLE orders"]) {
        expect(await g.check(q), `${name}: ${q}`).toMatchObject({ approved: false, action: "ask", reason: "unknown_state", message: "not judged (unknown_state): a count returned no number", restorePoint: null, execution: null });
      }
    }
  });

  it("a count as a number, a bigint or a text of digits is read as that count", async () => {
    const h = fresh();
    for (const as of [(n: unknown) => Number(n), (n: unknown) => BigInt(n as bigint), (n: unknown) => String(n)]) {
      const g = await guard(counting(h, (r) => r.map((x) => ({ n: as(x.n) }))));
      expect(await g.check("DELETE FROM orders WHERE id = 1"), String(as(1n))).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.items"], rows: 4 } });
      expect(await (await guard(counting(h, (r) => r.map((x) => ({ n: as(x.n) }))), { bounds: { maxRows: 3 } })).check("DELETE FROM notes WHERE body = 'a'")).toMatchObject({ approved: true, restorePoint: { rows: 3 } });
      expect(await (await guard(counting(h, (r) => r.map((x) => ({ n: as(x.n) }))), { bounds: { maxRows: 2 } })).check("DELETE FROM notes WHERE body = 'a'")).toMatchObject({ approved: false, reason: "over_bound" });
    }
  });

  it("a count of several digits given as text (node-postgres gives count(*), a bigint, as text) is that count", async () => {
    const h = fresh("INSERT INTO notes VALUES ('b'), ('c'), ('d'), ('e'), ('f'), ('g'), ('h'), ('i'), ('j');");
    const text = counting(h, (r) => r.map((x) => ({ n: String(x.n) })));
    expect(await (await guard(text, { bounds: { maxRows: 12 } })).check("DELETE FROM notes")).toMatchObject({ approved: true, restorePoint: { tables: ["main.notes"], rows: 12 } });
    expect(await (await guard(text, { bounds: { maxRows: 11 } })).check("DELETE FROM notes")).toMatchObject({ approved: false, reason: "over_bound", message: "not approved: DELETE would remove more than 11 rows of main.notes; that is over the restore bound (11 rows), so they were counted, not read, and no undo is possible" });
  });
});

describe("CREATE … IF NOT EXISTS of a relation that exists", () => {
  it("changes nothing: beside a DELETE of that table the rows are kept and undone; beside other statements the undo leaves the relation (regression: the CREATE decided the table's scope, and `CREATE TABLE IF NOT EXISTS orders …; DELETE FROM orders` was approved as changing nothing; and the relation was kept as created, so the undo of a string holding it dropped the existing table)", async () => {
    const h = fresh();
    const g = await guard(h);
    const same = "CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL); DELETE FROM orders WHERE id = 7";
    expect(await g.check(same)).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.orders", "main.items"], rows: 7 } });
    await roundTrip(h, g, same);
    for (const q of ["CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL); DELETE FROM notes WHERE body = 'a'", "UPDATE notes SET body = 'b' WHERE body = 'a'; CREATE TABLE IF NOT EXISTS orders (x INTEGER)"]) {
      expect(await g.check(q), q).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.notes"], rows: 3 } });
      await roundTrip(h, g, q);
    }
  });
});

describe("a rowid alias declared in any case", () => {
  it("`integer primary key` and `Integer Primary Key` are the rowid too: an INSERT leaving the key to SQLite keeps only the rows above the largest key, and is undone", async () => {
    const h = fresh("CREATE TABLE lo (id integer primary key, v TEXT); INSERT INTO lo VALUES (1, 'a'), (2, 'b'); CREATE TABLE mx (id Integer Primary Key, v TEXT); INSERT INTO mx VALUES (4, 'a');");
    const g = await guard(h);
    for (const t of ["lo", "mx"]) {
      expect((await g.check(`INSERT INTO ${t} (v) VALUES ('n')`)).restorePoint, t).toMatchObject({ tables: [`main.${t}`], rows: 0 });
      await roundTrip(h, g, `INSERT INTO ${t} (v) VALUES ('n')`);
    }
  });
});

describe("calls that overlap", () => {
  it("are judged one at a time, in the order they came: a statement checked while another is judged changes nothing of its verdict (regression: a SELECT checked while an INSERT on a REPLACE table was judged cleared the INSERT's REPLACE finding, and the INSERT was approved; run, it deleted a row the undo never gave back; and an undo started while a check read was refused)", async () => {
    const h = fresh("CREATE TABLE r (id INTEGER PRIMARY KEY, v TEXT UNIQUE ON CONFLICT REPLACE, w TEXT); INSERT INTO r VALUES (1, 'a', 'x'), (2, 'b', 'y');");
    const g = await guard(h, { session: "overlap" });
    const alone = await g.check("INSERT INTO r (v) VALUES ('a')");
    expect(alone).toMatchObject({ approved: false, reason: "unknown_effect" });
    // The second call starts at every point of the first one's judging.
    for (let ticks = 0; ticks < 40; ticks++) {
      const a = g.check("INSERT INTO r (v) VALUES ('a')");
      for (let i = 0; i < ticks; i++) await Promise.resolve();
      const [da, db] = await Promise.all([a, g.check("SELECT 1")]);
      expect(da, String(ticks)).toMatchObject({ approved: false, reason: "unknown_effect", message: alone.message });
      expect(db.seq, String(ticks)).toBe(da.seq + 1);
    }
    // An undo started while a check reads, and a check started while an undo writes: each as if alone.
    const q = "DELETE FROM orders WHERE id = 7";
    const before = state(h);
    for (let ticks = 0; ticks < 20; ticks++) {
      const d = await g.check(q);
      h.raw.exec(q);
      await g.observe(d.execution!);
      const c = g.check("DELETE FROM orders WHERE id = 2");
      for (let i = 0; i < ticks; i++) await Promise.resolve();
      const [dc, u] = await Promise.all([c, g.undo()]);
      expect(dc, String(ticks)).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.orders", "main.items"], rows: 4 } });
      expect(u, String(ticks)).toMatchObject({ ok: true, reason: "undone" });
      expect(state(h), String(ticks)).toBe(before);
    }
  });
});

describe("each check reads anew", () => {
  it("the catalog: a trigger created after a check is read by the next one", async () => {
    const h = fresh();
    const g = await guard(h);
    expect(await g.check("DELETE FROM orders WHERE id = 7")).toMatchObject({ approved: true, reason: "restore_point" });
    h.raw.exec("CREATE TABLE log (x TEXT); CREATE TRIGGER orders_del AFTER DELETE ON orders BEGIN INSERT INTO log VALUES ('d'); END;");
    expect(await g.check("DELETE FROM orders WHERE id = 7")).toMatchObject({ approved: false, reason: "irreversible", message: "not approved: the trigger orders_del on main.orders runs code the guard does not read (for the statement and for its undo): what else DELETE would remove 1 rows of main.orders would change is unknown" });
  });

  it("SQLite's program: a statement that deletes rows does not make the next check's INSERT or UPDATE at the same place in its string one that may delete others", async () => {
    const h = fresh();
    const g = await guard(h);
    expect(await g.check("DELETE FROM orders WHERE id = 7; DELETE FROM notes WHERE body = 'a'")).toMatchObject({ approved: true });
    expect(await g.check("INSERT INTO orders (customer) VALUES ('n'); UPDATE notes SET body = 'b' WHERE body IS NULL")).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.orders", "main.notes"], rows: 3 } });
  });
});

describe("an observe that fails", () => {
  it("rejects with the error, and the guard's next calls are judged as before", async () => {
    const h = fresh();
    const dir = mkdtempSync(join(tmpdir(), "polar-sql-observe-"));
    try {
      const g = await guard(h, { store: dir, session: "fails" });
      const d = await g.check("DELETE FROM orders WHERE id = 7");
      h.raw.exec("DELETE FROM orders WHERE id = 7");
      // The session's journal cannot be written: a directory stands where its file goes.
      mkdirSync(join(dir, "sql", "sessions", "fails.jsonl"), { recursive: true });
      await expect(g.observe(d.execution!)).rejects.toThrow(/EISDIR|illegal operation on a directory/);
      expect(await g.check("DELETE FROM orders WHERE id = 2")).toMatchObject({ approved: true, reason: "restore_point" });
      expect(g.list()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the log option", () => {
  it("receives the core's decision each time a statement is judged (before and after its restore point); a read-only or unparsed statement gives none", async () => {
    const h = fresh();
    const got: { tool: unknown; admissible: unknown }[] = [];
    const g = await guard(h, { log: { append: (r) => void got.push({ tool: (r.call as { name?: string } | null)?.name, admissible: r.admissible }) } });
    await g.check("SELECT 1");
    await g.check("DELETE FROM orders WHERE id = random()");
    expect(got).toEqual([]);
    await g.check("DELETE FROM orders WHERE id = 7");
    expect(got).toEqual([{ tool: "sql_delete", admissible: false }, { tool: "sql_delete", admissible: true }]);
    await g.check("CREATE TABLE t9 (x INTEGER)");
    expect(got.slice(2)).toEqual([{ tool: "sql_create", admissible: true }]);
  });
});

describe("what a refusal names when the string has several tables", () => {
  it("the table of the step that fails, not one the string leaves as it is or creates", async () => {
    const h = fresh();
    const g = await guard(h, { policy: "escalate" });
    for (const q of ["DROP TABLE IF EXISTS nope; DROP TABLE notes", "CREATE TABLE t5 (x INTEGER); DROP TABLE notes", "DELETE FROM orders WHERE id = 99; DROP TABLE notes", "DROP TABLE IF EXISTS nope; DELETE FROM notes WHERE body = 'a'; DROP TABLE notes"]) {
      expect(await g.check(q), q).toMatchObject({ approved: false, action: "ask", reason: "irreversible", message: "not approved: DROP would destroy main.notes and its 3 rows, and no restore point holds them (sql.drop.lost)" });
    }
  });
});

describe("a table that references itself", () => {
  it("its DROP is kept (definition and rows) and undone: its own foreign key reaches no other table", async () => {
    const h = fresh("CREATE TABLE emp (id INTEGER PRIMARY KEY, boss INTEGER REFERENCES emp (id) ON DELETE CASCADE); INSERT INTO emp VALUES (1, NULL), (2, 1), (3, 2);");
    const g = await guard(h);
    expect(await g.check("DROP TABLE emp")).toMatchObject({ approved: true, reason: "restore_point", tier: "T1", restorePoint: { tables: ["main.emp"], rows: 3 } });
    await roundTrip(h, g, "DROP TABLE emp");
    // A DELETE whose cascade runs through the table itself keeps the table whole.
    expect(await g.check("DELETE FROM emp WHERE id = 2")).toMatchObject({ approved: true, restorePoint: { tables: ["main.emp"], rows: 3 } });
    await roundTrip(h, g, "DELETE FROM emp WHERE id = 2");
  });
});

describe("a DROP whose parent's children hold rows", () => {
  it("is asked naming every child the foreign-key actions reach", async () => {
    const h = fresh("CREATE TABLE ships (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders (id) ON DELETE CASCADE); INSERT INTO ships VALUES (1, 2);");
    const g = await guard(h);
    expect(await g.check("DROP TABLE orders")).toMatchObject({ approved: false, reason: "irreversible", message: "not approved: DROP would remove 4 rows of main.orders, and foreign-key actions would also change rows of main.items, main.ships; no restore point holds them" });
  });
});

describe("the rows a statement is counted for", () => {
  it("two statements on a keyed table count the whole table they keep, whichever matches first (a first statement that matches nothing does not make the string change nothing)", async () => {
    const h = fresh();
    expect(await (await guard(h)).check("DELETE FROM items WHERE id = 99; DELETE FROM items WHERE id = 1")).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.items"], rows: 3 } });
    await roundTrip(h, await guard(h), "DELETE FROM items WHERE id = 99; DELETE FROM items WHERE id = 1");
  });

  it("a table without a key, at a bound of its own size, is counted to the bound: its one row is kept and undone", async () => {
    const h = fresh("CREATE TABLE k (v TEXT); INSERT INTO k VALUES ('a');");
    const g = await guard(h, { bounds: { maxRows: 1 } });
    expect(await g.check("DELETE FROM k WHERE v = 'a'")).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.k"], rows: 1 } });
    await roundTrip(h, g, "DELETE FROM k WHERE v = 'a'");
  });

  it("an INSERT beside another statement on an AUTOINCREMENT table still advances its sequence: T3", async () => {
    const h = fresh("CREATE TABLE s (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT); INSERT INTO s (v) VALUES ('a'), ('b');");
    expect(await (await guard(h)).check("INSERT INTO s (v) VALUES ('n'); DELETE FROM s WHERE id = 1")).toMatchObject({ approved: true, tier: "T3", reason: "restore_point" });
  });
});

describe("the children a statement's foreign-key actions reach", () => {
  it("an empty parent the string fills and deletes from reaches the child rows that reference the new key (written while foreign keys were off): the child is kept, and the undo, which SQLite's foreign key refuses to put such a row back, says so and changes nothing", async () => {
    const h = fresh("CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p (id) ON DELETE CASCADE);");
    h.raw.pragma("foreign_keys = OFF");
    h.raw.exec("INSERT INTO c VALUES (1, 5)");
    h.raw.pragma("foreign_keys = ON");
    const g = await guard(h);
    const q = "INSERT INTO p VALUES (5); DELETE FROM p WHERE id = 5";
    const d = await g.check(q);
    expect(d).toMatchObject({ approved: true, restorePoint: { tables: ["main.p", "main.c"], rows: 1 } });
    h.raw.exec(q);
    await g.observe(d.execution!);
    expect(h.raw.prepare("SELECT * FROM c").all()).toEqual([]);
    expect(await g.undo()).toMatchObject({ ok: false, reason: "inverse_failed", message: expect.stringContaining("(nothing was changed): FOREIGN KEY constraint failed") });
  });

  it("a DELETE of a table without a key that matches no row reaches no child: nothing to undo", async () => {
    const h = fresh("CREATE TABLE p (code TEXT UNIQUE, v INT); CREATE TABLE c (id INTEGER PRIMARY KEY, pcode TEXT REFERENCES p (code) ON DELETE CASCADE); INSERT INTO p VALUES ('a', 1), ('b', 2); INSERT INTO c VALUES (1, 'a');");
    expect(await (await guard(h)).check("DELETE FROM p WHERE code = 'zz'")).toMatchObject({ approved: true, reason: "reversible", tier: "T1", restorePoint: null });
  });

  it("a child whose foreign key only refuses (RESTRICT) is not read: over the bound alone, it does not make the DELETE over it", async () => {
    const h = fresh("CREATE TABLE p (code TEXT UNIQUE, v INT); CREATE TABLE c (id INTEGER PRIMARY KEY, pcode TEXT REFERENCES p (code) ON DELETE RESTRICT ON UPDATE RESTRICT); INSERT INTO p VALUES ('a', 1), ('b', 2); INSERT INTO c VALUES (1, 'a'), (2, 'a'), (3, 'a');");
    const g = await guard(h, { bounds: { maxRows: 2 } });
    expect(await g.check("DELETE FROM p WHERE code = 'b'")).toMatchObject({ approved: true, restorePoint: { tables: ["main.p"], rows: 2 } });
    await roundTrip(h, g, "DELETE FROM p WHERE code = 'b'");
  });

  it("a child whose foreign key has two columns: the rows it references are found by both, kept and undone", async () => {
    const h = fresh("CREATE TABLE p (a INT, b INT, PRIMARY KEY (a, b)); CREATE TABLE c (id INTEGER PRIMARY KEY, x INT, y INT, FOREIGN KEY (x, y) REFERENCES p (a, b) ON DELETE CASCADE); INSERT INTO p VALUES (1, 1), (1, 2); INSERT INTO c VALUES (1, 1, 1), (2, 1, 2);");
    const g = await guard(h);
    expect(await g.check("DELETE FROM p WHERE a = 1 AND b = 1")).toMatchObject({ approved: true, restorePoint: { tables: ["main.p", "main.c"], rows: 3 } });
    await roundTrip(h, g, "DELETE FROM p WHERE a = 1 AND b = 1");
  });

  it("with foreign keys off no action runs: a DROP of a referenced table keeps that table alone and is undone", async () => {
    const h = fresh("CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p (id) ON DELETE CASCADE); INSERT INTO p VALUES (1); INSERT INTO c VALUES (1, 1);");
    h.raw.pragma("foreign_keys = OFF");
    const g = await guard(h);
    expect(await g.check("DROP TABLE p")).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { tables: ["main.p"], rows: 1 } });
    await roundTrip(h, g, "DROP TABLE p");
  });
});
