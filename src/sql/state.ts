// Layer B for SQL: the catalog facts of exactly the relations a statement names (kind, columns, primary
// key, the foreign keys that point at it with their ON DELETE / ON UPDATE actions, triggers and rules,
// sequences) and the rows of a scope (the rows a WHERE matches, or a whole table), read through the
// adapter's read-only path. Rows are kept as canonical strings: PostgreSQL's `to_jsonb(row)::text`
// (typed and exact on the server), SQLite's values tagged by storage class (integer, real, text, blob).
import { createHash } from "node:crypto";
import type { Row, SqlAdapter } from "./adapter.js";
import type { RelName } from "./parse.js";

export class StateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateError";
  }
}

/** The catalog's prepared statement was gone: the check is read again once. */
export class CatalogRetry extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CatalogRetry";
  }
}

export type FkAction = "no_action" | "restrict" | "cascade" | "set_null" | "set_default";

export interface ChildFk {
  /** Resolved name of the referencing table. */
  table: string;
  q: string;
  columns: string[];
  parentColumns: string[];
  onDelete: FkAction;
  onUpdate: FkAction;
}

export interface TableInfo {
  /** "main.t" / "public.t" */
  name: string;
  /** Quoted for SQL: "main"."t" */
  q: string;
  /** "virtual table" (SQLite CREATE VIRTUAL TABLE: FTS5, R*Tree, …): its rows are its module's code. */
  kind: "table" | "view" | "index" | "virtual table" | "other" | "absent";
  /** All columns, in order, and those an INSERT may name (not generated). */
  columns: string[];
  insertable: string[];
  /** PostgreSQL GENERATED ALWAYS AS IDENTITY: inserts need OVERRIDING SYSTEM VALUE. */
  identityAlways: boolean;
  pk: string[] | null;
  children: ChildFk[];
  /** Triggers and rules: name and the events they fire on ("any" when the event is not known). */
  triggers: { name: string; events: string[] }[];
  sequence: boolean;
  /** PostgreSQL: inheritance children or a partitioned table (a statement reaches other tables). */
  inherited: boolean;
  /** SQLite: the CREATE statements of the table, its indexes and triggers (in order). */
  definition: string[] | null;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const PG_ACTION: Record<string, FkAction> = { a: "no_action", r: "restrict", c: "cascade", n: "set_null", d: "set_default" };
const SQLITE_ACTION: Record<string, FkAction> = { "NO ACTION": "no_action", RESTRICT: "restrict", CASCADE: "cascade", "SET NULL": "set_null", "SET DEFAULT": "set_default" };

/** Catalog reads, cached per check (the caller clears the cache). */
export class Catalog {
  private readonly cache = new Map<string, TableInfo>();
  private fkOn: boolean | null = null;

  constructor(readonly db: SqlAdapter) {}

  clear(): void {
    this.cache.clear();
    this.fkOn = null;
  }

  /** SQLite: PRAGMA foreign_keys (off: no action runs, no key is checked). PostgreSQL: always on. */
  async foreignKeysOn(): Promise<boolean> {
    if (this.fkOn !== null) return this.fkOn;
    if (this.db.dialect === "postgres") this.fkOn = true;
    else {
      const r = await this.db.read("SELECT foreign_keys AS on_ FROM pragma_foreign_keys");
      this.fkOn = BigInt(r[0]?.on_ as bigint | number) === 1n;
    }
    return this.fkOn;
  }

  async table(rel: RelName): Promise<TableInfo> {
    const key = `${rel.schema ?? ""}\u0000${rel.name}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const info = this.db.dialect === "sqlite" ? await this.sqliteTable(rel) : await this.pgTable(rel);
    this.cache.set(key, info);
    return info;
  }

  private async sqliteTable(rel: RelName): Promise<TableInfo> {
    const schema = rel.schema ?? "main";
    if (rel.schema === null) {
      const temp = await this.db.read("SELECT 1 FROM temp.sqlite_schema WHERE name = ? COLLATE NOCASE", [rel.name]);
      if (temp.length > 0) throw new StateError(`${rel.name} is also a temporary relation: which one the statement means is not judged`);
    }
    const schemas = await this.db.read("SELECT name FROM pragma_database_list WHERE name = ? COLLATE NOCASE", [schema]);
    if (schemas.length === 0) throw new StateError(`no attached database \`${schema}\``);
    const sname = String(schemas[0]!.name);
    const qs = quoteIdent(sname);
    const found = await this.db.read(`SELECT type, name, tbl_name FROM ${qs}.sqlite_schema WHERE name = ? COLLATE NOCASE`, [rel.name]);
    const base: TableInfo = { name: `${sname}.${rel.name}`, q: `${qs}.${quoteIdent(rel.name)}`, kind: "absent", columns: [], insertable: [], identityAlways: false, pk: null, children: [], triggers: [], sequence: false, inherited: false, definition: null };
    if (found.length === 0) return base;
    const name = String(found[0]!.name);
    const type = String(found[0]!.type);
    const info: TableInfo = { ...base, name: `${sname}.${name}`, q: `${qs}.${quoteIdent(name)}`, kind: type === "table" ? "table" : type === "view" ? "view" : type === "index" ? "index" : "other" };
    if (type === "index") {
      const d = await this.db.read(`SELECT sql FROM ${qs}.sqlite_schema WHERE name = ? AND sql IS NOT NULL`, [name]);
      info.definition = d.map((r) => String(r.sql));
      return info;
    }
    if (type === "view") {
      info.definition = [String((await this.db.read(`SELECT sql FROM ${qs}.sqlite_schema WHERE name = ?`, [name]))[0]!.sql)];
      info.triggers = (await this.db.read(`SELECT name FROM ${qs}.sqlite_schema WHERE type = 'trigger' AND tbl_name = ?`, [name])).map((r) => ({ name: String(r.name), events: ["any"] }));
      return info;
    }
    if (type !== "table") return info;
    // A virtual table (pragma table_list: "virtual"; its shadow tables are "shadow", plain tables of the
    // module's storage): a write through it runs its module's code, which the guard does not read (FTS5's
    // `INSERT INTO f(f) VALUES('delete-all')` empties an external-content index while the rows read
    // through it stay the same), and its rows are what the module answers.
    const listed = await this.db.read("SELECT type FROM pragma_table_list(?) WHERE schema = ?", [name, sname]);
    if (listed[0]!.type !== "table" && listed[0]!.type !== "shadow") {
      info.kind = "virtual table";
      return info;
    }
    const cols = await this.db.read("SELECT name, pk, hidden FROM pragma_table_xinfo(?, ?) ORDER BY cid", [name, sname]);
    // hidden: 0 a column, 2 and 3 generated (not insertable); 1 (a virtual table's hidden column) is
    // not met here: virtual tables were answered above.
    info.columns = cols.map((c) => String(c.name));
    info.insertable = cols.filter((c) => Number(c.hidden) === 0).map((c) => String(c.name));
    const pk = cols.filter((c) => Number(c.pk) > 0).sort((a, b) => Number(a.pk) - Number(b.pk)).map((c) => String(c.name));
    info.pk = pk.length > 0 ? pk : null;
    const fks = await this.db.read(
      `SELECT m.name AS child, f.id AS id, f."from" AS col, f."to" AS pcol, f.on_update AS upd, f.on_delete AS del
       FROM ${qs}.sqlite_schema m, pragma_foreign_key_list(m.name, ?) f WHERE m.type = 'table' AND f."table" = ? COLLATE NOCASE ORDER BY m.name, f.id, f.seq`,
      [sname, name],
    );
    const byId = new Map<string, ChildFk>();
    for (const f of fks) {
      const k = `${String(f.child)}\u0000${String(f.id)}`;
      let c = byId.get(k);
      if (c === undefined) {
        c = { table: `${sname}.${String(f.child)}`, q: `${qs}.${quoteIdent(String(f.child))}`, columns: [], parentColumns: [], onDelete: SQLITE_ACTION[String(f.del)] ?? "cascade", onUpdate: SQLITE_ACTION[String(f.upd)] ?? "cascade" };
        byId.set(k, c);
      }
      c.columns.push(String(f.col));
      // `to` is NULL when the foreign key names the parent's primary key implicitly.
      c.parentColumns.push(f.pcol === null ? (info.pk?.[c.columns.length - 1] ?? "") : String(f.pcol));
    }
    info.children = [...byId.values()];
    info.triggers = (await this.db.read(`SELECT name FROM ${qs}.sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE`, [name])).map((r) => ({ name: String(r.name), events: ["any"] }));
    // A TEMP trigger may fire on a table of another schema (lang_createtrigger.html, "Cautions On The Use
    // Of TEMP Triggers"); it names the table without its schema, so one on any table of this name counts.
    if (sname !== "temp") for (const r of await this.db.read("SELECT name FROM temp.sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE", [name])) info.triggers.push({ name: `temp.${String(r.name)}`, events: ["any"] });
    const seq = await this.db.read(`SELECT 1 FROM ${qs}.sqlite_schema WHERE name = 'sqlite_sequence'`);
    if (seq.length > 0) info.sequence = (await this.db.read(`SELECT 1 FROM ${qs}.sqlite_sequence WHERE name = ?`, [name])).length > 0;
    info.definition = (await this.db.read(`SELECT sql FROM ${qs}.sqlite_schema WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY (type = 'table') DESC, (type = 'trigger'), rowid`, [name])).map((r) => String(r.sql));
    return info;
  }

  /** The catalog query as a prepared statement of the session (PostgreSQL plans a query of this size in
   * ~4 ms; EXECUTE reuses the plan). PREPARE is not transactional and changes no data; a session that
   * dropped it (DEALLOCATE, DISCARD) gets it again. */
  private async pgCatalog(qname: string): Promise<Row[]> {
    // No statement here may fail: an error aborts the transaction it runs in.
    if (!prepared.has(this.db)) {
      const there = await this.db.read("SELECT 1 AS x FROM pg_prepared_statements WHERE name = $1", [PG_CATALOG_NAME]);
      if (there.length === 0) await this.db.read(`PREPARE ${PG_CATALOG_NAME} (text) AS ${PG_CATALOG}`);
      prepared.add(this.db);
    }
    // Outside the try: a name that cannot be a literal is a StateError, not a dropped statement.
    const literal = pgLiteral(qname);
    try {
      return await this.db.read(`EXECUTE ${PG_CATALOG_NAME}(${literal})`);
    } catch (e) {
      // DEALLOCATE / DISCARD since: prepared again on the next try (the caller retries once).
      prepared.delete(this.db);
      throw new CatalogRetry((e as Error).message);
    }
  }

  private async pgTable(rel: RelName): Promise<TableInfo> {
    const qname = rel.schema === null ? quoteIdent(rel.name) : `${quoteIdent(rel.schema)}.${quoteIdent(rel.name)}`;
    // One round trip (PGlite plans every query: each costs ~0.5 ms): the relation, its columns, key,
    // the foreign keys that reference it, triggers, rules, sequences, inheritance.
    const r = (await this.pgCatalog(qname))[0] ?? {};
    const absentSchema = rel.schema ?? String(r.cs ?? "public");
    const base: TableInfo = { name: `${absentSchema}.${rel.name}`, q: qname, kind: "absent", columns: [], insertable: [], identityAlways: false, pk: null, children: [], triggers: [], sequence: false, inherited: false, definition: null };
    const f = json(r.rel) as { schema: string; name: string; kind: string } | null;
    if (f === null) return base;
    const kind = f.kind;
    const info: TableInfo = {
      ...base, name: `${f.schema}.${f.name}`, q: `${quoteIdent(f.schema)}.${quoteIdent(f.name)}`,
      kind: kind === "r" || kind === "p" ? "table" : kind === "v" ? "view" : kind === "i" ? "index" : "other",
      inherited: kind === "p" || r.inh === true,
    };
    if (info.kind !== "table" && info.kind !== "view") return info;
    const cols = (json(r.cols) ?? []) as { n: string; g: string; i: string; j: boolean }[];
    // A json column (or a domain over json, or an array of json) keeps its text as written: whitespace,
    // key order, repeated keys. A row is kept as jsonb (to_jsonb), which normalises them, so no row of
    // such a table can be put back exactly.
    const js = cols.find((c) => c.j === true);
    if (js !== undefined) throw new StateError(`${info.name} has a json column (${js.n}): its text (whitespace, key order, repeated keys) cannot be kept exactly`);
    info.columns = cols.map((c) => c.n);
    info.insertable = cols.filter((c) => (c.g ?? "") === "").map((c) => c.n);
    info.identityAlways = cols.some((c) => c.i === "a");
    const pk = (json(r.pk) ?? []) as string[];
    info.pk = pk.length > 0 ? pk : null;
    info.children = ((json(r.fks) ?? []) as { schema: string; child: string; del: string; upd: string; cols: string[]; pcols: string[] }[]).map((x) => ({
      table: `${x.schema}.${x.child}`, q: `${quoteIdent(x.schema)}.${quoteIdent(x.child)}`,
      columns: x.cols ?? [], parentColumns: x.pcols ?? [], onDelete: PG_ACTION[x.del] ?? "cascade", onUpdate: PG_ACTION[x.upd] ?? "cascade",
    }));
    for (const t of (json(r.trig) ?? []) as { n: string; t: number }[]) {
      const bits = Number(t.t);
      const events = [bits & 4 ? "insert" : "", bits & 8 ? "delete" : "", bits & 16 ? "update" : "", bits & 32 ? "truncate" : ""].filter((e) => e !== "");
      info.triggers.push({ name: t.n, events });
    }
    for (const w of (json(r.rules) ?? []) as { n: string; e: string }[]) info.triggers.push({ name: `rule ${w.n}`, events: [({ "2": "update", "3": "insert", "4": "delete" } as Record<string, string>)[w.e] ?? "any"] });
    info.sequence = r.seq === true;
    return info;
  }
}

/** A json column: parsed by PGlite and node-postgres; a string from a driver that does not. */
function json(v: unknown): unknown {
  return typeof v === "string" ? JSON.parse(v) : (v ?? null);
}

const prepared = new WeakSet<SqlAdapter>();

/** A PostgreSQL string constant (EXECUTE takes no bind parameters): the E'' form, whose escapes do
 * not depend on standard_conforming_strings (PostgreSQL "String Constants with C-Style Escapes"). */
function pgLiteral(s: string): string {
  if (s.includes("\u0000")) throw new StateError("a name with a NUL character");
  return `E'${s.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}
const PG_CATALOG_NAME = "polar_sql_catalog_v2";
const PG_CATALOG = `WITH r AS (SELECT c.oid, n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1))
SELECT current_schema() AS cs,
  (SELECT json_build_object('schema', r.nspname, 'name', r.relname, 'kind', r.relkind::text) FROM r) AS rel,
  (SELECT json_agg(json_build_object('n', a.attname, 'g', a.attgenerated::text, 'i', a.attidentity::text,
      'j', COALESCE((SELECT ty.typbasetype FROM pg_type ty WHERE ty.oid = a.atttypid AND ty.typtype = 'd'), a.atttypid) IN ('json'::regtype, '_json'::regtype)) ORDER BY a.attnum)
    FROM r JOIN pg_attribute a ON a.attrelid = r.oid WHERE a.attnum > 0 AND NOT a.attisdropped) AS cols,
  (SELECT json_agg(a.attname ORDER BY k.ord) FROM r JOIN pg_index i ON i.indrelid = r.oid AND i.indisprimary CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) AS pk,
  (SELECT json_agg(json_build_object('schema', ns.nspname, 'child', cr.relname, 'del', c.confdeltype::text, 'upd', c.confupdtype::text,
      'cols', (SELECT json_agg(a.attname ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(num, ord) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.num),
      'pcols', (SELECT json_agg(a.attname ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY k(num, ord) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.num)) ORDER BY c.conname)
    FROM r JOIN pg_constraint c ON c.contype = 'f' AND c.confrelid = r.oid JOIN pg_class cr ON cr.oid = c.conrelid JOIN pg_namespace ns ON ns.oid = cr.relnamespace) AS fks,
  (SELECT json_agg(json_build_object('n', t.tgname, 't', t.tgtype::int)) FROM r JOIN pg_trigger t ON t.tgrelid = r.oid AND NOT t.tgisinternal) AS trig,
  (SELECT json_agg(json_build_object('n', w.rulename, 'e', w.ev_type::text)) FROM r JOIN pg_rewrite w ON w.ev_class = r.oid AND w.rulename <> '_RETURN') AS rules,
  (EXISTS (SELECT 1 FROM r JOIN pg_attribute a ON a.attrelid = r.oid AND a.attidentity <> '') OR EXISTS (SELECT 1 FROM r JOIN pg_depend d ON d.refobjid = r.oid JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S')) AS seq,
  EXISTS (SELECT 1 FROM r JOIN pg_inherits h ON h.inhparent = r.oid) AS inh`;

// ---------------------------------------------------------------------------------------------------
// Rows.

/** SQLite values tagged by storage class, so a row goes back exactly (integers stay integers). */
export function encodeSqliteValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return { i: v.toString() };
  if (typeof v === "number") return Number.isFinite(v) ? { r: v } : { r: String(v) };
  if (typeof v === "string") return v;
  if (v instanceof Uint8Array) return { b: Buffer.from(v).toString("hex") };
  throw new StateError(`a SQLite value of an unknown kind (${typeof v})`);
}

export function decodeSqliteValue(v: unknown): unknown {
  if (v === null || typeof v === "string") return v;
  const o = v as { i?: string; r?: number | string; b?: string };
  if (o.i !== undefined) return BigInt(o.i);
  if (o.r !== undefined) return Number(o.r);
  if (o.b !== undefined) return Buffer.from(o.b, "hex");
  throw new StateError("a corrupted SQLite value in a restore point");
}

/** A row of a SQLite table as a canonical string (columns in table order). */
export function sqliteRowText(row: Row, columns: readonly string[]): string {
  return JSON.stringify(columns.map((c) => encodeSqliteValue(row[c])));
}

export interface ScopeRows {
  /** Canonical row strings. */
  rows: string[];
  /** Physical row ids (SQLite rowid, PostgreSQL ctid), parallel to rows. */
  rids: string[];
  /** Primary keys as canonical strings, parallel to rows (tables with a key). */
  keys: string[];
}

/** PostgreSQL: the key as the server prints it (exact for every type). */
function pgKeySel(t: TableInfo, alias: string): string {
  return t.pk === null ? "NULL::text" : `jsonb_build_array(${t.pk.map((c) => `${alias}.${quoteIdent(c)}`).join(", ")})::text`;
}

function sqliteKeys(t: TableInfo, rows: string[]): string[] {
  return t.pk === null ? rows.map(() => "") : rows.map((r) => keyOf(t, r));
}

/** Every row of a table (the caller has bounded it). */
export async function readTable(db: SqlAdapter, t: TableInfo): Promise<ScopeRows> {
  if (db.dialect === "postgres") {
    const r = await db.read(`SELECT t.ctid::text AS rid, to_jsonb(t)::text AS r, ${pgKeySel(t, "t")} AS k FROM ${t.q} AS t`);
    return { rows: r.map((x) => String(x.r)), rids: r.map((x) => String(x.rid)), keys: r.map((x) => String(x.k)) };
  }
  const ridSel = t.pk === null || (await hasRowid(db, t)) ? "rowid AS __polar_rid, " : "NULL AS __polar_rid, ";
  const r = await db.read(`SELECT ${ridSel}* FROM ${t.q}`);
  const rows = r.map((x) => sqliteRowText(x, t.columns));
  return { rows, rids: r.map((x) => String(x.__polar_rid)), keys: sqliteKeys(t, rows) };
}

async function hasRowid(db: SqlAdapter, t: TableInfo): Promise<boolean> {
  try {
    await db.read(`SELECT rowid FROM ${t.q} LIMIT 0`);
    return true;
  } catch {
    return false;
  }
}

/** The rows of a table whose (single, integer) key is above `above`. */
export async function readRange(db: SqlAdapter, t: TableInfo, above: string): Promise<ScopeRows> {
  const pk = quoteIdent(t.pk![0]!);
  if (db.dialect === "postgres") {
    const r = await db.read(`SELECT t.ctid::text AS rid, to_jsonb(t)::text AS r, ${pgKeySel(t, "t")} AS k FROM ${t.q} AS t WHERE t.${pk} > $1::bigint`, [above]);
    return { rows: r.map((x) => String(x.r)), rids: r.map((x) => String(x.rid)), keys: r.map((x) => String(x.k)) };
  }
  const r = await db.read(`SELECT * FROM ${t.q} WHERE ${pk} > ?`, [BigInt(above)]);
  const rows = r.map((x) => sqliteRowText(x, t.columns));
  return { rows, rids: rows.map(() => ""), keys: sqliteKeys(t, rows) };
}

/** The rows of a table whose primary key is one of the keys of `like` (canonical rows). */
export async function readKeys(db: SqlAdapter, t: TableInfo, like: readonly string[]): Promise<ScopeRows> {
  const pk = t.pk!;
  if (like.length === 0) return { rows: [], rids: [], keys: [] };
  if (db.dialect === "postgres") {
    const cols = pk.map((c) => `t.${quoteIdent(c)}`).join(", ");
    const rcols = pk.map((c) => `r.${quoteIdent(c)}`).join(", ");
    const r = await db.read(`SELECT t.ctid::text AS rid, to_jsonb(t)::text AS r, ${pgKeySel(t, "t")} AS k FROM ${t.q} AS t WHERE (${cols}) IN (SELECT ${rcols} FROM jsonb_populate_recordset(NULL::${t.q}, $1::jsonb) AS r)`, [`[${like.join(",")}]`]);
    return { rows: r.map((x) => String(x.r)), rids: r.map((x) => String(x.rid)), keys: r.map((x) => String(x.k)) };
  }
  const idx = pk.map((c) => t.columns.indexOf(c));
  const where = pk.map((c) => `${quoteIdent(c)} IS ?`).join(" AND ");
  const out: ScopeRows = { rows: [], rids: [], keys: [] };
  for (const text of like) {
    const vals = JSON.parse(text) as unknown[];
    const r = await db.read(`SELECT * FROM ${t.q} WHERE ${where}`, idx.map((i) => decodeSqliteValue(vals[i])));
    for (const x of r) {
      const row = sqliteRowText(x, t.columns);
      out.rows.push(row);
      out.rids.push("");
      out.keys.push(keyOf(t, row));
    }
  }
  return out;
}

export function fingerprintRows(rows: readonly string[]): string {
  const h = createHash("sha256");
  for (const r of [...rows].sort()) h.update(r).update("\n");
  return h.digest("hex");
}

/** SQLite: the primary key of a canonical row, as a string (for diffing). */
export function keyOf(t: TableInfo, row: string): string {
  const pk = t.pk!;
  const vals = JSON.parse(row) as unknown[];
  return JSON.stringify(pk.map((c) => vals[t.columns.indexOf(c)]));
}
