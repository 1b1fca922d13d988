// Statement string → typed calls. The parser is PostgreSQL's own (libpg-query, compiled to wasm) for
// both dialects; for SQLite the guard also asks SQLite itself (src/sql/guard.ts: the EXPLAIN bytecode
// of the statement as written and as the parser read it must be equal), so a statement SQLite reads
// differently is refused, never mis-judged (scripts/sql-parsers.ts measures this; docs/sql.md).
// Nothing here reads the text: statements are split at the parser's own offsets, and every SELECT the
// guard runs is built from the AST and printed by pgsql-deparser.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { SqlDialect } from "./adapter.js";

type Node = any;

interface Parser {
  parseSync(sql: string): { stmts: { stmt: Node; stmt_location?: number; stmt_len?: number }[] };
  deparseSync(ast: Node): string;
}

let parser: Parser | null = null;

export class SqlParserMissing extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SqlParserMissing";
  }
}

/** Loads libpg-query's wasm and pgsql-deparser once per process (optional peer dependencies of
 * polar-guard/sql). */
export async function loadSqlParser(): Promise<void> {
  if (parser !== null) return;
  let lib: any;
  let dep: any;
  try {
    lib = await import("libpg-query");
    dep = await import("pgsql-deparser");
  } catch (e) {
    throw new SqlParserMissing(`polar-guard/sql needs the packages libpg-query and pgsql-deparser: npm install libpg-query pgsql-deparser (${(e as Error).message})`);
  }
  await lib.loadModule();
  const deparseSync = dep.deparseSync ?? dep.default?.deparseSync;
  if (typeof lib.parseSync !== "function" || typeof deparseSync !== "function") throw new SqlParserMissing("libpg-query / pgsql-deparser: unexpected module shape");
  parser = { parseSync: lib.parseSync, deparseSync: (ast) => deparseSync(ast) };
}

function p(): Parser {
  if (parser === null) throw new SqlParserMissing("loadSqlParser() was not awaited");
  return parser;
}

/** Prints one statement or expression node back as SQL. */
export function deparse(stmt: Node): string {
  return p().deparseSync({ version: 170000, stmts: [{ stmt }] });
}

export const MAX_STATEMENT_BYTES = 1_000_000;

export type ProblemReason = "unparsed" | "unknown_command" | "unknown_effect" | "malformed_call";

export interface Problem {
  reason: ProblemReason;
  detail: string;
  source: string;
}

/** The relation a call acts on, as written (schema may be absent). */
export interface RelName {
  schema: string | null;
  name: string;
}

/** What the guard needs to read the rows a DML call touches. */
export interface DmlPlan {
  kind: "insert" | "update" | "delete";
  relation: Node; // RangeVar
  /** USING (DELETE) / FROM (UPDATE) items. */
  from: Node[];
  where: Node | undefined;
  /** The statement's WITH clause when it holds no data-modifying CTE (else the rows are not read). */
  with: Node | undefined;
  /** UPDATE: the columns it sets. INSERT: the columns it names (null: all). */
  columns: string[] | null;
  /** INSERT … ON CONFLICT: "nothing" | "update"; else null. */
  conflict: "nothing" | "update" | null;
  /** INSERT … VALUES: the rows' values when every one is a constant (for key scopes). */
  values: Node[][] | null;
  /** True when the statement's rows can be read by a SELECT built from it (no data-modifying CTE). */
  readable: boolean;
}

export interface SqlCall {
  /** sql_insert, sql_update, sql_delete, sql_truncate, sql_drop, sql_create, sql_alter, sql_begin. */
  name: string;
  arguments: Record<string, unknown>;
  /** The statement as written. */
  source: string;
  rel: RelName | null;
  plan?: DmlPlan;
  /** Index of the statement in the string. */
  statement: number;
}

export interface ParsedStatement {
  index: number;
  /** The statement as written (the parser's offsets). */
  text: string;
  /** The statement as the parser read it, printed again (SQLite: its bytecode must equal the text's). */
  printed: string | null;
  readOnly: boolean;
}

export interface Dispatch {
  calls: SqlCall[];
  problems: Problem[];
  statements: ParsedStatement[];
}

/** Deterministic functions without side effects that may appear in a statement the guard judges (their
 * value is the same in the pre-image SELECT and in the statement). Anything else (nextval, setval,
 * random, pg_terminate_backend, lo_unlink, dblink, a user's function …) is an unknown effect. */
const PURE_FUNCTIONS = new Set([
  "abs", "coalesce", "nullif", "lower", "upper", "length", "char_length", "octet_length", "substr", "substring", "trim", "ltrim", "rtrim",
  "btrim", "replace", "round", "floor", "ceil", "ceiling", "trunc", "sign", "mod", "greatest", "least", "concat", "concat_ws", "left", "right",
  "position", "strpos", "instr", "ifnull", "iif", "typeof", "hex", "quote", "lpad", "rpad", "reverse", "repeat", "split_part", "md5", "sqrt",
  "power", "exp", "ln", "log", "min", "max", "sum", "count", "avg", "total", "array_length", "cardinality", "unnest", "json_extract", "jsonb_extract_path",
  "date", "julianday", "strftime", "date_trunc", "extract", "date_part", "starts_with", "format", "to_char", "unicode", "char",
]);

const DML = new Set(["InsertStmt", "UpdateStmt", "DeleteStmt"]);

function relOf(rv: Node): RelName {
  return { schema: typeof rv?.schemaname === "string" ? rv.schemaname : null, name: String(rv?.relname) };
}

function relText(r: RelName): string {
  return r.schema === null ? r.name : `${r.schema}.${r.name}`;
}

/** Walks every node of an AST. */
function walk(n: Node, visit: (key: string, v: Node) => void): void {
  if (n === null || typeof n !== "object") return;
  if (Array.isArray(n)) {
    for (const x of n) walk(x, visit);
    return;
  }
  for (const [k, v] of Object.entries(n)) {
    visit(k, v);
    walk(v, visit);
  }
}

/** PostgreSQL's and SQLite's special date/time input strings that read the clock ('now'::date,
 * date('now'), datetime('now'), …). */
const CLOCK_WORDS = new Set(["now", "today", "tomorrow", "yesterday"]);

/** A string constant that reads the clock when it is converted to a date or time. */
function clockWord(n: Node): string | null {
  const v = n?.A_Const?.sval?.sval;
  return typeof v === "string" && CLOCK_WORDS.has(v.trim().toLowerCase()) ? v : null;
}

/** Problems inside one statement's expressions: side-effecting functions, and the clock (read again
 * when the statement runs, so the rows it matches then may not be the rows the guard read). */
function effects(stmt: Node, source: string): Problem[] {
  const out: Problem[] = [];
  const clock = (what: string): void => {
    out.push({ reason: "unknown_effect", detail: `${what} is the time when the statement runs, not when the guard read its rows`, source });
  };
  walk(stmt, (k, v) => {
    if (k === "SQLValueFunction" && /^SVFOP_(CURRENT_DATE|CURRENT_TIME|LOCALTIME)/.test(String(v?.op))) clock(String(v.op).replace(/^SVFOP_/, "").replace(/_N$/, ""));
    // Any such string: a cast, a function, COALESCE, a comparison with a date column all convert it.
    if (k === "A_Const" && clockWord({ A_Const: v }) !== null) clock(`'${clockWord({ A_Const: v })!}'`);
    if (k === "FuncCall") {
      const names = (v.funcname ?? []).map((x: Node) => x?.String?.sval);
      const name = String(names[names.length - 1] ?? "").toLowerCase();
      const schema = names.length > 1 ? String(names[0]).toLowerCase() : null;
      if (!PURE_FUNCTIONS.has(name) || (schema !== null && schema !== "pg_catalog")) {
        out.push({ reason: "unknown_effect", detail: `the function ${names.join(".")}() may have effects the guard cannot see`, source });
      }
    }
  });
  return out;
}

function planOf(kind: DmlPlan["kind"], s: Node, withClause: Node | undefined, readable: boolean): DmlPlan {
  const plan: DmlPlan = { kind, relation: s.relation, from: [], where: s.whereClause, with: readable ? withClause : undefined, columns: null, conflict: null, values: null, readable };
  if (kind === "delete") plan.from = s.usingClause ?? [];
  if (kind === "update") {
    plan.from = s.fromClause ?? [];
    plan.columns = (s.targetList ?? []).map((t: Node) => String(t.ResTarget?.name));
  }
  if (kind === "insert") {
    plan.columns = s.cols === undefined ? null : s.cols.map((t: Node) => String(t.ResTarget?.name));
    const oc = s.onConflictClause;
    plan.conflict = oc === undefined ? null : oc.action === "ONCONFLICT_NOTHING" ? "nothing" : "update";
    const sel = s.selectStmt?.SelectStmt;
    if (sel?.valuesLists !== undefined && sel.fromClause === undefined) {
      const rows: Node[][] = sel.valuesLists.map((l: Node) => l.List?.items ?? []);
      plan.values = rows.every((r) => r.every((x) => x.A_Const !== undefined)) ? rows : null;
    }
  }
  return plan;
}

const TOOL: Record<string, "sql_insert" | "sql_update" | "sql_delete"> = { InsertStmt: "sql_insert", UpdateStmt: "sql_update", DeleteStmt: "sql_delete" };
const KIND: Record<string, DmlPlan["kind"]> = { InsertStmt: "insert", UpdateStmt: "update", DeleteStmt: "delete" };

/** One statement → typed calls (or problems). */
function statementCalls(stmt: Node, index: number, text: string, calls: SqlCall[], problems: Problem[]): boolean {
  const type = Object.keys(stmt)[0]!;
  const s = stmt[type];
  const add = (name: string, rel: RelName | null, args: Record<string, unknown>): void => {
    calls.push({ name, arguments: { ...(rel !== null ? { table: relText(rel) } : {}), ...args }, source: text, rel, statement: index });
  };
  const unknown = (detail: string): boolean => {
    problems.push({ reason: "unknown_command", detail, source: text });
    return false;
  };
  switch (type) {
    case "SelectStmt": {
      if (s.intoClause !== undefined) return unknown("SELECT … INTO creates a table");
      const ctes = (s.withClause?.ctes ?? []).filter((c: Node) => DML.has(Object.keys(c.CommonTableExpr?.ctequery ?? {})[0] ?? ""));
      if (ctes.length > 0) return dmlWith(stmt, s, index, text, calls, problems);
      problems.push(...effects(stmt, text));
      return true;
    }
    case "InsertStmt":
    case "UpdateStmt":
    case "DeleteStmt":
      return dmlWith(stmt, s, index, text, calls, problems);
    case "TruncateStmt":
      for (const r of s.relations ?? []) add("sql_truncate", relOf(r.RangeVar), { cascade: s.behavior === "DROP_CASCADE", restart: s.restart_seqs === true, only: r.RangeVar?.inh !== true });
      return false;
    case "DropStmt": {
      const kinds: Record<string, string> = { OBJECT_TABLE: "table", OBJECT_INDEX: "index", OBJECT_VIEW: "view" };
      const kind = kinds[s.removeType];
      if (kind === undefined) return unknown(`DROP ${String(s.removeType).replace("OBJECT_", "")} is not judged`);
      for (const o of s.objects ?? []) {
        const parts: string[] = (o.List?.items ?? []).map((x: Node) => String(x.String?.sval));
        if (parts.length === 0 || parts.length > 2) return unknown("DROP of an object with a name in three parts");
        const rel: RelName = parts.length === 2 ? { schema: parts[0]!, name: parts[1]! } : { schema: null, name: parts[0]! };
        add("sql_drop", rel, { kind, cascade: s.behavior === "DROP_CASCADE", ifExists: s.missing_ok === true });
      }
      return false;
    }
    case "CreateStmt":
    case "CreateTableAsStmt":
    case "ViewStmt":
    case "IndexStmt": {
      if (type === "CreateStmt" && (s.inhRelations !== undefined || s.partbound !== undefined || s.partspec !== undefined)) return unknown("CREATE TABLE with inheritance or partitions is not judged");
      if (type === "CreateTableAsStmt" && s.objtype !== "OBJECT_TABLE") return unknown("CREATE MATERIALIZED VIEW is not judged");
      problems.push(...effects(stmt, text));
      const rv = type === "CreateStmt" ? s.relation : type === "CreateTableAsStmt" ? s.into?.rel : type === "ViewStmt" ? s.view : undefined;
      if (type === "IndexStmt") {
        if (typeof s.idxname !== "string") return unknown("CREATE INDEX without a name");
        add("sql_create", { schema: s.relation?.schemaname ?? null, name: s.idxname }, { kind: "index", on: relText(relOf(s.relation)), ifNotExists: s.if_not_exists === true });
      } else {
        if (rv?.relpersistence === "t") return unknown("CREATE TEMPORARY is not judged");
        add("sql_create", relOf(rv), { kind: type === "ViewStmt" ? "view" : "table", ifNotExists: s.if_not_exists === true, replace: s.replace === true });
      }
      return false;
    }
    case "AlterTableStmt":
      if (s.objtype !== "OBJECT_TABLE") return unknown(`ALTER ${String(s.objtype).replace("OBJECT_", "")} is not judged`);
      add("sql_alter", relOf(s.relation), { commands: (s.cmds ?? []).map((c: Node) => String(c.AlterTableCmd?.subtype)) });
      return false;
    case "TransactionStmt":
      if (s.kind === "TRANS_STMT_BEGIN" || s.kind === "TRANS_STMT_START") {
        add("sql_begin", null, {});
        return true;
      }
      return unknown(`${String(s.kind).replace("TRANS_STMT_", "")} ends a transaction: the guard does not judge it`);
    case "ExplainStmt":
      if ((s.options ?? []).some((o: Node) => o.DefElem?.defname === "analyze")) return unknown("EXPLAIN ANALYZE runs the statement");
      return true;
    case "VariableShowStmt":
      return true;
    case "CopyStmt":
      if (s.is_program === true) return unknown("COPY … PROGRAM runs a program on the server");
      if (s.is_from === true) return unknown("COPY … FROM writes rows the guard cannot see");
      if (typeof s.filename === "string") return unknown("COPY … TO a file writes outside the database");
      return unknown("COPY is not judged");
    default:
      return unknown(`${type.replace(/Stmt$/, "")} is not a statement the guard knows`);
  }
}

/** INSERT/UPDATE/DELETE, and data-modifying CTEs, as calls. */
function dmlWith(stmt: Node, s: Node, index: number, text: string, calls: SqlCall[], problems: Problem[]): boolean {
  const ctes: Node[] = (s.withClause?.ctes ?? []).map((c: Node) => c.CommonTableExpr);
  const dml = ctes.filter((c) => DML.has(Object.keys(c?.ctequery ?? {})[0] ?? ""));
  if (s.withClause?.recursive === true && dml.length > 0) {
    problems.push({ reason: "unknown_command", detail: "a recursive WITH with a data-modifying CTE", source: text });
    return false;
  }
  problems.push(...effects(stmt, text));
  const readable = dml.length === 0;
  for (const c of dml) {
    const t = Object.keys(c.ctequery)[0]!;
    const inner = c.ctequery[t];
    if (inner.withClause !== undefined) {
      problems.push({ reason: "unknown_command", detail: "a nested WITH inside a data-modifying CTE", source: text });
      return false;
    }
    calls.push({ name: TOOL[t]!, arguments: { table: relText(relOf(inner.relation)) }, source: text, rel: relOf(inner.relation), plan: planOf(KIND[t]!, inner, undefined, false), statement: index });
  }
  const type = Object.keys(stmt)[0]!;
  if (DML.has(type)) {
    calls.push({ name: TOOL[type]!, arguments: { table: relText(relOf(s.relation)) }, source: text, rel: relOf(s.relation), plan: planOf(KIND[type]!, s, s.withClause, readable), statement: index });
  }
  return false;
}

/** Splits and reads a statement string. Never throws for a string. */
export function dispatchSql(sql: string, _dialect: SqlDialect): Dispatch {
  const calls: SqlCall[] = [];
  const problems: Problem[] = [];
  const statements: ParsedStatement[] = [];
  if (Buffer.byteLength(sql) > MAX_STATEMENT_BYTES) return { calls, problems: [{ reason: "unparsed", detail: `the statement is longer than ${MAX_STATEMENT_BYTES} bytes`, source: "" }], statements };
  let parsed;
  try {
    parsed = p().parseSync(sql);
  } catch (e) {
    if (e instanceof SqlParserMissing) throw e;
    return { calls, problems: [{ reason: "unparsed", detail: `the parser rejects it: ${(e as Error).message}`, source: sql.slice(0, 200) }], statements };
  }
  const bytes = Buffer.from(sql, "utf8");
  parsed.stmts.forEach((st, i) => {
    const from = st.stmt_location ?? 0;
    const text = bytes.subarray(from, st.stmt_len === undefined || st.stmt_len === 0 ? bytes.length : from + st.stmt_len).toString("utf8").trim();
    let printed: string | null = null;
    try {
      printed = deparse(st.stmt);
    } catch {
      printed = null;
    }
    const before = calls.length;
    const readOnly = statementCalls(st.stmt, i, text, calls, problems);
    statements.push({ index: i, text, printed, readOnly: readOnly && calls.length === before });
  });
  if (parsed.stmts.length === 0) problems.push({ reason: "unparsed", detail: "no statement", source: "" });
  return { calls, problems, statements };
}

/** The SELECT of the target rows of an UPDATE/DELETE (the target's columns, `rid` the row's physical
 * id: SQLite rowid, PostgreSQL ctid), built from the statement's own AST. */
export function targetSelect(plan: DmlPlan, dialect: SqlDialect, rid: string | null): string {
  const rv = plan.relation;
  const name = rv.alias?.aliasname ?? rv.relname;
  const q = rv.alias === undefined && typeof rv.schemaname === "string" ? [rv.schemaname, name] : [name];
  // SQLite's `table.*` takes no schema (lang_select.html, result-column): `main.t.*` is a syntax error.
  const star = dialect === "sqlite" ? [name] : q;
  const col = (c: string) => ({ ColumnRef: { fields: [...(c === "*" ? star : q).map((x: string) => ({ String: { sval: x } })), c === "*" ? { A_Star: {} } : { String: { sval: c } }] } });
  const targetList: Node[] = [{ ResTarget: { val: col("*") } }];
  if (rid !== null) targetList.push({ ResTarget: { name: "__polar_rid", val: col(dialect === "sqlite" ? "rowid" : "ctid") } });
  const sel: Node = { SelectStmt: { targetList, fromClause: [{ RangeVar: rv }, ...plan.from], limitOption: "LIMIT_OPTION_DEFAULT", op: "SETOP_NONE" } };
  if (plan.where !== undefined) sel.SelectStmt.whereClause = plan.where;
  if (plan.with !== undefined) sel.SelectStmt.withClause = plan.with;
  return deparse(sel);
}

/** Re-derives a read-only approval the gateway's SQL dispatcher recorded without a core decision
 * (`polar audit verify`, a `polar-dispatch/1` record): the parser's reading of the statement must have
 * no mutating call and no problem. Null when it is read-only, else why not. (SQLite's bytecode check,
 * made on the live database when the statement was judged, is not repeated.) */
export async function sqlReadOnlyChecker(): Promise<(statement: string, dialect: string) => string | null> {
  await loadSqlParser();
  return (statement, dialect) => {
    if (dialect !== "sqlite" && dialect !== "postgres") return `an SQL dialect (sqlite, postgres), not \`${dialect}\``;
    const d = dispatchSql(statement, dialect);
    if (d.problems.length > 0) return `not read-only: ${d.problems[0]!.reason} (${d.problems[0]!.detail})`;
    if (d.calls.length > 0 || d.statements.length === 0 || !d.statements.every((s) => s.readOnly)) return `not read-only: ${d.calls.map((c) => c.name).join(", ") || "a statement that changes something"}`;
    return null;
  };
}
