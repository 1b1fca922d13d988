// Layer B for SQL (src/sql/state.ts), stated in-process: the catalog facts Catalog.table reads for each
// kind of relation on SQLite (better-sqlite3) and PostgreSQL (one PGlite for the file), the foreign-key
// switch, and the rows of a scope (whole table, above a key, by keys) as canonical strings that go back
// exactly. The verdicts that stand on them are test/sql/guard-*.test.ts.
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { closePglite, pglite } from "./pglite.js";
import { postgresAdapter, sqliteAdapter, type SqlAdapter } from "../../src/sql/adapter.js";
import { Catalog, CatalogRetry, decodeSqliteValue, encodeSqliteValue, fingerprintRows, keyOf, quoteIdent, readKeys, readRange, readTable, sqliteRowText, StateError, type TableInfo } from "../../src/sql/state.js";

afterAll(async () => {
  await closePglite();
});

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

  it("an attached database by its name; an unknown schema and a name a temporary relation shadows are errors", async () => {
    const { raw, cat } = sqlite();
    raw.exec("ATTACH ':memory:' AS aux; CREATE TABLE aux.t (id INTEGER PRIMARY KEY); CREATE TEMP TABLE tmp (a); CREATE TABLE main.tmp (a);");
    expect(await cat.table(rel("t", "AUX"))).toMatchObject({ name: "aux.t", q: '"aux"."t"', kind: "table", pk: ["id"] });
    await expect(cat.table(rel("t", "nowhere"))).rejects.toThrow(new StateError("no attached database `nowhere`"));
    await expect(cat.table(rel("TMP"))).rejects.toThrow(new StateError("TMP is also a temporary relation: which one the statement means is not judged"));
    // Named with its schema, the main table is meant.
    expect(await cat.table(rel("tmp", "main"))).toMatchObject({ name: "main.tmp", kind: "table" });
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
    expect(keyOf("sqlite", p, '[{"i":"2"},"y"]')).toBe('["y",{"i":"2"}]');
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

describe("Catalog and rows on PostgreSQL (PGlite)", () => {
  it("kinds, columns, identity, the key, referencing foreign keys, triggers with their events, rules, sequences, inheritance", async () => {
    const pg = await pglite();
    await pg.exec(`DROP SCHEMA IF EXISTS st CASCADE; CREATE SCHEMA st; SET search_path = st;
      CREATE TABLE p (a integer, b text, gen integer GENERATED ALWAYS AS (a * 2) STORED, PRIMARY KEY (b, a));
      CREATE TABLE c1 (id serial PRIMARY KEY, pb text, pa integer, FOREIGN KEY (pb, pa) REFERENCES p (b, a) ON DELETE CASCADE ON UPDATE RESTRICT);
      CREATE TABLE c2 (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, pb text, pa integer, FOREIGN KEY (pb, pa) REFERENCES p ON DELETE SET NULL ON UPDATE SET DEFAULT);
      CREATE TABLE c3 (id bigint GENERATED BY DEFAULT AS IDENTITY, pb text, pa integer, FOREIGN KEY (pb, pa) REFERENCES p);
      CREATE FUNCTION tf() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE TRIGGER t1 AFTER INSERT OR DELETE ON p FOR EACH ROW EXECUTE FUNCTION tf();
      CREATE TRIGGER t2 AFTER UPDATE OR TRUNCATE ON p FOR EACH STATEMENT EXECUTE FUNCTION tf();
      CREATE RULE r1 AS ON UPDATE TO c1 DO ALSO NOTIFY x; CREATE RULE r2 AS ON INSERT TO c1 DO ALSO NOTIFY x; CREATE RULE r3 AS ON DELETE TO c1 DO ALSO NOTIFY x;
      CREATE TABLE parent (id integer); CREATE TABLE kid () INHERITS (parent);
      CREATE TABLE part (id integer) PARTITION BY RANGE (id);
      CREATE VIEW v AS SELECT * FROM p; CREATE INDEX pi ON p (gen); CREATE SEQUENCE sq;
      CREATE TABLE "we""ird" (v text);`);
    const cat = new Catalog(postgresAdapter(pg));
    try {
      expect(await cat.table(rel("p"))).toEqual(info({
        name: "st.p", q: '"st"."p"', columns: ["a", "b", "gen"], insertable: ["a", "b"], pk: ["b", "a"],
        children: [
          { table: "st.c1", q: '"st"."c1"', columns: ["pb", "pa"], parentColumns: ["b", "a"], onDelete: "cascade", onUpdate: "restrict" },
          { table: "st.c2", q: '"st"."c2"', columns: ["pb", "pa"], parentColumns: ["b", "a"], onDelete: "set_null", onUpdate: "set_default" },
          { table: "st.c3", q: '"st"."c3"', columns: ["pb", "pa"], parentColumns: ["b", "a"], onDelete: "no_action", onUpdate: "no_action" },
        ],
        triggers: expect.arrayContaining([{ name: "t1", events: ["insert", "delete"] }, { name: "t2", events: ["update", "truncate"] }]),
      }));
      expect((await cat.table(rel("p"))).triggers).toHaveLength(2);
      expect(await cat.table(rel("c1", "st"))).toEqual(info({
        name: "st.c1", q: '"st"."c1"', columns: ["id", "pb", "pa"], insertable: ["id", "pb", "pa"], pk: ["id"], sequence: true,
        triggers: expect.arrayContaining([{ name: "rule r1", events: ["update"] }, { name: "rule r2", events: ["insert"] }, { name: "rule r3", events: ["delete"] }]),
      }));
      expect(await cat.table(rel("c2"))).toMatchObject({ identityAlways: true, sequence: true, pk: ["id"] });
      expect(await cat.table(rel("c3"))).toMatchObject({ identityAlways: false, sequence: true, pk: null });
      expect(await cat.table(rel("parent"))).toMatchObject({ kind: "table", inherited: true });
      expect(await cat.table(rel("kid"))).toMatchObject({ kind: "table", inherited: false, columns: ["id"] });
      expect(await cat.table(rel("part"))).toMatchObject({ kind: "table", inherited: true });
      expect(await cat.table(rel("v"))).toMatchObject({ kind: "view", columns: ["a", "b", "gen"], pk: null, sequence: false });
      expect(await cat.table(rel("pi"))).toEqual(info({ name: "st.pi", q: '"st"."pi"', kind: "index" }));
      expect(await cat.table(rel("sq"))).toEqual(info({ name: "st.sq", q: '"st"."sq"', kind: "other" }));
      expect(await cat.table(rel('we"ird'))).toMatchObject({ name: 'st.we"ird', q: '"st"."we""ird"', kind: "table", columns: ["v"] });
      // Absent: named in the current schema, or in the schema written; a quote or backslash in a name is a name.
      expect(await cat.table(rel("nope"))).toEqual(info({ name: "st.nope", q: '"nope"', kind: "absent" }));
      expect(await cat.table(rel("nope", "other"))).toEqual(info({ name: "other.nope", q: '"other"."nope"', kind: "absent" }));
      expect(await cat.table(rel("it's\\x"))).toMatchObject({ name: "st.it's\\x", kind: "absent" });
      await expect(cat.table(rel("a\u0000b"))).rejects.toThrow(new StateError("a name with a NUL character"));
      expect(await cat.foreignKeysOn()).toBe(true);
      // A session that dropped the prepared catalog query: the read fails as a retry, and works again after.
      await pg.exec("DEALLOCATE ALL");
      cat.clear();
      await expect(cat.table(rel("p"))).rejects.toThrow(CatalogRetry);
      expect(await cat.table(rel("p"))).toMatchObject({ name: "st.p", kind: "table" });
    } finally {
      await pg.exec("RESET search_path");
    }
  });

  it("rows as the server prints them, with ctid and the key; above a key; by keys", async () => {
    const pg = await pglite();
    await pg.exec(`DROP SCHEMA IF EXISTS st2 CASCADE; CREATE SCHEMA st2;
      CREATE TABLE st2.k (a integer, b text, v numeric, PRIMARY KEY (a, b)); INSERT INTO st2.k VALUES (1, 'x', 1.50), (2, 'y', NULL);
      CREATE TABLE st2.s (id serial PRIMARY KEY, v text); INSERT INTO st2.s (v) VALUES ('a'), ('b'), ('c');
      CREATE TABLE st2.nokey (v text); INSERT INTO st2.nokey VALUES ('z');`);
    const db = postgresAdapter(pg);
    const cat = new Catalog(db);
    const k = await cat.table(rel("k", "st2"));
    expect(await readTable(db, k)).toEqual({ rows: ['{"a": 1, "b": "x", "v": 1.50}', '{"a": 2, "b": "y", "v": null}'], rids: ["(0,1)", "(0,2)"], keys: ['[1, "x"]', '[2, "y"]'] });
    expect(await readTable(db, await cat.table(rel("nokey", "st2")))).toEqual({ rows: ['{"v": "z"}'], rids: ["(0,1)"], keys: ["null"] });
    const s = await cat.table(rel("s", "st2"));
    expect(await readRange(db, s, "1")).toEqual({ rows: ['{"v": "b", "id": 2}', '{"v": "c", "id": 3}'], rids: ["(0,2)", "(0,3)"], keys: ["[2]", "[3]"] });
    expect(await readKeys(db, k, ['{"a": 2, "b": "y", "v": 7}', '{"a": 9, "b": "x", "v": null}'])).toEqual({ rows: ['{"a": 2, "b": "y", "v": null}'], rids: ["(0,2)"], keys: ['[2, "y"]'] });
    expect(await readKeys(db, k, [])).toEqual({ rows: [], rids: [], keys: [] });
    await pg.exec("DROP SCHEMA st2 CASCADE");
  });
});
