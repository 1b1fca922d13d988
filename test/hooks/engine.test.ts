// The hook engine and the agents' contracts, in process: every agent's refusal is a block in that
// agent's terms, every failure refuses, every decision is in the session's chained audit log and
// `verifyAuditLog` re-derives it.
import { existsSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { verifyAuditLog } from "../../src/audit/index.js";
import { failClosed, formatAnswer, parseHookInput } from "../../src/hooks/agents.js";
import { approvalsDir, approveStored, auditLogPath, HookEngine, toolResult } from "../../src/hooks/engine.js";
import { routeTool, type GuardAnswer, type HookGuard } from "../../src/hooks/guards.js";
import { engineWith, fakeGuard, payload, SHELL } from "./helpers.js";
import { mcpGuards, readHookConfig } from "../../src/hooks/setup.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const memoryBlob = join(root, "ontologies/mcp-memory/memory.blob");

describe("agent contracts", () => {
  test("a refusal is each agent's block: Claude Code and Codex permissionDecision deny, Gemini decision deny, exit 0", () => {
    const c = JSON.parse(formatAnswer("claude-code", "pre", { action: "deny", reason: "would lose x" }).stdout);
    expect(c).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "would lose x" } });
    expect(JSON.parse(formatAnswer("codex", "pre", { action: "deny", reason: "r" }).stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(JSON.parse(formatAnswer("gemini", "pre", { action: "deny", reason: "r" }).stdout)).toEqual({ decision: "deny", reason: "r" });
  });

  test("Codex cannot ask: an ask becomes a deny; Claude Code and Gemini keep ask", () => {
    expect(JSON.parse(formatAnswer("codex", "pre", { action: "ask", reason: "r" }).stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(JSON.parse(formatAnswer("claude-code", "pre", { action: "ask", reason: "r" }).stdout).hookSpecificOutput.permissionDecision).toBe("ask");
    expect(JSON.parse(formatAnswer("gemini", "pre", { action: "ask", reason: "r" }).stdout).decision).toBe("ask");
  });

  test("allow grants nothing beyond the agent's own rules: Claude `{}`, Codex empty stdout (it rejects permissionDecision allow)", () => {
    expect(formatAnswer("claude-code", "pre", { action: "allow", reason: "" })).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    expect(formatAnswer("codex", "pre", { action: "allow", reason: "" })).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect(formatAnswer("gemini", "pre", { action: "allow", reason: "" })).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
  });

  test("failClosed: exit 2, reason on stderr, nothing on stdout (no half-written JSON)", () => {
    expect(failClosed("boom")).toEqual({ stdout: "", stderr: "polar: boom\n", exitCode: 2 });
  });

  test("a wrong payload shape is an error, never a default", () => {
    expect(() => parseHookInput("claude-code", "not json")).toThrow(/not JSON/u);
    expect(() => parseHookInput("claude-code", "[]")).toThrow(/not a JSON object/u);
    expect(() => parseHookInput("claude-code", JSON.stringify({ hook_event_name: "PreToolUse", cwd: "/", tool_name: "Bash", tool_input: {} }))).toThrow(/session_id/u);
    expect(() => parseHookInput("claude-code", JSON.stringify({ hook_event_name: "PreToolUse", session_id: "s", cwd: "/", tool_name: "Bash", tool_input: "ls" }))).toThrow(/tool_input/u);
    expect(() => parseHookInput("gemini", payload("claude-code", "Bash", {}))).toThrow(/PreToolUse/u);
  });

  test("each agent's shell and file tools route to the shell guard's calls", () => {
    expect(routeTool("claude-code", "Bash", { command: "ls" })).toEqual({ kind: "shell", call: { name: "shell", arguments: { command: "ls" } } });
    expect(routeTool("claude-code", "Write", { file_path: "/a", content: "x" })).toEqual({ kind: "shell", call: { name: "write_file", arguments: { path: "/a", content: "x" } } });
    expect(routeTool("claude-code", "Edit", { file_path: "/a", old_string: "x", new_string: "y" })).toMatchObject({ call: { name: "edit_file", arguments: { path: "/a", old: "x", new: "y" } } });
    expect(routeTool("gemini", "replace", { file_path: "/a", old_string: "x", new_string: "y" })).toMatchObject({ call: { name: "edit_file" } });
    expect(routeTool("codex", "Bash", { command: ["bash", "-lc", "git status"] })).toMatchObject({ call: { name: "shell", arguments: { command: "git status" } } });
    expect(routeTool("codex", "apply_patch", { command: "*** Begin Patch" })).toMatchObject({ call: { name: "apply_patch" } });
    expect(routeTool("claude-code", "mcp__memory__create_entities", { entities: [] })).toMatchObject({ kind: "mcp", server: "memory", call: { name: "create_entities" } });
    expect(routeTool("claude-code", "Bash", { command: 42 })).toMatchObject({ kind: "unknown" });
    expect(routeTool("codex", "Bash", { command: ["rm", "-rf", "/"] })).toMatchObject({ kind: "unknown" });
    expect(routeTool("claude-code", "WebFetch", { url: "x" })).toMatchObject({ kind: "unknown" });
  });

  test("post-tool results: exit code where the agent says it, else failure flags", () => {
    expect(toolResult({ stdout: "a", stderr: "" }).exitCode).toBe(0);
    expect(toolResult({ exit_code: 3 }).exitCode).toBe(3);
    expect(toolResult({ interrupted: true }).exitCode).toBe(1);
  });
});

describe("HookEngine", () => {
  for (const agent of ["claude-code", "codex", "gemini", "opencode"] as const) {
    test(`${agent}: without the shell guard, shell commands and file edits are refused ("shell guard not available"), never allowed`, async () => {
      const { engine } = engineWith(null);
      const out = await engine.handle(agent, payload(agent, SHELL[agent], { command: "ls" }));
      expect(out.exitCode).toBe(0);
      expect(out.stdout).toContain("shell guard not available");
      expect(out.stdout).toMatch(/"(permissionDecision|decision|action)":"deny"/u);
    });

    test(`${agent}: a payload that is not JSON, a guard that throws, a guard answering garbage: exit 2 with a reason`, async () => {
      const { engine } = engineWith(fakeGuard(() => {
        throw new Error("kaboom");
      }));
      const bad = await engine.handle(agent, "{not json");
      expect(bad).toMatchObject({ stdout: "", exitCode: 2 });
      const threw = await engine.handle(agent, payload(agent, SHELL[agent], { command: "ls" }));
      expect(threw).toMatchObject({ stdout: "", exitCode: 2 });
      expect(threw.stderr).toContain("kaboom");
      const { engine: e2 } = engineWith({ check: () => ({ action: "yes" }) as unknown as GuardAnswer, observe: () => {} });
      expect(await e2.handle(agent, payload(agent, SHELL[agent], { command: "ls" }))).toMatchObject({ stdout: "", exitCode: 2 });
    });
  }

  test("an unknown tool is refused", async () => {
    const { engine } = engineWith(fakeGuard({}));
    const out = await engine.handle("claude-code", payload("claude-code", "WebFetch", { url: "https://x" }));
    expect(JSON.parse(out.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: "deny" });
  });

  test("an MCP tool of a server with no ontology configured is refused", async () => {
    const { engine } = engineWith(fakeGuard({}));
    const out = await engine.handle("claude-code", payload("claude-code", "mcp__github__delete_repo", {}));
    expect(out.stdout).toContain("no ontology is configured for the MCP server `github`");
  });

  test("post-tool: the approved execution is observed with the exit code", async () => {
    const g = fakeGuard({ execution: "x7" });
    const { engine } = engineWith(g);
    await engine.handle("claude-code", payload("claude-code", "Bash", { command: "touch a" }, { tool_use_id: "tu1" }));
    const post = JSON.stringify({ session_id: "sess-1", cwd: "/tmp/ws", hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "touch a" }, tool_use_id: "tu1", tool_response: { stdout: "", stderr: "" } });
    expect(await engine.handle("claude-code", post)).toMatchObject({ exitCode: 0 });
    expect(g.observed).toEqual([{ call: { name: "shell", arguments: { command: "touch a" } }, exitCode: 0, execution: "x7" }]);
  });

  test("Codex: an escalation is a denial naming `polar approve ID`; after approve the identical retry passes once", async () => {
    const g = fakeGuard({ action: "ask", reason: "would discard changes to 1 tracked file (a.ts)", execution: null });
    const { engine } = engineWith(g);
    const p = payload("codex", "Bash", { command: "git reset --hard" });
    const first = JSON.parse((await engine.handle("codex", p)).stdout).hookSpecificOutput;
    expect(first.permissionDecision).toBe("deny");
    const id = /polar approve ([0-9a-f]{8})/u.exec(first.permissionDecisionReason)![1];
    // Not approved yet: the same id again.
    expect((await engine.handle("codex", p)).stdout).toContain(`polar approve ${id}`);
    expect(engine.approve("00000000")).toBe(false);
    expect(engine.approve(id)).toBe(true);
    expect(await engine.handle("codex", p)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    // Once: the next identical call is refused again, and a different call never used the approval.
    expect(JSON.parse((await engine.handle("codex", p)).stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });

  test("Codex approvals are stored: a restarted daemon keeps them, the retry passes once, an expired one is refused", async () => {
    let now = 1_000_000;
    const home = mkdtempSync(join(tmpdir(), "polar-approvals-"));
    // Each "restart" stops the engine before (its session logs' locks go with it).
    let last: HookEngine | null = null;
    const make = () => {
      last?.close();
      last = new HookEngine({ home, shellGuard: () => fakeGuard({ action: "ask", reason: "would discard 1 file", execution: null }), now: () => now, approvalTtlMs: 60_000 });
      return last;
    };
    const p = payload("codex", "Bash", { command: "git reset --hard" });
    const idOf = (out: { stdout: string }) => /polar approve ([0-9a-f]{8})/u.exec(JSON.parse(out.stdout).hookSpecificOutput.permissionDecisionReason)![1];
    const id = idOf(await make().handle("codex", p));
    // The daemon restarts: the new one knows the id (same id for the same call), and approves it.
    const second = make();
    expect(idOf(await second.handle("codex", p))).toBe(id);
    expect(second.approve(id)).toBe(true);
    // Restarts again between the approval and the retry: the retry passes once, then is refused again.
    const third = make();
    expect(await third.handle("codex", p)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    const again = idOf(await third.handle("codex", p));
    expect(again).not.toBe(id);
    expect(approveStored(home, id, now)).toBe(false);
    // Approved, but retried after the approval's lifetime: refused, and the expired file is gone.
    expect(approveStored(home, again, now, 60_000)).toBe(true);
    now += 60_001;
    const late = await make().handle("codex", p);
    expect(JSON.parse(late.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(existsSync(join(approvalsDir(home), `${again}.json`))).toBe(false);
    // An id never issued, or malformed: false.
    expect(approveStored(home, "deadbeef", now)).toBe(false);
    expect(approveStored(home, "../../x", now)).toBe(false);
  });

  test("sessions are bounded: least recently used out over maxSessions, idle ones after sessionIdleMs; a session let go continues its log", async () => {
    let now = 0;
    const home = mkdtempSync(join(tmpdir(), "polar-evict-"));
    const engine = new HookEngine({ home, shellGuard: () => fakeGuard({ action: "deny", reason: "no" }), maxSessions: 2, sessionIdleMs: 1000, now: () => now });
    const call = (session: string) => engine.handle("gemini", JSON.stringify({ session_id: session, cwd: "/tmp/ws", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "rm x" } }));
    await call("a");
    await call("b");
    await call("a"); // a is now the most recently used
    await call("c"); // over 2: b goes
    expect(engine.sessionCount()).toBe(2);
    await call("b"); // b again (opened from its log): a goes
    expect(engine.sessionCount()).toBe(2);
    now += 1001;
    await call("d"); // b and c idle: let go
    expect(engine.sessionCount()).toBe(1);
    for (const [sid, n] of [["a", 2], ["b", 2], ["c", 1], ["d", 1]] as const) {
      expect(verifyAuditLog(readFileSync(auditLogPath(home, "gemini", sid), "utf8"), { ontologies: [] })).toMatchObject({ ok: true, total: n });
    }
  });

  test("a read-only shell approval is auditable: its record keeps the line, directory and catalogue, and verify dispatches it again (tampered, or without the dispatcher: a mismatch)", async () => {
    const { readOnlyChecker } = await import("../../src/shell/index.js");
    const { shellGuardFactory } = await import("../../src/hooks/shell.js");
    const home = mkdtempSync(join(tmpdir(), "polar-readonly-"));
    const ws = mkdtempSync(join(tmpdir(), "polar-readonly-ws-"));
    const engine = new HookEngine({ home, shellGuard: await shellGuardFactory() });
    const p = JSON.stringify({ session_id: "ro", cwd: ws, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls -la && cat a.txt | grep x" } });
    expect(await engine.handle("claude-code", p)).toMatchObject({ stdout: "{}\n", exitCode: 0 });
    const log = readFileSync(auditLogPath(home, "claude-code", "ro"), "utf8");
    const rec = JSON.parse(log.trim());
    expect(rec).toMatchObject({ action: "allow", code: "read_only", decisions: [], readOnly: { command: "ls -la && cat a.txt | grep x", cwd: realpathSync(ws) } });
    const checker = await readOnlyChecker();
    expect(rec.readOnly.catalogue).toBe(checker.catalogue);
    expect(verifyAuditLog(log, { ontologies: [], shellReadOnly: checker })).toMatchObject({ ok: true, total: 1 });
    // Without the dispatcher: not taken on trust.
    expect(verifyAuditLog(log, { ontologies: [], shellReadOnly: undefined }).ok).toBe(false);
    // A line that is not read-only, with its chain re-linked (a forger who controls the whole file):
    // the dispatch finds the write.
    const { createChain } = await import("../../src/audit/index.js");
    const forged = { ...rec, input: { command: "rm -rf src" }, readOnly: { ...rec.readOnly, command: "rm -rf src" } };
    delete forged.chain;
    const chain = createChain({});
    const line = chain.link(forged).line;
    const r = verifyAuditLog(`${line}\n`, { ontologies: [], shellReadOnly: checker });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r.mismatches)).toMatch(/not read-only/u);
    // Another catalogue than the one the record names: a mismatch.
    expect(verifyAuditLog(log, { ontologies: [], shellReadOnly: { ...checker, catalogue: "0".repeat(64) } }).ok).toBe(false);
  });

  test("a creation-only approval (mkdir on state that cannot be read) is auditable the same way: verify dispatches the line again and a line that can lose data is a mismatch", async () => {
    const { readOnlyChecker } = await import("../../src/shell/index.js");
    const { shellGuardFactory } = await import("../../src/hooks/shell.js");
    const home = mkdtempSync(join(tmpdir(), "polar-creation-"));
    const ws = mkdtempSync(join(tmpdir(), "polar-creation-ws-"));
    symlinkSync("loop", join(ws, "loop")); // a symlink loop: the state under it cannot be read
    const engine = new HookEngine({ home, shellGuard: await shellGuardFactory() });
    const p = JSON.stringify({ session_id: "co", cwd: ws, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "mkdir -p loop/x" } });
    expect(await engine.handle("claude-code", p)).toMatchObject({ exitCode: 0 });
    const log = readFileSync(auditLogPath(home, "claude-code", "co"), "utf8");
    const rec = JSON.parse(log.trim());
    expect(rec).toMatchObject({ action: "allow", code: "creation_only", decisions: [], readOnly: { command: "mkdir -p loop/x", cwd: realpathSync(ws) } });
    const checker = await readOnlyChecker();
    expect(verifyAuditLog(log, { ontologies: [], shellReadOnly: checker })).toMatchObject({ ok: true, total: 1 });
    // A checker that cannot re-derive creation-only lines: not taken on trust.
    expect(verifyAuditLog(log, { ontologies: [], shellReadOnly: { catalogue: checker.catalogue, check: checker.check } }).ok).toBe(false);
    // The same record claiming a line that can lose data (chain re-linked): the dispatch finds it.
    const { createChain } = await import("../../src/audit/index.js");
    const forged = { ...rec, input: { command: "touch loop/x" }, readOnly: { ...rec.readOnly, command: "touch loop/x" } };
    delete forged.chain;
    const r = verifyAuditLog(`${createChain({}).link(forged).line}\n`, { ontologies: [], shellReadOnly: checker });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r.mismatches)).toMatch(/not creation-only/u);
    engine.close();
  });

  test("calls in one workspace are judged one at a time, in arrival order", async () => {
    const order: string[] = [];
    let inside = 0;
    const g: HookGuard = {
      check(call) {
        inside++;
        expect(inside).toBe(1);
        order.push(String(call.arguments.command));
        inside--;
        return { action: "allow", reason: "", code: "read_only", execution: null, decisions: [] };
      },
      observe: () => {},
    };
    const { engine } = engineWith(g);
    await Promise.all(["a", "b", "c", "d"].map((c, i) => engine.handle("claude-code", payload("claude-code", "Bash", { command: c }, { session_id: `s${i % 2}` }))));
    expect(order).toEqual(["a", "b", "c", "d"]);
  });

  test("MCP tools with a configured ontology: the core guard decides; the session log re-derives with verifyAuditLog, and an edit breaks it", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-hooks-mcp-"));
    writeFileSync(join(home, "config.json"), JSON.stringify({ mcp: { memory: { ontology: memoryBlob } } }));
    const engine = new HookEngine({ home, shellGuard: null, mcp: mcpGuards(readHookConfig(home)) });
    const read = await engine.handle("claude-code", payload("claude-code", "mcp__memory__read_graph", {}));
    expect(read).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    const del = await engine.handle("claude-code", payload("claude-code", "mcp__memory__delete_entities", { entityNames: ["alice"] }));
    expect(JSON.parse(del.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }));
    const log = readFileSync(auditLogPath(home, "claude-code", "sess-1"), "utf8");
    const recs = log.trim().split("\n").map((l) => JSON.parse(l));
    expect(recs.map((r) => [r.format, r.seq, r.action, r.decisions.length])).toEqual([
      ["polar-hook/1", 1, "allow", 1],
      ["polar-hook/1", 2, "deny", 1],
      ["polar-hook/1", 3, "deny", 0],
    ]);
    const blob = new Uint8Array(readFileSync(memoryBlob));
    expect(verifyAuditLog(log, { ontologies: [blob] })).toMatchObject({ ok: true, total: 3, verified: 3 });
    // A refusal rewritten into an approval: caught by the chain and by the decision replay.
    const forged = log.replace('"action":"deny"', '"action":"allow"');
    expect(verifyAuditLog(forged, { ontologies: [blob] }).ok).toBe(false);
    const lines = log.trim().split("\n");
    const rec2 = JSON.parse(lines[1]);
    rec2.action = "allow";
    const { recordHash } = await import("../../src/audit/index.js");
    // Even with the chain re-linked, an allow that no decision approves is a mismatch.
    const rec3 = JSON.parse(lines[2]);
    rec3.chain.prev = recordHash(rec2);
    const relinked = [lines[0], JSON.stringify(rec2), JSON.stringify(rec3)].join("\n") + "\n";
    const report = verifyAuditLog(relinked, { ontologies: [blob] });
    expect(report.mismatches.map((m) => m.field)).toContain("action");
  });

  test("a restarted engine continues the session's log chain", async () => {
    const { engine, home } = engineWith(fakeGuard({ action: "deny", reason: "no" }));
    await engine.handle("gemini", payload("gemini", "run_shell_command", { command: "rm x" }));
    engine.close();
    const again = new HookEngine({ home, shellGuard: () => fakeGuard({ action: "deny", reason: "no" }) });
    await again.handle("gemini", payload("gemini", "run_shell_command", { command: "rm y" }));
    const log = readFileSync(auditLogPath(home, "gemini", "sess-1"), "utf8");
    expect(verifyAuditLog(log, { ontologies: [] })).toMatchObject({ ok: true, total: 2 });
  });
});
