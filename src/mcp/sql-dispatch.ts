// The SQL guard (polar-guard/sql) as the MCP gateway's dispatcher for a SQL server's raw query tools
// (docs/sql.md, "Through the MCP gateway"): the gateway opens the same database the server serves
// (`sqlite:PATH` with better-sqlite3, `postgres://…` with pg) to read what a statement touches, one SQL
// guard per client session judges each statement string, and an approved statement is journalled in the
// store for `polar undo`. Node only; loaded by `polar mcp --dispatch` alone.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { DispatcherTool, DispatchVerdict } from "./gateway.js";
import type { SqlAdapter, SqlDecision, SqlGuard, SqlPolicy } from "../sql/index.js";

/** What this file uses of polar-guard/sql (src/sql/index.ts), passed in by the caller so nothing here
 * loads the parser's wasm unless a SQL dispatcher is configured. */
export type SqlModule = Pick<typeof import("../sql/index.js"), "createSqlGuard" | "sqliteAdapter" | "postgresAdapter">;

export class SqlDispatchError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/** `TOOL=sql:ARG` or `TOOL=shell:ARG` (repeatable `--dispatch`): the tool whose argument ARG is an SQL
 * statement (judged by polar-guard/sql) or a shell command (polar-guard/shell). */
export function parseDispatch(spec: string): { tool: string; kind: "sql" | "shell"; argument: string } {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=([a-z]+):([A-Za-z_][A-Za-z0-9_-]*)$/.exec(spec);
  if (m === null) throw new SqlDispatchError("bad-option", `\`--dispatch\` takes TOOL=sql:ARGUMENT or TOOL=shell:ARGUMENT (e.g. query=sql:sql), got \`${spec}\``);
  if (m[2] !== "sql" && m[2] !== "shell") throw new SqlDispatchError("bad-option", `\`--dispatch ${spec}\`: the gateway judges \`sql\` and \`shell\` strings; \`${m[2]}\` is not a dispatcher it has`);
  return { tool: m[1], kind: m[2], argument: m[3] };
}

/** The database the server serves: `sqlite:PATH` (or a path ending .db/.sqlite/.sqlite3) or a PostgreSQL URL. */
export function parseDatabase(spec: string): { dialect: "sqlite"; path: string } | { dialect: "postgres"; url: string } {
  if (/^postgres(ql)?:\/\//.test(spec)) return { dialect: "postgres", url: spec };
  const path = spec.startsWith("sqlite:") ? spec.slice("sqlite:".length) : /\.(db|sqlite3?)$/i.test(spec) ? spec : null;
  if (path === null || path === "") throw new SqlDispatchError("bad-option", `\`--database\` takes sqlite:PATH or postgres://…, got \`${spec}\``);
  if (!existsSync(path)) throw new SqlDispatchError("bad-database", `the SQLite database \`${path}\` does not exist (the gateway judges statements on the server's own database file)`);
  return { dialect: "sqlite", path: resolve(path) };
}

/** The name a PostgreSQL URL's database goes by in the journal: its path, or `postgres` (the server's
 * default database) when the URL names none. */
export function postgresName(url: string): string {
  // The path after its leading `/` (a URL without a path has the empty one).
  return new URL(url).pathname.slice(1) || "postgres";
}

/** The verdict the gateway acts on, from the SQL guard's decision. */
export function verdictOf(d: SqlDecision): DispatchVerdict {
  return {
    action: d.action,
    reason: d.reason,
    message: d.message,
    meta: { tier: d.tier ?? null, restorePoint: d.restorePoint ?? null, execution: d.execution ?? null, session: d.session ?? null, dialect: d.dialect ?? null, calls: d.calls ?? [] },
    // The audit log's record wraps the core decision; a read-only approval (no core decision) keeps
    // what it was judged on (the statement's dialect).
    audit: { decisions: d.core ? [d.core] : [], ...(d.approved && d.core === null ? { readOnly: { dialect: d.dialect ?? null } } : {}) },
  };
}

/** Dispatcher tools judged by the SQL guard on one database connection shared by the sessions. */
export async function sqlDispatchers(sql: SqlModule, options: { tools: ReadonlyArray<{ tool: string; argument: string }>; database: string; store: string; policy?: SqlPolicy; bounds?: { maxRows?: number } }): Promise<Map<string, DispatcherTool>> {
  const where = parseDatabase(options.database);
  let adapter: SqlAdapter;
  let close: () => Promise<void>;
  if (where.dialect === "sqlite") {
    const { default: Database } = await driver("better-sqlite3", () => import("better-sqlite3"));
    const db = new Database(where.path, { fileMustExist: true });
    adapter = sql.sqliteAdapter(db);
    close = async () => void db.close();
  } else {
    const { default: pg } = await driver("pg", () => import("pg"));
    const client = new pg.Client({ connectionString: where.url });
    try {
      await client.connect();
    } catch (e) {
      throw new SqlDispatchError("bad-database", `cannot connect to the PostgreSQL database: ${e instanceof Error ? e.message : String(e)}`);
    }
    // Named by its database, so the journal's entries match this database in a later `polar undo`.
    adapter = sql.postgresAdapter(client, { name: postgresName(where.url) });
    close = async () => client.end();
  }
  let closed = false;
  const out = new Map<string, DispatcherTool>();
  // One SQL guard per client session, shared by that session's dispatcher tools (one journal).
  const perSession = new WeakMap<object, Promise<SqlGuard>>();
  for (const { tool, argument } of options.tools) {
    out.set(tool, {
      kind: "sql",
      argument,
      async create({ guard }) {
        let sg = perSession.get(guard);
        if (sg === undefined) {
          sg = sql.createSqlGuard({ db: adapter, store: options.store, policy: options.policy, ...(options.bounds ? { bounds: options.bounds } : {}) });
          perSession.set(guard, sg);
          sg.catch(() => perSession.delete(guard));
        }
        const g = await sg;
        const executions = new WeakMap<DispatchVerdict, string>();
        return {
          async judge(_call, text) {
            const d = await g.check(text);
            const v = verdictOf(d);
            if (d.execution) executions.set(v, d.execution);
            return v;
          },
          async observe(v) {
            const execution = executions.get(v);
            if (execution !== undefined) await g.observe(execution);
          },
        };
      },
      async close() {
        if (closed) return;
        closed = true;
        await close();
      },
    });
  }
  return out;
}

/** A database driver from the user's node_modules (never bundled): a clear error when it is not installed. */
export async function driver<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw new SqlDispatchError("missing-driver", `the database driver \`${name}\` is not installed (npm install ${name}): ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  }
}
