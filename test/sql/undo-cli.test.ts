// `polar undo` lists and undoes SQL executions from the same store as the shell's (issue 25, item 3):
// statements approved by polar-guard/sql on an SQLite file (what `polar mcp --dispatch` journals) are
// listed beside the shell's, undone by N, --id or the last, previewed by --dry-run, and an undo whose
// rows changed since is refused (the newer rows kept). A PostgreSQL execution needs --database.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { PGlite } from "@electric-sql/pglite";
import { createSqlGuard, postgresAdapter, sqliteAdapter } from "../../src/sql/index.js";
import { createShellGuard } from "../../src/shell/index.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "polar-sql-undo-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function polar(...args: string[]): { code: number; out: string; err: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: root };
  delete env.POLAR_HOME;
  delete env.POLAR_SHELL_STORE;
  const r = spawnSync(process.execPath, ["--import", "tsx", join(REPO, "src", "cli", "index.ts"), ...args], { encoding: "utf8", cwd: REPO, env });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

function rows(file: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT * FROM orders ORDER BY id").all();
  } finally {
    db.close();
  }
}

/** Runs `stmt` through the SQL guard as a gateway would: judged, run for real, observed. */
async function approvedRun(sg: Awaited<ReturnType<typeof createSqlGuard>>, db: Database.Database, stmt: string): Promise<void> {
  const d = await sg.check(stmt);
  expect(d.approved, `${stmt}: ${d.message}`).toBe(true);
  db.exec(stmt);
  await sg.observe(d.execution!);
}

describe("polar undo: SQL executions", () => {
  it("lists them beside the shell's, --dry-run changes nothing, undoes the last, N and --id, refuses twice", async () => {
    const store = join(root, "store");
    const file = join(root, "app.db");
    const db = new Database(file);
    db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT, qty INTEGER); INSERT INTO orders VALUES (1, 'apple', 3), (2, 'pear', 1), (7, 'plum', 12)");
    const ws = mkdtempSync(join(root, "ws-"));
    // A shell session in the same store: both are listed.
    const shell = await createShellGuard({ cwd: ws, store, session: "sh1" });
    const call = { tool: "write_file", args: { path: join(ws, "a.txt"), content: "x" } };
    const sd = shell.check(call);
    expect(sd.approved).toBe(true);
    spawnSync("sh", ["-c", `printf x > ${join(ws, "a.txt")}`]);
    shell.observe(call, { exitCode: 0 }, { execution: sd.execution! });

    const sg = await createSqlGuard({ db: sqliteAdapter(db), store, session: "q1" });
    const s0 = rows(file);
    await approvedRun(sg, db, "DELETE FROM orders WHERE id = 7");
    const s1 = rows(file);
    await approvedRun(sg, db, "UPDATE orders SET qty = 0 WHERE id = 1");
    const s2 = rows(file);
    await approvedRun(sg, db, "INSERT INTO orders VALUES (9, 'fig', 2)");
    db.close();

    const list = polar("undo", "--store", store, "--list", "--cwd", ws);
    expect(list.code, list.err).toBe(0);
    expect(list.out).toContain("SQL (session q1):");
    expect(list.out).toMatch(/1\. q-\S+ T1 sql sqlite:.*app\.db: INSERT INTO orders VALUES \(9, 'fig', 2\)/);
    expect(list.out).toMatch(/3\. q-\S+ T1 sql .*DELETE FROM orders WHERE id = 7\n\s+undo: /);
    const json = JSON.parse(polar("undo", "--store", store, "--list", "--sql", "--json").out) as { sql: { session: string; executions: Array<{ id: string; statement: string }> } };
    expect(json.sql.session).toBe("q1");
    expect(json.sql.executions.map((e) => e.statement)).toEqual(["DELETE FROM orders WHERE id = 7", "UPDATE orders SET qty = 0 WHERE id = 1", "INSERT INTO orders VALUES (9, 'fig', 2)"]);

    const dry = polar("undo", "--store", store, "--sql", "--dry-run");
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain("would run:");
    expect(rows(file)).toHaveLength(3);

    const last = polar("undo", "--store", store, "--sql");
    expect(last.code, last.out + last.err).toBe(0);
    expect(rows(file)).toEqual(s2);
    // N = 2 is the UPDATE; then the DELETE by its id.
    expect(polar("undo", "2", "--store", store, "--sql").code).toBe(0);
    expect(rows(file)).toEqual(s1);
    const byId = polar("undo", "--store", store, "--id", json.sql.executions[0].id);
    expect(byId.code, byId.out + byId.err).toBe(0);
    expect(rows(file)).toEqual(s0);
    const again = polar("undo", "--store", store, "--id", json.sql.executions[0].id);
    expect(again.code).toBe(1);
    expect(again.out).toContain("was undone already");
  });

  it("an undo whose rows changed since is refused and the newer rows are kept", async () => {
    const store = join(root, "store2");
    const file = join(root, "app2.db");
    const db = new Database(file);
    db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT, qty INTEGER); INSERT INTO orders VALUES (1, 'apple', 3)");
    const sg = await createSqlGuard({ db: sqliteAdapter(db), store, session: "q2" });
    await approvedRun(sg, db, "UPDATE orders SET qty = 0 WHERE id = 1");
    db.exec("UPDATE orders SET qty = 99 WHERE id = 1");
    db.close();
    const r = polar("undo", "--store", store);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/changed/);
    expect(rows(file)).toEqual([{ id: 1, item: "apple", qty: 99 }]);
    expect(JSON.parse(polar("undo", "--store", store, "--json").out)).toMatchObject({ ok: false, reason: "changed_since" });
  });

  it("a PostgreSQL execution needs --database postgres://… (the journal holds no password); bad usage exits 2", async () => {
    const store = join(root, "store3");
    const pgl = await PGlite.create();
    try {
      await pgl.exec("CREATE TABLE orders (id int PRIMARY KEY, item text); INSERT INTO orders VALUES (1, 'a')");
      const sg = await createSqlGuard({ db: postgresAdapter(pgl, { name: "shop" }), store, session: "p1" });
      const d = await sg.check("DELETE FROM orders WHERE id = 1");
      expect(d.approved, d.message).toBe(true);
      await pgl.exec("DELETE FROM orders WHERE id = 1");
      await sg.observe(d.execution!);
    } finally {
      await pgl.close();
    }
    const r = polar("undo", "--store", store, "--sql");
    expect(r.code).toBe(2);
    expect(r.err).toContain("ran on PostgreSQL database `shop`: give `--database postgres://…`");
    expect(polar("undo", "--store", store, "--sql", "1", "--id", "q-x").code).toBe(2);
    expect(polar("undo", "--store", join(root, "nothing"), "--sql").code).toBe(1);
  });
});
