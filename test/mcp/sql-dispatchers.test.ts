// The SQL guard as the gateway's dispatcher (src/mcp/sql-dispatch.ts), in this process: the `--dispatch`
// and `--database` options, the verdict the gateway acts on, one SQL guard per client session on one
// shared connection (a scripted SQL module over a real SQLite file), and the errors for a database that
// is not there or a driver that is not installed. The gateway in front of a real SQLite MCP server:
// sql-gateway.test.ts and sql-dispatch.test.ts.
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Guard } from "../../src/guard/index.js";
import { driver, parseDatabase, parseDispatch, postgresName, SqlDispatchError, sqlDispatchers, verdictOf, type SqlModule } from "../../src/mcp/sql-dispatch.js";
import type { SqlDecision } from "../../src/sql/index.js";

const dir = mkdtempSync(join(tmpdir(), "sqldispatchers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FILE = join(dir, "shop.db");
new Database(FILE).exec("CREATE TABLE t (id INTEGER PRIMARY KEY)").close();

function error(f: () => unknown, code: string): SqlDispatchError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SqlDispatchError);
    expect((e as SqlDispatchError).code).toBe(code);
    return e as SqlDispatchError;
  }
  throw new Error("expected an error");
}

describe("the `--dispatch` option", () => {
  it("TOOL=sql:ARG or TOOL=shell:ARG", () => {
    expect(parseDispatch("query=sql:sql")).toEqual({ tool: "query", kind: "sql", argument: "sql" });
    expect(parseDispatch("_Run2=shell:command-line")).toEqual({ tool: "_Run2", kind: "shell", argument: "command-line" });
  });

  it("anything else is a usage error that says the form", () => {
    for (const spec of ["query", "query=sql", "query=sql:", "=sql:sql", "2q=sql:sql", "query=SQL:sql", "query=sql:-x", "x query=sql:sql", "query=sql:sql x", "q-1=sql:sql"]) {
      expect(error(() => parseDispatch(spec), "bad-option").message).toBe(`\`--dispatch\` takes TOOL=sql:ARGUMENT or TOOL=shell:ARGUMENT (e.g. query=sql:sql), got \`${spec}\``);
    }
    expect(error(() => parseDispatch("query=python:code"), "bad-option").message).toBe("`--dispatch query=python:code`: the gateway judges `sql` and `shell` strings; `python` is not a dispatcher it has");
  });
});

describe("the `--database` option", () => {
  it("a PostgreSQL URL as it is; its database's name for the journal (postgres when it names none)", () => {
    expect(parseDatabase("postgres://u@db:5432/shop")).toEqual({ dialect: "postgres", url: "postgres://u@db:5432/shop" });
    expect(parseDatabase("postgresql://db/shop")).toEqual({ dialect: "postgres", url: "postgresql://db/shop" });
    expect(postgresName("postgres://u@db:5432/shop")).toBe("shop");
    expect(postgresName("postgres://db/")).toBe("postgres");
    expect(postgresName("postgres://db")).toBe("postgres");
  });

  it("sqlite:PATH, or a path ending .db, .sqlite or .sqlite3 (any case), of a file that exists: its absolute path", () => {
    expect(parseDatabase(`sqlite:${FILE}`)).toEqual({ dialect: "sqlite", path: FILE });
    expect(parseDatabase(relative(process.cwd(), FILE))).toEqual({ dialect: "sqlite", path: FILE });
    for (const name of ["a.sqlite", "b.SQLITE3", "c.DB"]) {
      const p = join(dir, name);
      new Database(p).close();
      expect(parseDatabase(p)).toEqual({ dialect: "sqlite", path: p });
    }
  });

  it("anything else is a usage error; a SQLite file that is not there is said so", () => {
    for (const spec of ["sqlite:", "shop", "shop.txt", "mysql://db/shop", "x.dbx", "postgres:/db", ` postgres://db/x`]) {
      expect(error(() => parseDatabase(spec), "bad-option").message).toBe(`\`--database\` takes sqlite:PATH or postgres://…, got \`${spec}\``);
    }
    const gone = join(dir, "gone.db");
    expect(error(() => parseDatabase(gone), "bad-database").message).toBe(`the SQLite database \`${gone}\` does not exist (the gateway judges statements on the server's own database file)`);
    expect(error(() => parseDatabase(`sqlite:${gone}`), "bad-database").code).toBe("bad-database");
  });
});

describe("the SQL guard's verdict for the gateway", () => {
  const core = { seq: 1 };
  it("its action, reason and message; tier, restore point, execution, session, dialect and calls shown (null or none when absent); the core decision audited", () => {
    const d = { approved: true, action: "allow", reason: "ok", message: "approved", tier: "T2", restorePoint: { id: "rp" }, execution: "x1", session: "s", dialect: "sqlite", calls: [{ tool: "delete_rows" }], core } as unknown as SqlDecision;
    expect(verdictOf(d)).toEqual({ action: "allow", reason: "ok", message: "approved", meta: { tier: "T2", restorePoint: { id: "rp" }, execution: "x1", session: "s", dialect: "sqlite", calls: [{ tool: "delete_rows" }] }, audit: { decisions: [core] } });
    const bare = { approved: false, action: "deny", reason: "unparsable", message: "no", core: null } as unknown as SqlDecision;
    expect(verdictOf(bare)).toEqual({ action: "deny", reason: "unparsable", message: "no", meta: { tier: null, restorePoint: null, execution: null, session: null, dialect: null, calls: [] }, audit: { decisions: [] } });
  });

  it("a read-only approval (no core decision) audits the dialect it was judged in", () => {
    expect(verdictOf({ approved: true, action: "allow", reason: "read_only", message: "", dialect: "postgres", core: null } as unknown as SqlDecision).audit).toEqual({ decisions: [], readOnly: { dialect: "postgres" } });
    expect(verdictOf({ approved: true, action: "allow", reason: "read_only", message: "", core: null } as unknown as SqlDecision).audit).toEqual({ decisions: [], readOnly: { dialect: null } });
  });
});

function scripted(answers: Partial<SqlDecision>[]) {
  const made: Record<string, unknown>[] = [];
  const checks: string[] = [];
  const observed: string[] = [];
  const adapters: unknown[] = [];
  let failures = 0;
  const module = {
    sqliteAdapter: (db: unknown) => {
      adapters.push(db);
      return { dialect: "sqlite", db };
    },
    postgresAdapter: () => {
      throw new Error("not in this test");
    },
    createSqlGuard: async (options: Record<string, unknown>) => {
      made.push(options);
      if (failures > 0) {
        failures--;
        throw new Error("the store is not writable");
      }
      return {
        async check(text: string) {
          checks.push(text);
          return { core: null, ...answers.shift() };
        },
        async observe(execution: string) {
          observed.push(execution);
        },
      };
    },
  } as unknown as SqlModule;
  return { module, made, checks, observed, adapters, failNext: (n: number) => (failures = n) };
}

const session = (): { guard: Guard } => ({ guard: {} as Guard });

describe("dispatcher tools judged by the SQL guard", () => {
  it("one connection for all tools and sessions; one SQL guard per session with the store, policy and bounds given", async () => {
    const s = scripted([]);
    const tools = await sqlDispatchers(s.module, { tools: [{ tool: "query", argument: "sql" }, { tool: "execute_sql", argument: "statement" }], database: `sqlite:${FILE}`, store: "/store", policy: "advisory", bounds: { maxRows: 5 } });
    expect([...tools.values()].map((t) => [t.kind, t.argument])).toEqual([["sql", "sql"], ["sql", "statement"]]);
    const a = session();
    await tools.get("query")!.create(a);
    await tools.get("execute_sql")!.create(a);
    await tools.get("query")!.create(session());
    expect(s.adapters).toHaveLength(1);
    expect(s.made).toHaveLength(2);
    expect(s.made[0]).toEqual({ db: { dialect: "sqlite", db: s.adapters[0] }, store: "/store", policy: "advisory", bounds: { maxRows: 5 } });
    await tools.get("query")!.close!();
  });

  it("without bounds none are passed; a guard that could not be made refuses that call and the next one tries again", async () => {
    const s = scripted([{ action: "allow", execution: "x1" } as never]);
    const tool = (await sqlDispatchers(s.module, { tools: [{ tool: "query", argument: "sql" }], database: FILE, store: "/store" })).get("query")!;
    const a = session();
    s.failNext(1);
    await expect(tool.create(a)).rejects.toThrow("the store is not writable");
    const judge = await tool.create(a);
    expect(s.made).toHaveLength(2);
    expect(Object.keys(s.made[1])).toEqual(["db", "store", "policy"]);
    expect((await judge.judge({ name: "query", arguments: {} }, "DELETE FROM t")).action).toBe("allow");
    await tool.close!();
  });

  it("judges the statement; after it ran, journals its execution (a verdict without one, or from elsewhere, journals nothing)", async () => {
    const s = scripted([{ action: "allow", reason: "ok", execution: "x1" } as never, { action: "allow", reason: "read_only", execution: null } as never]);
    const tool = (await sqlDispatchers(s.module, { tools: [{ tool: "query", argument: "sql" }], database: FILE, store: "/store" })).get("query")!;
    const judge = await tool.create(session());
    const del = await judge.judge({ name: "query", arguments: {} }, "DELETE FROM t WHERE id = 1");
    const sel = await judge.judge({ name: "query", arguments: {} }, "SELECT * FROM t");
    expect(s.checks).toEqual(["DELETE FROM t WHERE id = 1", "SELECT * FROM t"]);
    await judge.observe!(del, "ran");
    await judge.observe!(sel, "ran");
    await judge.observe!(verdictOf({ execution: "x9", core: null } as unknown as SqlDecision), "ran");
    expect(s.observed).toEqual(["x1"]);
    await tool.close!();
  });

  it("closing closes the shared connection once, whichever tool closes it", async () => {
    const s = scripted([]);
    const tools = await sqlDispatchers(s.module, { tools: [{ tool: "query", argument: "sql" }, { tool: "execute_sql", argument: "sql" }], database: FILE, store: "/store" });
    const db = s.adapters[0] as Database.Database;
    expect(db.open).toBe(true);
    await tools.get("query")!.close!();
    expect(db.open).toBe(false);
    await expect(tools.get("execute_sql")!.close!()).resolves.toBeUndefined();
  });

  it("a PostgreSQL database that does not answer: bad-database, with the driver's reason", async () => {
    const s = scripted([]);
    await expect(sqlDispatchers(s.module, { tools: [{ tool: "query", argument: "sql" }], database: "postgres://127.0.0.1:1/shop", store: "/store" })).rejects.toMatchObject({
      code: "bad-database",
      message: expect.stringMatching(/^cannot connect to the PostgreSQL database: \S/u),
    });
  });
});

describe("a database driver the user has not installed", () => {
  it("missing-driver: how to install it, and the first line of why it did not load", async () => {
    await expect(driver("pg", () => Promise.reject(new Error("Cannot find package 'pg'\nRequire stack: …")))).rejects.toMatchObject({
      code: "missing-driver",
      message: "the database driver `pg` is not installed (npm install pg): Cannot find package 'pg'",
    });
    await expect(driver("pg", () => Promise.reject("no pg"))).rejects.toMatchObject({ message: "the database driver `pg` is not installed (npm install pg): no pg" });
    await expect(driver("pg", async () => 42)).resolves.toBe(42);
  });
});
