// Restore points and undo for SQL. A restore point holds, per table a statement changes, the rows of
// its scope before the statement: the rows the WHERE matched (by primary key) or the whole table, and
// for a dropped SQLite table its definition. The journal (one JSONL file per session) records each
// approved execution with the fingerprint of every scope as the statement left it; an undo whose
// scopes changed since is refused (`changed_since`). The undo puts each scope back by difference, in
// one transaction: rows not there before are deleted, rows changed are set back by key, rows gone are
// inserted again.
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, accessSync, constants } from "node:fs";
import type { SqlAdapter } from "./adapter.js";
import { Catalog, decodeSqliteValue, fingerprintRows, quoteIdent, readKeys, readRange, readTable, StateError, type ScopeRows, type TableInfo } from "./state.js";

export const SQL_RESTORE_FORMAT = "polar-sql-restore-point/1";

/** One table of a restore point. */
export interface PointTable {
  table: string;
  q: string;
  /** keys: the rows with the keys of `rows`; table: every row; dropped: the relation and its rows;
   * created: a relation the statement creates (nothing kept; undo drops it). */
  scope: "keys" | "table" | "range" | "dropped" | "created";
  /** scope "range": the rows whose single integer key is above this (an INSERT's new keys). */
  above?: string;
  kind: "table" | "index" | "view";
  columns: string[];
  insertable: string[];
  identityAlways: boolean;
  pk: string[] | null;
  /** Canonical rows before the statement, and their keys (parallel). */
  rows: string[];
  keys: string[];
  /** SQLite: CREATE statements to recreate a dropped relation. */
  definition: string[] | null;
  /** Foreign-key depth: parents before children (inserts), children before parents (deletes). */
  depth: number;
  /** The foreign keys that reference this table: the undo deletes no row a child row references. */
  children: { table: string; q: string; columns: string[]; parentColumns: string[] }[];
}

export interface SqlRestorePoint {
  format: typeof SQL_RESTORE_FORMAT;
  id: string;
  database: string;
  created: string;
  tables: PointTable[];
}

export interface SqlRestoreSummary {
  id: string;
  tables: string[];
  rows: number;
  bytes: number;
}

export interface SqlInverseStep {
  tool: string;
  arguments: Record<string, unknown>;
  forwardTool: string;
  tier: string;
  annotation: string;
}

export interface SqlJournalEntry {
  id: string;
  execution: string;
  statement: string;
  database: string;
  dialect: string;
  calls: { name: string; arguments: Record<string, unknown> }[];
  tier: string;
  inverse: SqlInverseStep[];
  restorePoint: SqlRestoreSummary | null;
  /** The internal point id (also for statements whose point keeps no rows: created relations). */
  point: string;
  /** Fingerprint of each scope as the statement left it. */
  after: Record<string, string>;
  /** The restore bound the fingerprints were read under (a scope over it is counted, not read). */
  maxRows?: number;
}

export interface SqlUndoEntry extends SqlJournalEntry {
  index: number;
  undone: boolean;
  preview: string[];
}

export type SqlUndoSelector = undefined | number | { id: string };

export interface SqlUndoResult {
  ok: boolean;
  id: string | null;
  reason: "undone" | "dry_run" | "nothing_to_undo" | "not_found" | "already_undone" | "changed_since" | "inverse_failed" | "unknown_state" | "no_inverse";
  message: string;
  steps: string[];
}

export class SqlStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SqlStoreError";
  }
}

/** Restore points and journals under <store>/sql. */
export class SqlStore {
  readonly dir: string;
  constructor(store: string) {
    this.dir = `${store}/sql`;
  }

  open(): void {
    mkdirSync(`${this.dir}/points`, { recursive: true });
    mkdirSync(`${this.dir}/sessions`, { recursive: true });
    accessSync(`${this.dir}/points`, constants.W_OK);
  }

  save(p: SqlRestorePoint): SqlRestoreSummary {
    const text = JSON.stringify(p);
    writeFileSync(`${this.dir}/points/${p.id}.json`, text, { flag: "wx" });
    return summary(p, Buffer.byteLength(text));
  }

  load(id: string): SqlRestorePoint {
    if (!/^[A-Za-z0-9._-]+$/.test(id)) throw new SqlStoreError(`bad restore point id ${id}`);
    let p: SqlRestorePoint;
    try {
      p = JSON.parse(readFileSync(`${this.dir}/points/${id}.json`, "utf8")) as SqlRestorePoint;
    } catch (e) {
      throw new SqlStoreError(`restore point ${id} is unreadable: ${(e as Error).message}`);
    }
    if (p.format !== SQL_RESTORE_FORMAT || p.id !== id || !Array.isArray(p.tables)) throw new SqlStoreError(`restore point ${id} is corrupted`);
    return p;
  }

  journalFile(session: string): string {
    return `${this.dir}/sessions/${session}.jsonl`;
  }
}

export function newPointId(): string {
  return `sp-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
}

export function summary(p: SqlRestorePoint, bytes: number): SqlRestoreSummary {
  return { id: p.id, tables: p.tables.filter((t) => t.scope !== "created").map((t) => t.table), rows: p.tables.reduce((n, t) => n + t.rows.length, 0), bytes };
}

export class SqlJournal {
  private entries: SqlJournalEntry[] = [];
  private undone = new Set<string>();
  constructor(readonly file: string) {
    if (existsSync(file)) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (line === "") continue;
        const rec = JSON.parse(line) as { entry?: SqlJournalEntry; undone?: string };
        if (rec.entry !== undefined) this.entries.push(rec.entry);
        if (rec.undone !== undefined) this.undone.add(rec.undone);
      }
    }
  }

  add(e: SqlJournalEntry): void {
    appendFileSync(this.file, `${JSON.stringify({ entry: e })}\n`);
    this.entries.push(e);
  }

  markUndone(id: string): void {
    appendFileSync(this.file, `${JSON.stringify({ undone: id })}\n`);
    this.undone.add(id);
  }

  list(): SqlUndoEntry[] {
    const n = this.entries.length;
    return this.entries.map((e, i) => ({ ...e, index: n - i, undone: this.undone.has(e.id), preview: e.inverse.map(describeSqlStep) }));
  }

  select(sel: SqlUndoSelector): SqlJournalEntry | null {
    if (sel === undefined) {
      for (let i = this.entries.length - 1; i >= 0; i--) if (!this.undone.has(this.entries[i]!.id)) return this.entries[i]!;
      return null;
    }
    if (typeof sel === "number") return Number.isInteger(sel) && sel >= 1 ? (this.entries[this.entries.length - sel] ?? null) : null;
    return this.entries.find((e) => e.id === sel.id) ?? null;
  }

  isUndone(id: string): boolean {
    return this.undone.has(id);
  }
}

/** The most recent SQL session journal in a store (for `polar undo` without --session). */
export function latestSqlSession(store: string): string | null {
  const dir = `${store}/sql/sessions`;
  if (!existsSync(dir)) return null;
  let best: string | null = null;
  let bestTime = -1;
  for (const f of readdirSync(dir)) {
    if (!f.endsWith(".jsonl")) continue;
    const t = statSync(`${dir}/${f}`).mtimeMs;
    if (t > bestTime) {
      bestTime = t;
      best = f.slice(0, -6);
    }
  }
  return best;
}

export function describeSqlStep(s: SqlInverseStep): string {
  const a = s.arguments;
  switch (s.tool) {
    case "nothing":
      return `nothing to undo (${s.forwardTool} changed nothing)`;
    case "sql_put_back":
      return `insert again the rows restore point ${String(a.point)} holds`;
    case "sql_restore_rows":
      return `set the rows back to restore point ${String(a.point)}, by key`;
    case "sql_delete_inserted":
      return `delete the rows not in restore point ${String(a.point)}, by key`;
    case "sql_recreate":
      return `create again what restore point ${String(a.point)} holds, with its rows`;
    case "sql_drop_created":
      return `DROP ${String(a.kind ?? "table").toUpperCase()} ${String(a.table)}`;
    case "sql_rollback":
      return "ROLLBACK the open transaction";
    default:
      return `${s.tool} ${JSON.stringify(a)}`;
  }
}

function infoOf(t: PointTable): TableInfo {
  return { name: t.table, q: t.q, kind: t.kind, columns: t.columns, insertable: t.insertable, identityAlways: t.identityAlways, pk: t.pk, children: [], triggers: [], sequence: false, inherited: false, definition: t.definition };
}

async function exists(db: SqlAdapter, t: PointTable): Promise<boolean> {
  if (db.dialect === "postgres") {
    const r = await db.read("SELECT to_regclass($1) IS NOT NULL AS e", [t.q]);
    return r[0]!.e === true;
  }
  const dot = t.table.indexOf(".");
  const r = await db.read(`SELECT 1 FROM ${quoteIdent(t.table.slice(0, dot))}.sqlite_schema WHERE name = ? COLLATE NOCASE`, [t.table.slice(dot + 1)]);
  return r.length > 0;
}

/** A range scope's bound: an integer, as text (a point is a file: anything else is a corrupted one). */
function aboveOf(t: PointTable): string {
  if (typeof t.above !== "string" || !/^-?\d+$/.test(t.above)) throw new StateError(`restore point scope of ${t.table} is corrupted`);
  return t.above;
}

/** The rows of one scope now. */
export async function scopeNow(db: SqlAdapter, t: PointTable): Promise<ScopeRows | null> {
  if (t.scope === "dropped" || t.scope === "created") {
    if (!(await exists(db, t))) return null;
    if (t.kind !== "table") return { rows: [], rids: [], keys: [] };
    return readTable(db, infoOf(t));
  }
  if (t.scope === "keys") return readKeys(db, infoOf(t), t.rows);
  if (t.scope === "range") return readRange(db, infoOf(t), aboveOf(t));
  return readTable(db, infoOf(t));
}

/** Fingerprint of one scope now ("absent": the relation does not exist; "over_bound": the scope holds
 * more than `max` rows — counted, not read — and cannot be undone). */
export async function scopeFingerprint(db: SqlAdapter, t: PointTable, max: number): Promise<string> {
  if ((t.scope === "table" || t.scope === "range" || ((t.scope === "dropped" || t.scope === "created") && t.kind === "table")) && (t.scope === "table" || t.scope === "range" || (await exists(db, t)))) {
    const where = t.scope === "range" ? ` WHERE ${quoteIdent(t.pk![0]!)} > ${db.dialect === "sqlite" ? "?" : "$1::bigint"}` : "";
    const params = t.scope === "range" ? [db.dialect === "sqlite" ? BigInt(aboveOf(t)) : aboveOf(t)] : [];
    const n = await db.read(`SELECT count(*) AS n FROM (SELECT 1 FROM ${t.q}${where} LIMIT ${max + 1}) AS c`, params);
    if (Number(n[0]!.n) > max) return "over_bound";
  }
  const now = await scopeNow(db, t);
  return now === null ? "absent" : `${t.scope}:${fingerprintRows(now.rows)}`;
}

/** Puts every scope of a point back (inside the caller's transaction). */
export async function applyPoint(db: SqlAdapter, p: SqlRestorePoint): Promise<void> {
  if (db.dialect === "sqlite") await db.run("PRAGMA defer_foreign_keys = ON");
  const tables = [...p.tables];
  // Relations created by the statement: dropped first, the last created first (a table created later
  // in the string may reference an earlier one, and PostgreSQL refuses to drop a table another's
  // foreign key depends on; a created relation's depth is always 0: no foreign key of the point names it).
  for (const t of [...tables].reverse()) {
    if (t.scope !== "created") continue;
    if (await exists(db, t)) await db.run(`DROP ${t.kind.toUpperCase()} ${t.q}`);
  }
  // Dropped relations: created again (parents first), then their rows go in below. One that exists
  // (the string stopped before its DROP ran; the fingerprint says it is as the string left it) has
  // its rows set back like a table.
  const recreated = new Set<string>();
  for (const t of [...tables].sort((a, b) => a.depth - b.depth)) {
    if (t.scope !== "dropped" || (await exists(db, t))) continue;
    if (t.definition === null || t.definition.length === 0) throw new StateError(`no definition of ${t.table} was kept`);
    for (const sql of t.definition) await db.run(sql);
    recreated.add(t.table);
  }
  const plans = [];
  for (const t of tables) {
    if (t.scope === "created" || t.kind !== "table") continue;
    const now = recreated.has(t.table) ? { rows: [], rids: [], keys: [] } : (await scopeNow(db, t))!;
    plans.push({ t, ...diff(t, now) });
  }
  // Rows gone come back first (parents first), so children set back next find their parents; rows not
  // there before go last (children first), when no row that will stay references them any more.
  for (const x of [...plans].sort((a, b) => a.t.depth - b.t.depth)) await insertRows(db, x.t, x.ins);
  for (const x of [...plans].sort((a, b) => a.t.depth - b.t.depth)) await updateRows(db, p, x.t, x.upd);
  for (const x of [...plans].sort((a, b) => b.t.depth - a.t.depth)) await deleteRows(db, x.t, x.del);
}

interface Diff {
  /** Rows to delete: canonical row texts (keyed tables) or physical ids (no key). */
  del: { row: string; rid: string }[];
  upd: string[];
  ins: string[];
}

function diff(t: PointTable, now: ScopeRows): Diff {
  const out: Diff = { del: [], upd: [], ins: [] };
  if (t.pk !== null) {
    const before = new Map<string, string>();
    t.rows.forEach((r, i) => before.set(t.keys[i]!, r));
    const seen = new Set<string>();
    now.rows.forEach((r, i) => {
      const k = now.keys[i]!;
      seen.add(k);
      const b = before.get(k);
      if (b === undefined) out.del.push({ row: r, rid: now.rids[i]! });
      else if (b !== r) out.upd.push(b);
    });
    for (const [k, r] of before) if (!seen.has(k)) out.ins.push(r);
    return out;
  }
  const want = new Map<string, number>();
  for (const r of t.rows) want.set(r, (want.get(r) ?? 0) + 1);
  now.rows.forEach((r, i) => {
    const n = want.get(r) ?? 0;
    if (n > 0) want.set(r, n - 1);
    else out.del.push({ row: r, rid: now.rids[i]! });
  });
  for (const [r, n] of want) for (let i = 0; i < n; i++) out.ins.push(r);
  return out;
}

function cols(names: readonly string[], prefix = ""): string {
  return names.map((c) => `${prefix}${quoteIdent(c)}`).join(", ");
}

/** Refuses to delete rows that a child row references (a cascade or SET NULL would change rows no
 * scope holds). Runs after the children's own deletes. */
async function referenced(db: SqlAdapter, t: PointTable, rows: { row: string; rid: string }[]): Promise<void> {
  for (const ch of t.children) {
    if (ch.parentColumns.some((c) => c === "")) throw new StateError(`the foreign key of ${ch.table} names no column`);
    for (const r of rows) {
      // A row whose referenced columns hold NULL matches no child row: `=` is never true with NULL.
      if (db.dialect === "postgres") {
        const hit = await db.read(
          `SELECT 1 AS x FROM ${ch.q} AS c, jsonb_populate_record(NULL::${t.q}, $1::jsonb) AS r WHERE (${ch.columns.map((c) => `c.${quoteIdent(c)}`).join(", ")}) = (${ch.parentColumns.map((c) => `r.${quoteIdent(c)}`).join(", ")}) LIMIT 1`,
          [r.row],
        );
        if (hit.length > 0) throw new StateError(`rows of ${ch.table} reference a row of ${t.table} the undo would delete`);
        continue;
      }
      const v = JSON.parse(r.row) as unknown[];
      const vals = ch.parentColumns.map((c) => decodeSqliteValue(v[t.columns.indexOf(c)]));
      const hit = await db.read(`SELECT 1 AS x FROM ${ch.q} WHERE ${ch.columns.map((c) => `${quoteIdent(c)} = ?`).join(" AND ")} LIMIT 1`, vals);
      if (hit.length > 0) throw new StateError(`rows of ${ch.table} reference a row of ${t.table} the undo would delete`);
    }
  }
}

async function deleteRows(db: SqlAdapter, t: PointTable, rows: { row: string; rid: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await referenced(db, t, rows);
  if (db.dialect === "postgres") {
    if (t.pk !== null) {
      await db.run(`DELETE FROM ${t.q} AS t WHERE (${cols(t.pk, "t.")}) IN (SELECT ${cols(t.pk, "r.")} FROM jsonb_populate_recordset(NULL::${t.q}, $1::jsonb) AS r)`, [`[${rows.map((r) => r.row).join(",")}]`]);
    } else {
      await db.run(`DELETE FROM ${t.q} WHERE ctid = ANY($1::text[]::tid[])`, [rows.map((r) => r.rid)]);
    }
    return;
  }
  if (t.pk !== null) {
    const idx = t.pk.map((c) => t.columns.indexOf(c));
    const sql = `DELETE FROM ${t.q} WHERE ${t.pk.map((c) => `${quoteIdent(c)} IS ?`).join(" AND ")}`;
    for (const r of rows) {
      const v = JSON.parse(r.row) as unknown[];
      await db.run(sql, idx.map((i) => decodeSqliteValue(v[i])));
    }
  } else {
    for (const r of rows) await db.run(`DELETE FROM ${t.q} WHERE rowid = ?`, [BigInt(r.rid)]);
  }
}

/** Refuses to set back referenced columns (a UNIQUE column a foreign key names, not the key) of rows
 * that rows of a child the point does not hold whole reference now: the child's ON UPDATE action would
 * change them (rows no scope holds: newer work), or the update would fail. */
async function referencedByValue(db: SqlAdapter, p: SqlRestorePoint, t: PointTable, setCols: readonly string[], rows: readonly string[]): Promise<void> {
  const pk = t.pk!;
  for (const ch of t.children) {
    if (!ch.parentColumns.some((c) => setCols.includes(c)) || p.tables.some((x) => x.table === ch.table && x.scope === "table")) continue;
    const refs = ch.columns.map((c, i) => `c.${quoteIdent(c)} = cur.${quoteIdent(ch.parentColumns[i]!)}`).join(" AND ");
    if (db.dialect === "postgres") {
      const hit = await db.read(
        `SELECT 1 AS x FROM ${ch.q} AS c, ${t.q} AS cur, jsonb_populate_recordset(NULL::${t.q}, $1::jsonb) AS r WHERE (${cols(pk, "cur.")}) = (${cols(pk, "r.")}) AND ${refs} AND (${cols(ch.parentColumns, "cur.")}) IS DISTINCT FROM (${cols(ch.parentColumns, "r.")}) LIMIT 1`,
        [`[${rows.join(",")}]`],
      );
      if (hit.length > 0) throw new StateError(`rows of ${ch.table} reference a row of ${t.table} whose referenced columns the undo would change`);
      continue;
    }
    const sql = `SELECT 1 AS x FROM ${ch.q} AS c, ${t.q} AS cur WHERE ${pk.map((c) => `cur.${quoteIdent(c)} IS ?`).join(" AND ")} AND ${refs} AND NOT (${ch.parentColumns.map((c) => `cur.${quoteIdent(c)} IS ?`).join(" AND ")}) LIMIT 1`;
    for (const r of rows) {
      const v = JSON.parse(r) as unknown[];
      const hit = await db.read(sql, [...pk, ...ch.parentColumns].map((c) => decodeSqliteValue(v[t.columns.indexOf(c)])));
      if (hit.length > 0) throw new StateError(`rows of ${ch.table} reference a row of ${t.table} whose referenced columns the undo would change`);
    }
  }
}

async function updateRows(db: SqlAdapter, p: SqlRestorePoint, t: PointTable, rows: string[]): Promise<void> {
  if (rows.length === 0 || t.pk === null) return;
  const setCols = t.insertable.filter((c) => !t.pk!.includes(c));
  if (setCols.length === 0) return;
  await referencedByValue(db, p, t, setCols, rows);
  if (db.dialect === "postgres") {
    await db.run(
      `UPDATE ${t.q} AS t SET ${setCols.map((c) => `${quoteIdent(c)} = r.${quoteIdent(c)}`).join(", ")} FROM jsonb_populate_recordset(NULL::${t.q}, $1::jsonb) AS r WHERE (${cols(t.pk, "t.")}) = (${cols(t.pk, "r.")})`,
      [`[${rows.join(",")}]`],
    );
    return;
  }
  const sql = `UPDATE ${t.q} SET ${setCols.map((c) => `${quoteIdent(c)} = ?`).join(", ")} WHERE ${t.pk.map((c) => `${quoteIdent(c)} IS ?`).join(" AND ")}`;
  for (const r of rows) {
    const v = JSON.parse(r) as unknown[];
    await db.run(sql, [...setCols, ...t.pk].map((c) => decodeSqliteValue(v[t.columns.indexOf(c)])));
  }
}

async function insertRows(db: SqlAdapter, t: PointTable, rows: string[]): Promise<void> {
  if (rows.length === 0) return;
  if (db.dialect === "postgres") {
    await db.run(
      `INSERT INTO ${t.q} (${cols(t.insertable)}) ${t.identityAlways ? "OVERRIDING SYSTEM VALUE " : ""}SELECT ${cols(t.insertable, "r.")} FROM jsonb_populate_recordset(NULL::${t.q}, $1::jsonb) AS r`,
      [`[${rows.join(",")}]`],
    );
    return;
  }
  const sql = `INSERT INTO ${t.q} (${cols(t.insertable)}) VALUES (${t.insertable.map(() => "?").join(", ")})`;
  for (const r of rows) {
    const v = JSON.parse(r) as unknown[];
    await db.run(sql, t.insertable.map((c) => decodeSqliteValue(v[t.columns.indexOf(c)])));
  }
}

/** The first table of a point whose scope is not now as the point holds it (a created relation: gone;
 * any other: its rows, as a multiset), or null. */
async function notRestored(db: SqlAdapter, p: SqlRestorePoint): Promise<string | null> {
  for (const t of p.tables) {
    const now = await scopeNow(db, t);
    if (t.scope === "created" ? now !== null : now === null || fingerprintRows(now.rows) !== fingerprintRows(t.rows)) return t.table;
  }
  return null;
}

/** The point with each table's foreign keys as the catalog has them now (a child table created since
 * has rows the undo's deletes would reach through its ON DELETE action), and the first table the undo
 * writes that has a trigger or rule now (created since: the undo's own writes would fire it), or null. */
async function factsNow(db: SqlAdapter, p: SqlRestorePoint): Promise<{ point: SqlRestorePoint; trigger: string | null }> {
  const catalog = new Catalog(db);
  let trigger: string | null = null;
  const tables: PointTable[] = [];
  for (const t of p.tables) {
    const dot = t.table.indexOf(".");
    const now = t.scope === "created" || t.kind !== "table" ? null : await catalog.table({ schema: t.table.slice(0, dot), name: t.table.slice(dot + 1) });
    if (now === null || now.kind !== "table") {
      tables.push(t);
      continue;
    }
    if (now.triggers.length > 0) trigger ??= `${t.table} has ${now.triggers.length === 1 ? "a trigger" : "triggers"} now (${now.triggers.map((x) => x.name).join(", ")})`;
    tables.push({ ...t, children: now.children.map((c) => ({ table: c.table, q: c.q, columns: c.columns, parentColumns: c.parentColumns })) });
  }
  return { point: { ...p, tables }, trigger };
}

/** Undo one journal entry on `db` (also for `polar undo`). */
export async function undoSqlEntry(journal: SqlJournal, store: SqlStore, db: SqlAdapter, sel: SqlUndoSelector, dryRun: boolean): Promise<SqlUndoResult> {
  const e = journal.select(sel);
  if (e === null) return { ok: false, id: null, reason: sel === undefined ? "nothing_to_undo" : "not_found", message: sel === undefined ? "nothing to undo" : "no such execution", steps: [] };
  const steps = e.inverse.map(describeSqlStep);
  if (journal.isUndone(e.id)) return { ok: false, id: e.id, reason: "already_undone", message: `${e.id} was undone already`, steps };
  if (e.inverse.length === 0 || e.inverse.some((s) => s.tool === "")) return { ok: false, id: e.id, reason: "no_inverse", message: `${e.id} has no inverse (it was recorded, not approved as undoable)`, steps };
  if (`${db.dialect}` !== e.dialect || db.describe() !== e.database) return { ok: false, id: e.id, reason: "unknown_state", message: `${e.id} ran on ${e.database}, not on ${db.describe()}`, steps };
  let point: SqlRestorePoint;
  try {
    point = store.load(e.point);
  } catch (err) {
    return { ok: false, id: e.id, reason: "unknown_state", message: (err as Error).message, steps };
  }
  const unreadable = Object.entries(e.after ?? {}).find(([, v]) => v === "over_bound" || v.startsWith("unreadable"));
  if (unreadable !== undefined) return { ok: false, id: e.id, reason: "unknown_state", message: `refused: what ${e.id} left in ${unreadable[0]} was ${unreadable[1] === "over_bound" ? "more rows than the restore bound" : "not readable"} when it was observed`, steps };
  const rollback = e.inverse.some((s) => s.tool === "sql_rollback");
  const check = async (): Promise<string | null> => {
    for (const t of point.tables) {
      const now = await scopeFingerprint(db, t, e.maxRows ?? 10_000);
      if (now !== e.after[t.table]) return t.table;
    }
    return null;
  };
  try {
    if (rollback) {
      if (!(await db.inTransaction())) return { ok: false, id: e.id, reason: "changed_since", message: `refused: the transaction ${e.id} ran in has ended; ROLLBACK can no longer take it back`, steps };
    } else {
      const changed = await db.readTransaction(check);
      if (changed !== null) return { ok: false, id: e.id, reason: "changed_since", message: `refused: the rows of ${changed} that ${e.id} changed have changed since; undoing it would destroy newer work`, steps };
      const { trigger } = await db.readTransaction(() => factsNow(db, point));
      if (trigger !== null) return { ok: false, id: e.id, reason: "changed_since", message: `refused: ${trigger}, which the undo's own writes would fire (code the guard does not read)`, steps };
    }
  } catch (err) {
    return { ok: false, id: e.id, reason: "unknown_state", message: `the current state could not be read: ${(err as Error).message}`, steps };
  }
  if (dryRun) return { ok: true, id: e.id, reason: "dry_run", message: `would undo ${e.id}`, steps };
  try {
    if (rollback) await db.run("ROLLBACK");
    else {
      await db.writeTransaction(async () => {
        const changed = await check();
        if (changed !== null) throw new StateError(`the rows of ${changed} changed while the undo began`);
        if (!e.inverse.every((s) => s.tool === "nothing")) {
          const now = await factsNow(db, point);
          if (now.trigger !== null) throw new StateError(`${now.trigger}, which the undo's own writes would fire`);
          await applyPoint(db, now.point);
          // Proof before the commit: every scope is back as the point holds it (a write the undo did not
          // foresee — a conflict clause, a constraint's action — fails the undo instead of being answered
          // as undone).
          const off = await notRestored(db, point);
          if (off !== null) throw new StateError(`after the undo the rows of ${off} are not as restore point ${point.id} holds them`);
        }
      });
    }
  } catch (err) {
    return { ok: false, id: e.id, reason: "inverse_failed", message: `the undo of ${e.id} failed (nothing was changed): ${(err as Error).message}`, steps };
  }
  journal.markUndone(e.id);
  return { ok: true, id: e.id, reason: "undone", message: `undid ${e.id}`, steps };
}
