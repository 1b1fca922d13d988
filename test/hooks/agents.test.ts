// src/hooks/agents.ts: each agent's hook contract. Its stdin read into one event (a wrong shape is a
// HookInputError with a code, never a default), and an answer written the way that agent reads it
// (docs/hooks.md): what blocks, what asks, what leaves the agent's own rules in charge, and the one-line
// reason the agent shows.
import { describe, expect, test } from "vitest";
import { AGENTS, eventNames, failClosed, formatAnswer, HookInputError, isAgent, isHookAgent, parseHookInput, type Agent } from "../../src/hooks/agents.js";

const ALL: Agent[] = ["claude-code", "codex", "gemini", "opencode"];

function input(o: Record<string, unknown>): string {
  return JSON.stringify({ session_id: "s1", cwd: "/w", tool_name: "Bash", tool_input: { command: "ls" }, ...o });
}

function thrown(f: () => unknown): HookInputError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(HookInputError);
    return e as HookInputError;
  }
  throw new Error("no error");
}

describe("the agents", () => {
  test("command-hook agents are Claude Code, Codex and Gemini CLI; OpenCode is an agent through its plugin only", () => {
    expect(AGENTS).toEqual(["claude-code", "codex", "gemini"]);
    for (const a of AGENTS) expect([isHookAgent(a), isAgent(a)]).toEqual([true, true]);
    expect([isHookAgent("opencode"), isAgent("opencode")]).toEqual([false, true]);
    for (const v of ["claude", "Codex", "", null, 1, ["codex"]]) expect([isHookAgent(v), isAgent(v)]).toEqual([false, false]);
  });

  test("each agent's event names", () => {
    expect(eventNames("claude-code")).toEqual({ pre: "PreToolUse", post: "PostToolUse", start: "SessionStart" });
    expect(eventNames("codex")).toEqual({ pre: "PreToolUse", post: "PostToolUse", start: "SessionStart" });
    expect(eventNames("gemini")).toEqual({ pre: "BeforeTool", post: "AfterTool", start: "SessionStart" });
    expect(eventNames("opencode")).toEqual({ pre: "tool.execute.before", post: "tool.execute.after", start: "session.created" });
  });
});

describe("parseHookInput", () => {
  test("pre, post and session start of each agent, in its own event names", () => {
    for (const agent of ALL) {
      const n = eventNames(agent);
      expect(parseHookInput(agent, input({ hook_event_name: n.pre }))).toEqual({ agent, phase: "pre", sessionId: "s1", cwd: "/w", tool: "Bash", input: { command: "ls" } });
      expect(parseHookInput(agent, input({ hook_event_name: n.post, tool_response: { stdout: "a" }, tool_use_id: "t1" }))).toEqual({
        agent,
        phase: "post",
        sessionId: "s1",
        cwd: "/w",
        tool: "Bash",
        input: { command: "ls" },
        toolUseId: "t1",
        response: { stdout: "a" },
      });
      // A session start carries no tool: none is required, none is read.
      expect(parseHookInput(agent, JSON.stringify({ hook_event_name: n.start, session_id: "s1", cwd: "/w", tool_input: "x" }))).toEqual({ agent, phase: "start", sessionId: "s1", cwd: "/w", tool: "", input: {} });
    }
  });

  test("a post event without a response has response null; a tool_use_id that is not a string is not kept", () => {
    expect(parseHookInput("claude-code", input({ hook_event_name: "PostToolUse" })).response).toBeNull();
    const pre = parseHookInput("claude-code", input({ hook_event_name: "PreToolUse", tool_use_id: 7, tool_response: "r" }));
    expect("toolUseId" in pre).toBe(false);
    expect("response" in pre).toBe(false);
  });

  test("another agent's event name, or one polar does not answer, is refused (unknown-event) naming it", () => {
    const e = thrown(() => parseHookInput("gemini", input({ hook_event_name: "PreToolUse" })));
    expect([e.code, e.message]).toEqual(["unknown-event", "the hook event `PreToolUse` is not one polar answers for gemini"]);
    expect(thrown(() => parseHookInput("claude-code", input({ hook_event_name: "BeforeTool" }))).code).toBe("unknown-event");
    expect(thrown(() => parseHookInput("codex", input({ hook_event_name: "Stop" }))).code).toBe("unknown-event");
    expect(thrown(() => parseHookInput("opencode", input({ hook_event_name: "SessionStart" }))).code).toBe("unknown-event");
  });

  test("text that is not a JSON object is refused (bad-payload)", () => {
    for (const [text, message] of [
      ["{", "the hook payload is not JSON"],
      ["", "the hook payload is not JSON"],
      ["null", "the hook payload is not a JSON object"],
      ["[]", "the hook payload is not a JSON object"],
      ['"PreToolUse"', "the hook payload is not a JSON object"],
      ["3", "the hook payload is not a JSON object"],
    ]) {
      const e = thrown(() => parseHookInput("claude-code", text));
      expect([e.name, e.code, e.message]).toEqual(["HookInputError", "bad-payload", message]);
    }
  });

  test("each required string missing, empty or not a string is refused naming it; tool_input must be an object", () => {
    for (const key of ["hook_event_name", "session_id", "cwd", "tool_name"]) {
      for (const v of [undefined, "", 5, null, ["x"]]) {
        const e = thrown(() => parseHookInput("claude-code", input({ hook_event_name: "PreToolUse", [key]: v })));
        expect([e.code, e.message]).toEqual(["bad-payload", `the hook payload has no \`${key}\` string`]);
      }
    }
    for (const v of [undefined, null, "ls", ["ls"], 1]) {
      const e = thrown(() => parseHookInput("codex", input({ hook_event_name: "PostToolUse", tool_input: v })));
      expect([e.code, e.message]).toEqual(["bad-payload", "the hook payload's `tool_input` is not an object"]);
    }
  });
});

describe("formatAnswer", () => {
  test("deny: Claude Code and Codex permissionDecision deny (event PreToolUse), Gemini decision deny, OpenCode action deny; exit 0", () => {
    const a = { action: "deny" as const, reason: "would lose a.txt" };
    const hso = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "would lose a.txt" } };
    expect(formatAnswer("claude-code", "pre", a)).toEqual({ stdout: `${JSON.stringify(hso)}\n`, stderr: "", exitCode: 0 });
    expect(formatAnswer("codex", "pre", a)).toEqual({ stdout: `${JSON.stringify(hso)}\n`, stderr: "", exitCode: 0 });
    expect(formatAnswer("gemini", "pre", a)).toEqual({ stdout: '{"decision":"deny","reason":"would lose a.txt"}\n', stderr: "", exitCode: 0 });
    expect(formatAnswer("opencode", "pre", a)).toEqual({ stdout: '{"action":"deny","reason":"would lose a.txt"}\n', stderr: "", exitCode: 0 });
  });

  test("ask: kept for Claude Code, Gemini and OpenCode (its plugin throws it), a deny for Codex (it cannot ask)", () => {
    const a = { action: "ask" as const, reason: "Delete a? approve with polar approve 0a1b2c3d" };
    expect(JSON.parse(formatAnswer("claude-code", "pre", a).stdout).hookSpecificOutput).toEqual({ hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: a.reason });
    expect(JSON.parse(formatAnswer("codex", "pre", a).stdout).hookSpecificOutput).toEqual({ hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: a.reason });
    expect(JSON.parse(formatAnswer("gemini", "pre", a).stdout)).toEqual({ decision: "ask", reason: a.reason });
    expect(JSON.parse(formatAnswer("opencode", "pre", a).stdout)).toEqual({ action: "ask", reason: a.reason });
  });

  test("allow grants nothing: Claude Code and Gemini `{}`, Codex empty; OpenCode's plugin reads action allow", () => {
    const a = { action: "allow" as const, reason: "approved (reversible)" };
    expect(formatAnswer("claude-code", "pre", a)).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    expect(formatAnswer("codex", "pre", a)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect(formatAnswer("gemini", "pre", a)).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    expect(formatAnswer("opencode", "pre", a)).toEqual({ stdout: '{"action":"allow","reason":"approved (reversible)"}\n', stderr: "", exitCode: 0 });
  });

  test("post-tool and session-start events decide nothing, whatever the answer: Codex empty, the others `{}`", () => {
    for (const phase of ["post", "start"] as const) {
      for (const action of ["allow", "ask", "deny"] as const) {
        for (const agent of ALL) expect(formatAnswer(agent, phase, { action, reason: "r" })).toEqual({ stdout: agent === "codex" ? "" : "{}\n", stderr: "", exitCode: 0 });
      }
    }
  });

  test("the reason is one line of at most 2000 characters; an empty one says so", () => {
    const reason = (r: string) => JSON.parse(formatAnswer("gemini", "pre", { action: "deny", reason: r }).stdout).reason as string;
    expect(reason("  would\tlose\n\n a.txt \r\n")).toBe("would lose a.txt");
    expect(reason("x".repeat(2000))).toBe("x".repeat(2000));
    expect(reason("x".repeat(2001))).toBe(`${"x".repeat(1997)}...`);
    expect(reason(`${"y ".repeat(1000)}z`)).toHaveLength(2000);
    expect(reason("")).toBe("refused by polar (no reason given)");
    expect(reason(" \n\t")).toBe("refused by polar (no reason given)");
  });
});

test("failClosed: exit 2, `polar: <reason>` as one line on stderr, nothing on stdout", () => {
  expect(failClosed("refused: boom")).toEqual({ stdout: "", stderr: "polar: refused: boom\n", exitCode: 2 });
  expect(failClosed("a\nb")).toEqual({ stdout: "", stderr: "polar: a b\n", exitCode: 2 });
  expect(failClosed("").stderr).toBe("polar: refused by polar (no reason given)\n");
  expect(failClosed("e".repeat(3000)).stderr).toBe(`polar: ${"e".repeat(1997)}...\n`);
});
