// createSqlGuard: SQL statements judged by the ordinary guard (src/guard) over the SQL ontology
// (ontologies/sql/sql.polar) on the database they meet. check(): parse (libpg-query) → for SQLite,
// SQLite's own bytecode of the statement must equal that of the parser's reading → Layer B for exactly
// the tables the calls touch (read-only, bounded) → the core's verdict → when only rows are lost and
// they fit the bound, a restore point of them and a second verdict. observe(): the statement ran: the
// journal gets the fingerprint of what it left. undo(): judged on the current rows, then run.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createGuard, type AuditSink, type Guard } from "../guard/guard.js";
import type { Decision } from "../guard/decision.js";
import { coreReason, inverseOf, tierOf, tierRank } from "../guard/dispatched.js";
import type { StateView, TierName } from "../core/types.js";
import type { SqlAdapter, SqlDialect } from "./adapter.js";
import { dispatchSql, loadSqlParser, SqlParserMissing, targetSelect, type Problem, type SqlCall } from "./parse.js";
import { Catalog, CatalogRetry, fingerprintRows, quoteIdent, readRange, readTable, sqliteRowText, StateError, type FkAction, type TableInfo } from "./state.js";
import { describeSqlStep, newPointId, scopeFingerprint, SQL_RESTORE_FORMAT, SqlJournal, SqlStore, summary, undoSqlEntry, type PointTable, type SqlInverseStep, type SqlRestorePoint, type SqlRestoreSummary, type SqlUndoEntry, type SqlUndoResult, type SqlUndoSelector } from "./undo.js";

export type SqlPolicy = "snapshot" | "escalate" | "veto" | "advisory";
export type SqlAction = "allow" | "ask" | "deny";
export const SQL_DECISION_FORMAT = "polar-sql-decision/1";
export type SqlGuardErrorCode = "bad-option" | "bad-store" | "bad-db" | "bad-ontology" | "no-parser";

export class SqlGuardError extends Error {
  readonly code: SqlGuardErrorCode;
  constructor(code: SqlGuardErrorCode, message: string) {
    super(message);
    this.name = "SqlGuardError";
    this.code = code;
  }
}

export interface SqlBounds {
  /** Rows a restore point may hold (all tables together); over it the statement is asked. */
  maxRows: number;
}
export const DEFAULT_SQL_BOUNDS: SqlBounds = { maxRows: 10_000 };

export interface SqlGuardOptions {
  db: SqlAdapter;
  store: string;
  session?: string;
  policy?: SqlPolicy;
  bounds?: Partial<SqlBounds>;
  log?: AuditSink;
}

export interface SqlTypedCall {
  name: string;
  arguments: Record<string, unknown>;
  source: string;
}

export interface SqlDecision {
  format: typeof SQL_DECISION_FORMAT;
  seq: number;
  approved: boolean;
  action: SqlAction;
  route: "Approved" | "Vetoed" | "ConsentEscalated" | "AdvisoryPassthrough";
  reason: string;
  message: string;
  tier: "T0" | TierName | null;
  restorePoint: SqlRestoreSummary | null;
  execution: string | null;
  calls: SqlTypedCall[];
  problems: Problem[];
  inverse: SqlInverseStep[];
  core: Decision | null;
  session: string;
  dialect: SqlDialect;
}

export interface SqlGuard {
  readonly session: string;
  readonly policy: SqlPolicy;
  readonly dialect: SqlDialect;
  /** Never rejects: any failure is a refusal with a reason. */
  check(statement: unknown): Promise<SqlDecision>;
  /** The approved statement ran: journal its undo. */
  observe(execution: string): Promise<{ journaled: string | null }>;
  list(): SqlUndoEntry[];
  undo(sel?: SqlUndoSelector, options?: { dryRun?: boolean }): Promise<SqlUndoResult>;
}

const HERE = new URL(".", import.meta.url);
function asset(rel: string): string {
  for (const base of ["../../ontologies/sql/", "../ontologies/sql/", "./ontologies/sql/"]) {
    const p = new URL(base + rel, HERE).pathname;
    if (existsSync(p)) return p;
  }
  throw new SqlGuardError("bad-ontology", `ontologies/sql/${rel} is not beside the module`);
}

let blob: Uint8Array | null = null;
const POLICIES: readonly SqlPolicy[] = ["snapshot", "escalate", "veto", "advisory"];
const OPTION_KEYS = ["db", "store", "session", "policy", "bounds", "log"];
const ADAPTER_KEYS = ["dialect", "read", "readTransaction", "run", "writeTransaction", "inTransaction", "describe"];

export async function createSqlGuard(options: SqlGuardOptions): Promise<SqlGuard> {
  if (options === null || typeof options !== "object") throw new SqlGuardError("bad-option", "createSqlGuard needs { db, store }");
  for (const k of Object.keys(options)) if (!OPTION_KEYS.includes(k)) throw new SqlGuardError("bad-option", `unknown option \`${k}\` (the options are ${OPTION_KEYS.join(", ")})`);
  const db = options.db;
  if (db === null || typeof db !== "object" || ADAPTER_KEYS.some((k) => !(k in db))) throw new SqlGuardError("bad-db", "`db` is not a SqlAdapter (use sqliteAdapter(database) or postgresAdapter(client))");
  if (db.dialect !== "sqlite" && db.dialect !== "postgres") throw new SqlGuardError("bad-db", `unknown dialect \`${String(db.dialect)}\``);
  if (db.dialect === "sqlite" && typeof db.bytecode !== "function") throw new SqlGuardError("bad-db", "a SQLite adapter needs bytecode() (EXPLAIN), to check that SQLite reads a statement as the parser did");
  if (typeof options.store !== "string" || options.store === "") throw new SqlGuardError("bad-store", "`store` is not a path");
  const policy = options.policy === undefined ? "snapshot" : options.policy; // null is a wrong shape, not the default
  if (!POLICIES.includes(policy)) throw new SqlGuardError("bad-option", `unknown policy \`${String(policy)}\` (${POLICIES.join(", ")})`);
  const session = options.session === undefined ? randomBytes(6).toString("hex") : options.session;
  if (typeof session !== "string" || !/^[A-Za-z0-9._-]{1,128}$/.test(session)) throw new SqlGuardError("bad-option", "`session` must be 1–128 characters of [A-Za-z0-9._-]");
  const bounds: SqlBounds = { ...DEFAULT_SQL_BOUNDS, ...boundsOf(options.bounds) };
  if (!(Number.isInteger(bounds.maxRows) && bounds.maxRows >= 0)) throw new SqlGuardError("bad-option", "bounds.maxRows must be a non-negative integer");
  const store = new SqlStore(resolve(options.store));
  try {
    store.open();
  } catch (e) {
    throw new SqlGuardError("bad-store", (e as Error).message);
  }
  try {
    await loadSqlParser();
  } catch (e) {
    throw new SqlGuardError("no-parser", (e as Error).message);
  }
  if (blob === null) blob = new Uint8Array(readFileSync(asset("sql.blob")));
  return new SqlGuardImpl(db, store, session, policy, bounds, blob, options.log);
}

/** One table the statement changes, with what the guard read of it. */
interface Touched {
  info: TableInfo;
  calls: SqlCall[];
  /** Rows the statement changes (bounded: maxRows + 1 means "more"). */
  rows: number;
  scope: "keys" | "table" | "range" | "dropped" | "created" | "none";
  /** scope "range": the rows whose key is above this (an INSERT's new keys). */
  above?: string;
  triggers: string[];
  /** scope "keys" (PostgreSQL): the pre-image, read with the count in the same statement. */
  pre?: { rows: string[]; keys: string[] };
  /** Children whose rows foreign-key actions would change. */
  cascade: TableInfo[];
}

interface Pending {
  statement: string;
  calls: SqlTypedCall[];
  decision: SqlDecision;
  point: SqlRestorePoint;
}

/** SQLite's names of the rowid (lang_createtable.html "ROWID"). */
const ROWID_NAMES = new Set(["rowid", "oid", "_rowid_"]);
const ROW_LOSSES = new Set(["row_data", "table_data", "cascaded_rows"]);

class SqlGuardImpl implements SqlGuard {
  private readonly core: Guard;
  private readonly entities = new Map<string, Record<string, unknown>>();
  private readonly catalog: Catalog;
  private readonly journal: SqlJournal;
  private readonly pending = new Map<string, Pending>();
  /** SQLite: the statements (by index) whose program deletes rows (the check's bytecode). */
  private readonly deletes = new Set<number>();
  private seq = 0;
  /** The end of the call before (see `inTurn`). */
  private turn: Promise<unknown> = Promise.resolve();
  readonly dialect: SqlDialect;

  constructor(
    private readonly db: SqlAdapter,
    private readonly store: SqlStore,
    readonly session: string,
    readonly policy: SqlPolicy,
    private readonly bounds: SqlBounds,
    ontology: Uint8Array,
    log: AuditSink | undefined,
  ) {
    this.dialect = db.dialect;
    this.catalog = new Catalog(db);
    const view: StateView = {
      hasEntity: (e, id) => this.entities.has(`${e}\u0000${id}`),
      slot: (e, id, s) => this.entities.get(`${e}\u0000${id}`)?.[s],
    };
    this.core = createGuard({ ontology, state: view, policy: "veto", scope: "turn", config: log === undefined ? {} : { log } });
    this.journal = new SqlJournal(store.journalFile(session));
  }

  private statementOf(input: unknown): string | { error: string } {
    if (typeof input === "string") return input;
    const c = input as { tool?: unknown; args?: unknown; name?: unknown; arguments?: unknown } | null;
    if (c === null || typeof c !== "object") return { error: "a statement is a string or a tool call { tool, args: { sql } }" };
    const args = c.args ?? c.arguments;
    if (args === null || typeof args !== "object" || Array.isArray(args)) return { error: "a tool call's args must be an object" };
    const a = args as Record<string, unknown>;
    const keys = ["sql", "query", "statement"].filter((k) => a[k] !== undefined);
    if (keys.length !== 1) return { error: "the tool call must carry exactly one of `sql`, `query`, `statement`" };
    const s = a[keys[0]!];
    if (typeof s !== "string") return { error: `\`${keys[0]!}\` is not a string` };
    if ("params" in a || "parameters" in a || "bindings" in a) return { error: "bound parameters are not judged (the statement's rows depend on them)" };
    return s;
  }

  private refusal(base: Base, reason: string, message: string, extra: Partial<SqlDecision> = {}): SqlDecision {
    const action: SqlAction = this.policy === "veto" || reason === "malformed_call" ? "deny" : "ask";
    return this.finish({ ...base, approved: false, action, reason, message, tier: null, restorePoint: null, execution: null, inverse: [], core: null, ...extra }, null);
  }

  /** One call at a time, in the order they came: a check's Layer B facts (the core's state view, the
   * statements whose program deletes rows) are the guard's own, and its read transaction, the caller's
   * transaction it reads and an undo's writes share one connection. (Regression: a SELECT checked while
   * an INSERT was being judged cleared the INSERT's REPLACE finding, and the INSERT was approved.) */
  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.turn.then(fn);
    this.turn = run.catch(() => undefined);
    return run;
  }

  check(input: unknown): Promise<SqlDecision> {
    return this.inTurn(() => this.checkOnce(input));
  }

  private async checkOnce(input: unknown): Promise<SqlDecision> {
    this.seq++;
    const base: Base = { format: SQL_DECISION_FORMAT, seq: this.seq, calls: [], problems: [], session: this.session, dialect: this.dialect };
    try {
      return await this.checkInner(input, base);
    } catch (e) {
      const reason = e instanceof StateError ? "unknown_state" : e instanceof SqlParserMissing ? "unparsed" : "internal_error";
      return this.refusal(base, reason, `not judged (${reason}): ${(e as Error).message}`);
    }
  }

  private async checkInner(input: unknown, base: Base): Promise<SqlDecision> {
    const statement = this.statementOf(input);
    if (typeof statement !== "string") return this.refusal(base, "malformed_call", `not judged (malformed_call): ${statement.error}`);
    const d = dispatchSql(statement, this.dialect);
    base.problems = d.problems;
    this.deletes.clear();
    // BEGIN opens the caller's transaction and changes no row (docs/sql.md: read-only, T0); the parser
    // makes it a call so that a read-only tool refuses it. (Regression: its call has no table, and every
    // string holding a BEGIN was an internal_error.) The transaction it opens is read before each check.
    d.calls = d.calls.filter((c) => c.name !== "sql_begin");
    base.calls = d.calls.map((c) => ({ name: c.name, arguments: c.arguments, source: c.source }));
    if (d.problems.length > 0) {
      const p = d.problems[0]!;
      return this.refusal(base, p.reason, `not judged (${p.reason}): ${p.detail}`);
    }
    if (this.dialect === "sqlite") {
      // SQLite's own reading: the bytecode of the statement as written and as the parser read it.
      for (const s of d.statements) {
        // CREATE: only the new relation's name matters to the verdict and the undo (SQLite keeps the
        // text of the definition, so the bytecode of a reprinted CREATE always differs): SQLite must
        // accept it as written.
        const create = d.calls.some((c) => c.statement === s.index && c.name === "sql_create");
        if (create) {
          try {
            await this.db.bytecode!(s.text);
          } catch (e) {
            return this.refusal(base, "unparsed", `not judged (unparsed): SQLite rejects statement ${s.index + 1}: ${(e as Error).message}`);
          }
          continue;
        }
        if (s.printed === null) return this.refusal(base, "unparsed", `not judged (unparsed): the parser's reading of statement ${s.index + 1} cannot be printed`);
        let a: string;
        let b: string;
        try {
          a = await this.db.bytecode!(s.text);
        } catch (e) {
          return this.refusal(base, "unparsed", `not judged (unparsed): SQLite rejects statement ${s.index + 1}: ${(e as Error).message}`);
        }
        try {
          b = await this.db.bytecode!(s.printed);
        } catch (e) {
          return this.refusal(base, "unparsed", `not judged (unparsed): SQLite reads statement ${s.index + 1} differently from PostgreSQL's parser (${(e as Error).message})`);
        }
        if (a !== b) return this.refusal(base, "unparsed", `not judged (unparsed): SQLite reads statement ${s.index + 1} differently from PostgreSQL's parser`);
        if (/^Delete /m.test(a)) this.deletes.add(s.index);
      }
    }
    if (d.calls.length === 0) {
      return this.finish({ ...base, approved: true, action: "allow", reason: "read_only", message: "read-only: nothing to undo", tier: "T0", restorePoint: null, execution: null, inverse: [], core: null }, null);
    }
    this.catalog.clear();
    // Before the read-only transaction the guard opens: is the caller's own transaction open?
    const inTxn = await this.db.inTransaction();
    try {
      return await this.db.readTransaction(() => this.judge(statement, d.calls, base, inTxn));
    } catch (e) {
      if (!(e instanceof CatalogRetry)) throw e;
      this.catalog.clear();
      return this.db.readTransaction(() => this.judge(statement, d.calls, base, inTxn));
    }
  }

  /** Does a statement's column list name any of `cols`? PostgreSQL: exactly (the parser has folded
   * unquoted names; quoted ones are other columns). SQLite matches names without regard to case, and its
   * rowid, oid and _rowid_ name the rowid (lang_createtable.html "ROWID"): each counts as naming any key
   * column (a rowid alias is the key; naming it sets or changes the key). */
  private names(list: readonly string[], cols: readonly string[]): boolean {
    if (this.dialect === "postgres") return list.some((x) => cols.includes(x));
    const want = new Set(cols.map((x) => x.toLowerCase()));
    return list.some((x) => want.has(x.toLowerCase()) || ROWID_NAMES.has(x.toLowerCase()));
  }

  /** Layer B, the verdict, the restore point. Runs inside the read-only transaction. */
  private async judge(statement: string, calls: SqlCall[], base: Base, inTxn: boolean): Promise<SqlDecision> {
    const touched = new Map<string, Touched>();
    const max = this.bounds.maxRows;
    for (const c of calls) {
      const info = await this.catalog.table(c.rel!);
      c.arguments.table = info.name;
      const t = touched.get(info.name);
      if (t !== undefined) {
        // Two calls on one table: their undo depends on their order, so the whole table is kept (every
        // narrower scope below needs a single call); a DROP among them is judged first (its restore point
        // holds the table as it was before the string).
        // A CREATE of a relation that exists (IF NOT EXISTS) changes nothing: the table's other calls are
        // judged first (regression: `CREATE TABLE IF NOT EXISTS t …; DELETE FROM t` was judged as the
        // CREATE, no row was read, and the DELETE was approved as changing nothing).
        if (c.name === "sql_drop" || (t.calls[0]!.name === "sql_create" && info.kind !== "absent")) t.calls.unshift(c);
        else t.calls.push(c);
        continue;
      }
      touched.set(info.name, { info, calls: [c], rows: 0, scope: "none", triggers: [], cascade: [] });
    }
    base.calls = calls.map((c) => ({ name: c.name, arguments: c.arguments, source: c.source }));
    this.entities.clear();
    const fkOn = await this.catalog.foreignKeysOn();
    for (const t of touched.values()) {
      const c = t.calls[0]!;
      // Every slot is set (an absent slot is unknown to the core, which then assumes the worst).
      const slots: Record<string, unknown> = { exists: t.info.kind !== "absent", in_txn: inTxn, triggers: t.info.triggers.length > 0, cascades: false, sequence: false, rows: 0 };
      // Any trigger or rule: the undo's own statements (INSERT for a DELETE, DELETE for an INSERT,
      // UPDATE) would fire it too, so its event does not matter.
      t.triggers = t.info.triggers.map((x) => x.name);
      const dml = c.name === "sql_insert" || c.name === "sql_update" || c.name === "sql_delete" || c.name === "sql_truncate";
      if (dml || c.name === "sql_drop" || c.name === "sql_alter") {
        if (t.info.kind === "absent" && !(c.name === "sql_drop" && c.arguments.ifExists === true)) {
          return this.refusal(base, "unknown_state", `not judged (unknown_state): ${t.info.name} does not exist (the statement would fail)`);
        }
      }
      if (dml) {
        if (t.info.kind !== "table") return this.refusal(base, "unknown_effect", `not judged (unknown_effect): ${t.info.name} is a ${t.info.kind}; what writing through it does is not read`);
        if (t.info.inherited) return this.refusal(base, "unknown_effect", `not judged (unknown_effect): ${t.info.name} has inheritance children or partitions; the statement reaches tables the guard does not read`);
        if (t.info.columns.includes("__polar_rid")) return this.refusal(base, "unknown_state", `not judged: ${t.info.name} has a column named __polar_rid`);
        // SQLite lets a PRIMARY KEY column of a rowid table hold NULL (lang_createtable.html: "a
        // long-standing coding oversight"), and NULLs repeat: a key with a NULL names no single row, so
        // rows kept, compared or set back by key would be other rows.
        if (this.dialect === "sqlite" && t.info.pk !== null && (await this.count(`SELECT 1 FROM ${t.info.q} WHERE ${t.info.pk.map((k) => `${quoteIdent(k)} IS NULL`).join(" OR ")} LIMIT 1`)) > 0) {
          return this.refusal(base, "unknown_state", `not judged (unknown_state): rows of ${t.info.name} have NULL in their primary key (SQLite allows it), so the key names no single row`);
        }
        // Each call on the table is read for what it does beyond its own rows (several calls keep the
        // whole table, but each has its own RESTART IDENTITY, conflict clause and foreign-key actions).
        for (const x of t.calls) {
          // TRUNCATE … RESTART IDENTITY resets the sequences the table's columns own (with CASCADE, those
          // of every table it empties): no restore point holds a sequence's value.
          if (x.name === "sql_truncate" && x.arguments.restart === true && (t.info.sequence || (x.arguments.cascade === true && t.info.children.length > 0))) {
            return this.refusal(base, "irreversible", `not approved: TRUNCATE … RESTART IDENTITY resets the sequences of ${t.info.name}${x.arguments.cascade === true ? " and of the tables its CASCADE empties" : ""}, and no restore point holds a sequence's value`);
          }
          // SQLite: a program that deletes rows for an INSERT, or for an UPDATE that leaves the key alone,
          // carries a REPLACE conflict clause of the table's definition (lang_conflict.html): it deletes
          // rows other than the statement's own, and the undo's own writes would be resolved the same way.
          if (this.deletes.has(x.statement) && (x.name === "sql_insert" || (x.name === "sql_update" && !this.names(x.plan?.columns ?? [], t.info.pk ?? [])))) {
            return this.refusal(base, "unknown_effect", `not judged (unknown_effect): statement ${x.statement + 1} may delete other rows of ${t.info.name} (a REPLACE conflict clause), and an undo's own writes would be replaced the same way`);
          }
        }
        // Rows the statement changes, bounded: never more than maxRows + 1 are counted.
        const plan = c.plan;
        // A statement after another of the string whose rows depend on other tables (a FROM, USING, WITH
        // or subquery): the rows it matches are read now, before the earlier ones ran (`UPDATE s …; DELETE
        // FROM t WHERE id IN (SELECT n FROM s)`), so they may not be its rows: its scope is the whole table,
        // and so is its count. (An earlier write to its own table makes two calls: the whole table too.)
        const afterWrite = plan !== undefined && calls.some((x) => x.statement < c.statement) && (plan.from.length > 0 || plan.with !== undefined || holds(plan.where, "SubLink"));
        const keyed = !afterWrite && t.info.pk !== null && plan !== undefined && plan.readable && (c.name === "sql_delete" || (c.name === "sql_update" && !this.names(plan.columns ?? [], t.info.pk)));
        const range = c.name === "sql_insert" && t.calls.length === 1 && plan !== undefined ? await this.insertRange(t.info, plan) : null;
        if (keyed && t.calls.length === 1 && this.dialect === "postgres") {
          // One round trip (each costs PGlite ~0.5 ms): the bounded count, and the pre-image only when
          // the count is within the bound (a one-time filter: over it no row is read), on one snapshot.
          t.scope = "keys";
          const got = await this.countAndRead(t.info, targetSelect(plan!, this.dialect, "rid"), max);
          t.rows = got.n;
          if (got.pre !== null) t.pre = got.pre;
        } else if (keyed && t.calls.length === 1) {
          t.scope = "keys";
          t.rows = await this.count(`SELECT 1 FROM (${targetSelect(plan!, this.dialect, null)}) AS s LIMIT ${max + 1}`);
        } else if (range !== null) {
          // New keys come above `range` (below): the scope is the rows above it, normally none.
          t.scope = "range";
          t.above = range;
          t.rows = await this.count(`SELECT 1 FROM ${t.info.q} WHERE ${quoteIdent(t.info.pk![0]!)} > ${this.dialect === "sqlite" ? "?" : "$1"} LIMIT ${max + 1}`, [this.dialect === "sqlite" ? BigInt(range) : range]);
        } else {
          t.scope = "table";
          const all = await this.count(`SELECT 1 FROM ${t.info.q} LIMIT ${max + 1}`);
          t.rows = c.name === "sql_insert" ? all : plan !== undefined && plan.readable && c.name !== "sql_truncate" && t.calls.length === 1 && !afterWrite ? await this.count(`SELECT 1 FROM (${targetSelect(plan, this.dialect, null)}) AS s LIMIT ${max + 1}`) : all;
          // The restore point of a whole table holds all of it: over the bound, it is not taken.
          if (all > max) t.rows = Math.max(t.rows, max + 1);
        }
        slots.rows = t.rows;
        slots.sequence = t.calls.some((x) => x.name === "sql_insert") && t.info.sequence;
        // Foreign-key actions on the children (SQLite: only with PRAGMA foreign_keys on).
        // TRUNCATE … CASCADE empties every referencing table, whatever it references (sql-truncate).
        // INSERT … ON CONFLICT DO UPDATE updates the rows it conflicts with: any ON UPDATE action may run
        // (the columns it sets are not read).
        // Every call's actions (regression: with two calls on a table only the first was read, so
        // `INSERT …; DELETE …` lost the DELETE's cascaded child rows and the undo said undone).
        const reached = new Set<string>();
        for (const x of t.calls) {
          const upsert = x.name === "sql_insert" && x.plan?.conflict === "update";
          if (!(fkOn && (x.name === "sql_delete" || x.name === "sql_update" || x.name === "sql_truncate" || upsert) && (t.rows > 0 || x.name === "sql_truncate" || t.calls.length > 1))) continue;
          for (const ch of t.info.children) {
            if (reached.has(ch.table)) continue;
            const acts = x.name === "sql_truncate" ? x.arguments.cascade === true : x.name === "sql_delete" ? ch.onDelete !== "no_action" && ch.onDelete !== "restrict" : ch.onUpdate !== "no_action" && ch.onUpdate !== "restrict" && (upsert || this.names(x.plan?.columns ?? [], ch.parentColumns));
            if (!acts) continue;
            // Children that reference the matched rows (by the statement's own SELECT when it has one).
            const hit = x.name !== "sql_truncate" && t.scope === "keys" && x.plan !== undefined && ch.parentColumns.every((y) => y !== "")
              ? `SELECT 1 FROM ${ch.q} AS c WHERE (${ch.columns.map((y) => `c.${quoteIdent(y)}`).join(", ")}) IN (SELECT ${ch.parentColumns.map((y) => `s.${quoteIdent(y)}`).join(", ")} FROM (${targetSelect(x.plan, this.dialect, null)}) AS s) LIMIT 1`
              : `SELECT 1 FROM ${ch.q} LIMIT 1`;
            if ((await this.count(hit)) === 0) continue;
            reached.add(ch.table);
            t.cascade.push(await this.catalog.table(splitName(ch.table)));
          }
        }
        slots.cascades = t.cascade.length > 0;
      } else if (c.name === "sql_drop") {
        if (t.info.kind !== "absent" && t.info.kind !== c.arguments.kind) return this.refusal(base, "unknown_state", `not judged: ${t.info.name} is a ${t.info.kind}, not a ${String(c.arguments.kind)}`);
        t.scope = "dropped";
        if (t.info.kind === "table") {
          t.rows = await this.count(`SELECT 1 FROM ${t.info.q} LIMIT ${max + 1}`);
          const children = t.info.children.filter((ch) => ch.table !== t.info.name);
          if (this.dialect === "postgres" ? c.arguments.cascade === true && t.info.children.length > 0 : fkOn && children.length > 0) {
            for (const ch of children) if ((await this.count(`SELECT 1 FROM ${ch.q} LIMIT 1`)) > 0) t.cascade.push(await this.catalog.table(splitName(ch.table)));
          }
        }
        slots.rows = t.rows;
        slots.cascades = t.cascade.length > 0 || (this.dialect === "postgres" && c.arguments.cascade === true);
      } else if (c.name === "sql_create") {
        // Only a relation the string creates is dropped by the undo (regression: the CREATE IF NOT EXISTS
        // of an existing table was kept as created, and the undo of a string holding it dropped the table).
        if (t.info.kind === "absent") t.scope = "created";
      }
      this.entities.set(`sql_table\u0000${t.info.name}`, slots);
    }
    let d = this.coreCheck(calls);
    let point: SqlRestorePoint | null = null;
    if (!d.admissible && this.restorable(d)) {
      const over = [...touched.values()].filter((t) => t.rows > max);
      const total = [...touched.values()].reduce((n, t) => n + (t.scope === "created" ? 0 : t.rows), 0);
      if (over.length > 0 || total > max) {
        const t = over[0] ?? [...touched.values()].reduce((a, b) => (b.rows > a.rows ? b : a)); // the most rows, never a created one
        return this.refusal(base, "over_bound", `not approved: ${verb(t)} ${t.rows > max ? `more than ${max}` : t.rows} rows of ${t.info.name}; that is over the restore bound (${max} rows), so they were counted, not read, and no undo is possible`, { core: d, tier: tierOf(d) });
      }
      // A table copy of a DROP or a TRUNCATE is kept under snapshot only, wherever the TRUNCATE stands in
      // the string (regression: under escalate `DELETE …; TRUNCATE t CASCADE` was approved with a copy
      // of t and its children, which `TRUNCATE t CASCADE` alone is asked for).
      const wholeCopy = [...touched.values()].some((t) => t.scope === "dropped" || t.calls.some((x) => x.name === "sql_truncate"));
      if (!wholeCopy || this.policy === "snapshot") {
        const taken = await this.takePoint([...touched.values()]);
        if (typeof taken === "string") return this.refusal(base, "over_bound", taken, { core: d, tier: tierOf(d) });
        if (taken !== null) {
          point = taken;
          for (const t of touched.values()) {
            if (t.scope === "created") continue;
            const slots = this.entities.get(`sql_table\u0000${t.info.name}`)!;
            slots.restore_point = point.id;
          }
          d = this.coreCheck(calls);
        }
      }
    }
    const inverse = inverseOf(d);
    if (d.admissible) {
      if (point === null) point = this.emptyPoint([...touched.values()]);
      const rowsKept = point.tables.some((t) => t.scope !== "created");
      const saved = this.store.save(point);
      const execution = `${this.session}:${base.seq}`;
      const decision = this.finish(
        {
          ...base, approved: true, action: "allow", reason: rowsKept ? "restore_point" : "reversible",
          message: rowsKept ? `approved: restore point ${point.id} keeps ${saved.rows} rows of ${saved.tables.join(", ")}; undo: ${inverse.map(describeSqlStep).join("; ")}` : `approved: undo is ${inverse.map(describeSqlStep).join("; ")}`,
          tier: tierOf(d), restorePoint: rowsKept ? saved : null, execution, inverse, core: d,
        },
        null,
      );
      this.pending.set(execution, { statement, calls: base.calls, decision, point });
      return decision;
    }
    const reason = coreReason(d);
    const advisory = this.policy === "advisory" && d.reason !== "missing_entity" && d.reason !== "internal_error";
    const message = this.refusalText(reason, d, [...touched.values()]);
    if (advisory) {
      const p = this.emptyPoint([...touched.values()]);
      this.store.save(p);
      const execution = `${this.session}:${base.seq}`;
      const decision = this.finish({ ...base, approved: true, action: "allow", reason, message, tier: tierOf(d), restorePoint: null, execution, inverse: [], core: d }, null);
      this.pending.set(execution, { statement, calls: base.calls, decision, point: p });
      return decision;
    }
    return this.finish({ ...base, approved: false, action: this.policy === "veto" ? "deny" : "ask", reason, message, tier: tierOf(d), restorePoint: null, execution: null, inverse, core: d }, null);
  }

  /** PostgreSQL: the rows `sel` (a targetSelect with __polar_rid) matches, counted up to max + 1, and
   * their pre-image when there are at most max of them. */
  private async countAndRead(info: TableInfo, sel: string, max: number): Promise<{ n: number; pre: { rows: string[]; keys: string[] } | null }> {
    // A keys scope: the table has a key (judge's `keyed`).
    const k = `jsonb_build_array(${info.pk!.map((c) => `s.${quoteIdent(c)}`).join(", ")})::text`;
    const r = await this.db.read(
      // The count's CTE name is visible inside `sel` and hides a table of that name written without its
      // schema (a table named `c` made every keyed statement on it an internal_error): a __polar_ name.
      `WITH __polar_n AS MATERIALIZED (SELECT count(*) AS n FROM (SELECT 1 FROM (${sel}) AS s LIMIT ${max + 1}) AS b)
       SELECT (SELECT n FROM __polar_n) AS n, NULL::text AS rid, NULL::text AS r, NULL::text AS k
       UNION ALL SELECT NULL, s.__polar_rid::text, (to_jsonb(s) - '__polar_rid')::text, ${k} FROM (${sel}) AS s WHERE (SELECT n FROM __polar_n) <= ${max}`,
    );
    const counted = r.filter((x) => x.n !== null && x.n !== undefined);
    const n = countOf(counted.length === 1 ? counted[0]!.n : undefined, "the bounded count returned no number");
    if (n > max) return { n, pre: null };
    return { n, pre: pgPreImage(r.filter((x) => x.rid !== null && x.rid !== undefined)) };
  }

  private async count(sql: string, params?: unknown[]): Promise<number> {
    const r = await this.db.read(`SELECT count(*) AS n FROM (${sql}) AS c`, params);
    return countOf(r.length === 1 ? r[0]!.n : undefined, "a count returned no number");
  }

  /** An INSERT that leaves a single integer key to the database (SQLite's rowid alias, PostgreSQL's
   * serial or identity) and does not touch existing rows (no ON CONFLICT): every new key is above the
   * returned bound. SQLite (autoinc.html): a new rowid is one more than the largest (AUTOINCREMENT: the
   * largest ever), unless the largest is the maximum integer. PostgreSQL (functions-sequence): nextval
   * of an ascending sequence returns more than its last value, so the bound is the smaller of the
   * largest key and the sequence's last value, when the key's default is that sequence's nextval (or an
   * identity). Null: not such an INSERT. */
  private async insertRange(info: TableInfo, plan: NonNullable<SqlCall["plan"]>): Promise<string | null> {
    if (info.pk === null || info.pk.length !== 1 || plan.conflict !== null || plan.columns === null) return null;
    const pk = info.pk[0]!;
    if (this.names(plan.columns, [pk])) return null;
    if (this.dialect === "sqlite") {
      // A rowid alias: the key column is declared exactly INTEGER (SQLite lang_createtable.html "ROWID").
      // Every other single-column key keeps the key in an index of its own (pragma index_list origin
      // "pk"): a key of any other declared type (INT, BIGINT, TEXT, none), INTEGER PRIMARY KEY DESC as a
      // column constraint, and a WITHOUT ROWID table. Such a key is no rowid alias, and a new row's key is
      // not above the largest rowid (DESC: it is NULL unless given).
      if ((await this.db.read(`SELECT 1 FROM pragma_index_list(?, ?) WHERE origin = 'pk'`, [info.name.slice(info.name.indexOf(".") + 1), info.name.slice(0, info.name.indexOf("."))])).length > 0) return null;
      const r = await this.db.read(`SELECT max(rowid) AS m FROM ${info.q}`);
      const m = r[0]!.m; // an aggregate's one row
      if (m === null) return "0";
      if (BigInt(m as bigint) >= 9223372036854775807n) return null;
      return String(m);
    }
    const r = await this.db.read(
      `SELECT s.last_value::text AS last, s.start_value::text AS start, s.increment_by::text AS inc, s.cycle, (SELECT max(t.${quoteIdent(pk)})::text FROM ${info.q} AS t) AS mx,
              (SELECT format_type(a.atttypid, NULL) FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attname = $2) AS type,
              (SELECT a.attidentity <> '' OR pg_get_expr(d.adbin, d.adrelid) = format('nextval(%L::regclass)', to_regclass(pg_get_serial_sequence($1, $2))::text)
                 FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = to_regclass($1) AND a.attname = $2) AS own
       FROM pg_sequences s WHERE to_regclass(format('%I.%I', s.schemaname, s.sequencename)) = to_regclass(pg_get_serial_sequence($1, $2))`,
      [info.q, pk],
    );
    const x = r[0];
    // The key must come from that sequence: an identity column, or a default that is exactly its nextval
    // (a serial whose default was changed, to a constant or another sequence, still owns its sequence).
    if (x === undefined || x.own !== true || x.cycle === true || !["integer", "bigint", "smallint"].includes(String(x.type)) || BigInt(String(x.inc)) <= 0n) return null;
    const seq = x.last === null ? BigInt(String(x.start)) - 1n : BigInt(String(x.last));
    const bound = x.mx === null ? seq : BigInt(String(x.mx)) < seq ? BigInt(String(x.mx)) : seq;
    return bound.toString();
  }

  /** The only losses are rows a restore point can keep (no trigger, no schema change). */
  private restorable(d: Decision): boolean {
    const v = d.verdict;
    if (v === null) return false; // the core's verdictless answers (missing_entity among them)
    const failing = v.steps.filter((s) => s.tier === "T4" || s.tier === "T5");
    if (failing.length === 0) return false; // a T3 rollback's below_threshold: no T2 bounds in the SQL ontology, and no call without a candidate
    return failing.every((s) => s.tier === "T4" && ROW_LOSSES.has(String(s.lossClass)));
  }

  private emptyPoint(ts: Touched[]): SqlRestorePoint {
    const tables: PointTable[] = ts.filter((t) => t.scope === "created").map((t) => this.pointTable(t.info, "created", [], [], 0, String(t.calls[0]!.arguments.kind)));
    return { format: SQL_RESTORE_FORMAT, id: newPointId(), database: this.db.describe(), created: new Date().toISOString(), tables };
  }

  private pointTable(info: TableInfo, scope: PointTable["scope"], rows: string[], keys: string[], depth: number, kind?: string): PointTable {
    const k = (kind ?? info.kind) as PointTable["kind"];
    return { table: info.name, q: info.q, scope, kind: k === "index" || k === "view" ? k : "table", columns: info.columns, insertable: info.insertable, identityAlways: info.identityAlways, pk: info.pk, rows, keys, definition: info.definition, depth, children: info.children.map((c) => ({ q: c.q, table: c.table, columns: c.columns, parentColumns: c.parentColumns })) };
  }

  /** Reads the rows of every scope (and the cascaded children, whole); a string: over the bound. */
  private async takePoint(ts: Touched[]): Promise<SqlRestorePoint | string | null> {
    const max = this.bounds.maxRows;
    const tables: PointTable[] = [];
    let total = 0;
    const seen = new Set<string>();
    // A table both written by the string and reached by a cascade is kept once, whole: the rows its own
    // statement matches (keys) or adds (range) are not the rows the cascade removes or changes.
    const cascaded = new Set(ts.flatMap((t) => t.cascade.map((c) => c.name)));
    for (const t of ts) {
      if (seen.has(t.info.name)) continue;
      if ((t.scope === "keys" || t.scope === "range") && cascaded.has(t.info.name)) t.scope = "table";
      if (t.scope === "created") {
        tables.push(this.pointTable(t.info, "created", [], [], 0, String(t.calls[0]!.arguments.kind)));
        continue;
      }
      if (t.scope === "none") continue; // the CREATE … IF NOT EXISTS of a relation that exists: nothing changes
      if (t.scope === "dropped" && this.dialect === "postgres") return null; // no definition is read: T4 stays
      if (t.scope === "dropped" && t.info.kind === "absent") continue;
      seen.add(t.info.name);
      const depth = 1;
      if (t.scope === "range") {
        const got = await readRange(this.db, t.info, t.above!);
        total += got.rows.length;
        if (total > max) return `not approved: ${verb(t)} ${t.info.name} (${got.rows.length} rows above its largest key); with the rows kept for the string's other tables that is more than ${max} rows (the restore bound)`;
        tables.push({ ...this.pointTable(t.info, "range", got.rows, got.keys, depth), above: t.above! });
      } else if (t.scope === "keys") {
        const c = t.calls[0]!;
        const got = t.pre ?? (await this.preImage(t.info, targetSelect(c.plan!, this.dialect, null)));
        total += got.rows.length;
        if (total > max) return `not approved: ${verb(t)} more than ${max} rows (the restore bound)`;
        tables.push(this.pointTable(t.info, "keys", got.rows, got.keys, depth));
      } else {
        const got = t.info.kind === "table" ? await readTable(this.db, t.info) : { rows: [], keys: [] };
        total += got.rows.length;
        if (total > max) return `not approved: ${verb(t)} a table of more than ${max} rows (the restore bound); it was counted, not read`;
        tables.push(this.pointTable(t.info, t.scope === "dropped" ? "dropped" : "table", got.rows, got.keys, depth));
      }
      for (const ch of t.cascade) {
        // A child the string also drops: the cascade's copy would be put back into a table that is gone.
        if (ts.some((x) => x.info.name === ch.name && x.scope === "dropped")) return `not approved: foreign-key actions from ${t.info.name} change rows of ${ch.name}, which the string also drops; no restore point holds both`;
        if (seen.has(ch.name)) continue;
        seen.add(ch.name);
        // Grandchildren reached by cascades are not read: unknown.
        if (ch.children.some((g) => t.calls.some((x) => x.name === "sql_truncate") || changes(g.onDelete) || (updatesChild(t, ch.name) && changes(g.onUpdate)))) return `not approved: ${verb(t)} rows of ${t.info.name}, and foreign-key actions reach ${ch.name} and the tables that reference it, which the guard does not read`;
        if (ch.triggers.length > 0) return `not approved: foreign-key actions from ${t.info.name} change rows of ${ch.name}, whose trigger ${ch.triggers[0]!.name} the guard does not read`;
        const n = await this.count(`SELECT 1 FROM ${ch.q} LIMIT ${max + 1}`);
        total += n;
        if (total > max) return `not approved: foreign-key actions from ${t.info.name} change rows of ${ch.name}, a table over the restore bound (${max} rows)`;
        const got = await readTable(this.db, ch);
        tables.push(this.pointTable(ch, "table", got.rows, got.keys, 2));
      }
    }
    // Foreign-key depth among the point's tables: a child after each of its parents.
    for (let round = 0; round < tables.length; round++) {
      for (const t of tables) for (const ch of t.children) {
        const c = tables.find((x) => x.table === ch.table);
        if (c !== undefined && c !== t && c.depth <= t.depth) c.depth = t.depth + 1;
      }
    }
    return { format: SQL_RESTORE_FORMAT, id: newPointId(), database: this.db.describe(), created: new Date().toISOString(), tables };
  }

  /** SQLite: the rows an UPDATE/DELETE matches by key, each once (joins may match a row twice): told apart
   * by their key, which names one row here (a table with a NULL in a key column is not judged: judge),
   * also in a WITHOUT ROWID table, which has no rowid. (A keys scope needs a key; PostgreSQL's pre-image
   * is read with its count, countAndRead, and over the bound the statement is refused before any point
   * is taken.) */
  private async preImage(info: TableInfo, sel: string): Promise<{ rows: string[]; keys: string[] }> {
    const rows: string[] = [];
    const keys: string[] = [];
    const seen = new Set<string>();
    const at = info.pk!.map((c) => info.columns.indexOf(c));
    for (const x of await this.db.read(`SELECT * FROM (${sel})`)) {
      const row = sqliteRowText(x, info.columns);
      const values = JSON.parse(row) as unknown[];
      const key = JSON.stringify(at.map((i) => values[i]));
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push(row);
      keys.push(key);
    }
    return { rows, keys };
  }

  private refusalText(reason: string, d: Decision, ts: Touched[]): string {
    // ALTER and CREATE (OR REPLACE VIEW of a view with an INSTEAD OF trigger) fire no trigger: refused
    // for the definition they replace, below.
    const trig = ts.find((t) => t.triggers.length > 0 && t.calls[0]!.name !== "sql_alter" && t.calls[0]!.name !== "sql_create");
    if (trig !== undefined) return `not approved: ${trig.triggers.length === 1 ? "the trigger" : "the triggers"} ${trig.triggers.join(", ")} on ${trig.info.name} ${trig.triggers.length === 1 ? "runs" : "run"} code the guard does not read (for the statement and for its undo): what else ${verb(trig)} ${trig.rows} rows of ${trig.info.name} would change is unknown`;
    const casc = ts.find((t) => t.cascade.length > 0);
    if (casc !== undefined) return `not approved: ${verb(casc)} ${casc.rows} rows of ${casc.info.name}, and foreign-key actions would also change rows of ${casc.cascade.map((c) => c.name).join(", ")}; no restore point holds them`;
    const b = d.verdict?.bottleneck;
    const at = b?.annotation ? ` (${b.annotation})` : "";
    // The call the bottleneck annotation is about ("sql.drop.lost" → sql_drop).
    const tool = b?.annotation ? `sql_${b.annotation.split(".")[1]}` : "";
    const t = ts.find((x) => x.calls.some((c) => c.name === tool) && x.info.kind !== "absent") ?? ts.find((x) => x.calls.some((c) => c.name === tool)) ?? ts.find((x) => x.scope !== "created") ?? ts[0]!;
    switch (reason) {
      case "irreversible":
        if (t.scope === "dropped") return `not approved: DROP would destroy ${t.info.name}${t.info.kind === "table" ? ` and its ${t.rows > this.bounds.maxRows ? `more than ${this.bounds.maxRows}` : t.rows} rows` : ""}, and no restore point holds ${t.info.kind === "table" ? "them" : "its definition"}${at}`;
        if (t.calls[0]!.name === "sql_alter") return `not approved: ALTER TABLE ${t.info.name} changes its definition, and nothing keeps the old one${at}`;
        // A relation the string creates and then writes to: judged as created, its rows are not kept
        // (regression: refused as "CREATE OR REPLACE replaces the definition", which it was not).
        if (t.calls[0]!.name === "sql_create" && t.scope === "created") return `not approved: the string creates ${t.info.name} and writes to it, and no restore point holds the rows of a relation the string creates${at}`;
        if (t.calls[0]!.name === "sql_create") return `not approved: CREATE OR REPLACE replaces the definition of ${t.info.name}, and nothing keeps the old one${at}`;
        return `not approved: ${verb(t)} ${t.rows} rows of ${t.info.name} that nothing could give back${at}`;
      default:
        return `not approved: ${reason}${at}`;
    }
  }

  private coreCheck(calls: SqlCall[]): Decision {
    const typed = calls.map((c) => ({ name: c.name, arguments: c.arguments }));
    const last = typed[typed.length - 1]!;
    const d = this.core.check(last, { turnCalls: typed.slice(0, -1) });
    if (d.execution !== null) this.core.release(d.execution);
    return d;
  }

  private finish(partial: Omit<SqlDecision, "route">, _p: null): SqlDecision {
    const route: SqlDecision["route"] = partial.action === "ask" ? "ConsentEscalated" : partial.action === "deny" ? "Vetoed" : partial.core !== null && !partial.core.admissible ? "AdvisoryPassthrough" : "Approved";
    return deepFreeze({ ...partial, route } as SqlDecision);
  }

  observe(execution: string): Promise<{ journaled: string | null }> {
    return this.inTurn(() => this.observeOnce(execution));
  }

  private async observeOnce(execution: string): Promise<{ journaled: string | null }> {
    const p = this.pending.get(execution);
    if (p === undefined) return { journaled: null };
    this.pending.delete(execution);
    const after: Record<string, string> = {};
    try {
      await this.db.readTransaction(async () => {
        for (const t of p.point.tables) after[t.table] = await scopeFingerprint(this.db, t, this.bounds.maxRows);
      });
    } catch (e) {
      // What the statement left cannot be read: the entry is journaled, and its undo will be refused.
      for (const t of p.point.tables) after[t.table] ??= `unreadable: ${(e as Error).message}`;
    }
    const id = `q-${p.decision.seq}-${randomBytes(3).toString("hex")}`;
    const sum = p.decision.restorePoint;
    this.journal.add({
      id, execution, statement: p.statement, database: this.db.describe(), dialect: this.dialect, calls: p.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      tier: p.decision.tier ?? "T5", inverse: p.decision.inverse.map((s) => ({ ...s, arguments: { ...s.arguments } })), restorePoint: sum === null ? null : { ...sum, tables: [...sum.tables] }, point: p.point.id, after, maxRows: this.bounds.maxRows,
    });
    return { journaled: id };
  }

  list(): SqlUndoEntry[] {
    return this.journal.list();
  }

  undo(sel?: SqlUndoSelector, options?: { dryRun?: boolean }): Promise<SqlUndoResult> {
    return this.inTurn(async () => {
      try {
        return await undoSqlEntry(this.journal, this.store, this.db, sel, options?.dryRun === true);
      } catch (e) {
        return { ok: false, id: null, reason: "unknown_state", message: `the undo could not be judged: ${(e as Error).message}`, steps: [] };
      }
    });
  }
}

/** A count as the database gives it: a number, a bigint or a text of digits (node-postgres gives a
 * bigint as text), whole and not negative. Anything else is state not read (a NaN passed every bound, a
 * null counted 0, a fraction was compared with the bound as if rows could be halved, and the bounded
 * count took `true`, `[1]` or "0x1" for 1). */
function countOf(v: unknown, what: string): number {
  if (!(typeof v === "bigint" || typeof v === "number" || (typeof v === "string" && /^\d+$/.test(v))) || !Number.isInteger(Number(v)) || Number(v) < 0) throw new StateError(what);
  return Number(v);
}

/** PostgreSQL pre-image rows (rid, r, k), each physical row once (joins may match a row twice). */
function pgPreImage(r: Record<string, unknown>[]): { rows: string[]; keys: string[] } {
  const rows: string[] = [];
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const x of r) {
    if (seen.has(String(x.rid))) continue;
    seen.add(String(x.rid));
    rows.push(String(x.r));
    keys.push(String(x.k));
  }
  return { rows, keys };
}

type Base = Pick<SqlDecision, "format" | "seq" | "calls" | "problems" | "session" | "dialect">;

function splitName(name: string): { schema: string; name: string } {
  const i = name.indexOf(".");
  return { schema: name.slice(0, i), name: name.slice(i + 1) };
}

function verb(t: Touched): string {
  switch (t.calls[0]!.name) {
    case "sql_delete":
      return "DELETE would remove";
    case "sql_update":
      return "UPDATE would change";
    case "sql_insert":
      return "INSERT would add to";
    case "sql_truncate":
      return "TRUNCATE would remove";
    case "sql_drop":
      return "DROP would remove";
    default:
      return "it would change";
  }
}

/** Does a parse tree hold a node of this type (SubLink: a subquery)? */
function holds(n: unknown, type: string): boolean {
  if (n === null || typeof n !== "object") return false;
  if (Array.isArray(n)) return n.some((x) => holds(x, type));
  return Object.entries(n).some(([k, v]) => k === type || holds(v, type));
}

/** A foreign-key action that changes the referencing rows (NO ACTION and RESTRICT only refuse). */
function changes(a: FkAction): boolean {
  return a !== "no_action" && a !== "restrict";
}

/** Do the actions of `t`'s statements update rows of its child (an UPDATE's or upsert's ON UPDATE action,
 * a DELETE's ON DELETE SET NULL / SET DEFAULT), so that the ON UPDATE actions of the tables referencing
 * the child run too? (Regression: only the grandchildren's ON DELETE was read; `DELETE FROM p` with the
 * child's ON DELETE SET NULL set a grandchild's ON UPDATE CASCADE column to NULL, and the undo said
 * undone and left it.) */
function updatesChild(t: Touched, child: string): boolean {
  const updates = t.calls.some((x) => x.name === "sql_update" || (x.name === "sql_insert" && x.plan?.conflict === "update"));
  return t.info.children.some((f) => f.table === child && ((updates && changes(f.onUpdate)) || f.onDelete === "set_null" || f.onDelete === "set_default"));
}

/** `bounds` as given: absent, or an object naming only maxRows (regression: a misspelt bound, `{ maxrows:
 * 5 }`, or a bounds that was no object, was the default of 10,000 rows). */
function boundsOf(b: unknown): Partial<SqlBounds> {
  if (b === undefined) return {};
  if (b === null || typeof b !== "object" || Array.isArray(b)) throw new SqlGuardError("bad-option", "`bounds` must be an object { maxRows }");
  const extra = Object.keys(b).find((k) => k !== "maxRows");
  if (extra !== undefined) throw new SqlGuardError("bad-option", `unknown bound \`${extra}\` (the bounds are maxRows)`);
  return b as Partial<SqlBounds>;
}

function deepFreeze<T>(x: T): T {
  if (x !== null && typeof x === "object" && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) deepFreeze(v);
  }
  return x;
}

export { fingerprintRows };
