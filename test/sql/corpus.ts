// Proof by execution for polar-guard/sql (issue 25): random schemas (with and without primary keys,
// AUTOINCREMENT / serial, a child table with each ON DELETE / ON UPDATE action, triggers, NULLs,
// duplicate rows) × random statements (DELETE/UPDATE with WHERE, without, key changes, INSERT … VALUES
// and … SELECT, TRUNCATE, DROP, CREATE, ALTER, two statements in one string, data-modifying CTEs,
// side-effecting functions). Every approved statement runs for real, is observed and undone, and the
// database is compared with the one before: every table's rows as a multiset, the schema, and the
// sequences' names (their values are the declared residue). 0 differences is the bar. Every refusal
// must name what would be lost (a table of the statement) or why it was not judged.
// The runner takes any database (makeDb): SQLite, PGlite, a real PostgreSQL server.
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqlGuard, type SqlAdapter, type SqlDecision } from "../../src/sql/index.js";

export interface CorpusDb {
  db: SqlAdapter;
  /** Runs SQL as the agent's tool would (several statements allowed). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

export interface CorpusOptions {
  dialect: "sqlite" | "postgres";
  /** A fresh, empty database (or schema) per call. */
  makeDb: () => Promise<CorpusDb>;
  seed: number;
  cases: number;
  maxRows?: number;
}

export interface CorpusFailure {
  index: number;
  schema: string;
  statement: string;
  decision: Pick<SqlDecision, "approved" | "reason" | "message" | "tier">;
  problem: string;
}

export interface CorpusReport {
  cases: number;
  approved: number;
  refused: number;
  /** Approved statements that failed when run (nothing changed, or undone). */
  failedToRun: number;
  wrong: number;
  reasons: Record<string, number>;
  failures: CorpusFailure[];
}

interface Case {
  schema: Schema;
  statement: string;
}

interface Schema {
  pk: "int" | "none" | "seq" | "composite";
  child: null | { onDelete: string; onUpdate: string };
  trigger: boolean;
  fkOn: boolean;
  parentRows: { id: number; a: number | null; b: string | null; c: number | null }[];
  childRows: { id: number; pid: number | null; v: string | null }[];
}

const ACTIONS = ["CASCADE", "SET NULL", "SET DEFAULT", "RESTRICT", "NO ACTION"];
const TEXTS = ["x", "y", "o'q", "", null] as const;
const REALS = [1.5, -2, 0, 2.25, null] as const;

function lit(v: string | number | null): string {
  if (v === null) return "NULL";
  if (typeof v === "number") return String(v);
  return `'${v.replace(/'/g, "''")}'`;
}

const schemaArb: fc.Arbitrary<Schema> = fc.record({
  pk: fc.constantFrom("int", "none", "seq", "composite"),
  child: fc.option(fc.record({ onDelete: fc.constantFrom(...ACTIONS), onUpdate: fc.constantFrom(...ACTIONS) }), { nil: null }),
  trigger: fc.boolean(),
  fkOn: fc.boolean(),
  parentRows: fc.array(fc.record({ id: fc.constant(0), a: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }), b: fc.constantFrom(...TEXTS), c: fc.constantFrom(...REALS) }), { maxLength: 8 }),
  childRows: fc.array(fc.record({ id: fc.constant(0), pid: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }), v: fc.constantFrom(...TEXTS) }), { maxLength: 6 }),
}).map((s) => {
  const noKey = s.pk === "none";
  // Without a key, duplicate rows on purpose: the first row again.
  const rows = noKey && s.parentRows.length > 0 ? [...s.parentRows, s.parentRows[0]!] : s.parentRows;
  return { ...s, parentRows: rows.map((r, i) => ({ ...r, id: noKey ? (r.a ?? 0) : i + 1 })), childRows: s.childRows.map((r, i) => ({ ...r, id: i + 1 })) };
});

function schemaSql(s: Schema, dialect: "sqlite" | "postgres"): string {
  const real = dialect === "sqlite" ? "REAL" : "double precision";
  const out: string[] = [];
  const pcols = `a INTEGER, b TEXT, c ${real}`;
  switch (s.pk) {
    case "int":
      out.push(`CREATE TABLE p (id INTEGER PRIMARY KEY, ${pcols})`);
      break;
    case "none":
      out.push(`CREATE TABLE p (id INTEGER, ${pcols})`);
      break;
    case "seq":
      out.push(dialect === "sqlite" ? `CREATE TABLE p (id INTEGER PRIMARY KEY AUTOINCREMENT, ${pcols})` : `CREATE TABLE p (id serial PRIMARY KEY, ${pcols})`);
      break;
    case "composite":
      out.push(`CREATE TABLE p (id INTEGER, ${pcols}, PRIMARY KEY (id, b))`);
      break;
  }
  const withChild = s.child !== null && (s.pk === "int" || s.pk === "seq");
  if (withChild) out.push(`CREATE TABLE ch (id INTEGER PRIMARY KEY, pid INTEGER DEFAULT 1 REFERENCES p (id) ON DELETE ${s.child!.onDelete} ON UPDATE ${s.child!.onUpdate}, v TEXT)`);
  out.push("CREATE TABLE log (what TEXT)");
  if (s.trigger) {
    if (dialect === "sqlite") out.push("CREATE TRIGGER p_del AFTER DELETE ON p BEGIN INSERT INTO log VALUES ('deleted'); END");
    else {
      out.push("CREATE FUNCTION p_del_fn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO log VALUES ('deleted'); RETURN OLD; END $$");
      out.push("CREATE TRIGGER p_del AFTER DELETE ON p FOR EACH ROW EXECUTE FUNCTION p_del_fn()");
    }
  }
  const pr = s.pk === "composite" ? s.parentRows.map((r) => ({ ...r, b: r.b ?? "x" })) : s.parentRows;
  // Composite keys must be unique: (id, b) with id unique already.
  for (const r of pr) out.push(`INSERT INTO p (id, a, b, c) VALUES (${r.id}, ${lit(r.a)}, ${lit(r.b)}, ${lit(r.c)})`);
  if (s.pk === "seq" && dialect === "postgres" && pr.length > 0) out.push(`SELECT setval('p_id_seq', ${pr.length})`);
  if (withChild) {
    const ids = new Set(pr.map((r) => r.id));
    for (const r of s.childRows) out.push(`INSERT INTO ch (id, pid, v) VALUES (${r.id}, ${r.pid !== null && ids.has(r.pid) ? r.pid : "NULL"}, ${lit(r.v)})`);
  }
  return out.join(";\n") + ";";
}

const predArb: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("a = 1", "a > 2", "a IS NULL", "a IS NOT NULL", "b = 'x'", "b LIKE 'o%'", "c < 0", "c = 1.5", "id = 1", "id <= 2", "a IN (0, 3)", "b <> ''", "a BETWEEN 1 AND 3", "1 = 0", "1 = 1"),
    fc.tuple(tie("p"), tie("p")).map(([x, y]) => `(${x}) AND (${y})`),
    fc.tuple(tie("p"), tie("p")).map(([x, y]) => `(${x}) OR (${y})`),
    tie("p").map((x) => `NOT (${x})`),
  ),
})).p;

function statementArb(dialect: "sqlite" | "postgres"): fc.Arbitrary<string> {
  const val = fc.constantFrom(...([0, 1, 7, null, "'z'"] as const)).map((v) => (v === null ? "NULL" : String(v)));
  const one = fc.oneof(
    predArb.map((w) => `DELETE FROM p WHERE ${w}`),
    predArb.map((w) => `DELETE FROM p WHERE ${w} RETURNING id`),
    fc.constant("DELETE FROM p"),
    fc.tuple(val, predArb).map(([v, w]) => `UPDATE p SET a = ${v} WHERE ${w}`),
    fc.tuple(val, predArb).map(([v, w]) => `UPDATE p SET a = ${v}, b = 'u' WHERE ${w}`),
    predArb.map((w) => `UPDATE p SET id = id + 100 WHERE ${w}`),
    fc.tuple(fc.integer({ min: 1, max: 12 }), val).map(([id, v]) => `INSERT INTO p (id, a, b, c) VALUES (${id}, ${v}, 'n', 0.5)`),
    fc.constant("INSERT INTO p (a, b, c) VALUES (1, 'n', 2), (NULL, NULL, NULL)"),
    predArb.map((w) => `INSERT INTO p (id, a, b, c) SELECT id + 50, a, b, c FROM p WHERE ${w}`),
    predArb.map((w) => `DELETE FROM ch WHERE pid IN (SELECT id FROM p WHERE ${w})`),
    fc.constant("UPDATE ch SET v = 'w'"),
    fc.constant("DROP TABLE ch"),
    fc.constant("DROP TABLE p"),
    fc.constant("DROP TABLE IF EXISTS nothere"),
    fc.constant("CREATE TABLE n (x INTEGER)"),
    fc.constant("CREATE INDEX p_a ON p (a)"),
    fc.constant("ALTER TABLE p ADD COLUMN z INTEGER"),
    fc.constant("SELECT count(*) FROM p"),
    predArb.map((w) => `DELETE FROM p WHERE ${w} AND random() > 0`),
    fc.constant("INSERT INTO log VALUES ('agent')"),
    ...(dialect === "postgres"
      ? [
          fc.constant("TRUNCATE p"),
          fc.constant("TRUNCATE p CASCADE"),
          fc.constant("TRUNCATE log"),
          predArb.map((w) => `WITH d AS (DELETE FROM p WHERE ${w} RETURNING id) INSERT INTO log SELECT 'gone ' || id FROM d`),
          predArb.map((w) => `DELETE FROM p USING log WHERE ${w} AND log.what IS NULL`),
          fc.constant("UPDATE p SET a = nextval('p_id_seq')"),
        ]
      : [fc.constant("INSERT OR REPLACE INTO p (id, a) VALUES (1, 9)"), predArb.map((w) => `DELETE FROM p WHERE b || 1 + 2 = 'x3' OR ${w}`)]),
  );
  return fc.oneof({ weight: 5, arbitrary: one }, { weight: 1, arbitrary: fc.tuple(one, one).map(([x, y]) => `${x}; ${y}`) });
}

/** Everything the comparison covers: each table's rows (sorted), the schema, the sequences' names. */
async function snapshot(db: SqlAdapter): Promise<string> {
  const parts: string[] = [];
  if (db.dialect === "sqlite") {
    const objs = await db.read("SELECT type, name, tbl_name, sql FROM main.sqlite_schema WHERE name <> 'sqlite_sequence' ORDER BY type, name");
    parts.push(JSON.stringify(objs.map((o) => [o.type, o.name, o.tbl_name, o.sql])));
    for (const o of objs) {
      if (o.type !== "table") continue;
      const rows = await db.read(`SELECT * FROM main."${String(o.name)}"`);
      parts.push(`${String(o.name)}: ${JSON.stringify(rows.map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? `i${v}` : typeof v === "number" ? `r${v}` : v instanceof Uint8Array ? `b${Buffer.from(v).toString("hex")}` : v]))).sort())}`);
    }
    return parts.join("\n");
  }
  const tables = await db.read("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1");
  const cols = await db.read("SELECT table_name, column_name, data_type, column_default, is_nullable FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position");
  parts.push(JSON.stringify(cols));
  const cons = await db.read("SELECT conrelid::regclass::text AS t, conname, pg_get_constraintdef(oid) AS d FROM pg_constraint WHERE connamespace = current_schema()::regnamespace ORDER BY 1, 2");
  parts.push(JSON.stringify(cons));
  const idx = await db.read("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1");
  parts.push(JSON.stringify(idx));
  const trg = await db.read("SELECT tgname, tgrelid::regclass::text AS t FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1");
  parts.push(JSON.stringify(trg));
  const seqs = await db.read("SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema() ORDER BY 1");
  parts.push(`sequences (names only: values are the declared residue): ${JSON.stringify(seqs)}`);
  for (const t of tables) {
    const rows = await db.read(`SELECT to_jsonb(x)::text AS r FROM "${String(t.t)}" AS x`);
    parts.push(`${String(t.t)}: ${JSON.stringify(rows.map((r) => String(r.r)).sort())}`);
  }
  return parts.join("\n");
}

/** Does a refusal name what would be lost, or why it was not judged? */
function namesLoss(d: SqlDecision, statement: string): boolean {
  if (d.message === "" || d.reason === "") return false;
  if (["unparsed", "unknown_command", "unknown_effect", "malformed_call", "unknown_state"].includes(d.reason)) return d.message.includes(d.reason) || d.message.includes("not judged") || d.message.length > 20;
  // The message names a table of the statement.
  return ["p", "ch", "log", "n"].some((t) => statement.includes(t) && (d.message.includes(`.${t} `) || d.message.includes(`.${t},`) || d.message.includes(`.${t};`) || d.message.endsWith(`.${t}`) || d.message.includes(`.${t} (`)));
}

export async function runSqlCorpus(o: CorpusOptions): Promise<CorpusReport> {
  const cases: Case[] = fc.sample(fc.record({ schema: schemaArb, statement: statementArb(o.dialect) }), { seed: o.seed, numRuns: o.cases });
  const report: CorpusReport = { cases: cases.length, approved: 0, refused: 0, failedToRun: 0, wrong: 0, reasons: {}, failures: [] };
  const store = mkdtempSync(join(tmpdir(), "polar-sql-corpus-"));
  try {
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i]!;
      const schema = schemaSql(c.schema, o.dialect);
      const h = await o.makeDb();
      try {
        if (o.dialect === "sqlite") await h.exec(`PRAGMA foreign_keys = ${c.schema.fkOn ? "ON" : "OFF"}`);
        await h.exec(schema);
        const g = await createSqlGuard({ db: h.db, store, session: `c${o.seed}-${i}`, bounds: { maxRows: o.maxRows ?? 10_000 } });
        const before = await snapshot(h.db);
        const d = await g.check(c.statement);
        report.reasons[d.reason] = (report.reasons[d.reason] ?? 0) + 1;
        if (process.env.POLAR_CORPUS_TRACE === "1") console.log(`${d.reason}\t${c.statement}\t${d.message.slice(0, 160)}`);
        const fail = (problem: string): void => {
          report.wrong++;
          report.failures.push({ index: i, schema, statement: c.statement, decision: { approved: d.approved, reason: d.reason, message: d.message, tier: d.tier }, problem });
        };
        if (!d.approved) {
          report.refused++;
          if (!namesLoss(d, c.statement)) fail("the refusal does not name what would be lost");
          continue;
        }
        report.approved++;
        if (d.reason === "read_only") {
          await h.exec(c.statement);
          if ((await snapshot(h.db)) !== before) fail("a statement judged read-only changed the database");
          continue;
        }
        try {
          await h.exec(c.statement);
        } catch {
          report.failedToRun++;
        }
        await g.observe(d.execution!);
        const u = await g.undo();
        if (!u.ok) {
          fail(`the undo failed: ${u.reason}: ${u.message}`);
          continue;
        }
        const after = await snapshot(h.db);
        if (after !== before) fail(`after the undo the database differs:\n--- before\n${before}\n--- after\n${after}`);
      } finally {
        await h.close();
      }
    }
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
  return report;
}
