// polar-guard/sql (issue 25): parse + Layer B (catalog, bounded count, pre-image read) + verdict + the
// restore point written to the store, for a point DELETE on an indexed table of 1,000,000 rows (quick
// mode: 2,000), on SQLite (better-sqlite3) and PostgreSQL (PGlite); and an unbounded DELETE of the same
// table, answered (asked) after a count bounded by the restore bound, never reading the table.
// Wall-clock per check (each check is one sample: they are milliseconds, not nanoseconds).
import Database from "better-sqlite3";
import { PGlite } from "@electric-sql/pglite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqlGuard, postgresAdapter, sqliteAdapter, type SqlAdapter } from "../../src/sql/index.js";
import { params, progress, report, fail } from "../lib/child.js";

interface Stat {
  p50: number;
  p90: number;
  p99: number;
  n: number;
}

function stats(xs: number[]): Stat {
  const s = [...xs].sort((a, b) => a - b);
  const q = (f: number) => +s[Math.min(s.length - 1, Math.floor(f * s.length))]!.toFixed(3);
  return { p50: q(0.5), p90: q(0.9), p99: q(0.99), n: s.length };
}

/** Wall-clock quantiles per call, and the CPU this process spent per call (PGlite and SQLite run in
 * this process, so on a loaded machine the CPU figure is the one that does not stretch). */
async function time(measureMs: number, min: number, fn: (i: number) => Promise<void>): Promise<Stat & { cpuMs: number }> {
  const xs: number[] = [];
  const end = performance.now() + measureMs;
  const c0 = process.cpuUsage();
  for (let i = 0; xs.length < min || performance.now() < end; i++) {
    const t = performance.now();
    await fn(i);
    xs.push(performance.now() - t);
  }
  const c = process.cpuUsage(c0);
  return { ...stats(xs), cpuMs: +((c.user + c.system) / 1000 / xs.length).toFixed(3) };
}

async function main(): Promise<void> {
  const p = params<{ rows?: number }>();
  const rows = p.rows ?? (p.quick ? 2_000 : 1_000_000);
  const measureMs = p.quick ? p.timing.measureMs : Math.max(p.timing.measureMs, 3_000);
  const samples = p.quick ? 5 : 200;
  const store = mkdtempSync(join(tmpdir(), "polar-bench-sql-"));
  const figures: Record<string, unknown> = {};
  try {
    for (const dialect of ["sqlite", "postgres"] as const) {
      progress(`${dialect}: ${rows} rows`);
      let db: SqlAdapter;
      let close: () => Promise<void>;
      const t0 = performance.now();
      if (dialect === "sqlite") {
        const d = new Database(":memory:");
        d.exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, total REAL);
                WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${rows})
                INSERT INTO orders SELECT i, 'c' || (i % 1000), i * 0.5 FROM g;
                CREATE INDEX orders_customer ON orders (customer);`);
        db = sqliteAdapter(d);
        close = async () => void d.close();
      } else {
        const pg = await PGlite.create();
        await pg.exec(`CREATE TABLE orders (id integer PRIMARY KEY, customer text NOT NULL, total double precision);
                       INSERT INTO orders SELECT i, 'c' || (i % 1000), i * 0.5 FROM generate_series(1, ${rows}) AS g(i);
                       CREATE INDEX orders_customer ON orders (customer); ANALYZE orders;`);
        db = postgresAdapter(pg, { name: "bench" });
        close = () => pg.close();
      }
      const loadMs = +(performance.now() - t0).toFixed(0);
      // The default bound (10,000 rows); a tenth of the table in quick mode, so the unbounded DELETE is over it.
      const maxRows = Math.min(10_000, Math.floor(rows / 10));
      const g = await createSqlGuard({ db, store, policy: "snapshot", bounds: { maxRows } });
      const point = (i: number) => `DELETE FROM orders WHERE id = ${1 + ((i * 7919) % rows)}`;
      const first = await g.check(point(0));
      if (!first.approved || first.restorePoint?.rows !== 1) throw new Error(`the point DELETE was not approved with one row kept: ${first.message}`);
      const pointDelete = await time(measureMs, samples, async (i) => {
        const d = await g.check(point(i));
        if (!d.approved) throw new Error(d.message);
      });
      const unbounded = await g.check("DELETE FROM orders");
      if (unbounded.approved || unbounded.reason !== "over_bound") throw new Error(`the unbounded DELETE was not asked over the bound: ${unbounded.reason}`);
      const unboundedDelete = await time(measureMs, samples, async () => {
        await g.check("DELETE FROM orders WHERE total >= 0");
      });
      figures[dialect] = { rows, maxRows, loadMs, pointDelete, unboundedDelete, verdicts: { point: first.reason, unbounded: unbounded.reason, unboundedMessage: unbounded.message } };
      await close();
    }
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
  report({ variant: "sql", rows, target: "point DELETE p50 <= 5 ms", figures });
}

main().catch(fail);
