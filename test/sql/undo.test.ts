// Restore points, the journal and the undo of the SQL guard (src/sql/undo.ts), stated in-process on
// SQLite (better-sqlite3, in memory): the store's refusals of a bad or corrupted point, the journal's
// file and selectors, the newest session, each inverse step's text, every refusal of undoSqlEntry with
// its reason and message, and undos that put back what only a restore point can (duplicate rows of a
// table without a key, rows a child references, a created and a dropped table) — each run for real and
// the database compared with the one before.
import Database from "better-sqlite3";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlGuard, sqliteAdapter, type SqlAdapter, type SqlGuard, type SqlGuardOptions } from "../../src/sql/index.js";
import { describeSqlStep, latestSqlSession, newPointId, scopeFingerprint, SQL_RESTORE_FORMAT, SqlJournal, SqlStore, SqlStoreError, summary, undoSqlEntry, type SqlJournalEntry, type SqlRestorePoint } from "../../src/sql/undo.js";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "polar-sql-undo-"));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
function dir(): string {
  const d = join(root, `s${n++}`);
  mkdirSync(d);
  return d;
}

interface Db {
  raw: Database.Database;
  db: SqlAdapter;
  store: string;
}

function fresh(schema = "CREATE TABLE orders (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO orders VALUES (1, 'a'), (2, 'b'), (3, 'c');"): Db {
  const raw = new Database(":memory:");
  raw.pragma("foreign_keys = ON");
  raw.exec(schema);
  return { raw, db: sqliteAdapter(raw), store: dir() };
}

function guard(h: Db, options: Partial<SqlGuardOptions> = {}): Promise<SqlGuard> {
  return createSqlGuard({ db: h.db, store: h.store, session: "u", ...options });
}

function state(h: Db): string {
  const tables = h.raw.prepare("SELECT name, sql FROM sqlite_schema ORDER BY name").all() as { name: string; sql: string | null }[];
  const out: string[] = [JSON.stringify(tables)];
  for (const t of tables.filter((x) => (x.sql ?? "").startsWith("CREATE TABLE"))) out.push(JSON.stringify((h.raw.prepare(`SELECT * FROM "${t.name}"`).all() as unknown[]).map((r) => JSON.stringify(r)).sort()));
  return out.join("\n");
}

/** Checks, runs and observes `q`; returns the journal id. */
async function ran(h: Db, g: SqlGuard, q: string): Promise<string> {
  const d = await g.check(q);
  expect(d.approved, `${q}: ${d.message}`).toBe(true);
  h.raw.exec(q);
  return (await g.observe(d.execution!)).journaled!;
}

const point = (id: string, tables: SqlRestorePoint["tables"] = []): SqlRestorePoint => ({ format: SQL_RESTORE_FORMAT, id, database: "sqlite::memory:", created: "2026-12-06T00:00:00.000Z", tables });

describe("SqlStore", () => {
  it("saves a point once and loads it back; a bad id, a missing, unreadable or corrupted point is an error naming it", () => {
    const s = new SqlStore(dir());
    s.open();
    const p = point("sp-1", [{ table: "main.t", q: '"main"."t"', scope: "keys", kind: "table", columns: ["a"], insertable: ["a"], identityAlways: false, pk: ["a"], rows: ['[{"i":"1"}]', '[{"i":"2"}]'], keys: ["k1", "k2"], definition: null, depth: 1, children: [] }]);
    const text = JSON.stringify(p);
    expect(s.save(p)).toEqual({ id: "sp-1", tables: ["main.t"], rows: 2, bytes: Buffer.byteLength(text) });
    expect(readFileSync(`${s.dir}/points/sp-1.json`, "utf8")).toBe(text);
    expect(() => s.save(p)).toThrow(/EEXIST/);
    expect(s.load("sp-1")).toEqual(p);
    for (const bad of ["../x", "a/b", "", "sp 1"]) expect(() => s.load(bad), bad).toThrow(new SqlStoreError(`bad restore point id ${bad}`));
    expect(() => s.load("sp-2")).toThrow(/^restore point sp-2 is unreadable: ENOENT/);
    writeFileSync(`${s.dir}/points/sp-3.json`, "{");
    expect(() => s.load("sp-3")).toThrow(/^restore point sp-3 is unreadable: /);
    for (const [id, body] of [["sp-4", { ...point("sp-4"), format: "other/1" }], ["sp-5", point("sp-x")], ["sp-6", { ...point("sp-6"), tables: {} }]] as const) {
      writeFileSync(`${s.dir}/points/${id}.json`, JSON.stringify(body));
      expect(() => s.load(id), id).toThrow(new SqlStoreError(`restore point ${id} is corrupted`));
    }
    expect(s.journalFile("abc")).toBe(`${s.dir}/sessions/abc.jsonl`);
    expect(newPointId()).toMatch(/^sp-[0-9a-z]+-[0-9a-f]{8}$/);
    expect(newPointId()).not.toBe(newPointId());
  });

  it("a summary counts the rows of every table and names the tables, not the created relations", () => {
    const t = (table: string, scope: "table" | "created", rows: string[]) => ({ table, q: "", scope, kind: "table" as const, columns: [], insertable: [], identityAlways: false, pk: null, rows, keys: [], definition: null, depth: 1, children: [] });
    expect(summary(point("p", [t("main.a", "table", ["1", "2"]), t("main.b", "created", []), t("main.c", "table", ["3"])]), 9)).toEqual({ id: "p", tables: ["main.a", "main.c"], rows: 3, bytes: 9 });
  });
});

describe("SqlJournal", () => {
  const entry = (id: string): SqlJournalEntry => ({ id, execution: `x:${id}`, statement: "DELETE FROM t", database: "sqlite::memory:", dialect: "sqlite", calls: [], tier: "T2", inverse: [{ tool: "sql_put_back", arguments: { point: `p${id}` }, forwardTool: "sql_delete", tier: "T2", annotation: "" }], restorePoint: null, point: `p${id}`, after: {} });

  it("appends entries and undone marks to its file and reads them back; numbers count from the newest", () => {
    const file = join(dir(), "j.jsonl");
    const j = new SqlJournal(file);
    expect(j.list()).toEqual([]);
    expect(j.select(undefined)).toBeNull();
    j.add(entry("a"));
    j.add(entry("b"));
    j.add(entry("c"));
    j.markUndone("c");
    const again = new SqlJournal(file);
    for (const x of [j, again]) {
      expect(x.list().map((e) => [e.id, e.index, e.undone, e.preview])).toEqual([
        ["a", 3, false, ["insert again the rows restore point pa holds"]],
        ["b", 2, false, ["insert again the rows restore point pb holds"]],
        ["c", 1, true, ["insert again the rows restore point pc holds"]],
      ]);
      // No selector: the newest not undone.
      expect(x.select(undefined)?.id).toBe("b");
      expect(x.select(1)?.id).toBe("c");
      expect(x.select(3)?.id).toBe("a");
      for (const bad of [0, 4, -1, 1.5, Number.NaN]) expect(x.select(bad), String(bad)).toBeNull();
      expect(x.select({ id: "a" })?.id).toBe("a");
      expect(x.select({ id: "z" })).toBeNull();
      expect(x.isUndone("c")).toBe(true);
      expect(x.isUndone("b")).toBe(false);
    }
    again.markUndone("b");
    again.markUndone("a");
    expect(again.select(undefined)).toBeNull();
    expect(readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => Object.keys(JSON.parse(l) as object)[0])).toEqual(["entry", "entry", "entry", "undone", "undone", "undone"]);
  });

  it("latestSqlSession: the session journal written last, or none", () => {
    const s = dir();
    expect(latestSqlSession(s)).toBeNull();
    mkdirSync(`${s}/sql/sessions`, { recursive: true });
    expect(latestSqlSession(s)).toBeNull();
    for (const [f, t] of [["old.jsonl", 1000], ["new.jsonl", 3000], ["mid.jsonl", 2000], ["newest.txt", 4000]] as const) {
      writeFileSync(`${s}/sql/sessions/${f}`, "");
      utimesSync(`${s}/sql/sessions/${f}`, t, t);
    }
    expect(latestSqlSession(s)).toBe("new");
  });

  it("describeSqlStep says what each inverse does", () => {
    const step = (tool: string, args: Record<string, unknown>) => describeSqlStep({ tool, arguments: args, forwardTool: "sql_delete", tier: "T2", annotation: "" });
    expect(step("nothing", {})).toBe("nothing to undo (sql_delete changed nothing)");
    expect(step("sql_put_back", { point: "p1" })).toBe("insert again the rows restore point p1 holds");
    expect(step("sql_restore_rows", { point: "p1" })).toBe("set the rows back to restore point p1, by key");
    expect(step("sql_delete_inserted", { point: "p1" })).toBe("delete the rows not in restore point p1, by key");
    expect(step("sql_recreate", { point: "p1" })).toBe("create again what restore point p1 holds, with its rows");
    expect(step("sql_drop_created", { table: "main.t", kind: "view" })).toBe("DROP VIEW main.t");
    expect(step("sql_drop_created", { table: "main.t" })).toBe("DROP TABLE main.t");
    expect(step("sql_rollback", {})).toBe("ROLLBACK the open transaction");
    expect(step("other_tool", { a: 1 })).toBe('other_tool {"a":1}');
  });
});

describe("undoSqlEntry: refusals", () => {
  it("nothing to undo, no such execution, already undone", async () => {
    const h = fresh();
    const g = await guard(h);
    expect(await g.undo()).toEqual({ ok: false, id: null, reason: "nothing_to_undo", message: "nothing to undo", steps: [] });
    expect(await g.undo(1)).toEqual({ ok: false, id: null, reason: "not_found", message: "no such execution", steps: [] });
    expect(await g.undo({ id: "q-9" })).toEqual({ ok: false, id: null, reason: "not_found", message: "no such execution", steps: [] });
    const id = await ran(h, g, "DELETE FROM orders WHERE id = 1");
    const steps = g.list()[0]!.preview;
    expect(await g.undo({ id })).toEqual({ ok: true, id, reason: "undone", message: `undid ${id}`, steps });
    expect(await g.undo({ id })).toEqual({ ok: false, id, reason: "already_undone", message: `${id} was undone already`, steps });
    expect(await g.undo()).toMatchObject({ reason: "nothing_to_undo" });
  });

  it("another database, a restore point gone, what was left not read: unknown_state; nothing is touched", async () => {
    const h = fresh();
    const g = await guard(h);
    const id = await ran(h, g, "DELETE FROM orders WHERE id = 1");
    const after = state(h);
    const journal = new SqlJournal(new SqlStore(h.store).journalFile("u"));
    const other: SqlAdapter = { ...h.db, describe: () => "sqlite:/elsewhere.db" };
    expect(await undoSqlEntry(journal, new SqlStore(h.store), other, undefined, false)).toMatchObject({ ok: false, id, reason: "unknown_state", message: `${id} ran on sqlite::memory:, not on sqlite:/elsewhere.db` });
    const pg: SqlAdapter = { ...h.db, dialect: "postgres" };
    expect(await undoSqlEntry(journal, new SqlStore(h.store), pg, undefined, false)).toMatchObject({ ok: false, reason: "unknown_state" });
    const e = journal.select(undefined)!;
    rmSync(`${h.store}/sql/points/${e.point}.json`);
    expect(await undoSqlEntry(journal, new SqlStore(h.store), h.db, undefined, false)).toMatchObject({ ok: false, id, reason: "unknown_state", message: expect.stringMatching(new RegExp(`^restore point ${e.point} is unreadable: ENOENT`)) });
    expect(state(h)).toBe(after);
  });

  it("an entry whose scope was over the bound or unreadable when observed is refused, saying which", async () => {
    const h = fresh();
    const g = await guard(h);
    await ran(h, g, "DELETE FROM orders WHERE id = 1");
    const file = new SqlStore(h.store).journalFile("u");
    const e = new SqlJournal(file).select(undefined)!;
    for (const [v, what] of [["over_bound", "more rows than the restore bound"], ["unreadable: disk", "not readable"]] as const) {
      const f2 = join(dir(), "j.jsonl");
      writeFileSync(f2, `${JSON.stringify({ entry: { ...e, after: { "main.orders": v } } })}\n`);
      expect(await undoSqlEntry(new SqlJournal(f2), new SqlStore(h.store), h.db, undefined, false)).toMatchObject({ ok: false, id: e.id, reason: "unknown_state", message: `refused: what ${e.id} left in main.orders was ${what} when it was observed` });
    }
    // An entry without fingerprints has nothing to compare: refused as changed.
    const f3 = join(dir(), "j.jsonl");
    const { after: _after, ...bare } = e;
    writeFileSync(f3, `${JSON.stringify({ entry: bare })}\n`);
    expect(await undoSqlEntry(new SqlJournal(f3), new SqlStore(h.store), h.db, undefined, false)).toMatchObject({ ok: false, reason: "unknown_state" });
  });

  it("an entry with no inverse (recorded by the advisory policy, or an inverse without a tool) is not undone", async () => {
    const h = fresh();
    const g = await guard(h, { policy: "advisory" });
    const id = await ran(h, g, "DROP TABLE orders");
    expect(await g.undo()).toEqual({ ok: false, id, reason: "no_inverse", message: `${id} has no inverse (it was recorded, not approved as undoable)`, steps: [] });
    const h2 = fresh();
    const g2 = await guard(h2);
    await ran(h2, g2, "DELETE FROM orders WHERE id = 1");
    const e = g2.list()[0]!;
    const f = join(dir(), "j.jsonl");
    writeFileSync(f, `${JSON.stringify({ entry: { ...e, inverse: [...e.inverse, { ...e.inverse[0], tool: "" }] } })}\n`);
    expect(await undoSqlEntry(new SqlJournal(f), new SqlStore(h2.store), h2.db, undefined, false)).toMatchObject({ ok: false, reason: "no_inverse" });
  });

  it("rows changed since are not overwritten (changed_since), also when the change comes between the check and the undo's writes", async () => {
    const h = fresh();
    const g = await guard(h);
    const id = await ran(h, g, "UPDATE orders SET v = 'x' WHERE id = 2");
    h.raw.exec("UPDATE orders SET v = 'newer' WHERE id = 2");
    const after = state(h);
    expect(await g.undo()).toMatchObject({ ok: false, id, reason: "changed_since", message: `refused: the rows of main.orders that ${id} changed have changed since; undoing it would destroy newer work` });
    expect(state(h)).toBe(after);
    // The rows change after the first check, inside the undo's own transaction: nothing is written.
    h.raw.exec("UPDATE orders SET v = 'x' WHERE id = 2");
    let reads = 0;
    const racing: SqlAdapter = { ...h.db, writeTransaction: async (fn) => { if (reads++ === 0) h.raw.exec("UPDATE orders SET v = 'race' WHERE id = 2"); return h.db.writeTransaction(fn); } };
    const journal = new SqlJournal(new SqlStore(h.store).journalFile("u"));
    expect(await undoSqlEntry(journal, new SqlStore(h.store), racing, undefined, false)).toMatchObject({ ok: false, id, reason: "inverse_failed", message: `the undo of ${id} failed (nothing was changed): the rows of main.orders changed while the undo began` });
    expect(h.raw.prepare("SELECT v FROM orders WHERE id = 2").get()).toEqual({ v: "race" });
    expect(journal.isUndone(id)).toBe(false);
  });

  it("a state that cannot be read is unknown_state; a dry run changes nothing and marks nothing", async () => {
    const h = fresh();
    const g = await guard(h);
    const id = await ran(h, g, "DELETE FROM orders WHERE id = 3");
    const journal = new SqlJournal(new SqlStore(h.store).journalFile("u"));
    const broken: SqlAdapter = { ...h.db, readTransaction: async () => { throw new Error("locked"); } };
    expect(await undoSqlEntry(journal, new SqlStore(h.store), broken, undefined, false)).toMatchObject({ ok: false, id, reason: "unknown_state", message: "the current state could not be read: locked" });
    const after = state(h);
    const dry = await undoSqlEntry(journal, new SqlStore(h.store), h.db, undefined, true);
    expect(dry).toEqual({ ok: true, id, reason: "dry_run", message: `would undo ${id}`, steps: [expect.stringMatching(/^insert again the rows restore point sp-/)] });
    expect(state(h)).toBe(after);
    expect(journal.isUndone(id)).toBe(false);
    expect(await undoSqlEntry(journal, new SqlStore(h.store), h.db, { id }, false)).toMatchObject({ ok: true, reason: "undone" });
    expect(new SqlJournal(new SqlStore(h.store).journalFile("u")).isUndone(id)).toBe(true);
  });

  it("a ROLLBACK inverse: refused once the transaction has ended, else the transaction is rolled back", async () => {
    const h = fresh();
    const store = new SqlStore(h.store);
    store.open();
    store.save(point("sp-rb"));
    const f = store.journalFile("rb");
    const journal = new SqlJournal(f);
    journal.add({ id: "q-1", execution: "rb:1", statement: "DROP TABLE orders", database: "sqlite::memory:", dialect: "sqlite", calls: [], tier: "T3", inverse: [{ tool: "sql_rollback", arguments: {}, forwardTool: "sql_drop", tier: "T3", annotation: "" }], restorePoint: null, point: "sp-rb", after: {} });
    h.raw.exec("BEGIN; DROP TABLE orders;");
    expect(await undoSqlEntry(journal, store, h.db, undefined, true)).toEqual({ ok: true, id: "q-1", reason: "dry_run", message: "would undo q-1", steps: ["ROLLBACK the open transaction"] });
    expect(h.raw.inTransaction).toBe(true);
    expect(await undoSqlEntry(journal, store, h.db, undefined, false)).toMatchObject({ ok: true, id: "q-1", reason: "undone" });
    expect(h.raw.inTransaction).toBe(false);
    expect(h.raw.prepare("SELECT count(*) AS n FROM orders").get()).toEqual({ n: 3 });
    journal.add({ ...journal.select(1)!, id: "q-2", execution: "rb:2" });
    h.raw.exec("BEGIN; DROP TABLE orders; COMMIT;");
    expect(await undoSqlEntry(journal, store, h.db, undefined, false)).toMatchObject({ ok: false, id: "q-2", reason: "changed_since", message: "refused: the transaction q-2 ran in has ended; ROLLBACK can no longer take it back" });
    expect(journal.isUndone("q-2")).toBe(false);
  });
});

describe("undoSqlEntry: an undo is proved before it commits", () => {
  it("writes that do not bring the scope back (here a REPLACE conflict clause deleting a row the undo sets back) fail the undo: nothing changes and it is not marked undone", async () => {
    const h = fresh("CREATE TABLE r (id INTEGER PRIMARY KEY, v TEXT UNIQUE ON CONFLICT REPLACE); INSERT INTO r VALUES (1, 'a'), (2, 'b'), (3, 'c');");
    const store = new SqlStore(h.store);
    store.open();
    const t = { table: "main.r", q: '"main"."r"', scope: "table" as const, kind: "table" as const, columns: ["id", "v"], insertable: ["id", "v"], identityAlways: false, pk: ["id"], rows: ['[{"i":"1"},"a"]', '[{"i":"2"},"b"]', '[{"i":"3"},"c"]'], keys: ['[{"i":"1"}]', '[{"i":"2"}]', '[{"i":"3"}]'], definition: null, depth: 1, children: [] };
    store.save(point("sp-r", [t]));
    // The statement the point was taken for: row 2 is deleted by the conflict, row 1 changed.
    h.raw.exec("UPDATE r SET v = 'b' WHERE id = 1");
    const after = state(h);
    const journal = new SqlJournal(store.journalFile("r"));
    journal.add({ id: "q-1", execution: "r:1", statement: "UPDATE r SET v = 'b' WHERE id = 1", database: "sqlite::memory:", dialect: "sqlite", calls: [], tier: "T2", inverse: [{ tool: "sql_restore_rows", arguments: { point: "sp-r" }, forwardTool: "sql_update", tier: "T2", annotation: "" }], restorePoint: null, point: "sp-r", after: { "main.r": await scopeFingerprint(h.db, t, 100) }, maxRows: 100 });
    // Putting row 2 back (v = 'b') makes the conflict clause delete row 1: the scope is not as the point holds it.
    expect(await undoSqlEntry(journal, store, h.db, undefined, false)).toMatchObject({ ok: false, id: "q-1", reason: "inverse_failed", message: "the undo of q-1 failed (nothing was changed): after the undo the rows of main.r are not as restore point sp-r holds them" });
    expect(state(h)).toBe(after);
    expect(journal.isUndone("q-1")).toBe(false);
  });
});

describe("undoSqlEntry: what a restore point puts back", () => {
  it("a table without a key: duplicate rows come back as many times as they were, by physical row", async () => {
    const h = fresh("CREATE TABLE notes (body TEXT, n INTEGER); INSERT INTO notes VALUES ('a', 1), ('a', 1), ('a', 1), ('b', NULL), (NULL, 2);");
    const g = await guard(h);
    for (const q of ["DELETE FROM notes WHERE body = 'a' AND rowid > 1", "UPDATE notes SET n = 5 WHERE body IS NULL", "INSERT INTO notes VALUES ('a', 1), ('c', 3)", "DELETE FROM notes"]) {
      const before = state(h);
      await ran(h, g, q);
      expect(state(h), q).not.toBe(before);
      expect(await g.undo(), q).toMatchObject({ ok: true, reason: "undone" });
      expect(state(h), q).toBe(before);
    }
  });

  it("a composite key, a key change, and a table whose only columns are its key", async () => {
    const h = fresh("CREATE TABLE k (a INTEGER, b TEXT, v REAL, x BLOB, PRIMARY KEY (b, a)); INSERT INTO k VALUES (1, 'x', 1.5, x'00ff'), (2, 'y', NULL, NULL), (3, 'x', -0.25, x'');" +
      "CREATE TABLE pairs (a INTEGER, b INTEGER, PRIMARY KEY (a, b)); INSERT INTO pairs VALUES (1, 1), (1, 2);");
    const g = await guard(h);
    for (const q of ["UPDATE k SET v = 9, x = NULL WHERE b = 'x'", "UPDATE k SET a = a + 10 WHERE a < 3", "DELETE FROM k WHERE a = 2", "UPDATE pairs SET b = b + 5", "DELETE FROM pairs WHERE b = 2"]) {
      const before = state(h);
      await ran(h, g, q);
      expect(state(h), q).not.toBe(before);
      expect(await g.undo(), q).toMatchObject({ ok: true, reason: "undone" });
      expect(state(h), q).toBe(before);
    }
  });

  it("an INSERT's new rows are deleted unless a child row references one; then the undo fails and nothing changes", async () => {
    const h = fresh("CREATE TABLE p (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO p VALUES (1, 'a'); CREATE TABLE c (id INTEGER PRIMARY KEY, p INTEGER REFERENCES p (id)); CREATE TABLE c2 (q INTEGER REFERENCES p (id));");
    const g = await guard(h);
    const id = await ran(h, g, "INSERT INTO p (v) VALUES ('b'), ('c')");
    expect(h.raw.prepare("SELECT id FROM p ORDER BY id").all()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    // A row of c2 with a NULL key references nothing; a row of c references the new row 3.
    h.raw.exec("INSERT INTO c2 VALUES (NULL); INSERT INTO c VALUES (1, 3)");
    const after = state(h);
    // The child rows are not in any scope: their insert is newer work only the check of p's scope misses.
    expect(await g.undo({ id })).toMatchObject({ ok: false, reason: "inverse_failed", message: `the undo of ${id} failed (nothing was changed): rows of main.c reference a row of main.p the undo would delete` });
    expect(state(h)).toBe(after);
    h.raw.exec("DELETE FROM c");
    expect(await g.undo({ id })).toMatchObject({ ok: true, reason: "undone" });
    expect(h.raw.prepare("SELECT id FROM p ORDER BY id").all()).toEqual([{ id: 1 }]);
  });

  it("a created table is dropped again; a dropped table is created again with its index and rows", async () => {
    const h = fresh("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX tv ON t (v); INSERT INTO t VALUES (1, 'a'), (2, NULL);");
    const g = await guard(h, { policy: "snapshot" });
    for (const q of ["CREATE TABLE fresh_t (a INTEGER)", "CREATE VIEW fresh_v AS SELECT 1", "DROP TABLE t"]) {
      const before = state(h);
      await ran(h, g, q);
      expect(state(h), q).not.toBe(before);
      expect(await g.undo(), q).toMatchObject({ ok: true, reason: "undone" });
      expect(state(h), q).toBe(before);
    }
  });
});

describe("the restore point on disk and the journal's bound", () => {
  it("a point is saved in its format; a store error is named so", () => {
    const h = fresh();
    const store = new SqlStore(h.store);
    store.open();
    store.save(point("sp-f"));
    expect(JSON.parse(readFileSync(`${h.store}/sql/points/sp-f.json`, "utf8")).format).toBe("polar-sql-restore-point/1");
    expect(() => store.load("sp-nothere")).toThrow(expect.objectContaining({ name: "SqlStoreError" }));
  });

  it("a point DELETE on a table larger than the bound keeps and compares only its rows, and is undone", async () => {
    const h = fresh("CREATE TABLE orders (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO orders VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e');");
    const g = await guard(h, { bounds: { maxRows: 2 } });
    const before = state(h);
    await ran(h, g, "DELETE FROM orders WHERE id = 2");
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(state(h)).toBe(before);
  });

  it("a whole table kept within the bound that the statement leaves over it is not undone (it was counted, not read)", async () => {
    const h = fresh();
    const g = await guard(h, { bounds: { maxRows: 3 } });
    const id = await ran(h, g, "INSERT INTO orders (id, v) VALUES (10, 'x')");
    const after = state(h);
    expect(await g.undo()).toMatchObject({ ok: false, id, reason: "unknown_state", message: `refused: what ${id} left in main.orders was more rows than the restore bound when it was observed` });
    expect(state(h)).toBe(after);
  });

  it("a created table the statement filled over the bound is not undone; a created view over such a table is", async () => {
    const h = fresh();
    const g = await guard(h, { bounds: { maxRows: 2 } });
    const id = await ran(h, g, "CREATE TABLE copy AS SELECT * FROM orders");
    expect(await g.undo()).toMatchObject({ ok: false, id, reason: "unknown_state", message: `refused: what ${id} left in main.copy was more rows than the restore bound when it was observed` });
    const before = state(h);
    await ran(h, g, "CREATE VIEW every_order AS SELECT * FROM orders");
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(state(h)).toBe(before);
  });

  it("an approved CREATE that did not run is undone as nothing", async () => {
    const h = fresh();
    const g = await guard(h);
    const before = state(h);
    const d = await g.check("CREATE TABLE never (a INTEGER)");
    expect(d.approved).toBe(true);
    await g.observe(d.execution!);
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(state(h)).toBe(before);
  });
});

describe("a corrupted restore point", () => {
  function entry(h: Db, store: SqlStore, t: SqlRestorePoint["tables"][number], after: string): SqlJournal {
    store.open();
    const id = `sp-c${n}`;
    store.save(point(id, [t]));
    const journal = new SqlJournal(join(dir(), "j.jsonl"));
    journal.add({ id: "q-1", execution: "c:1", statement: "", database: "sqlite::memory:", dialect: "sqlite", calls: [], tier: "T2", inverse: [{ tool: "sql_put_back", arguments: { point: id }, forwardTool: "sql_delete", tier: "T2", annotation: "" }], restorePoint: null, point: id, after: { [t.table]: after }, maxRows: 100 });
    return journal;
  }
  const table = { table: "main.orders", q: '"main"."orders"', kind: "table" as const, columns: ["id", "v"], insertable: ["id", "v"], identityAlways: false, pk: ["id"], rows: [] as string[], keys: [] as string[], definition: null, depth: 1, children: [] };

  it("a range scope whose bound is not an integer is unknown_state, naming the table; an integer bound of several digits is read", async () => {
    for (const above of [undefined, "", "1x", "x1", "1.5"]) {
      const h = fresh();
      const store = new SqlStore(h.store);
      const journal = entry(h, store, { ...table, scope: "range", above }, "range:x");
      expect(await undoSqlEntry(journal, store, h.db, undefined, false), String(above)).toMatchObject({ ok: false, reason: "unknown_state", message: "the current state could not be read: restore point scope of main.orders is corrupted" });
    }
    const h = fresh("CREATE TABLE orders (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO orders VALUES (1, 'a'), (12, 'b'), (13, 'c');");
    const store = new SqlStore(h.store);
    const t = { ...table, scope: "range" as const, above: "12" };
    const journal = entry(h, store, t, await scopeFingerprint(h.db, t, 100));
    expect(await undoSqlEntry(journal, store, h.db, undefined, false)).toMatchObject({ ok: true, reason: "undone" });
    expect(h.raw.prepare("SELECT id FROM orders ORDER BY id").all()).toEqual([{ id: 1 }, { id: 12 }]);
  });

  it("a dropped table without its definition is not created again: the undo fails, nothing changes", async () => {
    for (const definition of [null, []]) {
      const h = fresh("CREATE TABLE other (a INTEGER)");
      const store = new SqlStore(h.store);
      const journal = entry(h, store, { ...table, scope: "dropped", definition }, "absent");
      expect(await undoSqlEntry(journal, store, h.db, undefined, false)).toMatchObject({ ok: false, reason: "inverse_failed", message: "the undo of q-1 failed (nothing was changed): no definition of main.orders was kept" });
      expect(h.raw.prepare("SELECT name FROM sqlite_schema").all()).toEqual([{ name: "other" }]);
    }
  });
});

describe("foreign keys the undo meets", () => {
  it("rows of a table that reference each other come back whatever their order (the undo's foreign keys are checked at its commit)", async () => {
    const h = fresh("CREATE TABLE node (id INTEGER PRIMARY KEY, up INTEGER REFERENCES node (id)); INSERT INTO node VALUES (1, NULL), (2, 3), (3, 1);");
    const g = await guard(h);
    const before = state(h);
    await ran(h, g, "DELETE FROM node WHERE id > 1");
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(state(h)).toBe(before);
  });

  it("rows a string inserted into a parent and its child are deleted, the child's first", async () => {
    const h = fresh("CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (id INTEGER PRIMARY KEY, p INTEGER REFERENCES p (id)); INSERT INTO p VALUES (1);");
    const g = await guard(h);
    const before = state(h);
    await ran(h, g, "INSERT INTO p (id) VALUES (10); INSERT INTO c (id, p) VALUES (5, 10)");
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(state(h)).toBe(before);
  });

  it("a child that references a parent without a key and names no column (SQLite rejects the foreign key only when it is used): the undo deletes no parent row, and says so", async () => {
    const h = fresh("PRAGMA foreign_keys = OFF; CREATE TABLE p (id INTEGER); CREATE TABLE c (p INTEGER REFERENCES p); INSERT INTO p VALUES (1);");
    const g = await guard(h);
    const id = await ran(h, g, "INSERT INTO p (id) VALUES (2)");
    const after = state(h);
    expect(await g.undo()).toMatchObject({ ok: false, id, reason: "inverse_failed", message: `the undo of ${id} failed (nothing was changed): the foreign key of main.c names no column` });
    expect(state(h)).toBe(after);
  });

  it("a two-column foreign key: a referenced new row is not deleted; a referenced column set back fails the undo", async () => {
    const h = fresh("CREATE TABLE p (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, UNIQUE (a, b)); CREATE TABLE c (x INTEGER, y TEXT, FOREIGN KEY (x, y) REFERENCES p (a, b)); INSERT INTO p VALUES (1, 1, 'a');");
    const g = await guard(h);
    const id = await ran(h, g, "INSERT INTO p (id, a, b) VALUES (2, 2, 'b')");
    h.raw.exec("INSERT INTO c VALUES (2, 'b')");
    let after = state(h);
    expect(await g.undo({ id })).toMatchObject({ ok: false, reason: "inverse_failed", message: `the undo of ${id} failed (nothing was changed): rows of main.c reference a row of main.p the undo would delete` });
    expect(state(h)).toBe(after);
    const id2 = await ran(h, g, "UPDATE p SET b = 'z' WHERE id = 1");
    h.raw.exec("INSERT INTO c VALUES (1, 'z')");
    after = state(h);
    expect(await g.undo({ id: id2 })).toMatchObject({ ok: false, reason: "inverse_failed", message: `the undo of ${id2} failed (nothing was changed): rows of main.c reference a row of main.p whose referenced columns the undo would change` });
    expect(state(h)).toBe(after);
  });

  it("a foreign key naming the key and another column: setting the other back under a newer child row that references it fails the undo", async () => {
    const h = fresh("CREATE TABLE p (id INTEGER PRIMARY KEY, v TEXT, UNIQUE (id, v)); CREATE TABLE c (x INTEGER, y TEXT, FOREIGN KEY (x, y) REFERENCES p (id, v)); INSERT INTO p VALUES (1, 'a');");
    const g = await guard(h);
    const id = await ran(h, g, "UPDATE p SET v = 'n' WHERE id = 1");
    h.raw.exec("INSERT INTO c VALUES (1, 'n')");
    const after = state(h);
    expect(await g.undo({ id })).toMatchObject({ ok: false, reason: "inverse_failed", message: `the undo of ${id} failed (nothing was changed): rows of main.c reference a row of main.p whose referenced columns the undo would change` });
    expect(state(h)).toBe(after);
  });
});

describe("what the undo leaves alone, and what it meets since", () => {
  it("a table without a key: the rows the statement did not change keep their rowid", async () => {
    const h = fresh("CREATE TABLE notes (body TEXT, n INTEGER); INSERT INTO notes VALUES ('a', 1), ('a', 1), ('b', 2);");
    const g = await guard(h);
    const rows = (): unknown => h.raw.prepare("SELECT rowid, body, n FROM notes WHERE body = 'a' ORDER BY rowid").all();
    const kept = rows();
    await ran(h, g, "UPDATE notes SET n = 5 WHERE body = 'b'");
    expect(await g.undo()).toMatchObject({ ok: true, reason: "undone" });
    expect(rows()).toEqual(kept);
  });

  it("triggers created since are named; one created between the check and the undo's writes fails it", async () => {
    const h = fresh("CREATE TABLE orders (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE log (m TEXT); INSERT INTO orders VALUES (1, 'a'), (2, 'b');");
    const g = await guard(h);
    const id = await ran(h, g, "DELETE FROM orders WHERE id = 1");
    h.raw.exec("CREATE TRIGGER t1 AFTER INSERT ON orders BEGIN INSERT INTO log VALUES ('1'); END; CREATE TRIGGER t2 AFTER INSERT ON orders BEGIN INSERT INTO log VALUES ('2'); END;");
    expect(await g.undo()).toMatchObject({ ok: false, id, reason: "changed_since", message: "refused: main.orders has triggers now (t1, t2), which the undo's own writes would fire (code the guard does not read)" });
    h.raw.exec("DROP TRIGGER t1; DROP TRIGGER t2");
    let first = true;
    const racing: SqlAdapter = { ...h.db, writeTransaction: async (fn) => { if (first) { first = false; h.raw.exec("CREATE TRIGGER t3 AFTER INSERT ON orders BEGIN INSERT INTO log VALUES ('3'); END;"); } return h.db.writeTransaction(fn); } };
    const journal = new SqlJournal(new SqlStore(h.store).journalFile("u"));
    expect(await undoSqlEntry(journal, new SqlStore(h.store), racing, undefined, false)).toMatchObject({ ok: false, id, reason: "inverse_failed", message: `the undo of ${id} failed (nothing was changed): main.orders has a trigger now (t3), which the undo's own writes would fire` });
    expect(h.raw.prepare("SELECT * FROM orders").all()).toEqual([{ id: 2, v: "b" }]);
    expect(h.raw.prepare("SELECT * FROM log").all()).toEqual([]);
  });

  it("another dialect than the entry's is refused, saying where it ran", async () => {
    const h = fresh();
    const g = await guard(h);
    const id = await ran(h, g, "DELETE FROM orders WHERE id = 1");
    const pg: SqlAdapter = { ...h.db, dialect: "postgres" };
    expect(await undoSqlEntry(new SqlJournal(new SqlStore(h.store).journalFile("u")), new SqlStore(h.store), pg, undefined, false)).toMatchObject({ ok: false, id, reason: "unknown_state", message: `${id} ran on sqlite::memory:, not on sqlite::memory:` });
  });
});

describe("scopes the string left as they were", () => {
  it("a DROP that did not run, its table grown over the bound before it was observed: not undone", async () => {
    const h = fresh();
    const g = await guard(h, { bounds: { maxRows: 3 } });
    const d = await g.check("DROP TABLE orders");
    expect(d.approved, d.message).toBe(true);
    h.raw.exec("INSERT INTO orders VALUES (4, 'd')");
    const id = (await g.observe(d.execution!)).journaled!;
    const after = state(h);
    expect(await g.undo()).toMatchObject({ ok: false, id, reason: "unknown_state", message: `refused: what ${id} left in main.orders was more rows than the restore bound when it was observed` });
    expect(state(h)).toBe(after);
  });

  it("a child the string wrote by key, not held whole: a newer row of it that references a value the undo sets back fails the undo", async () => {
    const h = fresh("CREATE TABLE p (id INTEGER PRIMARY KEY, code TEXT UNIQUE); CREATE TABLE c (id INTEGER PRIMARY KEY, pcode TEXT REFERENCES p (code), note TEXT); CREATE TABLE tags (t TEXT);" +
      "INSERT INTO p VALUES (1, 'a'), (2, 'b'); INSERT INTO c VALUES (5, 'a', 'x'); INSERT INTO tags VALUES ('x'), ('y');");
    const g = await guard(h);
    const id = await ran(h, g, "UPDATE c SET note = 'y' WHERE id = 5; UPDATE p SET code = 'n' WHERE id = 2; DELETE FROM tags WHERE t = 'x'");
    h.raw.exec("INSERT INTO c VALUES (6, 'n', 'newer')");
    const after = state(h);
    expect(await g.undo({ id })).toMatchObject({ ok: false, reason: "inverse_failed", message: `the undo of ${id} failed (nothing was changed): rows of main.c reference a row of main.p whose referenced columns the undo would change` });
    expect(state(h)).toBe(after);
  });
});

describe("a parent whose key has two columns", () => {
  it("a referenced column set back is undone while no newer child row references the value it replaced; with one, the undo fails and nothing changes", async () => {
    const h = fresh("CREATE TABLE p (a INTEGER, b INTEGER, code TEXT UNIQUE, PRIMARY KEY (a, b)); CREATE TABLE c (id INTEGER PRIMARY KEY, pcode TEXT REFERENCES p (code));" +
      "INSERT INTO p VALUES (1, 1, 'a'), (1, 2, 'b'); INSERT INTO c VALUES (5, 'b');");
    const before = state(h);
    const g = await guard(h);
    const id = await ran(h, g, "UPDATE p SET code = 'z' WHERE a = 1 AND b = 1");
    expect(await g.undo({ id })).toMatchObject({ ok: true, reason: "undone" });
    expect(state(h)).toBe(before);
    const id2 = await ran(h, g, "UPDATE p SET code = 'z' WHERE a = 1 AND b = 1");
    h.raw.exec("INSERT INTO c VALUES (6, 'z')");
    const after = state(h);
    expect(await g.undo({ id: id2 })).toMatchObject({ ok: false, reason: "inverse_failed", message: `the undo of ${id2} failed (nothing was changed): rows of main.c reference a row of main.p whose referenced columns the undo would change` });
    expect(state(h)).toBe(after);
  });
});
