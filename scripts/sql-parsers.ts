// Which parser reads SQLite statements as SQLite does? (issue 25; docs/sql.md "Choosing the parser")
// For each statement (all valid SQLite): parse it, build the pre-image SELECT of its target rows from
// the parser's AST (never from the text), run that SELECT, run the statement itself with RETURNING in
// a transaction that is rolled back, and compare the rows. "wrong" = the parser accepted the statement
// and its pre-image differs from the rows SQLite changed: a silent mis-read. "refused" = not accepted
// (fail closed). Candidates: libpg-query (PostgreSQL's parser) + pgsql-deparser, with SQLite's EXPLAIN
// bytecode of the original and of the deparsed statement compared (the guard's check); node-sql-parser
// in its sqlite mode (AST + sqlify).
//   npx tsx scripts/sql-parsers.ts
import Database from "better-sqlite3";
import pkg from "node-sql-parser";
import { loadModule, parseSync } from "libpg-query";
import { deparseSync } from "pgsql-deparser";

const SCHEMA = `CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL, d BLOB);
INSERT INTO t VALUES (1, 1, 'a', 1.5, x'00'), (2, 2, 'a1', 2.0, NULL), (3, NULL, 'B', NULL, x'01'), (4, 3, 'a3', -1, NULL), (5, 0, 'x''y', 3.25, NULL), (6, 5, '5', 5, NULL);
CREATE TABLE u (id INTEGER PRIMARY KEY, tid INTEGER, v TEXT);
INSERT INTO u VALUES (1, 1, 'k'), (2, 4, 'k'), (3, 4, 'm');`;

const WHERES = [
  "a = 1", "a == 1", "a <> 1", "a != 1", "b || 1 + 2 = 'a3'", "b || a = 'a1'", "a + 1 * 2 = 4", "a IS NULL", "a ISNULL", "a NOTNULL",
  "a IS 1", "a IS NOT 1", "a IS NOT DISTINCT FROM 1", "a BETWEEN 1 AND 3", "a = 1 BETWEEN 0 AND 1", "a < 2 = 1", "a & 1 = 1", "a | 2 = 3", "a << 1 = 4",
  "b LIKE 'A%'", "b GLOB 'a*'", "b = 'b' COLLATE NOCASE", "b LIKE 'x!'%' ESCAPE '!'", "\"b\" = 'a'", "b = \"a\"", "`b` = 'a'", "[b] = 'a'",
  "a IN (1, 3)", "a IN (SELECT tid FROM u)", "EXISTS (SELECT 1 FROM u WHERE u.tid = t.id)", "CASE WHEN a > 1 THEN 1 ELSE 0 END = 1",
  "CAST(c AS INTEGER) = 2", "d = x'00'", "a = 0x03", "NOT a = 1", "NOT a IS NULL", "a > 1 AND b LIKE 'a%' OR c IS NULL", "abs(c) = 1", "rowid = 2",
  "a % 2 = 1", "-a = -1", "b > 'a' AND b < 'b'", "c = 2", "c = 2.0", "a IN ()", "length(b) = 2", "coalesce(a, 9) = 9", "b REGEXP 'a'",
];
const TEMPLATES = [
  (w: string) => `DELETE FROM t WHERE ${w}`,
  (w: string) => `UPDATE t SET a = 7 WHERE ${w}`,
];
const EXTRA = [
  "DELETE FROM t", "DELETE FROM t AS x WHERE x.a = 1", "UPDATE OR IGNORE t SET a = 1 WHERE b = 'a'", "UPDATE t SET a = u.id FROM u WHERE u.tid = t.id",
  "WITH k AS (SELECT tid FROM u) DELETE FROM t WHERE id IN (SELECT tid FROM k)", "DELETE FROM main.t WHERE a = 1", "REPLACE INTO t VALUES (1, 1, 'a', 1.5, NULL)",
  "INSERT OR REPLACE INTO t VALUES (1, 1, 'a', 1.5, NULL)", "INSERT INTO t VALUES (9, 1, 'z', 0, NULL) ON CONFLICT(id) DO UPDATE SET a = excluded.a",
];

type Target = { table: string; select: string } | null;

function pgTarget(sql: string, db: Database.Database): { target: Target; refused?: string } {
  let r;
  try {
    r = parseSync(sql);
  } catch (e) {
    return { target: null, refused: `parse: ${(e as Error).message}` };
  }
  const s = r.stmts![0]!.stmt as Record<string, any>;
  const d = s.DeleteStmt ?? s.UpdateStmt;
  if (d === undefined) return { target: null, refused: "not DELETE/UPDATE" };
  // SQLite's own reading must equal the AST's: the bytecode of the original and of the deparsed statement.
  const again = deparseSync({ version: 170000, stmts: [{ stmt: s }] } as any);
  const bc = (q: string) => db.prepare(`EXPLAIN ${q}`).all().map((x: any) => `${x.opcode} ${x.p1} ${x.p2} ${x.p3} ${x.p4} ${x.p5}`).join("\n");
  try {
    if (process.env.NO_EXPLAIN_CHECK !== "1" && bc(sql) !== bc(again)) return { target: null, refused: `SQLite reads it differently: ${again}` };
  } catch (e) {
    return { target: null, refused: `deparsed: ${(e as Error).message}` };
  }
  const rel = d.relation;
  const name = rel.alias?.aliasname ?? rel.relname;
  const sel = { SelectStmt: { targetList: [{ ResTarget: { val: { ColumnRef: { fields: [{ String: { sval: name } }, { String: { sval: "id" } }] } } } }], fromClause: [{ RangeVar: rel }, ...(d.usingClause ?? d.fromClause ?? [])], whereClause: d.whereClause, withClause: d.withClause, limitOption: "LIMIT_OPTION_DEFAULT", op: "SETOP_NONE" } };
  return { target: { table: rel.relname, select: deparseSync({ version: 170000, stmts: [{ stmt: sel }] } as any) } };
}

const nsp = new pkg.Parser();
function nspTarget(sql: string): { target: Target; refused?: string } {
  let ast: any;
  try {
    ast = nsp.astify(sql, { database: "sqlite" });
  } catch (e) {
    return { target: null, refused: `parse: ${(e as Error).message.slice(0, 80)}` };
  }
  if (Array.isArray(ast)) ast = ast[0];
  if (ast.type !== "delete" && ast.type !== "update") return { target: null, refused: "not DELETE/UPDATE" };
  const t = ast.table[0];
  const name = t.as ?? t.table;
  const from = ast.type === "delete" ? ast.from : [...ast.table, ...(ast.from ?? [])];
  const sel = { with: ast.with, type: "select", columns: [{ expr: { type: "column_ref", table: name, column: "id" }, as: null }], from, where: ast.where };
  try {
    return { target: { table: t.table, select: nsp.sqlify(sel as any, { database: "sqlite" }) } };
  } catch (e) {
    return { target: null, refused: `sqlify: ${(e as Error).message.slice(0, 80)}` };
  }
}

await loadModule();
const statements = [...TEMPLATES.flatMap((f) => WHERES.map(f)), ...EXTRA];
const tally: Record<string, { accepted: number; refused: number; wrong: number; wrongList: string[]; ms: number }> = {};
for (const [label, fn] of [["libpg-query + EXPLAIN check", pgTarget], ["node-sql-parser (sqlite)", nspTarget]] as const) {
  const t: { accepted: number; refused: number; wrong: number; wrongList: string[]; ms: number } = (tally[label] = { accepted: 0, refused: 0, wrong: 0, wrongList: [], ms: 0 });
  for (const sql of statements) {
    const db = new Database(":memory:");
    db.exec(SCHEMA);
    let truth: string | null;
    try {
      db.exec("BEGIN");
      truth = JSON.stringify(db.prepare(`${sql} RETURNING id`).all().map((r: any) => r.id).sort());
      db.exec("ROLLBACK");
    } catch {
      truth = null; // not valid SQLite (or not a row statement): skipped
      if (db.inTransaction) db.exec("ROLLBACK");
    }
    const t0 = performance.now();
    const r = (fn as any)(sql, db) as { target: Target; refused?: string };
    let got: string | null = null;
    if (r.target !== null) {
      try {
        got = JSON.stringify([...new Set(db.prepare(r.target.select).all().map((x: any) => x.id ?? Object.values(x)[0]))].sort());
      } catch (e) {
        r.refused = `select: ${(e as Error).message}`;
      }
    }
    t.ms += performance.now() - t0;
    if (truth === null) continue;
    if (got === null) { t.refused++; if (process.env.VERBOSE) console.log(`  [${label}] refused: ${sql} — ${r.refused?.split("\n")[0]}`); }
    else if (got === truth) t.accepted++;
    else {
      t.wrong++;
      t.wrongList.push(`${sql}  (SQLite changed ${truth}, pre-image ${got})`);
    }
    db.close();
  }
}
for (const [k, v] of Object.entries(tally)) {
  console.log(`${k}: ${v.accepted} read right, ${v.refused} refused (fail closed), ${v.wrong} WRONG; ${(v.ms / statements.length).toFixed(3)} ms/statement`);
  for (const w of v.wrongList) console.log(`   wrong: ${w}`);
}
