// `polar undo` for SQL executions (polar-guard/sql): the same store as the shell's (`<store>/sql/`,
// written by `polar mcp --dispatch` and by createSqlGuard), its journal listed and undone. An undo opens
// the database the statement ran on (an SQLite file from the journal; PostgreSQL needs `--database URL`,
// the journal never holds a password) and is refused when its rows changed since (`changed_since`).
import { existsSync } from "node:fs";
import { CliError, usageError } from "../errors.js";

export interface SqlUndoFlags {
  session?: string;
  list?: boolean;
  id?: string;
  dryRun?: boolean;
  json?: boolean;
  database?: string;
}

/** Whether the store holds SQL journals. */
export function hasSqlJournals(store: string): boolean {
  return existsSync(`${store}/sql/sessions`);
}

async function journalOf(store: string, session: string | undefined) {
  const sql = await import("../../sql/undo.js");
  const s = new sql.SqlStore(store);
  const id = session ?? sql.latestSqlSession(store);
  if (id === null || !/^[A-Za-z0-9._-]{1,128}$/.test(id) || !existsSync(s.journalFile(id))) {
    throw new CliError("no-session", id === null ? `no SQL session in ${store}` : `no SQL session \`${id}\` in ${store}`);
  }
  let journal;
  try {
    journal = new sql.SqlJournal(s.journalFile(id));
  } catch (e) {
    throw new CliError("bad-journal", `the SQL journal of session ${id} is unreadable: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { sql, store: s, session: id, journal };
}

/** The SQL executions of a session, for `--list` (text lines, or the JSON value). */
export async function listSql(store: string, flags: SqlUndoFlags): Promise<{ session: string; executions: unknown[]; lines: string[] }> {
  const { session, journal } = await journalOf(store, flags.session);
  const list = journal.list();
  const lines: string[] = [];
  for (const e of [...list].reverse()) {
    lines.push(`${e.index}. ${e.id}${e.undone ? " (undone)" : ""} ${e.tier} sql ${e.database}: ${e.statement.replace(/\s+/g, " ")}`);
    for (const p of e.preview) lines.push(`     undo: ${p}`);
    if (e.restorePoint) lines.push(`     restore point ${e.restorePoint.id} (${e.restorePoint.rows} rows of ${e.restorePoint.tables.join(", ") || "no table"}, ${e.restorePoint.bytes} bytes)`);
  }
  if (list.length === 0) lines.push(`no approved SQL executions in session ${session}`);
  return { session, executions: list, lines };
}

/** Undoes one SQL execution (the last not undone, the N-th from the end, or `--id`). */
export async function undoSql(store: string, sel: undefined | number | { id: string }, flags: SqlUndoFlags): Promise<{ ok: boolean; text: string; json: unknown }> {
  const { sql, store: s, journal } = await journalOf(store, flags.session);
  const entry = journal.select(sel);
  if (entry === null) {
    const r = { ok: false, id: null, reason: sel === undefined ? "nothing_to_undo" : "not_found", message: sel === undefined ? "nothing to undo" : "no such SQL execution", steps: [] };
    return { ok: false, text: r.message, json: r };
  }
  const { adapter, close } = await openDatabase(entry.database, flags.database);
  try {
    const r = await sql.undoSqlEntry(journal, s, adapter, sel, flags.dryRun === true);
    const text = [r.message, ...r.steps.map((st) => `  ${r.reason === "undone" ? "ran" : "would run"}: ${st}`)].join("\n");
    return { ok: r.ok, text, json: r };
  } finally {
    await close();
  }
}

/** A connection to the database a journal entry ran on: `sqlite:<file>` reopened; `postgres:<name>` through `--database`. */
async function openDatabase(database: string, url: string | undefined) {
  const { sqliteAdapter, postgresAdapter } = await import("../../sql/adapter.js");
  if (database.startsWith("sqlite:")) {
    if (url !== undefined) throw usageError("bad-option", "`--database` is for PostgreSQL executions; an SQLite execution's file is in its journal");
    const file = database.slice("sqlite:".length);
    if (!existsSync(file)) throw new CliError("no-database", `the SQLite database ${file} the statement ran on is gone`);
    const { default: Database } = await driver("better-sqlite3", () => import("better-sqlite3"));
    const db = new Database(file, { fileMustExist: true });
    return { adapter: sqliteAdapter(db), close: async () => void db.close() };
  }
  if (database.startsWith("postgres:")) {
    if (url === undefined || !/^postgres(ql)?:\/\//.test(url)) throw usageError("missing-option", `this execution ran on PostgreSQL database \`${database.slice("postgres:".length)}\`: give \`--database postgres://…\` to connect to it`);
    const { default: pg } = await driver("pg", () => import("pg"));
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
    } catch (e) {
      throw new CliError("no-database", `cannot connect to ${new URL(url).host}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const name = new URL(url).pathname.replace(/^\//, "") || "postgres";
    return { adapter: postgresAdapter(client, { name }), close: () => client.end() };
  }
  throw new CliError("bad-journal", `unknown database \`${database}\` in the journal`);
}

/** A database driver from the user's node_modules (never bundled): a clear error when it is not installed. */
async function driver<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw new CliError("missing-driver", `the database driver \`${name}\` is not installed (npm install ${name}): ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  }
}
