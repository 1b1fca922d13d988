// src/hooks/engine.ts, call by call: what each hook event answers, which guard it asks (the shell guard
// per workspace, an MCP server's guard per session), what the session's audit log records for it, what a
// post-tool event observes, and how every failure on the way (a guard that cannot start, an answer that is
// not one, a log that cannot be read or written, a lock held by another writer) is a refusal.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { verifyAuditLog } from "../../src/audit/index.js";
import type { Agent } from "../../src/hooks/agents.js";
import { approvalsDir, approveStored, auditLogPath, HookEngine, SessionLogBusyError, sessionFileName, toolResult, type StoredApproval } from "../../src/hooks/engine.js";
import type { GuardAnswer, HookGuard } from "../../src/hooks/guards.js";
import { readLockHolder } from "../../src/util/file-lock.js";
import { fakeGuard, payload, POST } from "./helpers.js";

const newHome = (): string => mkdtempSync(join(tmpdir(), "polar-engine-"));

function records(home: string, agent: Agent = "claude-code", session = "sess-1"): Array<Record<string, unknown>> {
  const file = auditLogPath(home, agent, session);
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>) : [];
}

function post(agent: Agent, tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return payload(agent, tool, input, { hook_event_name: POST[agent], ...extra });
}

const decisionOf = (out: { stdout: string }): string => JSON.parse(out.stdout).hookSpecificOutput.permissionDecision as string;

describe("session files", () => {
  test("a session id that is a plain file name is kept; any other is hashed (never a path out of the audit directory)", () => {
    expect(sessionFileName("codex", "abc-DEF_1.2")).toBe("codex-abc-DEF_1.2.jsonl");
    expect(sessionFileName("gemini", "a".repeat(100))).toBe(`gemini-${"a".repeat(100)}.jsonl`);
    for (const id of ["a".repeat(101), "../x", ".hidden", "a b", "a/b", "é"]) {
      expect(sessionFileName("claude-code", id)).toMatch(/^claude-code-[0-9a-f]{32}\.jsonl$/u);
    }
    expect(sessionFileName("claude-code", "../x")).not.toBe(sessionFileName("claude-code", "../y"));
    expect(auditLogPath("/h", "opencode", "s")).toBe(join("/h", "audit", "opencode-s.jsonl"));
    expect(approvalsDir("/h")).toBe(join("/h", "approvals"));
  });

  test("the log and the stored approvals are the user's alone (0600)", async () => {
    const home = newHome();
    const engine = new HookEngine({ home, shellGuard: () => fakeGuard({ action: "ask", reason: "r", execution: null }) });
    await engine.handle("codex", payload("codex", "Bash", { command: "git reset --hard" }));
    expect(statSync(auditLogPath(home, "codex", "sess-1")).mode & 0o777).toBe(0o600);
    const [file] = readdirSync(approvalsDir(home));
    expect(statSync(join(approvalsDir(home), file)).mode & 0o777).toBe(0o600);
    engine.close();
  });

  test("SessionLogBusyError: code audit-log-busy, the log, the holder and what to do", () => {
    const e = new SessionLogBusyError("/h/audit/codex-s.jsonl", "codex", 42, "/h/audit/codex-s.jsonl.lock");
    expect([e.name, e.code]).toEqual(["SessionLogBusyError", "audit-log-busy"]);
    expect(e.message).toMatch(/^refused: this session's audit log `\/h\/audit\/codex-s\.jsonl` is being written by another polar process \(pid 42, lock `\/h\/audit\/codex-s\.jsonl\.lock`\)/u);
    expect(e.message).toContain("Use `polar hook codex` without --in-process");
  });
});

describe("what one call answers and records", () => {
  test("an approved shell call: the agent's allow, and one record with every field of the call and the answer", async () => {
    const home = newHome();
    const g = fakeGuard({ action: "allow", reason: "approved: reversible", code: "reversible", execution: "x1" });
    const engine = new HookEngine({ home, shellGuard: () => g });
    const out = await engine.handle("claude-code", payload("claude-code", "Bash", { command: "touch a", timeout: 5 }));
    expect(out).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    expect(g.checks).toEqual([{ name: "shell", arguments: { command: "touch a" } }]);
    const [rec] = records(home);
    expect(rec).toMatchObject({
      format: "polar-hook/1",
      seq: 1,
      agent: "claude-code",
      sessionId: "sess-1",
      cwd: "/tmp/ws",
      tool: "Bash",
      input: { command: "touch a", timeout: 5 },
      action: "allow",
      reason: "approved: reversible",
      code: "reversible",
      approval: null,
      decisions: [],
    });
    expect("readOnly" in rec).toBe(false);
    engine.close();
  });

  test("a read-only approval's evidence is recorded; a guard's null readOnly is not", async () => {
    const home = newHome();
    let readOnly: GuardAnswer["readOnly"] = { command: "ls", cwd: "/tmp/ws", catalogue: "c".repeat(64) };
    const engine = new HookEngine({ home, shellGuard: () => ({ check: () => ({ action: "allow", reason: "read-only", code: "read_only", execution: null, decisions: [], readOnly }), observe() {} }) });
    await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }));
    readOnly = null;
    await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }));
    const [a, b] = records(home);
    expect(a.readOnly).toEqual({ command: "ls", cwd: "/tmp/ws", catalogue: "c".repeat(64) });
    expect("readOnly" in b).toBe(false);
    engine.close();
  });

  test("a refusal and an ask are recorded with their reason and code; records number on and chain", async () => {
    const home = newHome();
    let answer: Partial<GuardAnswer> = { action: "deny", reason: "refused: would delete a", code: "irreversible", execution: null };
    const engine = new HookEngine({ home, shellGuard: () => fakeGuard(() => ({ action: "allow", reason: "", code: "", execution: null, decisions: [], ...answer }) as GuardAnswer) });
    expect(decisionOf(await engine.handle("claude-code", payload("claude-code", "Bash", { command: "rm a" })))).toBe("deny");
    answer = { action: "ask", reason: "Discard a?", code: "irreversible", execution: null };
    expect(decisionOf(await engine.handle("claude-code", payload("claude-code", "Bash", { command: "git reset --hard" })))).toBe("ask");
    expect(records(home).map((r) => [r.seq, r.action, r.reason, r.code, r.approval])).toEqual([
      [1, "deny", "refused: would delete a", "irreversible", null],
      [2, "ask", "Discard a?", "irreversible", null],
    ]);
    // Claude Code asks for itself: no approval id is made.
    expect(existsSync(approvalsDir(home))).toBe(false);
    expect(verifyAuditLog(readFileSync(auditLogPath(home, "claude-code", "sess-1"), "utf8"), { ontologies: [] })).toMatchObject({ ok: true, total: 2 });
    engine.close();
  });

  test("an unknown tool is refused and recorded (code unknown_tool) without asking any guard", async () => {
    const home = newHome();
    let made = 0;
    const engine = new HookEngine({ home, shellGuard: () => (made++, fakeGuard({})) });
    const out = await engine.handle("gemini", payload("gemini", "web_fetch", { url: "https://x" }));
    expect(JSON.parse(out.stdout)).toEqual({ decision: "deny", reason: "refused: polar has no guard for the gemini tool `web_fetch`" });
    expect(made).toBe(0);
    expect(records(home, "gemini")).toMatchObject([{ seq: 1, tool: "web_fetch", action: "deny", reason: "refused: polar has no guard for the gemini tool `web_fetch`", code: "unknown_tool", decisions: [] }]);
    engine.close();
  });

  test("a payload that cannot be read: exit 2 with the reason, nothing recorded", async () => {
    const home = newHome();
    const engine = new HookEngine({ home, shellGuard: () => fakeGuard({}) });
    expect(await engine.handle("gemini", "{")).toEqual({ stdout: "", stderr: "polar: refused: the hook payload is not JSON\n", exitCode: 2 });
    expect(await engine.handle("gemini", payload("claude-code", "Bash", { command: "ls" }))).toEqual({ stdout: "", stderr: "polar: refused: the hook event `PreToolUse` is not one polar answers for gemini\n", exitCode: 2 });
    expect(existsSync(join(home, "audit"))).toBe(false);
  });

  test("a malformed call of a known tool is refused with what it lacks", async () => {
    const home = newHome();
    const g = fakeGuard({});
    const engine = new HookEngine({ home, shellGuard: () => g });
    const out = await engine.handle("claude-code", payload("claude-code", "Write", { file_path: "/tmp/ws/a" }));
    expect(JSON.parse(out.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "refused: the Write call has no `file_path` and `content` strings" });
    expect(g.checks).toEqual([]);
    engine.close();
  });

  test("an MCP server without an ontology is refused and recorded; one with an ontology gets one guard per session", async () => {
    const home = newHome();
    let made = 0;
    const engine = new HookEngine({ home, shellGuard: null, mcp: { memory: () => (made++, fakeGuard({ action: "allow", reason: "approved", code: "reversible" })) } });
    const gh = await engine.handle("claude-code", payload("claude-code", "mcp__github__delete_repo", { repo: "x" }));
    expect(decisionOf(gh)).toBe("deny");
    expect(JSON.parse(gh.stdout).hookSpecificOutput.permissionDecisionReason).toBe("refused: no ontology is configured for the MCP server `github`");
    expect(records(home)[0]).toMatchObject({ action: "deny", code: "unknown_tool", reason: "refused: no ontology is configured for the MCP server `github`" });
    for (let i = 0; i < 3; i++) expect(await engine.handle("claude-code", payload("claude-code", "mcp__memory__create_entities", { entities: [] }))).toMatchObject({ stdout: "{}\n", exitCode: 0 });
    expect(made).toBe(1);
    await engine.handle("claude-code", payload("claude-code", "mcp__memory__create_entities", { entities: [] }, { session_id: "sess-2" }));
    expect(made).toBe(2);
    engine.close();
  });

  test("a session start answers without a decision and records nothing", async () => {
    const home = newHome();
    const engine = new HookEngine({ home, shellGuard: () => fakeGuard({ action: "deny" }) });
    for (const agent of ["claude-code", "codex", "gemini"] as const) {
      const out = await engine.handle(agent, JSON.stringify({ hook_event_name: "SessionStart", session_id: "sess-1", cwd: "/tmp/ws" }));
      expect(out).toEqual({ stdout: agent === "codex" ? "" : "{}\n", stderr: "", exitCode: 0 });
      expect(records(home, agent)).toEqual([]);
    }
    engine.close();
  });
});

describe("the shell guard of a session", () => {
  test("built once per workspace of a session, with the session's store under the polar home and a session key", async () => {
    const home = newHome();
    const made: Array<{ cwd: string; store: string; session: string }> = [];
    const engine = new HookEngine({ home, shellGuard: (o) => (made.push(o), fakeGuard({})) });
    const at = (cwd: string, session = "sess-1") => engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }, { cwd, session_id: session }));
    await at("/tmp/a");
    await at("/tmp/a");
    await at("/tmp/b");
    await at("/tmp/a", "sess-2");
    expect(made.map((m) => m.cwd)).toEqual(["/tmp/a", "/tmp/b", "/tmp/a"]);
    expect(new Set(made.map((m) => m.store))).toEqual(new Set([join(home, "store")]));
    expect(made[0].session).toMatch(/^[0-9a-f]{16}$/u);
    expect(made[1].session).toBe(made[0].session);
    expect(made[2].session).not.toBe(made[0].session);
    engine.close();
  });

  test("a guard that cannot start refuses the call with why (shell_guard_unavailable), and is tried again on the next call", async () => {
    const home = newHome();
    let tries = 0;
    const engine = new HookEngine({
      home,
      shellGuard: async () => {
        if (++tries === 1) throw new Error("no such directory");
        return fakeGuard({ action: "allow" });
      },
    });
    const first = await engine.handle("codex", payload("codex", "Bash", { command: "ls" }));
    expect(JSON.parse(first.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "refused: the shell guard cannot start here (no such directory)" });
    expect(records(home, "codex")[0]).toMatchObject({ action: "deny", code: "shell_guard_unavailable" });
    expect(await engine.handle("codex", payload("codex", "Bash", { command: "ls" }))).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect(tries).toBe(2);
    engine.close();
  });

  test("without a shell guard every shell call and file edit is refused, recorded as shell_guard_unavailable", async () => {
    const home = newHome();
    const engine = new HookEngine({ home, shellGuard: null });
    const out = await engine.handle("gemini", payload("gemini", "write_file", { file_path: "/tmp/ws/a", content: "x" }));
    expect(JSON.parse(out.stdout)).toEqual({ decision: "deny", reason: "refused: shell guard not available (polar cannot judge shell commands or file edits here)" });
    expect(records(home, "gemini")[0]).toMatchObject({ code: "shell_guard_unavailable" });
    engine.close();
  });
});

describe("a guard's answer that is not one: refused (exit 2), nothing allowed", () => {
  const bad: unknown[] = [
    null,
    undefined,
    "allow",
    { action: "permit", reason: "r", decisions: [] },
    { action: "allow", reason: 1, decisions: [] },
    { action: "allow", reason: "r" },
    { action: "allow", reason: "r", decisions: "[]" },
  ];
  for (const answer of bad) {
    test(JSON.stringify(answer) ?? "undefined", async () => {
      const home = newHome();
      const engine = new HookEngine({ home, shellGuard: () => ({ check: () => answer as GuardAnswer, observe() {} }) });
      const out = await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }));
      expect(out).toEqual({ stdout: "", stderr: "polar: refused: polar failed inside (the guard returned no answer)\n", exitCode: 2 });
      expect(records(home)).toEqual([]);
      engine.close();
    });
  }

  test("ask and deny answers are answers", async () => {
    for (const action of ["ask", "deny"] as const) {
      const { exitCode } = await new HookEngine({ home: newHome(), shellGuard: () => fakeGuard({ action }) }).handle("claude-code", payload("claude-code", "Bash", { command: "ls" }));
      expect(exitCode).toBe(0);
    }
  });
});

describe("post-tool events", () => {
  test("each approved call is observed once, with its own execution, matched by tool_use_id (else by the call), first in first out", async () => {
    const home = newHome();
    let n = 0;
    const g = fakeGuard(() => ({ action: "allow", reason: "ok", code: "reversible", execution: `x${++n}`, decisions: [] }));
    const engine = new HookEngine({ home, shellGuard: () => g });
    const cmd = { command: "touch a" };
    await engine.handle("claude-code", payload("claude-code", "Bash", cmd));
    await engine.handle("claude-code", payload("claude-code", "Bash", cmd));
    await engine.handle("claude-code", payload("claude-code", "Bash", { command: "touch b" }, { tool_use_id: "t3" }));
    // Each post-tool answer decides nothing.
    expect(await engine.handle("claude-code", post("claude-code", "Bash", { command: "touch b" }, { tool_use_id: "t3", tool_response: { exit_code: 1 } }))).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    await engine.handle("claude-code", post("claude-code", "Bash", cmd, { tool_response: { stdout: "" } }));
    await engine.handle("claude-code", post("claude-code", "Bash", cmd, { tool_response: { stdout: "" } }));
    // A third one: nothing approved is pending for it; still observed (the guard sees what ran), without an execution.
    await engine.handle("claude-code", post("claude-code", "Bash", cmd, { tool_response: { stdout: "" } }));
    expect(g.observed).toEqual([
      { call: { name: "shell", arguments: { command: "touch b" } }, exitCode: 1, execution: "x3" },
      { call: { name: "shell", arguments: cmd }, exitCode: 0, execution: "x1" },
      { call: { name: "shell", arguments: cmd }, exitCode: 0, execution: "x2" },
      { call: { name: "shell", arguments: cmd }, exitCode: 0, execution: null },
    ]);
    // Post-tool events are not decisions: the log holds the three pre-tool answers only.
    expect(records(home)).toHaveLength(3);
    // Matched by the call's text: each call's own execution, whatever order they finish in.
    await engine.handle("claude-code", payload("claude-code", "Bash", { command: "touch c" }));
    await engine.handle("claude-code", payload("claude-code", "Bash", { command: "touch d" }));
    await engine.handle("claude-code", post("claude-code", "Bash", { command: "touch d" }, { tool_response: { stdout: "" } }));
    await engine.handle("claude-code", post("claude-code", "Bash", { command: "touch c" }, { tool_response: { stdout: "" } }));
    expect(g.observed.slice(4).map((o) => [o.call.arguments.command, o.execution])).toEqual([
      ["touch d", "x5"],
      ["touch c", "x4"],
    ]);
    engine.close();
  });

  test("a refused or asked call is not pending: its post-tool event is observed without an execution", async () => {
    const home = newHome();
    for (const action of ["deny", "ask"] as const) {
      const g = fakeGuard({ action, execution: "x9" });
      const engine = new HookEngine({ home, shellGuard: () => g });
      await engine.handle("claude-code", payload("claude-code", "Bash", { command: "rm a" }, { tool_use_id: "t1", session_id: action }));
      await engine.handle("claude-code", post("claude-code", "Bash", { command: "rm a" }, { tool_use_id: "t1", session_id: action, tool_response: { stdout: "" } }));
      expect(g.observed).toEqual([{ call: { name: "shell", arguments: { command: "rm a" } }, exitCode: 0, execution: null }]);
      engine.close();
    }
  });

  test("the guard that approved is the one observed, even after its workspace's guard was built anew", async () => {
    const home = newHome();
    const guards: Array<ReturnType<typeof fakeGuard>> = [];
    const engine = new HookEngine({ home, shellGuard: () => (guards.push(fakeGuard({ execution: `x${guards.length}` })), guards[guards.length - 1]) });
    await engine.handle("codex", payload("codex", "Bash", { command: "touch a" }, { tool_use_id: "t1" }));
    await engine.handle("codex", post("codex", "Bash", { command: "touch a" }, { tool_use_id: "t1", cwd: "/tmp/other", tool_response: { exit_code: 0 } }));
    expect(guards).toHaveLength(1);
    expect(guards[0].observed).toEqual([{ call: { name: "shell", arguments: { command: "touch a" } }, exitCode: 0, execution: "x0" }]);
    engine.close();
  });

  test("a post-tool event of an unknown tool or an MCP server without an ontology observes nothing and answers nothing", async () => {
    const home = newHome();
    const g = fakeGuard({});
    const engine = new HookEngine({ home, shellGuard: () => g });
    expect(await engine.handle("gemini", post("gemini", "web_fetch", { url: "x" }))).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    expect(await engine.handle("gemini", post("gemini", "mcp__github__delete_repo", {}))).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    expect(g.observed).toEqual([]);
    expect(records(home, "gemini")).toEqual([]);
    engine.close();
  });
});

describe("toolResult: the agent's tool response as the guard's result", () => {
  test("the exit code where the agent gives one (exitCode, exit_code, returncode, in that order)", () => {
    expect(toolResult({ exitCode: 4, exit_code: 5, returncode: 6 }).exitCode).toBe(4);
    expect(toolResult({ exit_code: 5, returncode: 6 }).exitCode).toBe(5);
    expect(toolResult({ returncode: 6 }).exitCode).toBe(6);
    expect(toolResult({ exitCode: 0, is_error: true }).exitCode).toBe(0);
  });

  test("no integer exit code: failed (1) when the agent flags an error, an unsuccessful or an interrupted run, else 0", () => {
    expect(toolResult({ is_error: true }).exitCode).toBe(1);
    expect(toolResult({ success: false }).exitCode).toBe(1);
    expect(toolResult({ interrupted: true }).exitCode).toBe(1);
    expect(toolResult({ exit_code: 1.5, success: false }).exitCode).toBe(1);
    expect(toolResult({ exit_code: "2" }).exitCode).toBe(0);
    for (const r of [{ is_error: "yes", success: 0, interrupted: 1 }, { success: true }, null, undefined, "text", 3]) expect(toolResult(r).exitCode).toBe(0);
  });

  test("stdout and stderr where they are strings; a text response is the output; the raw response is kept", () => {
    expect(toolResult({ stdout: "o", stderr: "e", x: 1 })).toEqual({ exitCode: 0, stdout: "o", stderr: "e", raw: { stdout: "o", stderr: "e", x: 1 } });
    expect(toolResult("all of it")).toEqual({ exitCode: 0, stdout: "all of it", raw: "all of it" });
    expect(toolResult({ stdout: 1, stderr: null })).toEqual({ exitCode: 0, raw: { stdout: 1, stderr: null } });
    expect(toolResult(null)).toEqual({ exitCode: 0, raw: null });
  });
});

describe("the session's audit log", () => {
  test("a log that cannot be written: the call is refused (exit 2) naming the log and why; the chain goes on unbroken once it can", async () => {
    const home = newHome();
    const engine = new HookEngine({ home, shellGuard: () => fakeGuard({ action: "deny" }) });
    await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }));
    const log = auditLogPath(home, "claude-code", "sess-1");
    const kept = readFileSync(log, "utf8");
    rmSync(log);
    mkdirSync(log); // appending to a directory fails (also for root, whom file modes do not stop)
    const out = await engine.handle("claude-code", payload("claude-code", "Bash", { command: "touch a" }));
    expect(out).toEqual({ stdout: "", stderr: `polar: refused: polar failed inside (the audit log \`${log}\` cannot be written (EISDIR))\n`, exitCode: 2 });
    rmSync(log, { recursive: true });
    writeFileSync(log, kept);
    expect(decisionOf(await engine.handle("claude-code", payload("claude-code", "Bash", { command: "touch b" })))).toBe("deny");
    expect(records(home).map((r) => [r.seq, (r.input as { command: string }).command])).toEqual([[1, "ls"], [2, "touch b"]]);
    expect(verifyAuditLog(readFileSync(log, "utf8"), { ontologies: [] })).toMatchObject({ ok: true, total: 2 });
    engine.close();
  });

  test("an existing log goes on from its last record; an empty one starts at 1", async () => {
    const home = newHome();
    const a = new HookEngine({ home, shellGuard: () => fakeGuard({ action: "deny" }) });
    for (const c of ["a", "b", "c"]) await a.handle("codex", payload("codex", "Bash", { command: c }));
    a.close();
    mkdirSync(join(home, "audit"), { recursive: true });
    writeFileSync(auditLogPath(home, "codex", "empty"), "\n");
    const b = new HookEngine({ home, shellGuard: () => fakeGuard({ action: "deny" }) });
    await b.handle("codex", payload("codex", "Bash", { command: "d" }));
    await b.handle("codex", payload("codex", "Bash", { command: "e" }, { session_id: "empty" }));
    b.close();
    expect(records(home, "codex").map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(verifyAuditLog(readFileSync(auditLogPath(home, "codex", "sess-1"), "utf8"), { ontologies: [] })).toMatchObject({ ok: true, total: 4 });
    expect(records(home, "codex", "empty").map((r) => r.seq)).toEqual([1]);
  });

  test("a log whose last line is not a record of the chain: every call of that session is refused, and its lock is let go", async () => {
    const home = newHome();
    mkdirSync(join(home, "audit"), { recursive: true });
    const log = auditLogPath(home, "claude-code", "sess-1");
    writeFileSync(log, "{not a record\n");
    const engine = new HookEngine({ home, shellGuard: () => fakeGuard({}) });
    for (let i = 0; i < 2; i++) {
      const out = await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }));
      expect(out).toMatchObject({ stdout: "", exitCode: 2 });
      expect(out.stderr).toMatch(/^polar: refused: polar failed inside \(line 1, the last, is not a record of the chain/u);
    }
    expect(existsSync(`${log}.lock`)).toBe(false);
    expect(engine.sessionCount()).toBe(0);
    expect(readFileSync(log, "utf8")).toBe("{not a record\n");
    // Another session of the same home is not affected.
    expect((await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }, { session_id: "sess-2" }))).exitCode).toBe(0);
    engine.close();
  });

  test("a lock whose holder cannot be read: refused as busy (pid unknown), never judged unlogged", async () => {
    const home = newHome();
    mkdirSync(join(home, "audit"), { recursive: true });
    const log = auditLogPath(home, "claude-code", "sess-1");
    writeFileSync(`${log}.lock`, "not a pid\n");
    const engine = new HookEngine({ home, shellGuard: () => fakeGuard({}) });
    const out = await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }));
    expect(out).toMatchObject({ stdout: "", exitCode: 2 });
    expect(out.stderr.startsWith(`polar: refused: this session's audit log \`${log}\` is being written by another polar process (pid unknown, lock \`${log}.lock\`)`)).toBe(true);
    expect(existsSync(log)).toBe(false);
    engine.close();
  });

  test("a lock that cannot be created at all (here: a path too long for the system): refused with why, not taken for a busy log", async () => {
    // A home whose audit directory can exist but whose session log path is over PATH_MAX (4096).
    let home = newHome();
    while (home.length < 4000) home = join(home, "d".repeat(Math.min(200, 4000 - home.length)));
    mkdirSync(join(home, "audit"), { recursive: true });
    const engine = new HookEngine({ home, shellGuard: () => fakeGuard({}) });
    const out = await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }, { session_id: "s".repeat(100) }));
    expect(out).toMatchObject({ stdout: "", exitCode: 2 });
    // (The reason is cut at 2000 characters: the path fills it.)
    expect(out.stderr.startsWith(`polar: refused: polar failed inside (cannot create the lock \`${home.slice(0, 1000)}`)).toBe(true);
    engine.close();
  });

  test("a failing call does not hold up the next one in the same workspace", async () => {
    let first = true;
    const engine = new HookEngine({
      home: newHome(),
      shellGuard: () => ({
        check: () => {
          if (first) {
            first = false;
            throw new Error("once");
          }
          return { action: "allow", reason: "", code: "read_only", execution: null, decisions: [] };
        },
        observe() {},
      }),
    });
    const [a, b] = await Promise.all([engine.handle("codex", payload("codex", "Bash", { command: "a" })), engine.handle("codex", payload("codex", "Bash", { command: "b" }))]);
    expect(a).toEqual({ stdout: "", stderr: "polar: refused: polar failed inside (once)\n", exitCode: 2 });
    expect(b).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    engine.close();
  });
});

describe("sessions kept warm", () => {
  test("at least one session is kept (maxSessions 0 is 1); exactly sessionIdleMs unused lets a session go", async () => {
    let now = 0;
    const engine = new HookEngine({ home: newHome(), shellGuard: () => fakeGuard({}), maxSessions: 0, sessionIdleMs: 100, now: () => now });
    const call = (session: string) => engine.handle("gemini", payload("gemini", "run_shell_command", { command: "ls" }, { session_id: session }));
    await call("a");
    expect(engine.sessionCount()).toBe(1);
    await call("b");
    expect(engine.sessionCount()).toBe(1);
    const idle = new HookEngine({ home: newHome(), shellGuard: () => fakeGuard({}), sessionIdleMs: 100, now: () => now });
    const at = (session: string) => idle.handle("gemini", payload("gemini", "run_shell_command", { command: "ls" }, { session_id: session }));
    now = 1000;
    await at("a");
    now += 99;
    await at("b");
    expect(idle.sessionCount()).toBe(2);
    now += 1; // a: exactly 100 unused
    await at("b");
    expect(idle.sessionCount()).toBe(1);
    engine.close();
    idle.close();
  });

  test("the default bound keeps many sessions and a session used again is not idle", async () => {
    let now = 0;
    const engine = new HookEngine({ home: newHome(), shellGuard: () => fakeGuard({}), now: () => now });
    for (let i = 0; i < 5; i++) await engine.handle("codex", payload("codex", "Bash", { command: "ls" }, { session_id: `s${i}` }));
    expect(engine.sessionCount()).toBe(5);
    now += 6 * 3600_000 - 1;
    await engine.handle("codex", payload("codex", "Bash", { command: "ls" }, { session_id: "s0" }));
    expect(engine.sessionCount()).toBe(5);
    now += 1;
    await engine.handle("codex", payload("codex", "Bash", { command: "ls" }, { session_id: "s0" }));
    expect(engine.sessionCount()).toBe(1);
    engine.close();
    expect(engine.sessionCount()).toBe(0);
  });

  test("a session being judged is never let go, even over the bound", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const home = newHome();
    const engine = new HookEngine({
      home,
      maxSessions: 1,
      shellGuard: async ({ cwd }) => {
        if (cwd === "/tmp/slow") await gate;
        return fakeGuard({});
      },
    });
    const slow = engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }, { session_id: "slow", cwd: "/tmp/slow" }));
    await new Promise((r) => setTimeout(r, 10));
    await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }, { session_id: "fast", cwd: "/tmp/fast" }));
    // Over the bound, but "slow" is busy and "fast" is the one being opened: both stay, with their logs'
    // locks (a session let go while its call goes on would write its log without holding the lock).
    expect(engine.sessionCount()).toBe(2);
    for (const s of ["slow", "fast"]) expect(readLockHolder(`${auditLogPath(home, "claude-code", s)}.lock`)).toBe(process.pid);
    release();
    expect((await slow).exitCode).toBe(0);
    engine.close();
  });
});

describe("Codex approvals", () => {
  const ask = () => fakeGuard({ action: "ask", reason: "would discard a.ts", code: "irreversible", execution: null });
  const idOf = (out: { stdout: string }): string => /polar approve ([0-9a-f]{8})/u.exec(JSON.parse(out.stdout).hookSpecificOutput.permissionDecisionReason as string)![1];
  const stored = (home: string, id: string): StoredApproval => JSON.parse(readFileSync(join(approvalsDir(home), `${id}.json`), "utf8")) as StoredApproval;

  test("the refusal names the id and how to use it; the stored approval is this session's, this call's, not yet approved, with its lifetime", async () => {
    const home = newHome();
    const engine = new HookEngine({ home, shellGuard: ask, now: () => 5000, approvalTtlMs: 700 });
    const out = await engine.handle("codex", payload("codex", "Bash", { command: "git reset --hard" }));
    const id = idOf(out);
    expect(JSON.parse(out.stdout).hookSpecificOutput.permissionDecisionReason).toBe(`would discard a.ts — to run this exact call once, the user runs \`polar approve ${id}\` and asks for a retry`);
    expect(stored(home, id)).toMatchObject({ format: "polar-approval/1", id, session: "codex\u0000sess-1", approved: false, expires: 5700 });
    expect(stored(home, id).callKey).toMatch(/^[0-9a-f]{64}$/u);
    expect(records(home, "codex")[0]).toMatchObject({ action: "ask", approval: null });
    engine.close();
  });

  test("the approved retry is allowed once and recorded with the approval; pending for its post-tool event", async () => {
    const home = newHome();
    const g = fakeGuard({ action: "ask", reason: "would discard a.ts", code: "irreversible", execution: "x5" });
    const engine = new HookEngine({ home, shellGuard: () => g });
    const p = payload("codex", "Bash", { command: "git reset --hard" }, { tool_use_id: "t1" });
    const id = idOf(await engine.handle("codex", p));
    expect(engine.approve(id)).toBe(true);
    expect(await engine.handle("codex", p)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect(records(home, "codex")[1]).toMatchObject({ action: "allow", approval: id, reason: `approved once by \`polar approve ${id}\`: would discard a.ts` });
    expect(readdirSync(approvalsDir(home))).toEqual([]);
    await engine.handle("codex", post("codex", "Bash", { command: "git reset --hard" }, { tool_use_id: "t1", tool_response: { exit_code: 0 } }));
    expect(g.observed).toEqual([{ call: { name: "shell", arguments: { command: "git reset --hard" } }, exitCode: 0, execution: "x5" }]);
    engine.close();
  });

  test("an approval lets through only the identical call of the same session", async () => {
    const home = newHome();
    const engine = new HookEngine({ home, shellGuard: ask });
    const id = idOf(await engine.handle("codex", payload("codex", "Bash", { command: "git reset --hard" })));
    expect(engine.approve(id)).toBe(true);
    const other = await engine.handle("codex", payload("codex", "Bash", { command: "git reset --hard HEAD~1" }));
    expect(idOf(other)).not.toBe(id);
    const otherSession = await engine.handle("codex", payload("codex", "Bash", { command: "git reset --hard" }, { session_id: "sess-2" }));
    expect(idOf(otherSession)).not.toBe(id);
    expect(await engine.handle("codex", payload("codex", "Bash", { command: "git reset --hard" }))).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    engine.close();
  });

  test("an approved id that another process used first is gone: a new id is issued, the call is refused", async () => {
    const home = newHome();
    const engine = new HookEngine({ home, shellGuard: ask });
    const p = payload("codex", "Bash", { command: "git clean -fd" });
    const id = idOf(await engine.handle("codex", p));
    expect(engine.approve(id)).toBe(true);
    // The other process read it as approved, then used it: what this one finds is an approved file it cannot take.
    const a = stored(home, id);
    writeFileSync(join(approvalsDir(home), "ffffffff.json"), JSON.stringify({ ...a, id: "ffffffff" }));
    rmSync(join(approvalsDir(home), `${id}.json`));
    const engine2 = new HookEngine({ home, shellGuard: ask });
    // The approved ffffffff is used by this call (one retry), then nothing approved is left.
    expect((await engine2.handle("codex", payload("codex", "Bash", { command: "git clean -fd" }, { session_id: "sess-1" }))).exitCode).toBe(2);
    engine2.close();
    const again = await engine.handle("codex", p);
    expect(again).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    const next = idOf(await engine.handle("codex", p));
    expect([id, "ffffffff"]).not.toContain(next);
    engine.close();
  });

  test("stored approvals that are malformed, of another name or expired are not used; expired ones are removed", async () => {
    let now = 1000;
    const home = newHome();
    const engine = new HookEngine({ home, shellGuard: ask, now: () => now, approvalTtlMs: 100 });
    const p = payload("codex", "Bash", { command: "git reset --hard" });
    const id = idOf(await engine.handle("codex", p));
    const a = stored(home, id);
    const dir = approvalsDir(home);
    const approved = { ...a, approved: true };
    writeFileSync(join(dir, "notes.txt"), "x");
    writeFileSync(join(dir, "AAAAAAAA.json"), JSON.stringify({ ...approved, id: "AAAAAAAA" }));
    writeFileSync(join(dir, "0000000a.json"), "{");
    writeFileSync(join(dir, "0000000b.json"), "null");
    for (const [i, broken] of [
      { ...approved, format: "polar-approval/2" },
      { ...approved, id: "00000000" },
      { ...approved, session: 1 },
      { ...approved, callKey: null },
      { ...approved, approved: "true" },
      { ...approved, expires: "9999999" },
      { ...approved, expires: null },
    ].entries()) writeFileSync(join(dir, `1000000${i}.json`), JSON.stringify({ ...broken, id: broken.id === "00000000" ? "00000000" : `1000000${i}` }));
    writeFileSync(join(dir, "20000000.json"), JSON.stringify({ ...approved, id: "20000000", expires: now }));
    const refused = await engine.handle("codex", p);
    expect(idOf(refused)).toBe(id);
    expect(existsSync(join(dir, "20000000.json"))).toBe(false);
    for (const f of ["notes.txt", "AAAAAAAA.json", "0000000a.json", "0000000b.json", "10000000.json", "10000006.json"]) expect(existsSync(join(dir, f))).toBe(true);
    // The live approval expires too.
    now += 100;
    const late = await engine.handle("codex", p);
    expect(idOf(late)).not.toBe(id);
    expect(existsSync(join(dir, `${id}.json`))).toBe(false);
    engine.close();
  });

  test("approve: a fresh lifetime from the approval; false for a malformed, unknown or expired id", () => {
    const home = newHome();
    const dir = approvalsDir(home);
    mkdirSync(dir, { recursive: true });
    const a: StoredApproval = { format: "polar-approval/1", id: "0123abcd", session: "codex\u0000s", callKey: "k", approved: false, expires: 2000 };
    writeFileSync(join(dir, "0123abcd.json"), JSON.stringify(a));
    expect(approveStored(home, "0123abcd", 2000, 10)).toBe(false);
    expect(approveStored(home, "0123abcd", 1999, 10)).toBe(true);
    expect(stored(home, "0123abcd")).toEqual({ ...a, approved: true, expires: 2009 });
    expect(approveStored(home, "0123abcd", 2008)).toBe(true);
    expect(stored(home, "0123abcd").expires).toBe(2008 + 3600_000);
    for (const id of ["0123ABCD", "0123abc", "0123abcde", " 0123abcd", ""]) expect(approveStored(home, id, 0)).toBe(false);
    writeFileSync(join(dir, "11111111.json"), JSON.stringify({ ...a, id: "22222222" }));
    expect(approveStored(home, "11111111", 0)).toBe(false);
    // A stored approval of any other shape is none.
    for (const [i, broken] of [null, [], { ...a, format: "polar-approval/2" }, { ...a, session: 1 }, { ...a, callKey: null }, { ...a, approved: "false" }, { ...a, expires: "3000" }, { ...a, expires: null }].entries()) {
      const id = `3000000${i}`;
      writeFileSync(join(dir, `${id}.json`), JSON.stringify(broken === null || Array.isArray(broken) ? broken : { ...broken, id }));
      expect(approveStored(home, id, 0)).toBe(false);
    }
    expect(new HookEngine({ home, shellGuard: null, now: () => 3_000_000 }).approve("0123abcd")).toBe(true);
    expect(stored(home, "0123abcd").expires).toBe(3_000_000 + 3600_000);
    expect(new HookEngine({ home, shellGuard: null, now: () => 4_000_000, approvalTtlMs: 5 }).approve("0123abcd")).toBe(true);
    expect(stored(home, "0123abcd").expires).toBe(4_000_005);
  });

  test("approve takes only an id of 8 lowercase hex digits, whatever files lie beside the approvals", () => {
    const home = newHome();
    const dir = approvalsDir(home);
    mkdirSync(dir, { recursive: true });
    for (const id of ["0123abcdX", "X0123abcd", "0123abcd0"]) {
      writeFileSync(join(dir, `${id}.json`), JSON.stringify({ format: "polar-approval/1", id, session: "codex\u0000s", callKey: "k", approved: false, expires: 10 }));
      expect(approveStored(home, id, 0)).toBe(false);
    }
  });

  test("two ids issued for one call (two processes refused it at once): the one the user approved is used, whichever is listed first", async () => {
    for (const approvedFirst of [true, false]) {
      const home = newHome();
      const engine = new HookEngine({ home, shellGuard: ask });
      const p = payload("codex", "Bash", { command: "git reset --hard" });
      const id = idOf(await engine.handle("codex", p));
      const a = stored(home, id);
      rmSync(join(approvalsDir(home), `${id}.json`));
      const [yes, no] = approvedFirst ? ["00000001", "fffffffe"] : ["fffffffe", "00000001"];
      writeFileSync(join(approvalsDir(home), `${yes}.json`), JSON.stringify({ ...a, id: yes, approved: true }));
      writeFileSync(join(approvalsDir(home), `${no}.json`), JSON.stringify({ ...a, id: no }));
      expect(await engine.handle("codex", p)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
      expect(records(home, "codex")[1]).toMatchObject({ approval: yes });
      expect(readdirSync(approvalsDir(home))).toEqual([`${no}.json`]);
      engine.close();
    }
  });
});
