// Issue 25, end to end: the SQLite MCP server fixture's raw `query` tool configured as a dispatcher tool
// judged by the SQL guard (polar-guard/sql) on the server's own database file. DELETE/DROP are approved
// with a restore point (and undone from the journal, as `polar undo` does) or asked/refused naming what
// would be lost; a SELECT passes; an unparsable statement is refused. Every approved statement is run
// by the real server and its undo compared with the database before.
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import Database from "better-sqlite3";
import * as sql from "../../src/sql/index.js";
import { DECISION_META_KEY } from "../../src/mcp/gateway.js";
import { sqlDispatchers } from "../../src/mcp/sql-dispatch.js";
import { dump, seed, sqlGateway, textOf, type SqlHarness } from "./sqlite-fixture.js";
import { tempDir } from "./helpers.js";

const ONTOLOGY = "read_only(list_tables).\n";

let open: SqlHarness | null = null;
let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  await open?.close();
  open = null;
  for (const c of cleanup.splice(0)) await c();
});

async function sqlSetup(opts: { maxRows?: number; policy?: "veto" | "escalate"; elicit?: () => { action: "accept"; content: { approve: boolean } } } = {}) {
  const tmp = tempDir("sqlgw");
  const file = join(tmp.dir, "app.db");
  seed(file);
  const store = join(tmp.dir, "store");
  const dispatchers = await sqlDispatchers(sql, { tools: [{ tool: "query", argument: "sql" }, { tool: "execute_sql", argument: "sql" }], database: `sqlite:${file}`, store, policy: "snapshot", bounds: opts.maxRows ? { maxRows: opts.maxRows } : undefined });
  cleanup.push(async () => {
    for (const d of new Set(dispatchers.values())) await d.close?.();
    tmp.cleanup();
  });
  open = await sqlGateway({ ontology: ONTOLOGY, dispatchers, file, policy: opts.policy, elicit: opts.elicit });
  return { file, store };
}

/** Undoes the last journalled execution the way `polar undo` does (a fresh connection, the store). */
async function undoLast(file: string, store: string, dryRun = false): Promise<sql.SqlUndoResult> {
  const session = sql.latestSqlSession(store);
  expect(session).not.toBeNull();
  const s = new sql.SqlStore(store);
  const db = new Database(file);
  try {
    return await sql.undoSqlEntry(new sql.SqlJournal(s.journalFile(session!)), s, sql.sqliteAdapter(db), undefined, dryRun);
  } finally {
    db.close();
  }
}

describe("the gateway judges a SQL server's raw query tool with the SQL guard", () => {
  it("a SELECT passes with its rows; the verdict is in the result's _meta", async () => {
    await sqlSetup();
    const r = await open!.call("query", { sql: "SELECT item FROM orders WHERE qty > 2 ORDER BY id" });
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(textOf(r))).toEqual({ rows: [{ item: "apple" }, { item: "plum" }] });
    expect(r._meta?.[DECISION_META_KEY]).toMatchObject({ dispatcher: "sql", action: "allow", reason: "read_only", tier: "T0" });
  });

  it("DELETE … WHERE and DROP TABLE run with a restore point; undone from the journal, the database is as before", async () => {
    const { file, store } = await sqlSetup();
    const before = dump(file);
    const del = await open!.call("query", { sql: "DELETE FROM orders WHERE id = 7" });
    expect(del.isError, textOf(del)).toBeFalsy();
    const m = del._meta?.[DECISION_META_KEY] as Record<string, unknown>;
    expect(m).toMatchObject({ action: "allow", reason: "restore_point", tier: "T1" });
    expect(m.restorePoint).toMatchObject({ tables: ["main.orders"], rows: 1 });
    expect(dump(file).orders).toHaveLength(2);
    const drop = await open!.call("execute_sql", { sql: "DROP TABLE notes" });
    expect(drop.isError, textOf(drop)).toBeFalsy();
    expect(drop._meta?.[DECISION_META_KEY]).toMatchObject({ action: "allow", restorePoint: { tables: ["main.notes"], rows: 2 } });
    expect(dump(file).notes).toBeUndefined();
    // `polar undo` twice: the DROP, then the DELETE.
    expect(await undoLast(file, store)).toMatchObject({ ok: true, reason: "undone" });
    expect(await undoLast(file, store)).toMatchObject({ ok: true, reason: "undone" });
    expect(dump(file)).toEqual(before);
  });

  it("an undo whose rows changed since is refused", async () => {
    const { file, store } = await sqlSetup();
    expect((await open!.call("query", { sql: "UPDATE orders SET qty = 0 WHERE id = 1" })).isError).toBeFalsy();
    // Someone else changes the same row afterwards.
    const db = new Database(file);
    db.prepare("UPDATE orders SET qty = 99 WHERE id = 1").run();
    db.close();
    const r = await undoLast(file, store);
    expect(r).toMatchObject({ ok: false, reason: "changed_since" });
    expect(dump(file).orders).toContainEqual({ id: 1, item: "apple", qty: 99 });
  });

  it("over the bound: DELETE without WHERE and DROP are refused, naming the table and the rows that would be lost", async () => {
    const { file } = await sqlSetup({ maxRows: 2 });
    const before = dump(file);
    for (const [stmt, what] of [["DELETE FROM orders", "DELETE would remove more than 2 rows of main.orders"], ["DROP TABLE orders", "DROP would remove more than 2 rows of main.orders"]]) {
      const r = await open!.call("query", { sql: stmt });
      expect(r.isError, stmt).toBe(true);
      expect(textOf(r)).toContain(what);
      expect(r._meta?.[DECISION_META_KEY]).toMatchObject({ action: "ask", reason: "over_bound" });
    }
    expect(dump(file)).toEqual(before);
  });

  it("an unparsable statement is refused, never forwarded", async () => {
    const { file } = await sqlSetup();
    const before = dump(file);
    for (const stmt of ["DELETE FROM orders WHERE", "SELEC * FROM orders", "DROP TABLE notes; DELETE FROM orders WHERE"]) {
      const r = await open!.call("query", { sql: stmt });
      expect(r.isError, stmt).toBe(true);
      expect(textOf(r), stmt).toMatch(/^Not run: `query` was stopped by the POLAR guard/);
      expect((r._meta?.[DECISION_META_KEY] as { reason: string }).reason, stmt).toBe("unparsed");
    }
    expect(dump(file)).toEqual(before);
  });

  it("asked under --policy escalate: the user's yes runs it (judged again first; no undo is promised)", async () => {
    const { file } = await sqlSetup({ maxRows: 2, policy: "escalate", elicit: () => ({ action: "accept", content: { approve: true } }) });
    const r = await open!.call("query", { sql: "DELETE FROM orders" });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(r._meta?.[DECISION_META_KEY]).toMatchObject({ action: "ask", reason: "over_bound", consented: true });
    expect(dump(file).orders).toEqual([]);
  });
});

describe("polar mcp --dispatch (the CLI, a real stdio gateway process)", () => {
  it("judges `query` with the SQL guard: SELECT passes, DROP runs under a restore point, garbage is refused; bad flags are usage errors", async () => {
    const { gateway, ROOT } = await import("./helpers.js");
    const { SQLITE_SERVER } = await import("./sqlite-fixture.js");
    const { writeFileSync } = await import("node:fs");
    const { spawnSync } = await import("node:child_process");
    const tmp = tempDir("sqlcli");
    cleanup.push(() => tmp.cleanup());
    const file = join(tmp.dir, "app.db");
    seed(file);
    const ontology = join(tmp.dir, "sql.polar");
    writeFileSync(ontology, ONTOLOGY);
    const rules = join(tmp.dir, "rules.json");
    writeFileSync(rules, JSON.stringify({ format: "polar-projection/1", domain: "sqlite", entities: {} }));
    const store = join(tmp.dir, "store");
    const g = await gateway({ ontology, rules, server: [process.execPath, SQLITE_SERVER, file], extraArgs: ["--dispatch", "query=sql:sql", "--database", `sqlite:${file}`, "--store", store] });
    try {
      expect((await g.call("query", { sql: "SELECT count(*) AS n FROM orders" })).isError).toBeFalsy();
      const drop = await g.call("query", { sql: "DROP TABLE notes" });
      expect(drop.isError, textOf(drop)).toBeFalsy();
      expect(drop._meta?.[DECISION_META_KEY]).toMatchObject({ reason: "restore_point" });
      const bad = await g.call("query", { sql: "DROP TABLE" });
      expect(bad.isError).toBe(true);
      expect(sql.latestSqlSession(store)).not.toBeNull();
    } finally {
      await g.close();
    }
    const cli = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", ontology, "--rules", rules, ...args, "--", process.execPath, SQLITE_SERVER, file], { encoding: "utf8", cwd: ROOT, input: "" });
    const noDb = cli(["--dispatch", "query=sql:sql"]);
    expect(noDb.status).toBe(2);
    expect(noDb.stderr).toContain("`--dispatch TOOL=sql:ARG` needs `--database");
    const bogus = cli(["--dispatch", "query=bogus:sql", "--database", `sqlite:${file}`]);
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toContain("`bogus` is not a dispatcher it has");
    const noWs = cli(["--dispatch", "run=shell:command"]);
    expect(noWs.status).toBe(2);
    expect(noWs.stderr).toContain("needs `--workspace DIR`");
    const missing = cli(["--dispatch", "query=sql:sql", "--database", `sqlite:${join(tmp.dir, "nope.db")}`]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("does not exist");
  }, 120_000);
});
