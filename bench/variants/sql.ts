// polar-guard/sql (issue 25), job `sql-delete`: parse + Layer B (catalog, bounded count, pre-image read)
// + verdict + the restore point written to the store, for a point DELETE on an indexed table of
// `rows` rows (1,000,000; the CI smoke passes 10,000), on SQLite (better-sqlite3: the headline
// `figures.pointDelete`) and PostgreSQL (PGlite: `figures.pglitePointDelete`, on min(rows, 100,000)
// rows in --quick and the smoke — loading a million rows into PGlite takes a minute); and an unbounded
// DELETE of the same table, answered (asked, `over_bound`) after a count bounded by the restore bound,
// never reading the table. Figures in ns (bench/lib/stats.ts `measureAsync`, one check per sample), plus
// the CPU this process spent per check (SQLite and PGlite run in this process).
import Database from "better-sqlite3";
import { PGlite } from "@electric-sql/pglite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqlGuard, postgresAdapter, sqliteAdapter, type SqlAdapter, type SqlGuard } from "../../src/sql/index.js";
import { params, progress, report, fail } from "../lib/child.js";
import { consume, measureAsync, type Figure } from "../lib/stats.js";

/** The wall-clock figure, then the CPU this process spends per check over a separate run of checks
 * (on a loaded machine the CPU figure is the one that does not stretch with everyone else's work). */
async function timed(fn: (i: number) => Promise<unknown>, timing: Parameters<typeof measureAsync>[1], cpuRuns: number): Promise<{ figure: Figure; cpuMsPerCheck: number }> {
  const figure = await measureAsync(fn, timing);
  const c0 = process.cpuUsage();
  for (let i = 0; i < cpuRuns; i++) await fn(1_000_003 + i);
  const c = process.cpuUsage(c0);
  return { figure, cpuMsPerCheck: +((c.user + c.system) / 1000 / cpuRuns).toFixed(3) };
}

async function table(dialect: "sqlite" | "postgres", rows: number): Promise<{ db: SqlAdapter; close: () => Promise<void> }> {
  if (dialect === "sqlite") {
    const d = new Database(":memory:");
    d.exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, total REAL);
            WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${rows})
            INSERT INTO orders SELECT i, 'c' || (i % 1000), i * 0.5 FROM g;
            CREATE INDEX orders_customer ON orders (customer);`);
    return { db: sqliteAdapter(d), close: async () => void d.close() };
  }
  const pg = await PGlite.create();
  await pg.exec(`CREATE TABLE orders (id integer PRIMARY KEY, customer text NOT NULL, total double precision);
                 INSERT INTO orders SELECT i, 'c' || (i % 1000), i * 0.5 FROM generate_series(1, ${rows}) AS g(i);
                 CREATE INDEX orders_customer ON orders (customer); ANALYZE orders;`);
  return { db: postgresAdapter(pg, { name: "bench" }), close: () => pg.close() };
}

async function main(): Promise<void> {
  const p = params<{ rows?: number }>();
  const rows = p.rows ?? 1_000_000;
  const pgRows = p.quick || rows <= 10_000 ? Math.min(rows, rows <= 10_000 ? 2_000 : 100_000) : rows;
  const store = mkdtempSync(join(tmpdir(), "polar-bench-sql-"));
  const cpuRuns = p.timing.measureMs < 50 ? 3 : 100;
  const out: Record<string, unknown> = {};
  let reason = "";
  try {
    for (const [dialect, n] of [["sqlite", rows], ["postgres", pgRows]] as const) {
      progress(`${dialect}: building ${n.toLocaleString("en-US")} rows`);
      const t0 = performance.now();
      const { db, close } = await table(dialect, n);
      const loadMs = Math.round(performance.now() - t0);
      // The default bound (10,000 rows), or a tenth of a small table, so the unbounded DELETE is over it.
      const maxRows = Math.min(10_000, Math.floor(n / 10));
      const g: SqlGuard = await createSqlGuard({ db, store, policy: "snapshot", bounds: { maxRows } });
      const point = (i: number) => `DELETE FROM orders WHERE id = ${1 + ((i * 7919) % n)}`;
      const first = await g.check(point(0));
      if (!first.approved || first.restorePoint?.rows !== 1) throw new Error(`the point DELETE was not approved with its one row kept: ${first.message}`);
      const unbounded = await g.check("DELETE FROM orders");
      if (unbounded.approved || unbounded.reason !== "over_bound") throw new Error(`the unbounded DELETE was not asked over the bound: ${unbounded.reason}`);
      progress(`${dialect}: point DELETE`);
      const pd = await timed(async (i) => {
        const d = await g.check(point(i));
        if (!d.approved) throw new Error(d.message);
        consume(d.seq);
      }, p.timing, cpuRuns);
      progress(`${dialect}: unbounded DELETE`);
      const ud = await timed(async () => consume((await g.check("DELETE FROM orders WHERE total >= 0")).seq), p.timing, cpuRuns);
      out[dialect] = { rows: n, maxRows, loadMs, pointDelete: pd.figure, pointDeleteCpuMs: pd.cpuMsPerCheck, unboundedDelete: ud.figure, unboundedDeleteCpuMs: ud.cpuMsPerCheck, verdicts: { point: first.reason, unbounded: unbounded.reason, unboundedMessage: unbounded.message } };
      if (dialect === "sqlite") reason = first.reason;
      await close();
    }
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
  const s = out.sqlite as { pointDelete: Figure; unboundedDelete: Figure };
  const pgl = out.postgres as { pointDelete: Figure; unboundedDelete: Figure };
  report({
    variant: "sql",
    rows,
    reason,
    figures: { pointDelete: s.pointDelete, unboundedDelete: s.unboundedDelete, pglitePointDelete: pgl.pointDelete, pgliteUnboundedDelete: pgl.unboundedDelete },
    dialects: out,
  });
}

main().catch(fail);
