// The SQL guard's reading of a statement string (src/sql/parse.ts), stated in-process without a
// database: for each statement form, the typed calls with their arguments, the problems with their
// reason and detail, and each statement's text and read-only mark; the SELECT of the rows a statement
// changes (targetSelect) as PostgreSQL's deparser prints it; and the read-only check `polar audit
// verify` re-derives a dispatcher's approval with. The verdicts built on these readings are stated in
// test/sql/guard-*.test.ts against SQLite and PGlite.
import { beforeAll, describe, expect, it } from "vitest";
import { dispatchSql, loadSqlParser, sqlReadOnlyChecker, targetSelect, MAX_STATEMENT_BYTES, type Dispatch } from "../../src/sql/parse.js";

beforeAll(async () => {
  await loadSqlParser();
});

/** The whole answer, with each plan's fields (its AST nodes as present or not, and how many). */
function read(q: string): unknown {
  const d: Dispatch = dispatchSql(q, "postgres");
  return {
    calls: d.calls.map((c) => ({
      name: c.name,
      arguments: c.arguments,
      rel: c.rel,
      statement: c.statement,
      source: c.source,
      ...(c.plan === undefined ? {} : {
        plan: { kind: c.plan.kind, columns: c.plan.columns, conflict: c.plan.conflict, values: c.plan.values === null ? null : c.plan.values.map((r) => r.length), readable: c.plan.readable, with: c.plan.with !== undefined, from: c.plan.from.length, where: c.plan.where !== undefined },
      }),
    })),
    problems: d.problems,
    statements: d.statements.map((s) => ({ text: s.text, readOnly: s.readOnly, index: s.index })),
  };
}

const plan = (kind: string, over: Record<string, unknown> = {}) => ({ kind, columns: null, conflict: null, values: null, readable: true, with: false, from: 0, where: false, ...over });
const call = (name: string, q: string, args: Record<string, unknown>, rel: { schema: string | null; name: string } | null, extra: Record<string, unknown> = {}, statement = 0) => ({ name, arguments: args, rel, statement, source: q, ...extra });
const one = (q: string, readOnly = false) => [{ text: q, readOnly, index: 0 }];
const unknown = (q: string, detail: string) => ({ calls: [], problems: [{ reason: "unknown_command", detail, source: q }], statements: one(q) });

describe("dispatchSql: data-changing statements", () => {
  it("DELETE and UPDATE: the table as written, its schema, USING/FROM, WHERE and the columns an UPDATE sets", () => {
    let q = "DELETE FROM main.t WHERE id = 1";
    expect(read(q)).toEqual({ calls: [call("sql_delete", q, { table: "main.t" }, { schema: "main", name: "t" }, { plan: plan("delete", { where: true }) })], problems: [], statements: one(q) });
    q = "DELETE FROM t USING u, v";
    expect(read(q)).toEqual({ calls: [call("sql_delete", q, { table: "t" }, { schema: null, name: "t" }, { plan: plan("delete", { from: 2 }) })], problems: [], statements: one(q) });
    q = "UPDATE t SET a = 1, b = 2 FROM u WHERE t.id = u.id";
    expect(read(q)).toEqual({ calls: [call("sql_update", q, { table: "t" }, { schema: null, name: "t" }, { plan: plan("update", { columns: ["a", "b"], from: 1, where: true }) })], problems: [], statements: one(q) });
  });

  it("INSERT: the columns it names, ON CONFLICT, and the rows of a VALUES list of constants only", () => {
    let q = "INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y') ON CONFLICT DO NOTHING";
    expect(read(q)).toEqual({ calls: [call("sql_insert", q, { table: "t" }, { schema: null, name: "t" }, { plan: plan("insert", { columns: ["a", "b"], conflict: "nothing", values: [2, 2] }) })], problems: [], statements: one(q) });
    q = "INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET v = 2";
    expect(read(q)).toEqual({ calls: [call("sql_insert", q, { table: "t" }, { schema: null, name: "t" }, { plan: plan("insert", { conflict: "update", values: [1] }) })], problems: [], statements: one(q) });
    // A value that is not a constant, or rows from a query: no values.
    for (q of ["INSERT INTO t VALUES (1), (abs(2))", "INSERT INTO t VALUES (1, abs(2))", "INSERT INTO t SELECT * FROM u", "INSERT INTO t DEFAULT VALUES"]) {
      expect(read(q), q).toEqual({ calls: [call("sql_insert", q, { table: "t" }, { schema: null, name: "t" }, { plan: plan("insert") })], problems: [], statements: one(q) });
    }
  });

  it("a WITH without data-modifying CTEs goes with the statement's plan; each data-modifying CTE is a call of its own, and then no plan is readable", () => {
    let q = "WITH x AS (SELECT 1) DELETE FROM a USING x WHERE a.id = 1";
    expect(read(q)).toEqual({ calls: [call("sql_delete", q, { table: "a" }, { schema: null, name: "a" }, { plan: plan("delete", { with: true, from: 1, where: true }) })], problems: [], statements: one(q) });
    q = "WITH x AS (DELETE FROM a WHERE id = 1 RETURNING *), y AS (SELECT 1) INSERT INTO s.b SELECT * FROM x";
    expect(read(q)).toEqual({
      calls: [
        call("sql_delete", q, { table: "a" }, { schema: null, name: "a" }, { plan: plan("delete", { readable: false, where: true }) }),
        call("sql_insert", q, { table: "s.b" }, { schema: "s", name: "b" }, { plan: plan("insert", { readable: false }) }),
      ],
      problems: [],
      statements: one(q),
    });
    q = "WITH x AS (UPDATE a SET v = 1 RETURNING *) SELECT * FROM x";
    expect(read(q)).toEqual({ calls: [call("sql_update", q, { table: "a" }, { schema: null, name: "a" }, { plan: plan("update", { columns: ["v"], readable: false }) })], problems: [], statements: one(q) });
    q = "WITH x AS (INSERT INTO a VALUES (1) RETURNING *) SELECT * FROM x";
    expect(read(q)).toEqual({ calls: [call("sql_insert", q, { table: "a" }, { schema: null, name: "a" }, { plan: plan("insert", { readable: false, values: [1] }) })], problems: [], statements: one(q) });
  });

  it("a recursive WITH with a data-modifying CTE, and a WITH nested inside one, are not judged", () => {
    let q = "WITH RECURSIVE x AS (DELETE FROM a RETURNING *) SELECT 1";
    expect(read(q)).toEqual(unknown(q, "a recursive WITH with a data-modifying CTE"));
    q = "WITH x AS (WITH y AS (SELECT 1) DELETE FROM a RETURNING *) SELECT * FROM x";
    expect(read(q)).toEqual(unknown(q, "a nested WITH inside a data-modifying CTE"));
    // A recursive WITH that only reads is a query.
    q = "WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM x WHERE n < 3) DELETE FROM a WHERE id IN (SELECT n FROM x)";
    expect(read(q)).toMatchObject({ calls: [{ name: "sql_delete", plan: { readable: true, with: true } }], problems: [] });
  });

  it("TRUNCATE: one call per table, with CASCADE, RESTART IDENTITY and ONLY as written", () => {
    // ONLY goes with the table it precedes (PostgreSQL sql-truncate).
    let q = "TRUNCATE ONLY a, s.b RESTART IDENTITY CASCADE";
    const args = { cascade: true, restart: true };
    expect(read(q)).toEqual({ calls: [call("sql_truncate", q, { table: "a", ...args, only: true }, { schema: null, name: "a" }), call("sql_truncate", q, { table: "s.b", ...args, only: false }, { schema: "s", name: "b" })], problems: [], statements: one(q) });
    q = "TRUNCATE a";
    expect(read(q)).toEqual({ calls: [call("sql_truncate", q, { table: "a", cascade: false, restart: false, only: false }, { schema: null, name: "a" })], problems: [], statements: one(q) });
  });
});

describe("dispatchSql: schema statements", () => {
  it("DROP TABLE, INDEX, VIEW: one call per object with kind, CASCADE and IF EXISTS; other kinds and three-part names are not judged", () => {
    let q = "DROP TABLE a, s.b CASCADE";
    const t = { kind: "table", cascade: true, ifExists: false };
    expect(read(q)).toEqual({ calls: [call("sql_drop", q, { table: "a", ...t }, { schema: null, name: "a" }), call("sql_drop", q, { table: "s.b", ...t }, { schema: "s", name: "b" })], problems: [], statements: one(q) });
    q = "DROP INDEX IF EXISTS i";
    expect(read(q)).toEqual({ calls: [call("sql_drop", q, { table: "i", kind: "index", cascade: false, ifExists: true }, { schema: null, name: "i" })], problems: [], statements: one(q) });
    q = "DROP VIEW v RESTRICT";
    expect(read(q)).toEqual({ calls: [call("sql_drop", q, { table: "v", kind: "view", cascade: false, ifExists: false }, { schema: null, name: "v" })], problems: [], statements: one(q) });
    q = "DROP SEQUENCE s";
    expect(read(q)).toEqual(unknown(q, "DROP SEQUENCE is not judged"));
    q = "DROP TABLE a.b.c";
    expect(read(q)).toEqual(unknown(q, "DROP of an object with a name in three parts"));
  });

  it("CREATE TABLE, TABLE AS, VIEW, INDEX: the relation created, IF NOT EXISTS, OR REPLACE; an index in its table's schema", () => {
    const cases: [string, Record<string, unknown>, { schema: string | null; name: string }][] = [
      ["CREATE TABLE s.t (a int)", { table: "s.t", kind: "table", ifNotExists: false, replace: false }, { schema: "s", name: "t" }],
      ["CREATE TABLE IF NOT EXISTS t (a int)", { table: "t", kind: "table", ifNotExists: true, replace: false }, { schema: null, name: "t" }],
      ["CREATE TABLE t AS SELECT 1", { table: "t", kind: "table", ifNotExists: false, replace: false }, { schema: null, name: "t" }],
      ["CREATE TABLE IF NOT EXISTS t AS SELECT 1", { table: "t", kind: "table", ifNotExists: true, replace: false }, { schema: null, name: "t" }],
      ["CREATE OR REPLACE VIEW v AS SELECT 1", { table: "v", kind: "view", ifNotExists: false, replace: true }, { schema: null, name: "v" }],
      ["CREATE VIEW s.v AS SELECT lower('a')", { table: "s.v", kind: "view", ifNotExists: false, replace: false }, { schema: "s", name: "v" }],
      ["CREATE INDEX i ON s.t (a)", { table: "s.i", kind: "index", on: "s.t", ifNotExists: false }, { schema: "s", name: "i" }],
      ["CREATE UNIQUE INDEX IF NOT EXISTS i ON t (a)", { table: "i", kind: "index", on: "t", ifNotExists: true }, { schema: null, name: "i" }],
    ];
    for (const [q, args, rel] of cases) expect(read(q), q).toEqual({ calls: [call("sql_create", q, args, rel)], problems: [], statements: one(q) });
  });

  it("CREATE forms the guard does not judge: inheritance, partitions, materialized views, temporary relations, an index without a name", () => {
    for (const q of ["CREATE TABLE c () INHERITS (p)", "CREATE TABLE t (a int) PARTITION BY RANGE (a)", "CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (1) TO (2)"]) {
      expect(read(q), q).toEqual(unknown(q, "CREATE TABLE with inheritance or partitions is not judged"));
    }
    let q = "CREATE MATERIALIZED VIEW m AS SELECT 1";
    expect(read(q)).toEqual(unknown(q, "CREATE MATERIALIZED VIEW is not judged"));
    for (q of ["CREATE TEMP TABLE t (a int)", "CREATE TEMPORARY VIEW v AS SELECT 1", "CREATE TEMP TABLE t AS SELECT 1"]) expect(read(q), q).toEqual(unknown(q, "CREATE TEMPORARY is not judged"));
    q = "CREATE INDEX ON t (a)";
    expect(read(q)).toEqual(unknown(q, "CREATE INDEX without a name"));
  });

  it("ALTER TABLE names its subcommands; ALTER of anything else is not judged", () => {
    let q = "ALTER TABLE s.t ADD COLUMN b int, DROP COLUMN c";
    expect(read(q)).toEqual({ calls: [call("sql_alter", q, { table: "s.t", commands: ["AT_AddColumn", "AT_DropColumn"] }, { schema: "s", name: "t" })], problems: [], statements: one(q) });
    q = "ALTER INDEX i SET (fillfactor = 50)";
    expect(read(q)).toEqual(unknown(q, "ALTER INDEX is not judged"));
    q = "ALTER INDEX i RENAME TO j";
    expect(read(q)).toEqual(unknown(q, "Rename is not a statement the guard knows"));
  });
});

describe("dispatchSql: reads, transactions and what is not judged", () => {
  it("SELECT, EXPLAIN and SHOW are read-only; SELECT … INTO and EXPLAIN ANALYZE are not judged", () => {
    for (const q of ["SELECT 1", "EXPLAIN DELETE FROM t", "SHOW search_path", "WITH x AS (SELECT 1) SELECT * FROM x"]) expect(read(q), q).toEqual({ calls: [], problems: [], statements: one(q, true) });
    let q = "SELECT * INTO n FROM t";
    expect(read(q)).toEqual(unknown(q, "SELECT … INTO creates a table"));
    q = "EXPLAIN (ANALYZE) DELETE FROM t";
    expect(read(q)).toEqual(unknown(q, "EXPLAIN ANALYZE runs the statement"));
    q = "EXPLAIN ANALYZE SELECT 1";
    expect(read(q)).toEqual(unknown(q, "EXPLAIN ANALYZE runs the statement"));
  });

  it("BEGIN and START TRANSACTION are a call (not read-only); COMMIT, ROLLBACK, SAVEPOINT are not judged", () => {
    for (const q of ["BEGIN", "START TRANSACTION"]) expect(read(q), q).toEqual({ calls: [call("sql_begin", q, {}, null)], problems: [], statements: one(q) });
    for (const [q, k] of [["COMMIT", "COMMIT"], ["ROLLBACK", "ROLLBACK"], ["SAVEPOINT a", "SAVEPOINT"]]) expect(read(q!), q).toEqual(unknown(q!, `${k} ends a transaction: the guard does not judge it`));
  });

  it("COPY is never judged, and says why", () => {
    const cases = [
      ["COPY t FROM STDIN", "COPY … FROM writes rows the guard cannot see"],
      ["COPY t FROM PROGRAM 'x'", "COPY … PROGRAM runs a program on the server"],
      ["COPY t TO PROGRAM 'x'", "COPY … PROGRAM runs a program on the server"],
      ["COPY t TO '/tmp/x'", "COPY … TO a file writes outside the database"],
      ["COPY t TO STDOUT", "COPY is not judged"],
    ];
    for (const [q, detail] of cases) expect(read(q!), q).toEqual(unknown(q!, detail!));
  });

  it("any other statement is not one the guard knows", () => {
    for (const [q, what] of [["VACUUM", "Vacuum"], ["GRANT SELECT ON t TO u", "Grant"], ["CREATE SEQUENCE s", "CreateSeq"], ["DO $$ BEGIN END $$", "Do"]]) {
      expect(read(q!), q).toEqual(unknown(q!, `${what} is not a statement the guard knows`));
    }
  });
});

describe("dispatchSql: functions with effects", () => {
  it("a function outside the deterministic list, or qualified by a schema other than pg_catalog, is an unknown effect wherever it appears", () => {
    const effect = (name: string, q: string) => ({ reason: "unknown_effect", detail: `the function ${name}() may have effects the guard cannot see`, source: q });
    let q = "SELECT nextval('s')";
    expect(read(q)).toEqual({ calls: [], problems: [effect("nextval", q)], statements: one(q, true) });
    q = "DELETE FROM t WHERE NEXTVAL('s') > 1";
    expect(read(q)).toMatchObject({ calls: [{ name: "sql_delete" }], problems: [effect("nextval", q)] });
    q = "DELETE FROM t WHERE public.lower(a) = 'x'";
    expect(read(q)).toMatchObject({ calls: [{ name: "sql_delete" }], problems: [effect("public.lower", q)] });
    q = "CREATE TABLE t (a int DEFAULT nextval('s'))";
    expect(read(q)).toMatchObject({ calls: [{ name: "sql_create" }], problems: [effect("nextval", q)] });
    q = "WITH x AS (DELETE FROM a WHERE f(id) RETURNING *) SELECT * FROM x";
    expect(read(q)).toMatchObject({ calls: [{ name: "sql_delete" }], problems: [effect("f", q)] });
    // Deterministic ones, in any case, bare or in pg_catalog.
    for (q of ["DELETE FROM t WHERE pg_catalog.lower(a) = 'x'", "DELETE FROM t WHERE LOWER(a) = coalesce(b, 'x') AND abs(c) > 1", "UPDATE t SET a = upper(a)"]) {
      expect((read(q) as { problems: unknown[] }).problems, q).toEqual([]);
    }
  });
});

describe("dispatchSql: the clock", () => {
  it("CURRENT_DATE, CURRENT_TIME(STAMP), LOCALTIME(STAMP) and the date strings 'now', 'today', 'tomorrow', 'yesterday' anywhere (a cast, a function, COALESCE, a comparison converts them) are an unknown effect: read again when the statement runs", () => {
    const clock = (what: string, q: string) => ({ reason: "unknown_effect", detail: `${what} is the time when the statement runs, not when the guard read its rows`, source: q });
    const cases: [string, string][] = [
      ["DELETE FROM t WHERE d < CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP"],
      ["DELETE FROM t WHERE d < CURRENT_TIMESTAMP(2)", "CURRENT_TIMESTAMP"],
      ["DELETE FROM t WHERE d < current_date", "CURRENT_DATE"],
      ["UPDATE t SET a = 1 WHERE d < CURRENT_TIME", "CURRENT_TIME"],
      ["DELETE FROM t WHERE d < LOCALTIMESTAMP", "LOCALTIMESTAMP"],
      ["DELETE FROM t WHERE d < LOCALTIME(0)", "LOCALTIME"],
      ["DELETE FROM t WHERE d < date('now')", "'now'"],
      ["DELETE FROM t WHERE d < julianday(' NOW ')", "' NOW '"],
      ["DELETE FROM t WHERE d < 'today'::date", "'today'"],
      ["DELETE FROM t WHERE d < CAST('Tomorrow' AS date)", "'Tomorrow'"],
      ["INSERT INTO t SELECT * FROM u WHERE d > strftime('%s', 'yesterday')", "'yesterday'"],
      ["DELETE FROM t WHERE d < coalesce(e, 'now')", "'now'"],
      ["DELETE FROM t WHERE d < greatest(e, 'today')", "'today'"],
      ["DELETE FROM t WHERE d < 'now'", "'now'"],
    ];
    for (const [q, what] of cases) expect(dispatchSql(q, "postgres").problems, q).toEqual([clock(what, q)]);
    // The session's user is the same for the guard's read and the statement; other strings are strings.
    // (A clock word compared with a text column is refused too: the guard does not read column types.)
    for (const q of ["DELETE FROM t WHERE u = current_user", "DELETE FROM t WHERE name = 'nowhere'", "DELETE FROM t WHERE d < date('2020-01-01')", "DELETE FROM t WHERE d < '2020-01-01'::date", "DELETE FROM t WHERE d < date(x)"]) {
      expect(dispatchSql(q, "postgres").problems, q).toEqual([]);
    }
  });
});

describe("dispatchSql: the deterministic built-ins", () => {
  // The functions the guard reads as having no effect (their value is the same in the guard's SELECT of
  // the rows and in the statement): each, called by its own name (quoted, so no special syntax such as
  // POSITION(a IN b) stands in for the call), leaves a statement without a problem.
  const PURE = [
    "abs", "coalesce", "nullif", "lower", "upper", "length", "char_length", "octet_length", "substr",
    "substring", "trim", "ltrim", "rtrim", "btrim", "replace", "round", "floor", "ceil", "ceiling", "trunc",
    "sign", "mod", "greatest", "least", "concat", "concat_ws", "left", "right", "position", "strpos",
    "instr", "ifnull", "iif", "typeof", "hex", "quote", "lpad", "rpad", "reverse", "repeat", "split_part",
    "sqrt", "power", "exp", "ln", "log", "min", "max", "sum", "count", "avg", "total", "array_length",
    "cardinality", "unnest", "json_extract", "jsonb_extract_path", "date", "julianday", "strftime",
    "date_trunc", "extract", "date_part", "starts_with", "format", "to_char", "unicode", "char",
  ];
  it("each is read without a problem; a name that only resembles one, or the same name in another schema, is an unknown effect", () => {
    for (const f of PURE) {
      const q = `DELETE FROM t WHERE "${f}"(a) = 1`;
      expect(dispatchSql(q, "postgres").problems, f).toEqual([]);
      expect(dispatchSql(`UPDATE t SET a = pg_catalog."${f}"(a)`, "sqlite").problems, f).toEqual([]);
      expect(dispatchSql(`DELETE FROM t WHERE s."${f}"(a) = 1`, "postgres").problems, f).toEqual([{ reason: "unknown_effect", detail: `the function s.${f}() may have effects the guard cannot see`, source: `DELETE FROM t WHERE s."${f}"(a) = 1` }]);
      expect(dispatchSql(`DELETE FROM t WHERE "${f}x"(a) = 1`, "postgres").problems, f).toHaveLength(1);
    }
    expect(PURE).toHaveLength(68);
  });
});

describe("dispatchSql: the string", () => {
  it("statements are split at the parser's byte offsets (multi-byte text too), trimmed, and numbered", () => {
    const q = "SELECT 'é' ;\n DELETE FROM t WHERE a = 'ü' ;  ";
    expect(read(q)).toEqual({
      calls: [call("sql_delete", "DELETE FROM t WHERE a = 'ü'", { table: "t" }, { schema: null, name: "t" }, { plan: plan("delete", { where: true }) }, 1)],
      problems: [],
      statements: [{ text: "SELECT 'é'", readOnly: true, index: 0 }, { text: "DELETE FROM t WHERE a = 'ü'", readOnly: false, index: 1 }],
    });
    expect(dispatchSql(q, "sqlite").statements.map((s) => s.printed)).toEqual(["SELECT 'é'", "DELETE FROM t WHERE a = 'ü'"]);
  });

  it("no statement, a statement the parser rejects, and a string over the size limit are unparsed", () => {
    for (const q of [";", "-- only a comment", " ; ; "]) expect(read(q), q).toEqual({ calls: [], problems: [{ reason: "unparsed", detail: "no statement", source: "" }], statements: [] });
    expect(read("SELEC 1")).toEqual({ calls: [], problems: [{ reason: "unparsed", detail: 'the parser rejects it: syntax error at or near "SELEC"', source: "SELEC 1" }], statements: [] });
    const long = `DELETE FROM t WHERE a = '${"x".repeat(300)}`;
    expect(dispatchSql(long, "postgres").problems).toEqual([{ reason: "unparsed", detail: expect.stringMatching(/^the parser rejects it: /), source: long.slice(0, 200) }]);
    // The limit is in bytes: a string of exactly MAX_STATEMENT_BYTES is read, one byte more is not.
    const pad = (n: number) => `SELECT '${"é".repeat(Math.floor((n - 9) / 2))}${(n - 9) % 2 === 1 ? "x" : ""}'`;
    expect(Buffer.byteLength(pad(MAX_STATEMENT_BYTES))).toBe(MAX_STATEMENT_BYTES);
    expect(dispatchSql(pad(MAX_STATEMENT_BYTES), "postgres")).toMatchObject({ problems: [], statements: [{ readOnly: true }] });
    expect(dispatchSql(pad(MAX_STATEMENT_BYTES + 1), "postgres")).toEqual({ calls: [], problems: [{ reason: "unparsed", detail: "the statement is longer than 1000000 bytes", source: "" }], statements: [] });
  });
});

describe("targetSelect: the SELECT of the rows an UPDATE or DELETE changes", () => {
  const planOf = (q: string) => dispatchSql(q, "postgres").calls[0]!.plan!;
  // The deparser's line breaks and indentation are its own: compared with runs of space as one.
  const sel = (q: string, dialect: "sqlite" | "postgres", rid: string | null) => targetSelect(planOf(q), dialect, rid).replace(/\s+/g, " ");
  it("the target's columns, its row id when asked, USING/FROM, WHERE and WITH, from the statement's own AST", () => {
    expect(sel("DELETE FROM t WHERE id = 1", "sqlite", null)).toBe("SELECT t.* FROM t WHERE id = 1");
    expect(sel("DELETE FROM t WHERE id = 1", "sqlite", "rid")).toBe("SELECT t.*, t.rowid AS __polar_rid FROM t WHERE id = 1");
    expect(sel("DELETE FROM t WHERE id = 1", "postgres", "rid")).toBe("SELECT t.*, t.ctid AS __polar_rid FROM t WHERE id = 1");
    expect(sel("UPDATE t SET a = 1", "postgres", null)).toBe("SELECT t.* FROM t");
    expect(sel("DELETE FROM t AS x USING u WHERE x.id = u.id", "postgres", "rid")).toBe("SELECT x.*, x.ctid AS __polar_rid FROM t AS x, u WHERE x.id = u.id");
    expect(sel("WITH k AS (SELECT 1 AS id) DELETE FROM t WHERE id IN (SELECT id FROM k)", "postgres", null)).toBe("WITH k AS (SELECT 1 AS id) SELECT t.* FROM t WHERE id IN (SELECT id FROM k)");
  });

  it("a schema-qualified target: PostgreSQL qualifies every column with it, SQLite's `t.*` takes none", () => {
    expect(sel("DELETE FROM main.t WHERE id = 1", "sqlite", "rid")).toBe("SELECT t.*, main.t.rowid AS __polar_rid FROM main.t WHERE id = 1");
    expect(sel("DELETE FROM s.t WHERE id = 1", "postgres", "rid")).toBe("SELECT s.t.*, s.t.ctid AS __polar_rid FROM s.t WHERE id = 1");
    expect(sel("DELETE FROM s.t AS x WHERE x.id = 1", "postgres", "rid")).toBe("SELECT x.*, x.ctid AS __polar_rid FROM s.t AS x WHERE x.id = 1");
  });
});

describe("sqlReadOnlyChecker: a dispatcher's read-only approval re-derived", () => {
  it("null for read-only strings; otherwise why not, naming the first problem or the calls", async () => {
    const check = await sqlReadOnlyChecker();
    expect(check("SELECT 1; SHOW search_path", "postgres")).toBeNull();
    expect(check("SELECT 1", "sqlite")).toBeNull();
    expect(check("SELECT 1", "mysql")).toBe("an SQL dialect (sqlite, postgres), not `mysql`");
    expect(check("SELECT nextval('s')", "postgres")).toBe("not read-only: unknown_effect (the function nextval() may have effects the guard cannot see)");
    expect(check("SELECT 1; DELETE FROM t; UPDATE u SET a = 1", "sqlite")).toBe("not read-only: sql_delete, sql_update");
    expect(check("BEGIN", "postgres")).toBe("not read-only: sql_begin");
    expect(check("COMMIT", "postgres")).toBe("not read-only: unknown_command (COMMIT ends a transaction: the guard does not judge it)");
    expect(check(";", "postgres")).toBe("not read-only: unparsed (no statement)");
  });
});
