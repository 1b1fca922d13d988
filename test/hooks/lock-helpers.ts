// What the hook lock suites (lock.test.ts: processes; engine-lock.test.ts: in process) share: a guard that
// denies everything, a fresh polar home, a pid that has exited, a PreToolUse payload and the session's log.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditLogPath } from "../../src/hooks/engine.js";
import type { HookGuard } from "../../src/hooks/guards.js";

export const denying: HookGuard = {
  check: () => ({ action: "deny", reason: "refused: test", code: "irreversible", execution: null, decisions: [] }),
  observe() {},
};

export const home = (): string => mkdtempSync(join(tmpdir(), "polar-lock-"));
/** The pid of a process that has exited. */
export const deadPid = (): number => Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);

export function pre(command: string, cwd = "/tmp"): string {
  return JSON.stringify({ session_id: "one", cwd, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command } });
}

export function logOf(h: string): string {
  return readFileSync(auditLogPath(h, "claude-code", "one"), "utf8");
}
