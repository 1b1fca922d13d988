// Layer B for SQL (src/sql/state.ts) on SQLite (better-sqlite3, in memory), stated in-process: the catalog
// facts Catalog.table reads for each kind of relation, the foreign-key switch, and the rows of a scope
// (whole table, above a key, by keys) as canonical strings that go back exactly. PostgreSQL's are in
// state-pg.test.ts (PGlite: kept apart so this file starts no database). The verdicts that stand on them
// are test/sql/guard-*.test.ts.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteAdapter, type SqlAdapter } from "../../src/sql/adapter.js";
import { Catalog, decodeSqliteValue, encodeSqliteValue, fingerprintRows, keyOf, quoteIdent, readKeys, readRange, readTable, sqliteRowText, StateError, type TableInfo } from "../../src/sql/state.js";

const SQLITE = `CREATE TABLE p (a INTEGER, b TEXT, PRIMARY KEY (b, a));
CREATE TABLE q (id INTEGER PRIMARY KEY);
CREATE TABLE c (id INTEGER PRIMARY KEY AUTOINCREMENT, pa INTEGER, pb TEXT, x INTEGER REFERENCES Q ON DELETE SET NULL,
  g INTEGER GENERATED ALWAYS AS (id * 2) VIRTUAL, FOREIGN KEY (pb, pa) REFERENCES p (b, a) ON UPDATE CASCADE ON DELETE RESTRICT);
CREATE INDEX ci ON c (pa);
CREATE TRIGGER ct AFTER INSERT ON c BEGIN SELECT 1; END;
INSERT INTO c (pa) VALUES (1);
CREATE VIEW v AS SELECT * FROM c;
CREATE TRIGGER vt INSTEAD OF DELETE ON v BEGIN SELECT 1; END;
CREATE TABLE w (k TEXT PRIMARY KEY, v) WITHOUT ROWID;
CREATE TABLE n (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT);
CREATE TABLE "we""ird" (v);`;

function sqlite(extra = ""): { raw: Database.Database; db: SqlAdapter; cat: Catalog } {
  const raw = new Database(":memory:");
  raw.exec(SQLITE + extra);
  const db = sqliteAdapter(raw);
  return { raw, db, cat: new Catalog(db) };
}

const info = (over: Partial<TableInfo>): TableInfo => ({ name: "", q: "", kind: "table", columns: [], insertable: [], identityAlways: false, pk: null, children: [], triggers: [], sequence: false, inherited: false, definition: null, ...over });
const rel = (name: string, schema: string | null = null) => ({ schema, name });

describe("Catalog on SQLite", () => {
  it("a table: columns (generated ones not insertable), the key in key order, the foreign keys that reference it with their actions, triggers, the sequence, its definition", async () => {
    const { cat } = sqlite();
    expect(await cat.table(rel("p"))).toEqual(info({
      name: "main.p", q: '"main"."p"', columns: ["a", "b"], insertable: ["a", "b"], pk: ["b", "a"],
      children: [{ table: "main.c", q: '"main"."c"', columns: ["pb", "pa"], parentColumns: ["b", "a"], onDelete: "restrict", onUpdate: "cascade" }],
      definition: ["CREATE TABLE p (a INTEGER, b TEXT, PRIMARY KEY (b, a))"],
    }));
    // A foreign key naming the parent's key implicitly (REFERENCES Q, in another case).
    expect(await cat.table(rel("q"))).toEqual(info({
      name: "main.q", q: '"main"."q"', columns: ["id"], insertable: ["id"], pk: ["id"],
      children: [{ table: "main.c", q: '"main"."c"', columns: ["x"], parentColumns: ["id"], onDelete: "set_null", onUpdate: "no_action" }],
      definition: ["CREATE TABLE q (id INTEGER PRIMARY KEY)"],
    }));
    // Named in another case: the stored name; its index and trigger after it, the trigger last.
    expect(await cat.table(rel("C", "MAIN"))).toEqual(info({
      name: "main.c", q: '"main"."c"', columns: ["id", "pa", "pb", "x", "g"], insertable: ["id", "pa", "pb", "x"], pk: ["id"],
      triggers: [{ name: "ct", events: ["any"] }], sequence: true,
      definition: [
        "CREATE TABLE c (id INTEGER PRIMARY KEY AUTOINCREMENT, pa INTEGER, pb TEXT, x INTEGER REFERENCES Q ON DELETE SET NULL,\n  g INTEGER GENERATED ALWAYS AS (id * 2) VIRTUAL, FOREIGN KEY (pb, pa) REFERENCES p (b, a) ON UPDATE CASCADE ON DELETE RESTRICT)",
        "CREATE INDEX ci ON c (pa)",
        "CREATE TRIGGER ct AFTER INSERT ON c BEGIN SELECT 1; END",
      ],
    }));
    // AUTOINCREMENT without a row in sqlite_sequence yet: no sequence; a table without a key; quoting.
    expect(await cat.table(rel("n"))).toMatchObject({ name: "main.n", pk: ["id"], sequence: false });
    expect(await cat.table(rel('we"ird'))).toEqual(info({ name: 'main.we"ird', q: '"main"."we""ird"', columns: ["v"], insertable: ["v"], definition: ['CREATE TABLE "we""ird" (v)'] }));
    expect(await cat.table(rel("w"))).toMatchObject({ kind: "table", pk: ["k"], columns: ["k", "v"], sequence: false, children: [], triggers: [] });
  });

  it("a table without sqlite_sequence has no sequence; every foreign-key action is read", async () => {
    const raw = new Database(":memory:");
    raw.exec(`CREATE TABLE p (id INTEGER PRIMARY KEY);
      CREATE TABLE c1 (p INTEGER REFERENCES p ON DELETE CASCADE ON UPDATE SET DEFAULT);
      CREATE TABLE c2 (p INTEGER REFERENCES p ON DELETE NO ACTION ON UPDATE RESTRICT);
      CREATE TABLE c3 (p INTEGER REFERENCES p ON DELETE SET DEFAULT ON UPDATE SET NULL);`);
    const t = await new Catalog(sqliteAdapter(raw)).table(rel("p"));
    expect(t.sequence).toBe(false);
    expect(t.children.map((c) => [c.table, c.onDelete, c.onUpdate])).toEqual([["main.c1", "cascade", "set_default"], ["main.c2", "no_action", "restrict"], ["main.c3", "set_default", "set_null"]]);
  });

  it("a view with its triggers, an index (an automatic one has no SQL), anything else, and an absent relation", async () => {
    const { cat } = sqlite();
    expect(await cat.table(rel("v"))).toEqual(info({ name: "main.v", q: '"main"."v"', kind: "view", triggers: [{ name: "vt", events: ["any"] }], definition: ["CREATE VIEW v AS SELECT * FROM c"] }));
    expect(await cat.table(rel("ci"))).toEqual(info({ name: "main.ci", q: '"main"."ci"', kind: "index", definition: ["CREATE INDEX ci ON c (pa)"] }));
    expect(await cat.table(rel("sqlite_autoindex_p_1"))).toEqual(info({ name: "main.sqlite_autoindex_p_1", q: '"main"."sqlite_autoindex_p_1"', kind: "index", definition: [] }));
    expect(await cat.table(rel("ct"))).toEqual(info({ name: "main.ct", q: '"main"."ct"', kind: "other" }));
    expect(await cat.table(rel("nope"))).toEqual(info({ name: "main.nope", q: '"main"."nope"', kind: "absent" }));
  });

  it("a virtual table is its own kind (its rows are its module's answers); the shadow tables that hold its storage are tables", async () => {
    const { raw, cat } = sqlite();
    raw.exec("CREATE VIRTUAL TABLE f USING fts5(a, b); CREATE VIRTUAL TABLE rt USING rtree(id, x0, x1);");
    expect(await cat.table(rel("f"))).toEqual(info({ name: "main.f", q: '"main"."f"', kind: "virtual table" }));
    expect(await cat.table(rel("RT"))).toEqual(info({ name: "main.rt", q: '"main"."rt"', kind: "virtual table" }));
    expect(await cat.table(rel("f_config"))).toEqual(info({ name: "main.f_config", q: '"main"."f_config"', columns: ["k", "v"], insertable: ["k", "v"], pk: ["k"], definition: ["CREATE TABLE 'f_config'(k PRIMARY KEY, v) WITHOUT ROWID"] }));
  });

  it("a foreign key that names the parent's key implicitly, on a parent without a key, names no parent column; one that names a UNIQUE column names it", async () => {
    const raw = new Database(":memory:");
    raw.exec("CREATE TABLE np (a); CREATE TABLE ch (x REFERENCES np ON DELETE CASCADE); CREATE TABLE u (id INTEGER PRIMARY KEY, code TEXT UNIQUE); CREATE TABLE uc (c TEXT REFERENCES u (code) ON UPDATE CASCADE);");
    const cat = new Catalog(sqliteAdapter(raw));
    expect((await cat.table(rel("np"))).children).toEqual([{ table: "main.ch", q: '"main"."ch"', columns: ["x"], parentColumns: [""], onDelete: "cascade", onUpdate: "no_action" }]);
    expect((await cat.table(rel("u"))).children).toEqual([{ table: "main.uc", q: '"main"."uc"', columns: ["c"], parentColumns: ["code"], onDelete: "no_action", onUpdate: "cascade" }]);
  });

  it("an attached database by its name; an unknown schema and a name a temporary relation shadows are errors", async () => {
    const { raw, cat } = sqlite();
    raw.exec("ATTACH ':memory:' AS aux; CREATE TABLE aux.t (id INTEGER PRIMARY KEY); CREATE TEMP TABLE tmp (a); CREATE TABLE main.tmp (a);");
    expect(await cat.table(rel("t", "AUX"))).toMatchObject({ name: "aux.t", q: '"aux"."t"', kind: "table", pk: ["id"] });
    await expect(cat.table(rel("t", "nowhere"))).rejects.toThrow(new StateError("no attached database `nowhere`"));
    await expect(cat.table(rel("t", "nowhere"))).rejects.toMatchObject({ name: "StateError" });
    await expect(cat.table(rel("TMP"))).rejects.toThrow(new StateError("TMP is also a temporary relation: which one the statement means is not judged"));
    // Named with its schema, the main table is meant.
    expect(await cat.table(rel("tmp", "main"))).toMatchObject({ name: "main.tmp", kind: "table" });
    // A TEMP trigger fires on a table of another schema; it names the table without its schema.
    raw.exec("CREATE TEMP TRIGGER tt AFTER DELETE ON main.q BEGIN SELECT 1; END; CREATE TEMP TABLE tq (a); CREATE TEMP TRIGGER tq1 AFTER DELETE ON tq BEGIN SELECT 1; END;");
    cat.clear();
    expect((await cat.table(rel("Q", "main"))).triggers).toEqual([{ name: "temp.tt", events: ["any"] }]);
    expect((await cat.table(rel("tq", "temp"))).triggers).toEqual([{ name: "tq1", events: ["any"] }]);
  });

  it("facts are kept until clear(): a relation and PRAGMA foreign_keys", async () => {
    const { raw, cat } = sqlite();
    raw.pragma("foreign_keys = OFF");
    expect(await cat.foreignKeysOn()).toBe(false);
    expect(await cat.table(rel("later"))).toMatchObject({ kind: "absent" });
    raw.pragma("foreign_keys = ON");
    raw.exec("CREATE TABLE later (a)");
    expect(await cat.foreignKeysOn()).toBe(false);
    expect(await cat.table(rel("later"))).toMatchObject({ kind: "absent" });
    // Another spelling of the name is another entry.
    expect(await cat.table(rel("later", "main"))).toMatchObject({ kind: "table" });
    cat.clear();
    expect(await cat.foreignKeysOn()).toBe(true);
    expect(await cat.table(rel("later"))).toMatchObject({ kind: "table" });
  });
});

describe("rows on SQLite", () => {
  it("values are tagged by storage class and come back exactly; an unknown kind or a corrupted value is an error", () => {
    const vals = [null, 5n, -9223372036854775808n, 1.5, "text", Buffer.from([0, 255])];
    expect(vals.map(encodeSqliteValue)).toEqual([null, { i: "5" }, { i: "-9223372036854775808" }, { r: 1.5 }, "text", { b: "00ff" }]);
    expect(vals.map((v) => decodeSqliteValue(encodeSqliteValue(v)))).toEqual(vals);
    expect(encodeSqliteValue(undefined)).toBeNull();
    expect(encodeSqliteValue(Infinity)).toEqual({ r: "Infinity" });
    expect(decodeSqliteValue({ r: "-Infinity" })).toBe(-Infinity);
    expect(decodeSqliteValue({ r: 0 })).toBe(0);
    expect(decodeSqliteValue({ i: "0" })).toBe(0n);
    expect(decodeSqliteValue({ b: "" })).toEqual(Buffer.alloc(0));
    expect(decodeSqliteValue("")).toBe("");
    expect(() => encodeSqliteValue(true)).toThrow(new StateError("a SQLite value of an unknown kind (boolean)"));
    expect(() => encodeSqliteValue({})).toThrow(StateError);
    for (const bad of [{}, 5, { x: 1 }]) expect(() => decodeSqliteValue(bad), JSON.stringify(bad)).toThrow(new StateError("a corrupted SQLite value in a restore point"));
    expect(sqliteRowText({ b: "x", a: 1n, z: 9n }, ["a", "b", "c"])).toBe('[{"i":"1"},"x",null]');
  });

  it("readTable, readRange, readKeys: canonical rows, row ids where SQLite has them, keys in key order", async () => {
    const { raw, db, cat } = sqlite();
    raw.exec("INSERT INTO p VALUES (1, 'x'), (2, 'y'), (3, 'x'); INSERT INTO w VALUES ('k1', 1.5), ('k2', NULL); INSERT INTO \"we\"\"ird\" VALUES ('a'), ('a');");
    const p = await cat.table(rel("p"));
    const all = await readTable(db, p);
    expect(all).toEqual({ rows: ['[{"i":"1"},"x"]', '[{"i":"2"},"y"]', '[{"i":"3"},"x"]'], rids: ["1", "2", "3"], keys: ['["x",{"i":"1"}]', '["y",{"i":"2"}]', '["x",{"i":"3"}]'] });
    // WITHOUT ROWID: no row id; a table without a key: its rowid, no keys.
    expect(await readTable(db, await cat.table(rel("w")))).toEqual({ rows: ['["k1",{"r":1.5}]', '["k2",null]'], rids: ["null", "null"], keys: ['["k1"]', '["k2"]'] });
    expect(await readTable(db, await cat.table(rel('we"ird')))).toEqual({ rows: ['["a"]', '["a"]'], rids: ["1", "2"], keys: ["", ""] });
    const q = await cat.table(rel("q"));
    raw.exec("INSERT INTO q VALUES (1), (5), (9)");
    expect(await readRange(db, q, "4")).toEqual({ rows: ['[{"i":"5"}]', '[{"i":"9"}]'], rids: ["", ""], keys: ['[{"i":"5"}]', '[{"i":"9"}]'] });
    expect(await readRange(db, q, "9")).toEqual({ rows: [], rids: [], keys: [] });
    expect(await readKeys(db, p, [])).toEqual({ rows: [], rids: [], keys: [] });
    // By the key of canonical rows (a changed non-key column is read as it is now; a gone key reads nothing).
    raw.exec("UPDATE p SET a = a WHERE a = 3");
    expect(await readKeys(db, p, ['[{"i":"3"},"x"]', '[{"i":"2"},"other"]', '[{"i":"7"},"x"]'])).toEqual({ rows: ['[{"i":"3"},"x"]'], rids: [""], keys: ['["x",{"i":"3"}]'] });
    expect(keyOf(p, '[{"i":"2"},"y"]')).toBe('["y",{"i":"2"}]');
  });

  it("fingerprintRows depends on the rows, not their order", () => {
    const f = fingerprintRows(["a", "b"]);
    expect(f).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprintRows(["b", "a"])).toBe(f);
    expect(fingerprintRows(["a", "b", "b"])).not.toBe(f);
    expect(fingerprintRows(["ab"])).not.toBe(fingerprintRows(["a", "b"]));
    expect(fingerprintRows([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(quoteIdent('a"b')).toBe('"a""b"');
  });
});
