#!/usr/bin/env node
// A throwaway PostgreSQL server from the machine's own packages (Debian `postgresql`): a new cluster in a
// temp directory, listening on 127.0.0.1 only (a free port, trust authentication: nobody but this
// machine's processes can reach it, and it is gone with its directory), and a unix socket in that
// directory. As root the cluster belongs to the `postgres` user (initdb refuses root). Used by .ci/run
// (`eval "$(node scripts/pg-throwaway.mjs start)"` … `node scripts/pg-throwaway.mjs stop DIR`) and by the
// real-PostgreSQL tests when no POLAR_PG_URL is given (test/sql/postgres-server.ts).
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directory of PostgreSQL's server binaries (initdb, pg_ctl), or null. */
export function postgresBinDir() {
  const fromPath = spawnSync("sh", ["-c", "command -v pg_ctl"], { encoding: "utf8" });
  const candidates = [];
  if (fromPath.status === 0 && fromPath.stdout.trim() !== "") {
    const real = spawnSync("readlink", ["-f", fromPath.stdout.trim()], { encoding: "utf8" }).stdout.trim();
    candidates.push(real.replace(/\/pg_ctl$/, ""));
  }
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) for (const v of readdirSync(root).sort((a, b) => Number(b) - Number(a))) candidates.push(join(root, v, "bin"));
  return candidates.find((d) => existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl"))) ?? null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

function run(bin, args) {
  const cmd = isRoot ? ["runuser", "-u", "postgres", "--", bin, ...args] : [bin, ...args];
  const r = spawnSync(cmd[0], cmd.slice(1), { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${[bin, ...args].join(" ")} failed (${r.status}): ${(r.stderr || r.stdout || String(r.error)).trim().split("\n").slice(-5).join("\n")}`);
  return r.stdout;
}

/** Starts a new cluster; resolves with its URL (postgresql://postgres@127.0.0.1:PORT/postgres) and directory. */
export async function startPostgres() {
  const bin = postgresBinDir();
  if (bin === null) throw new Error("no PostgreSQL server binaries (initdb, pg_ctl): apt-get install postgresql");
  const dir = mkdtempSync(join(tmpdir(), "polar-pg-"));
  if (isRoot) {
    const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    if (id.status !== 0) throw new Error("running as root needs the `postgres` user (Debian's postgresql package creates it)");
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
    chownSync(dir, Number(id.stdout.trim()), gid);
  }
  const data = join(dir, "data");
  const port = await freePort();
  try {
    run(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]);
    run(join(bin, "pg_ctl"), ["-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60", "-o", `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=40`, "start"]);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, dir, port };
}

/** Stops the cluster in `dir` (immediate shutdown) and removes the directory. */
export function stopPostgres(dir) {
  const bin = postgresBinDir();
  const data = join(dir, "data");
  if (bin !== null && existsSync(join(data, "postmaster.pid"))) {
    try {
      run(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      // already stopped
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [cmd, arg] = process.argv.slice(2);
  if (cmd === "start") {
    const { url, dir } = await startPostgres();
    // For `eval`: shell-quoted exports.
    process.stdout.write(`export POLAR_PG_URL='${url}'\nexport POLAR_PG_DIR='${dir}'\n`);
  } else if (cmd === "stop" && arg) {
    stopPostgres(arg);
  } else {
    process.stderr.write("usage: pg-throwaway.mjs start | stop DIR\n");
    process.exit(2);
  }
}
