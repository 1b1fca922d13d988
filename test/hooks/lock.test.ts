// One writer per hash-chained log (src/util/file-lock.ts): a hook session's audit log is held by the
// process that has the session open (the daemon, or `polar hook --in-process` for its one call), and a
// polar home has one daemon. A second writer is refused with what to do (never judged unlogged), a lock
// whose pid is gone is taken over. On real temporary polar homes; the process cases run dist's CLI.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { verifyAuditLog } from "../../src/audit/index.js";
import { auditLogPath, HookEngine } from "../../src/hooks/engine.js";
import { deadPid, denying, home, logOf, pre } from "./lock-helpers.js";
import { ping, serveLockPath, socketPath, startServer } from "../../src/hooks/server.js";
import { LockBusyError, readLockHolder, takeFileLock } from "../../src/util/file-lock.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const POLAR = join(ROOT, "bin/polar.js");

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGTERM");
});

describe("the lock helper (src/util/file-lock.ts)", () => {
  test("one holder: a second take is busy and names the pid; released, it can be taken again", () => {
    const lock = join(home(), "x.lock");
    const a = takeFileLock(lock);
    expect(readLockHolder(lock)).toBe(process.pid);
    expect(() => takeFileLock(lock)).toThrow(LockBusyError);
    a.release();
    expect(existsSync(lock)).toBe(false);
    takeFileLock(lock).release();
  });

  test("a killed writer its parent has not reaped yet (a zombie: a daemon orphaned to a container's pid 1 that reaps late) holds nothing: its lock is taken over", async () => {
    if (!existsSync("/proc/self/stat")) return expect(process.platform).not.toBe("linux");
    // `sleep 60 &` under a shell that then becomes `sleep 30`: the first sleep's parent never waits.
    const parent = spawn("sh", ["-c", "sleep 60 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const pid = Number((await new Promise<string>((done) => parent.stdout!.once("data", (b: Buffer) => done(b.toString())))).trim());
      process.kill(pid, "SIGKILL");
      const state = () => { const st = readFileSync(`/proc/${pid}/stat`, "utf8"); return st.slice(st.lastIndexOf(")") + 2, st.lastIndexOf(")") + 3); };
      for (let i = 0; i < 200 && state() !== "Z"; i++) await new Promise((r) => setTimeout(r, 10));
      expect(state()).toBe("Z");
      expect(() => process.kill(pid, 0)).not.toThrow(); // what a liveness check by signal alone sees
      const lock = join(home(), "zombie.lock");
      writeFileSync(lock, `${pid}\n`);
      const taken = takeFileLock(lock);
      expect(readLockHolder(lock)).toBe(process.pid);
      taken.release();
    } finally {
      parent.kill("SIGKILL");
    }
  });

  test("stale: a dead pid's lock and this pid's own unregistered lock (a reused pid) are taken over; an unreadable one and a live pid's are held", () => {
    const h = home();
    const dead = join(h, "dead.lock");
    writeFileSync(dead, `${deadPid()}\n`);
    const d = takeFileLock(dead);
    expect(readLockHolder(dead)).toBe(process.pid);
    d.release();
    const own = join(h, "own.lock");
    writeFileSync(own, `${process.pid}\n`);
    takeFileLock(own).release();
    const junk = join(h, "junk.lock");
    writeFileSync(junk, "not a pid\n");
    expect(() => takeFileLock(junk)).toThrow(LockBusyError);
    const live = join(h, "live.lock");
    writeFileSync(live, `${process.ppid}\n`);
    expect(() => takeFileLock(live)).toThrow(expect.objectContaining({ holder: process.ppid }));
    // A taker that died between its takeover marker and the new lock: the marker is cleared.
    writeFileSync(dead, `${deadPid()}\n`);
    writeFileSync(`${dead}.takeover`, `${deadPid()}\n`);
    takeFileLock(dead).release();
    expect(existsSync(`${dead}.takeover`)).toBe(false);
    // One that died before writing its pid: cleared once it is old (seconds), never while it may be live.
    writeFileSync(dead, `${deadPid()}\n`);
    writeFileSync(`${dead}.takeover`, "");
    expect(() => takeFileLock(dead)).toThrow(LockBusyError);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${dead}.takeover`, old, old);
    takeFileLock(dead).release();
    expect(existsSync(`${dead}.takeover`)).toBe(false);
  });
});

/** A process that prints `ready`, waits for `go` to exist, tries to take `lock` once, prints `won` or
 * `busy`, and (when it won) holds the lock until `release` exists. */
function taker(lock: string, go: string, release: string): { ready: Promise<void>; result: Promise<string> } {
  const file = fileURLToPath(new URL("../../src/util/file-lock.ts", import.meta.url));
  const code = `
    const { takeFileLock } = await import(${JSON.stringify(file)});
    const { existsSync } = await import("node:fs");
    process.stdout.write("ready\\n");
    while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 1));
    let l = null;
    try { l = takeFileLock(${JSON.stringify(lock)}); } catch {}
    process.stdout.write(l ? "won\\n" : "busy\\n");
    if (l) { while (!existsSync(${JSON.stringify(release)})) await new Promise((r) => setTimeout(r, 20)); l.release(); }
  `;
  const c = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { cwd: ROOT });
  children.push(c);
  let out = "";
  let onReady = (): void => {};
  let onResult = (_: string): void => {};
  const ready = new Promise<void>((r) => (onReady = r));
  const result = new Promise<string>((r) => (onResult = r));
  c.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    const lines = out.split("\n").filter((l) => l !== "");
    if (lines.includes("ready")) onReady();
    const last = lines.find((l) => l === "won" || l === "busy");
    if (last !== undefined) onResult(last);
  });
  c.on("exit", (code) => {
    onReady();
    onResult(`exited ${code}`);
  });
  return { ready, result };
}

describe("processes at once", () => {
  test("six processes taking over one stale lock at the same moment: exactly one holds it", async () => {
    const h = home();
    const lock = join(h, "log.jsonl.lock");
    const [go, release] = [join(h, "go"), join(h, "release")];
    writeFileSync(lock, `${deadPid()}\n`);
    const takers = Array.from({ length: 6 }, () => taker(lock, go, release));
    await Promise.all(takers.map((t) => t.ready));
    writeFileSync(go, "");
    const results = await Promise.all(takers.map((t) => t.result));
    writeFileSync(release, "");
    expect(results.sort()).toEqual(["busy", "busy", "busy", "busy", "busy", "won"]);
  });
});

describe("one writer per hook session log", () => {
  test("`polar hook --in-process` while the daemon has the session open: refused (exit 2, what to do); the daemon's chain stays one", async () => {
    const h = home();
    const cwd = mkdtempSync(join(tmpdir(), "polar-lock-ws-"));
    const running = (await startServer(new HookEngine({ home: h, shellGuard: () => denying }), h))!;
    try {
      const post = (body: string) => fetchUnix(socketPath(h), "/hook/claude-code", body).then((r) => r.status);
      expect(await post(pre("rm a", cwd))).toBe(200);
      const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const c = spawn(process.execPath, [POLAR, "hook", "claude-code", "--in-process"], { env: { ...process.env, POLAR_HOME: h } });
        let stdout = "";
        let stderr = "";
        c.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
        c.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        c.on("close", (status) => resolve({ status, stdout, stderr }));
        c.stdin.end(pre("rm b", cwd));
      });
      expect(r).toMatchObject({ status: 2, stdout: "" });
      expect(r.stderr).toMatch(new RegExp(`being written by another polar process \\(pid ${process.pid}`, "u"));
      expect(r.stderr).toMatch(/polar hook claude-code` without --in-process/u);
      expect(await post(pre("rm c", cwd))).toBe(200);
      expect(verifyAuditLog(logOf(h), { ontologies: [] })).toMatchObject({ ok: true, total: 2 });
    } finally {
      await running.close();
    }
    expect(existsSync(`${auditLogPath(h, "claude-code", "one")}.lock`)).toBe(false);
    expect(existsSync(serveLockPath(h))).toBe(false);
  });
});

describe("one daemon per polar home", () => {
  test("a second daemon does not start beside the first, even when the first's socket file is gone (a tmp cleaner)", async () => {
    const h = home();
    const first = (await startServer(new HookEngine({ home: h, shellGuard: () => denying }), h))!;
    try {
      expect(readLockHolder(serveLockPath(h))).toBe(process.pid);
      unlinkSync(socketPath(h));
      expect(await startServer(new HookEngine({ home: h, shellGuard: () => denying }), h)).toBeNull();
    } finally {
      await first.close();
    }
    // The lock goes with the first; a dead daemon's lock is taken over.
    expect(existsSync(serveLockPath(h))).toBe(false);
    writeFileSync(serveLockPath(h), `${deadPid()}\n`);
    const next = await startServer(new HookEngine({ home: h, shellGuard: () => denying }), h);
    expect(next).not.toBeNull();
    await next!.close();
  });

  test("a second `polar serve` process refuses (exit 1, names the running one); the first keeps answering; --stop waits for it to let go", async () => {
    const h = home();
    const first = spawn(process.execPath, [POLAR, "serve"], { env: { ...process.env, POLAR_HOME: h }, stdio: "ignore" });
    children.push(first);
    let up = null;
    for (let i = 0; i < 600 && up === null; i++) {
      up = await ping(socketPath(h), 1000);
      if (up === null) await new Promise((r) => setTimeout(r, 100));
    }
    expect(up).toMatchObject({ pid: first.pid });
    const second = spawnSync(process.execPath, [POLAR, "serve"], { env: { ...process.env, POLAR_HOME: h }, encoding: "utf8", timeout: 60_000 });
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`already runs .*pid ${first.pid}`, "u"));
    expect(await ping(socketPath(h), 5000)).toMatchObject({ pid: first.pid });
    // `polar serve --stop` returns once the daemon let go of serve.lock: a new one can start at once.
    const stop = spawnSync(process.execPath, [POLAR, "serve", "--stop"], { env: { ...process.env, POLAR_HOME: h }, encoding: "utf8", timeout: 60_000 });
    expect(stop.stdout).toBe("polar daemon stopped\n");
    expect(existsSync(serveLockPath(h))).toBe(false);
  });
});

/** POST over the daemon's Unix socket. */
function fetchUnix(socket: string, path: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, path, method: "POST" }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (data += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
