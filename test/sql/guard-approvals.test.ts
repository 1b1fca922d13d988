// What an approval of the SQL guard says and keeps, and what its bound refusals name: the message of an
// approval of several steps or tables, the table a refusal over the bound names when it is not the
// first of the string, a bound met exactly, a created table's undo refused once rows were written into
// it, and what the journal records of an advisory run (SQLite in memory).
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlGuard, sqliteAdapter, type SqlGuard, type SqlGuardOptions } from "../../src/sql/index.js";
import { SHOP_SCHEMA as SCHEMA } from "./shop-schema.js";


let store: string;
beforeAll(() => {
  store = mkdtempSync(join(tmpdir(), "polar-sql-approvals-"));
});
afterAll(() => {
  rmSync(store, { recursive: true, force: true });
});

function fresh(): { raw: Database.Database; guard(o?: Partial<SqlGuardOptions>): Promise<SqlGuard> } {
  const raw = new Database(":memory:");
  raw.pragma("foreign_keys = ON");
  raw.exec(SCHEMA);
  return { raw, guard: (o = {}) => createSqlGuard({ db: sqliteAdapter(raw), store, ...o }) };
}

describe("approvals", () => {
  it("the message lists every table kept and every step of the undo", async () => {
    const g = await fresh().guard();
    const d = await g.check("DELETE FROM orders WHERE id = 1; DELETE FROM orders WHERE id = 2");
    const id = d.restorePoint!.id;
    expect(d.message).toBe(`approved: restore point ${id} keeps 7 rows of main.orders, main.items; undo: insert again the rows restore point ${id} holds; insert again the rows restore point ${id} holds`);
    expect((await g.check("CREATE TABLE a (x INTEGER); CREATE TABLE b (x INTEGER)")).message).toBe("approved: undo is DROP TABLE main.b; DROP TABLE main.a");
  });

  it("a created table is dropped by the undo only while it is as the statement left it", async () => {
    const h = fresh();
    const g = await h.guard();
    const d = await g.check("CREATE TABLE a (x INTEGER); CREATE TABLE b (x INTEGER)");
    h.raw.exec("CREATE TABLE a (x INTEGER); CREATE TABLE b (x INTEGER)");
    await g.observe(d.execution!);
    expect(Object.keys(g.list()[0]!.after)).toEqual(["main.a", "main.b"]);
    h.raw.exec("INSERT INTO a VALUES (1)");
    expect(await g.undo()).toMatchObject({ ok: false, reason: "changed_since", message: expect.stringMatching(/the rows of main\.a .* have changed since/) });
    expect(h.raw.prepare("SELECT x FROM a").all()).toEqual([{ x: 1 }]);
  });

  it("advisory: the journal records the state of the relations the statement created", async () => {
    const h = fresh();
    const g = await h.guard({ policy: "advisory" });
    const d = await g.check("CREATE TABLE c (x INTEGER); DROP TABLE notes");
    expect(d).toMatchObject({ approved: true, route: "AdvisoryPassthrough", reason: "irreversible" });
    h.raw.exec("CREATE TABLE c (x INTEGER); DROP TABLE notes");
    await g.observe(d.execution!);
    expect(Object.keys(g.list()[0]!.after)).toEqual(["main.c"]);
    expect(g.list()[0]!.after["main.c"]).toMatch(/^created:/);
  });
});

describe("refusals over the bound", () => {
  it("name the table over the bound, wherever it is in the string", async () => {
    const h = fresh();
    expect((await (await h.guard({ bounds: { maxRows: 2 } })).check("DELETE FROM orders WHERE id = 7; DELETE FROM notes WHERE body IS NULL")).message).toBe(
      "not approved: DELETE would remove more than 2 rows of main.notes; that is over the restore bound (2 rows), so they were counted, not read, and no undo is possible",
    );
  });

  it("a table whose rows meet the bound exactly is named with its count when the string's rows together pass it", async () => {
    const h = fresh();
    expect(await (await h.guard({ bounds: { maxRows: 2 } })).check("DELETE FROM orders WHERE id IN (3, 7); UPDATE items SET sku = 'q' WHERE id = 1")).toMatchObject({
      approved: false, reason: "over_bound", message: "not approved: DELETE would remove 2 rows of main.orders; that is over the restore bound (2 rows), so they were counted, not read, and no undo is possible",
    });
  });

  it("with no table over the bound alone, the one with the most rows is named, never a relation the string creates (regression: the string's first table was named: 'it would change 0 rows of main.t5')", async () => {
    const h = fresh();
    const g = await h.guard({ bounds: { maxRows: 2 } });
    for (const q of ["CREATE TABLE t5 (x INTEGER); DELETE FROM orders WHERE id IN (3, 7); UPDATE items SET sku = 'q' WHERE id = 1", "UPDATE items SET sku = 'q' WHERE id = 1; DELETE FROM orders WHERE id IN (3, 7)"]) {
      expect((await g.check(q)).message, q).toBe("not approved: DELETE would remove 2 rows of main.orders; that is over the restore bound (2 rows), so they were counted, not read, and no undo is possible");
    }
  });

  it("escalate: a DROP beside a DELETE keeps no copy of the dropped table, so the string is asked", async () => {
    const h = fresh();
    const g = await h.guard({ policy: "escalate" });
    expect(await g.check("DELETE FROM orders WHERE id = 7; DROP TABLE notes")).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4", restorePoint: null });
    expect(await (await h.guard()).check("DELETE FROM orders WHERE id = 7; DROP TABLE notes")).toMatchObject({ approved: true, restorePoint: { tables: ["main.orders", "main.notes"], rows: 4 } });
  });
});
