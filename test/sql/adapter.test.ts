// The database under the SQL guard (src/sql/adapter.ts): what sqliteAdapter and postgresAdapter do with
// a connection, stated in-process — on a real better-sqlite3 database, on PGlite, and on a recording
// client for the statements a node-postgres connection is sent (its transaction status, the probe when
// a driver reports none). The guard's verdicts on top are test/sql/guard-*.test.ts.
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { closePglite, pglite } from "./pglite.js";
import { postgresAdapter, sqliteAdapter, SqlAdapterError } from "../../src/sql/adapter.js";

afterAll(async () => {
  await closePglite();
});

function sqlite(): { raw: Database.Database; db: ReturnType<typeof sqliteAdapter> } {
  const raw = new Database(":memory:");
  raw.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b');");
  return { raw, db: sqliteAdapter(raw) };
}

const rows = (raw: Database.Database): unknown[] => raw.prepare("SELECT id, v FROM t ORDER BY id").all();

async function rejection(p: Promise<unknown>): Promise<{ name: string; code?: string; message: string }> {
  try {
    await p;
  } catch (e) {
    const x = e as SqlAdapterError;
    return { name: x.name, code: x.code, message: x.message };
  }
  throw new Error("expected a rejection");
}

describe("sqliteAdapter", () => {
  it("refuses anything that is not a better-sqlite3 Database", () => {
    for (const bad of [null, undefined, 1, {}, { prepare() {} }, { exec() {} }]) {
      let err: unknown;
      try {
        sqliteAdapter(bad as never);
      } catch (e) {
        err = e;
      }
      expect(err, String(bad)).toBeInstanceOf(SqlAdapterError);
      expect(err).toMatchObject({ name: "SqlAdapterError", code: "bad-db", message: "sqliteAdapter needs a better-sqlite3 Database" });
    }
  });

  it("reads only what SQLite calls read-only, integers as bigint, with parameters", async () => {
    const { raw, db } = sqlite();
    expect(db.dialect).toBe("sqlite");
    expect(await db.read("SELECT id, v FROM t WHERE id > ? ORDER BY id", [0])).toEqual([{ id: 1n, v: "a" }, { id: 2n, v: "b" }]);
    expect(await db.read("SELECT id FROM t WHERE v = ?", ["b"])).toEqual([{ id: 2n }]);
    // The same statement again (prepared once) gives the same rows.
    expect(await db.read("SELECT id FROM t WHERE v = ?", ["a"])).toEqual([{ id: 1n }]);
    for (const w of ["DELETE FROM t", "UPDATE t SET v = 'x'", "DELETE FROM t RETURNING id"]) {
      expect(await rejection(db.read(w)), w).toEqual({ name: "SqlAdapterError", code: "not-read-only", message: "a Layer B read that SQLite does not call read-only was refused" });
    }
    expect(rows(raw)).toEqual([{ id: 1, v: "a" }, { id: 2, v: "b" }]);
    // More distinct statements than the cache keeps: each is still read right.
    for (let i = 0; i < 300; i++) expect(await db.read(`SELECT ${i} AS n`)).toEqual([{ n: BigInt(i) }]);
    expect(await db.read("SELECT count(*) AS n FROM t")).toEqual([{ n: 2n }]);
  });

  it("readTransaction: one snapshot rolled back afterwards, or the caller's own open transaction left as it is", async () => {
    const { raw, db } = sqlite();
    expect(await db.inTransaction()).toBe(false);
    const got = await db.readTransaction(async () => {
      expect(await db.inTransaction()).toBe(true);
      raw.exec("DELETE FROM t WHERE id = 1");
      return db.read("SELECT count(*) AS n FROM t");
    });
    expect(got).toEqual([{ n: 1n }]);
    expect(await db.inTransaction()).toBe(false);
    expect(rows(raw)).toHaveLength(2);
    // A throw rolls back too, and is passed on.
    await expect(db.readTransaction(async () => {
      raw.exec("DELETE FROM t");
      throw new Error("boom");
    })).rejects.toThrow("boom");
    expect(rows(raw)).toHaveLength(2);
    expect(await db.inTransaction()).toBe(false);
    // A function that ends the transaction itself: nothing is left to roll back, and no error.
    expect(await db.readTransaction(async () => {
      raw.exec("COMMIT");
      return 7;
    })).toBe(7);
    // The caller's transaction: neither begun nor ended here.
    raw.exec("BEGIN");
    raw.exec("DELETE FROM t WHERE id = 2");
    expect(await db.readTransaction(async () => db.read("SELECT count(*) AS n FROM t"))).toEqual([{ n: 1n }]);
    expect(raw.inTransaction).toBe(true);
    raw.exec("ROLLBACK");
    expect(rows(raw)).toHaveLength(2);
  });

  it("run and writeTransaction: rows of a statement that returns them, a commit on return, a rollback on throw, nested ones independent", async () => {
    const { raw, db } = sqlite();
    expect(await db.writeTransaction(async () => {
      expect(await db.run("INSERT INTO t VALUES (?, ?)", [3, "c"])).toEqual([]);
      return db.run("DELETE FROM t WHERE id = ? RETURNING v", [1]);
    })).toEqual([{ v: "a" }]);
    expect(rows(raw)).toEqual([{ id: 2, v: "b" }, { id: 3, v: "c" }]);
    expect(raw.inTransaction).toBe(false);
    await expect(db.writeTransaction(async () => {
      await db.run("DELETE FROM t");
      throw new Error("undo failed");
    })).rejects.toThrow("undo failed");
    expect(rows(raw)).toEqual([{ id: 2, v: "b" }, { id: 3, v: "c" }]);
    expect(raw.inTransaction).toBe(false);
    // An inner one that throws takes back only its own writes; the outer one commits.
    await db.writeTransaction(async () => {
      await db.run("UPDATE t SET v = 'outer' WHERE id = 2");
      await expect(db.writeTransaction(async () => {
        await db.run("UPDATE t SET v = 'inner' WHERE id = 3");
        throw new Error("inner");
      })).rejects.toThrow("inner");
      await db.writeTransaction(async () => db.run("INSERT INTO t VALUES (4, 'd')"));
    });
    expect(rows(raw)).toEqual([{ id: 2, v: "outer" }, { id: 3, v: "c" }, { id: 4, v: "d" }]);
    // Inside the caller's transaction: its own changes stay the caller's to commit or roll back.
    raw.exec("BEGIN");
    await db.writeTransaction(async () => db.run("DELETE FROM t WHERE id = 4"));
    expect(raw.inTransaction).toBe(true);
    raw.exec("ROLLBACK");
    expect(rows(raw)).toHaveLength(3);
  });

  it("bytecode is SQLite's EXPLAIN, one instruction a line; describe names the file", async () => {
    const { raw, db } = sqlite();
    const code = await db.bytecode!("SELECT v FROM t WHERE id = 1");
    const explain = raw.prepare("EXPLAIN SELECT v FROM t WHERE id = 1").all() as Record<string, unknown>[];
    expect(code.split("\n")).toEqual(explain.map((r) => `${String(r.opcode)} ${String(r.p1)} ${String(r.p2)} ${String(r.p3)} ${String(r.p4)} ${String(r.p5)}`));
    expect(code).toMatch(/^Init 0 \d+ 0 null 0\n/);
    expect(await db.bytecode!("SELECT v FROM t WHERE id = 2")).not.toBe(code);
    expect(db.describe()).toBe("sqlite::memory:");
  });
});

/** A node-postgres-like client that records what it is sent. */
function recorder(opts: { status?: () => string | null; inTxn?: () => boolean; exec?: boolean; fail?: (sql: string) => boolean } = {}) {
  const sent: { via: string; sql: string; params?: unknown[] }[] = [];
  const client: Record<string, unknown> = {
    async query(sql: string, params?: unknown[]) {
      sent.push({ via: "query", sql, ...(params === undefined ? {} : { params }) });
      if (opts.fail?.(sql) === true) throw new Error(`refused: ${sql}`);
      return { rows: [{ sql }] };
    },
  };
  if (opts.exec === true) {
    client.exec = async (sql: string) => {
      sent.push({ via: "exec", sql });
      if (opts.fail?.(sql) === true) throw new Error(`refused: ${sql}`);
    };
  }
  if (opts.status !== undefined) client.getTransactionStatus = opts.status;
  if (opts.inTxn !== undefined) client.isInTransaction = opts.inTxn;
  return { client, sent };
}

describe("postgresAdapter", () => {
  it("refuses what is not one connection: no query function, or a pool", () => {
    const thrown = (bad: unknown): unknown => {
      try {
        postgresAdapter(bad as never);
      } catch (e) {
        return { error: e instanceof SqlAdapterError, name: (e as SqlAdapterError).name, code: (e as SqlAdapterError).code, message: (e as Error).message };
      }
      return null;
    };
    for (const bad of [null, undefined, 5, {}, { query: 1 }]) {
      expect(thrown(bad), String(bad)).toEqual({ error: true, name: "SqlAdapterError", code: "bad-db", message: "postgresAdapter needs a PGlite instance or a connected pg.Client" });
    }
    const pool = { query: async () => ({ rows: [] }), totalCount: 0, idleCount: 0 };
    expect(thrown(pool)).toEqual({ error: true, name: "SqlAdapterError", code: "bad-db", message: "postgresAdapter needs one connection (a pg.Client), not a Pool: the guard's reads and the undo must share it" });
    // Either count alone is not a pool.
    expect(postgresAdapter({ query: async () => ({ rows: [] }), totalCount: 0 } as never).dialect).toBe("postgres");
    expect(postgresAdapter({ query: async () => ({ rows: [] }), idleCount: 0 } as never).dialect).toBe("postgres");
  });

  it("read and run send the statement, with parameters only when there are some; describe names the database", async () => {
    const { client, sent } = recorder({ status: () => "I" });
    const db = postgresAdapter(client as never, { name: "shop" });
    expect(await db.read("SELECT 1")).toEqual([{ sql: "SELECT 1" }]);
    expect(await db.read("SELECT $1", [])).toEqual([{ sql: "SELECT $1" }]);
    expect(await db.run("DELETE FROM t WHERE id = $1", [3])).toEqual([{ sql: "DELETE FROM t WHERE id = $1" }]);
    expect(sent).toEqual([{ via: "query", sql: "SELECT 1" }, { via: "query", sql: "SELECT $1" }, { via: "query", sql: "DELETE FROM t WHERE id = $1", params: [3] }]);
    expect(db.describe()).toBe("postgres:shop");
    expect(postgresAdapter(client as never).describe()).toBe("postgres:database");
  });

  it("the transaction status: the driver's own word (PGlite's isInTransaction, node-postgres' status), else a SAVEPOINT probe", async () => {
    expect(await postgresAdapter(recorder({ inTxn: () => true }).client as never).inTransaction()).toBe(true);
    expect(await postgresAdapter(recorder({ inTxn: () => false, status: () => "T" }).client as never).inTransaction()).toBe(false);
    for (const [s, open] of [["I", false], ["T", true], ["E", true]] as const) {
      const r = recorder({ status: () => s });
      expect(await postgresAdapter(r.client as never).inTransaction(), s).toBe(open);
      expect(r.sent).toEqual([]);
    }
    // No status yet (null) or an unknown one: the probe. Outside a transaction SAVEPOINT fails.
    for (const status of [() => null, () => "?", undefined]) {
      const closed = recorder({ status, fail: (sql) => sql.startsWith("SAVEPOINT") });
      expect(await postgresAdapter(closed.client as never).inTransaction()).toBe(false);
      expect(closed.sent.map((x) => x.sql)).toEqual(["SAVEPOINT polar_probe"]);
      const open = recorder({ status, exec: true });
      expect(await postgresAdapter(open.client as never).inTransaction()).toBe(true);
      expect(open.sent).toEqual([{ via: "exec", sql: "SAVEPOINT polar_probe" }, { via: "exec", sql: "RELEASE SAVEPOINT polar_probe" }]);
    }
  });

  it("readTransaction: a READ ONLY transaction rolled back, or a savepoint inside the caller's; on a throw too", async () => {
    let r = recorder({ status: () => "I" });
    let db = postgresAdapter(r.client as never);
    expect(await db.readTransaction(async () => db.read("SELECT 2"))).toEqual([{ sql: "SELECT 2" }]);
    expect(r.sent.map((x) => x.sql)).toEqual(["BEGIN TRANSACTION READ ONLY", "SELECT 2", "ROLLBACK"]);
    r = recorder({ status: () => "I", exec: true });
    db = postgresAdapter(r.client as never);
    await expect(db.readTransaction(async () => {
      throw new Error("read failed");
    })).rejects.toThrow("read failed");
    expect(r.sent).toEqual([{ via: "exec", sql: "BEGIN TRANSACTION READ ONLY" }, { via: "exec", sql: "ROLLBACK" }]);
    r = recorder({ status: () => "T" });
    db = postgresAdapter(r.client as never);
    await expect(db.readTransaction(async () => {
      throw new Error("read failed");
    })).rejects.toThrow("read failed");
    expect(await db.readTransaction(async () => 1)).toBe(1);
    const sp = ["SAVEPOINT polar_read", "ROLLBACK TO SAVEPOINT polar_read; RELEASE SAVEPOINT polar_read"];
    expect(r.sent.map((x) => x.sql)).toEqual([...sp, ...sp]);
  });

  it("writeTransaction: BEGIN/COMMIT on its own, savepoints inside the caller's transaction or its own, ROLLBACK on a throw", async () => {
    let txn = false;
    const r = recorder({ status: () => (txn ? "T" : "I") });
    const db = postgresAdapter(r.client as never);
    expect(await db.writeTransaction(async () => {
      txn = true;
      await db.writeTransaction(async () => db.run("UPDATE a SET v = 1"));
      await expect(db.writeTransaction(async () => {
        throw new Error("inner");
      })).rejects.toThrow("inner");
      return "done";
    })).toBe("done");
    txn = false;
    await expect(db.writeTransaction(async () => {
      throw new Error("outer");
    })).rejects.toThrow("outer");
    // The caller's open transaction: a savepoint, never COMMIT.
    txn = true;
    await db.writeTransaction(async () => db.run("DELETE FROM a"));
    expect(r.sent.map((x) => x.sql)).toEqual([
      "BEGIN",
      "SAVEPOINT polar_undo_1", "UPDATE a SET v = 1", "RELEASE SAVEPOINT polar_undo_1",
      "SAVEPOINT polar_undo_1", "ROLLBACK TO SAVEPOINT polar_undo_1; RELEASE SAVEPOINT polar_undo_1",
      "COMMIT",
      "BEGIN", "ROLLBACK",
      "SAVEPOINT polar_undo_0", "DELETE FROM a", "RELEASE SAVEPOINT polar_undo_0",
    ]);
  });

  it("on PGlite: reads cannot write, a write transaction commits or rolls back, the caller's transaction is kept", async () => {
    const pg = await pglite();
    await pg.exec("DROP TABLE IF EXISTS adapter_t; CREATE TABLE adapter_t (id integer PRIMARY KEY, v text); INSERT INTO adapter_t VALUES (1, 'a');");
    const db = postgresAdapter(pg);
    const all = async () => (await pg.query("SELECT id, v FROM adapter_t ORDER BY id")).rows;
    await expect(db.readTransaction(async () => db.read("DELETE FROM adapter_t"))).rejects.toThrow(/read-only transaction/);
    expect(await all()).toEqual([{ id: 1, v: "a" }]);
    expect(await db.inTransaction()).toBe(false);
    await db.writeTransaction(async () => db.run("INSERT INTO adapter_t VALUES ($1, $2)", [2, "b"]));
    await expect(db.writeTransaction(async () => {
      await db.run("DELETE FROM adapter_t");
      throw new Error("undo failed");
    })).rejects.toThrow("undo failed");
    expect(await all()).toEqual([{ id: 1, v: "a" }, { id: 2, v: "b" }]);
    await pg.exec("BEGIN");
    try {
      expect(await db.inTransaction()).toBe(true);
      // A failing read inside the caller's transaction does not abort it.
      await expect(db.readTransaction(async () => db.read("SELECT * FROM adapter_missing"))).rejects.toThrow(/adapter_missing/);
      await db.writeTransaction(async () => db.run("DELETE FROM adapter_t WHERE id = 2"));
      expect(await all()).toEqual([{ id: 1, v: "a" }]);
      expect(await db.inTransaction()).toBe(true);
    } finally {
      await pg.exec("ROLLBACK");
    }
    expect(await all()).toEqual([{ id: 1, v: "a" }, { id: 2, v: "b" }]);
    await pg.exec("DROP TABLE adapter_t");
  });
});
