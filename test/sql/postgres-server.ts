// A real PostgreSQL server for the test/sql/postgres*.test.ts suites: POLAR_PG_URL (CI starts a
// throwaway one in .ci/run), or with POLAR_PG_START=1 a throwaway cluster started here from the
// machine's postgresql package (scripts/pg-throwaway.mjs) and stopped when the process exits. Without
// either the suites are skipped by name with the reason; POLAR_REQUIRE_POSTGRES=1 (CI) makes a missing
// server fail the run instead. Each test gets a fresh database of its own (`freshDatabase`).
import { randomBytes } from "node:crypto";
import { afterAll, describe } from "vitest";
import pg from "pg";
import { skipByName } from "../skip.js";
// @ts-expect-error a plain .mjs script without types
import { postgresBinDir, startPostgres, stopPostgres } from "../../scripts/pg-throwaway.mjs";

let startedDir: string | null = null;
let stopRegistered = false;

async function serverUrl(): Promise<{ url: string | null; why: string }> {
  if (process.env.POLAR_PG_URL) return { url: process.env.POLAR_PG_URL, why: "" };
  if (process.env.POLAR_PG_START === "1") {
    if ((postgresBinDir as () => string | null)() === null) return { url: null, why: "POLAR_PG_START=1 but no PostgreSQL server binaries (apt-get install postgresql)" };
    const started = await (startPostgres as () => Promise<{ url: string; dir: string }>)();
    startedDir = started.dir;
    return { url: started.url, why: "" };
  }
  return { url: null, why: "no PostgreSQL server: set POLAR_PG_URL, or POLAR_PG_START=1 to start a throwaway one from the machine's postgresql package" };
}

const found = await serverUrl();
export const PG_URL: string | null = found.url;
if (PG_URL === null && process.env.POLAR_REQUIRE_POSTGRES === "1") throw new Error(`POLAR_REQUIRE_POSTGRES=1: ${found.why}`);

/** A suite against the real server: skipped by name, with the reason, without one. */
export function describePostgres(name: string, fn: () => void): void {
  if (PG_URL !== null) {
    // A throwaway server started here (POLAR_PG_START=1) is stopped after the file's last suite.
    if (!stopRegistered) {
      stopRegistered = true;
      afterAll(() => {
        if (startedDir !== null) (stopPostgres as (dir: string) => void)(startedDir);
        startedDir = null;
      });
    }
    describe(name, fn);
  }
  else skipByName(name, found.why);
}

export interface FreshDatabase {
  /** A connected client of the new database. */
  client: pg.Client;
  url: string;
  name: string;
  /** Disconnects and drops the database. */
  close(): Promise<void>;
}

/** A new, empty database on the server (dropped by `close`). */
export async function freshDatabase(): Promise<FreshDatabase> {
  if (PG_URL === null) throw new Error("no PostgreSQL server");
  const name = `polar_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return {
    client,
    url: url.toString(),
    name,
    async close() {
      await client.end().catch(() => {});
      const a = new pg.Client({ connectionString: PG_URL! });
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
