// The database under the SQL guard: one small interface over better-sqlite3, PGlite and node-postgres
// (the guard imports none of them; the caller passes its own connection). Reads of Layer B go through
// `read` (SQLite: refused unless SQLite says the statement is read-only; PostgreSQL: inside a READ ONLY
// transaction, or a savepoint when the caller's transaction is open); the undo writes go through `run`
// inside `transaction`.

export type SqlDialect = "sqlite" | "postgres";
export type Row = Record<string, unknown>;

export interface SqlAdapter {
  readonly dialect: SqlDialect;
  /** A read-only statement's rows. SQLite integers come back as bigint. */
  read(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs `fn` on one consistent read-only view of the database; never leaves a change behind. */
  readTransaction<T>(fn: () => Promise<T>): Promise<T>;
  /** A writing statement (the undo); returns the rows it returns, if any. */
  run(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs `fn` in a transaction that commits when it returns and rolls back when it throws. */
  writeTransaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Is a transaction open on this connection (the caller's)? */
  inTransaction(): Promise<boolean>;
  /** SQLite only: the bytecode of a statement (EXPLAIN), to check that SQLite reads it as the parser did. */
  bytecode?(sql: string): Promise<string>;
  /** Names the database for the journal (a file path, a database name); never a password. */
  describe(): string;
}

// ---------------------------------------------------------------------------------------------------
// better-sqlite3 (structural type: the guard does not import the driver).

interface SqliteStatement {
  readonly readonly: boolean;
  readonly reader: boolean;
  safeIntegers(on?: boolean): SqliteStatement;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): unknown;
}
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  readonly inTransaction: boolean;
  readonly name: string;
  readonly open: boolean;
}

export class SqlAdapterError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "SqlAdapterError";
    this.code = code;
  }
}

/** A better-sqlite3 `Database` as a SqlAdapter. */
export function sqliteAdapter(db: SqliteDatabase): SqlAdapter {
  if (db === null || typeof db !== "object" || typeof db.prepare !== "function" || typeof db.exec !== "function") {
    throw new SqlAdapterError("bad-db", "sqliteAdapter needs a better-sqlite3 Database");
  }
  const cache = new Map<string, SqliteStatement>();
  const prepare = (sql: string): SqliteStatement => {
    let s = cache.get(sql);
    if (s === undefined) {
      s = db.prepare(sql);
      if (s.reader) s.safeIntegers(true);
      if (cache.size > 256) cache.clear();
      cache.set(sql, s);
    }
    return s;
  };
  let depth = 0;
  return {
    dialect: "sqlite",
    async read(sql, params = []) {
      const s = prepare(sql);
      if (!s.readonly) throw new SqlAdapterError("not-read-only", "a Layer B read that SQLite does not call read-only was refused");
      return s.all(...params) as Row[];
    },
    async readTransaction(fn) {
      // A deferred transaction: one snapshot of the database for every read; rolled back (nothing to keep).
      if (db.inTransaction) return fn();
      db.exec("BEGIN");
      try {
        return await fn();
      } finally {
        if (db.inTransaction) db.exec("ROLLBACK");
      }
    },
    async run(sql, params = []) {
      const s = prepare(sql);
      if (s.reader) return s.all(...params) as Row[];
      s.run(...params);
      return [];
    },
    async writeTransaction(fn) {
      const sp = `polar_undo_${depth++}`;
      db.exec(`SAVEPOINT ${sp}`);
      try {
        const r = await fn();
        db.exec(`RELEASE ${sp}`);
        return r;
      } catch (e) {
        db.exec(`ROLLBACK TO ${sp}`);
        db.exec(`RELEASE ${sp}`);
        throw e;
      } finally {
        depth--;
      }
    },
    async inTransaction() {
      return db.inTransaction;
    },
    async bytecode(sql) {
      const rows = db.prepare(`EXPLAIN ${sql}`).all() as { opcode: string; p1: unknown; p2: unknown; p3: unknown; p4: unknown; p5: unknown }[];
      return rows.map((r) => `${r.opcode} ${String(r.p1)} ${String(r.p2)} ${String(r.p3)} ${String(r.p4)} ${String(r.p5)}`).join("\n");
    },
    describe() {
      return `sqlite:${db.name}`;
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// PostgreSQL: a PGlite instance or a connected node-postgres Client (not a Pool: one connection).

interface PgLike {
  query(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  exec?(sql: string): Promise<unknown>;
  /** PGlite: the backend's own IsTransactionBlock(). */
  isInTransaction?(): boolean;
  /** node-postgres: the status of the last ReadyForQuery message ("I" idle, "T" in a transaction,
   * "E" in a failed one; null before the first). */
  getTransactionStatus?(): string | null;
}

/** A PGlite instance or a connected `pg.Client` as a SqlAdapter. */
export function postgresAdapter(client: PgLike, options: { name?: string } = {}): SqlAdapter {
  if (client === null || typeof client !== "object" || typeof client.query !== "function") {
    throw new SqlAdapterError("bad-db", "postgresAdapter needs a PGlite instance or a connected pg.Client");
  }
  if ("totalCount" in (client as object) && "idleCount" in (client as object)) {
    throw new SqlAdapterError("bad-db", "postgresAdapter needs one connection (a pg.Client), not a Pool: the guard's reads and the undo must share it");
  }
  const q = async (sql: string, params?: readonly unknown[]): Promise<Row[]> => (await client.query(sql, params === undefined || params.length === 0 ? undefined : [...params])).rows;
  const plain = async (sql: string): Promise<void> => {
    if (typeof client.exec === "function") await client.exec(sql);
    else await client.query(sql);
  };
  let depth = 0;
  // Exact, documented: SAVEPOINT "can only be used in transaction blocks" (an error outside one,
  // which changes nothing); inside one it is released at once.
  // The driver's own word first (no round trip; PostgreSQL reports the transaction status in every
  // ReadyForQuery message, protocol-message-formats): PGlite's isInTransaction(), node-postgres'
  // getTransactionStatus(). The probe only when the driver has neither (or no status yet).
  const status = (): boolean | null => {
    if (typeof client.isInTransaction === "function") return client.isInTransaction() === true;
    if (typeof client.getTransactionStatus === "function") {
      const s = client.getTransactionStatus();
      if (s === "I") return false;
      if (s === "T" || s === "E") return true;
    }
    return null;
  };
  const open = async (): Promise<boolean> => {
    const known = status();
    if (known !== null) return known;
    try {
      await plain("SAVEPOINT polar_probe");
    } catch {
      return false;
    }
    await plain("RELEASE SAVEPOINT polar_probe");
    return true;
  };
  return {
    dialect: "postgres",
    read: q,
    async readTransaction(fn) {
      if (await open()) {
        // The caller's transaction: a savepoint, so a failing read does not abort it.
        await plain("SAVEPOINT polar_read");
        try {
          return await fn();
        } finally {
          await plain("ROLLBACK TO SAVEPOINT polar_read; RELEASE SAVEPOINT polar_read");
        }
      }
      await plain("BEGIN TRANSACTION READ ONLY");
      try {
        return await fn();
      } finally {
        await plain("ROLLBACK");
      }
    },
    run: q,
    async writeTransaction(fn) {
      const outer = depth === 0 && !(await open());
      const sp = `polar_undo_${depth++}`;
      await plain(outer ? "BEGIN" : `SAVEPOINT ${sp}`);
      try {
        const r = await fn();
        await plain(outer ? "COMMIT" : `RELEASE SAVEPOINT ${sp}`);
        return r;
      } catch (e) {
        await plain(outer ? "ROLLBACK" : `ROLLBACK TO SAVEPOINT ${sp}; RELEASE SAVEPOINT ${sp}`);
        throw e;
      } finally {
        depth--;
      }
    },
    inTransaction: open,
    describe() {
      return `postgres:${options.name ?? "database"}`;
    },
  };
}
