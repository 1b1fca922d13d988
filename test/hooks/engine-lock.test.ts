// One writer per hook session log, in process (the engine's side of src/util/file-lock.ts; the process
// cases stay in lock.test.ts): a second engine on the same polar home is refused with what to do (never
// judged unlogged), a session let go releases its log's lock, a lock whose pid is gone is taken over and
// the log goes on as one chain.
import { existsSync, writeFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { verifyAuditLog } from "../../src/audit/index.js";
import { auditLogPath, HookEngine } from "../../src/hooks/engine.js";
import { deadPid, denying, home, logOf, pre } from "./lock-helpers.js";
import { readLockHolder } from "../../src/util/file-lock.js";

describe("one writer per hook session log", () => {
  test("two engines on one polar home (two daemons, or a daemon and --in-process): the second is refused with what to do, the log stays one chain", async () => {
    const h = home();
    const first = new HookEngine({ home: h, shellGuard: () => denying });
    const second = new HookEngine({ home: h, shellGuard: () => denying });
    expect((await first.handle("claude-code", pre("rm a"))).exitCode).toBe(0);
    const refused = await second.handle("claude-code", pre("rm b"));
    // Claude Code's block: exit 2, the reason on stderr, nothing on stdout (never an allow).
    expect(refused).toMatchObject({ stdout: "", exitCode: 2 });
    expect(refused.stderr).toMatch(/being written by another polar process \(pid \d+/u);
    expect(refused.stderr).toMatch(/without --in-process/u);
    expect((await first.handle("claude-code", pre("rm c"))).exitCode).toBe(0);
    expect(verifyAuditLog(logOf(h), { ontologies: [] })).toMatchObject({ ok: true, total: 2 });
    // The first lets go (the daemon stops): the second goes on from the log's head.
    first.close();
    expect((await second.handle("claude-code", pre("rm d"))).exitCode).toBe(0);
    second.close();
    expect(verifyAuditLog(logOf(h), { ontologies: [] })).toMatchObject({ ok: true, total: 3 });
    expect(existsSync(`${auditLogPath(h, "claude-code", "one")}.lock`)).toBe(false);
  });

  test("a session let go (evicted) releases its log's lock", async () => {
    let now = 0;
    const h = home();
    const daemon = new HookEngine({ home: h, shellGuard: () => denying, sessionIdleMs: 1000, now: () => now });
    await daemon.handle("claude-code", pre("rm a"));
    const lock = `${auditLogPath(h, "claude-code", "one")}.lock`;
    expect(readLockHolder(lock)).toBe(process.pid);
    now += 1001;
    await daemon.handle("claude-code", JSON.stringify({ session_id: "other", cwd: "/tmp", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm x" } }));
    expect(existsSync(lock)).toBe(false);
    daemon.close();
  });

  test("a lock left by a process that is gone is taken over and the log goes on", async () => {
    const h = home();
    const a = new HookEngine({ home: h, shellGuard: () => denying });
    await a.handle("claude-code", pre("rm a"));
    a.close();
    const lock = `${auditLogPath(h, "claude-code", "one")}.lock`;
    writeFileSync(lock, `${deadPid()}\n`); // a daemon killed with the session open
    const b = new HookEngine({ home: h, shellGuard: () => denying });
    expect((await b.handle("claude-code", pre("rm b"))).exitCode).toBe(0);
    expect(readLockHolder(lock)).toBe(process.pid);
    b.close();
    expect(verifyAuditLog(logOf(h), { ontologies: [] })).toMatchObject({ ok: true, total: 2 });
  });

});
