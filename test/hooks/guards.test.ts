// src/hooks/guards.ts: which guard each agent's tool call goes to and in what form (routeTool), and the
// two HookGuards built here: a core guard (one MCP server's ontology) and the guard that is not there.
// A call whose shape polar cannot read is refused by name (kind "unknown" with the reason), never
// judged on a default; a tool of another agent is not one of this agent's.
import { describe, expect, test } from "vitest";
import type { Decision, Guard } from "../../src/guard/index.js";
import { coreHookGuard, refusingGuard, routeTool, type Route } from "../../src/hooks/guards.js";

const shell = (command: string, cwd?: string): Route => ({ kind: "shell", call: { name: "shell", arguments: cwd === undefined ? { command } : { command, cwd } } });
const write = (path: string, content: string): Route => ({ kind: "shell", call: { name: "write_file", arguments: { path, content } } });
const edit = (path: string, old: string, nw: string): Route => ({ kind: "shell", call: { name: "edit_file", arguments: { path, old, new: nw } } });
const patch = (text: string): Route => ({ kind: "shell", call: { name: "apply_patch", arguments: { patch: text } } });
const unknown = (why: string): Route => ({ kind: "unknown", why });

describe("routeTool: MCP tools", () => {
  test("mcp__<server>__<tool> goes to that server's guard with the tool's own name and arguments; the server is the part before the first `__`", () => {
    const args = { entityNames: ["a"] };
    for (const agent of ["claude-code", "codex", "gemini", "opencode"] as const) {
      expect(routeTool(agent, "mcp__memory__delete_entities", args)).toEqual({ kind: "mcp", server: "memory", call: { name: "delete_entities", arguments: args } });
    }
    expect(routeTool("claude-code", "mcp__gh__repos__delete", {})).toEqual({ kind: "mcp", server: "gh", call: { name: "repos__delete", arguments: {} } });
  });

  test("a name that is not the whole mcp__server__tool form is no MCP tool: refused as an unknown tool", () => {
    expect(routeTool("claude-code", "mcp__memory", {})).toEqual(unknown("polar has no guard for the claude-code tool `mcp__memory`"));
    expect(routeTool("claude-code", "mcp____x", {}).kind).toBe("unknown");
    expect(routeTool("claude-code", "xmcp__memory__read", {}).kind).toBe("unknown");
    // A line break in the name: not one tool name (never judged as the tool before the break).
    expect(routeTool("claude-code", "mcp__memory__read_graph\ndelete_entities", {}).kind).toBe("unknown");
  });
});

describe("routeTool: Claude Code", () => {
  test("Bash, Write, Edit, MultiEdit (its first edit) and NotebookEdit", () => {
    expect(routeTool("claude-code", "Bash", { command: "git status", description: "x" })).toEqual(shell("git status"));
    expect(routeTool("claude-code", "Write", { file_path: "/w/a", content: "" })).toEqual(write("/w/a", ""));
    expect(routeTool("claude-code", "Edit", { file_path: "/w/a", old_string: "x", new_string: "" })).toEqual(edit("/w/a", "x", ""));
    expect(routeTool("claude-code", "MultiEdit", { file_path: "/w/a", edits: [{ old_string: "a", new_string: "b" }, { old_string: "c", new_string: "d" }] })).toEqual(edit("/w/a", "a", "b"));
    expect(routeTool("claude-code", "NotebookEdit", { notebook_path: "/w/n.ipynb", new_source: "print(1)" })).toEqual(edit("/w/n.ipynb", "", "print(1)"));
    expect(routeTool("claude-code", "NotebookEdit", { notebook_path: "/w/n.ipynb", edit_mode: "delete" })).toEqual(edit("/w/n.ipynb", "", ""));
  });

  test("a call with a missing or mistyped field is refused with what it lacks", () => {
    expect(routeTool("claude-code", "Bash", {})).toEqual(unknown("the Bash call has no `command` string"));
    expect(routeTool("claude-code", "Bash", { command: "" })).toEqual(unknown("the Bash call has no `command` string"));
    expect(routeTool("claude-code", "Bash", { command: ["ls"] })).toEqual(unknown("the Bash call's argv is not a shell script polar can read"));
    expect(routeTool("claude-code", "Write", { file_path: "/a" })).toEqual(unknown("the Write call has no `file_path` and `content` strings"));
    expect(routeTool("claude-code", "Write", { content: "x" })).toEqual(unknown("the Write call has no `file_path` and `content` strings"));
    expect(routeTool("claude-code", "Write", { file_path: "/a", content: 1 })).toEqual(unknown("the Write call has no `file_path` and `content` strings"));
    for (const input of [{ old_string: "a", new_string: "b" }, { file_path: "/a", new_string: "b" }, { file_path: "/a", old_string: "a" }]) {
      expect(routeTool("claude-code", "Edit", input)).toEqual(unknown("the Edit call has no file path and old/new strings"));
    }
    for (const edits of [undefined, "x", [], [null], ["x"], [[{ old_string: "a", new_string: "b" }]]]) {
      expect(routeTool("claude-code", "MultiEdit", { file_path: "/a", edits })).toEqual(unknown("the MultiEdit call has no `edits` list"));
    }
    expect(routeTool("claude-code", "MultiEdit", { file_path: "/a", edits: [{ old_string: "a" }] })).toEqual(unknown("the MultiEdit call has no file path and old/new strings"));
    expect(routeTool("claude-code", "MultiEdit", { edits: [{ old_string: "a", new_string: "b" }] })).toEqual(unknown("the MultiEdit call has no file path and old/new strings"));
    expect(routeTool("claude-code", "NotebookEdit", { new_source: "x" })).toEqual(unknown("the NotebookEdit call has no file path and old/new strings"));
  });

  test("a MultiEdit is refused when any of its edits is malformed, not judged on the first alone", () => {
    const ok = { old_string: "a", new_string: "b" };
    for (const later of [null, "x", [ok], { old_string: "c" }, { new_string: "d" }, { old_string: 1, new_string: "d" }]) {
      const r = routeTool("claude-code", "MultiEdit", { file_path: "/w/a", edits: [ok, later] });
      expect(r.kind, JSON.stringify(later)).toBe("unknown");
    }
    expect(routeTool("claude-code", "MultiEdit", { file_path: "/w/a", edits: [ok, { old_string: "c", new_string: "d" }] })).toEqual(edit("/w/a", "a", "b"));
  });

  test("a NotebookEdit other than a delete needs its new source as a string", () => {
    for (const input of [{ notebook_path: "/w/n.ipynb" }, { notebook_path: "/w/n.ipynb", edit_mode: "replace" }, { notebook_path: "/w/n.ipynb", new_source: 3 }, { notebook_path: "/w/n.ipynb", edit_mode: "delete", new_source: null }]) {
      expect(routeTool("claude-code", "NotebookEdit", input), JSON.stringify(input)).toEqual(unknown("the NotebookEdit call has no file path and old/new strings"));
    }
    expect(routeTool("claude-code", "NotebookEdit", { notebook_path: "/w/n.ipynb", edit_mode: "insert", new_source: "x" })).toEqual(edit("/w/n.ipynb", "", "x"));
  });

  test("another agent's tool names, and tools polar has no guard for, are refused", () => {
    for (const tool of ["apply_patch", "run_shell_command", "write_file", "bash", "Read", "WebFetch"]) {
      expect(routeTool("claude-code", tool, { command: "ls", file_path: "/a", content: "x", patch: "p" })).toEqual(unknown(`polar has no guard for the claude-code tool \`${tool}\``));
    }
  });
});

describe("routeTool: Codex", () => {
  test("its shell tools, with `command` or `cmd`, a string or a `bash -lc` argv; the working directory when given", () => {
    for (const tool of ["Bash", "shell", "local_shell", "exec_command", "unified_exec"]) {
      expect(routeTool("codex", tool, { command: "ls" })).toEqual(shell("ls"));
      expect(routeTool("codex", tool, { cmd: "ls -a" })).toEqual(shell("ls -a"));
    }
    expect(routeTool("codex", "shell", { command: "ls", cmd: "rm x" })).toEqual(shell("ls"));
    expect(routeTool("codex", "shell", { command: "make", workdir: "/w" })).toEqual(shell("make", "/w"));
    for (const argv of [["bash", "-lc", "git status"], ["/bin/bash", "-c", "git status"], ["sh", "-c", "git status"], ["/usr/bin/zsh", "-lc", "git status"]]) {
      expect(routeTool("codex", "exec_command", { cmd: argv })).toEqual(shell("git status"));
    }
  });

  test("an argv that is not a `sh -c SCRIPT` is refused, never joined and guessed at", () => {
    const why = "the shell call's argv is not a shell script polar can read";
    for (const argv of [
      ["rm", "-rf", "/"],
      ["fish", "-c", "ls"],
      ["bash", "-x", "ls"],
      ["bash", "-lc"],
      ["bash", "-lc", "ls", "extra"],
      ["bash", "-cl", "ls"],
      ["mybash", "-c", "ls"],
      ["shred", "-c", "ls"],
      ["bashful", "-c", "ls"],
      ["/bin/sh.evil", "-c", "ls"],
      ["/bin/", "-c", "ls"],
      ["bash", "-lcx", "ls"],
      ["bash", "x-c", "ls"],
      ["bash", "c", "ls"],
    ]) {
      expect(routeTool("codex", "shell", { command: argv })).toEqual(unknown(why));
    }
    expect(routeTool("codex", "shell", { command: ["bash", "-c", ""] })).toEqual(unknown("the shell call has no `command` string"));
    expect(routeTool("codex", "shell", { command: ["bash", "-c", 7] })).toEqual(unknown("the shell call has no `command` string"));
    // An argv with anything but strings is not read as a command line at all.
    expect(routeTool("codex", "shell", { command: ["bash", 1, "ls"] })).toEqual(unknown("the shell call has no `command` string"));
    expect(routeTool("codex", "shell", { command: [1, "-c", "ls"] })).toEqual(unknown("the shell call has no `command` string"));
    expect(routeTool("codex", "shell", {})).toEqual(unknown("the shell call has no `command` string"));
  });

  test("apply_patch: the patch from `patch`, `input` or `command`; none: refused", () => {
    expect(routeTool("codex", "apply_patch", { patch: "P", input: "I", command: "C" })).toEqual(patch("P"));
    expect(routeTool("codex", "apply_patch", { input: "I", command: "C" })).toEqual(patch("I"));
    expect(routeTool("codex", "apply_patch", { command: "C" })).toEqual(patch("C"));
    expect(routeTool("codex", "apply_patch", { patch: 1 })).toEqual(unknown("the apply_patch call has no patch text"));
  });

  test("Claude Code's and Gemini's file tools are not Codex's: refused", () => {
    for (const tool of ["Write", "Edit", "write_file", "replace", "run_shell_command", "write"]) {
      expect(routeTool("codex", tool, { command: "ls", file_path: "/a", content: "x" })).toEqual(unknown(`polar has no guard for the codex tool \`${tool}\``));
    }
  });
});

describe("routeTool: Gemini CLI", () => {
  test("run_shell_command (with its dir_path), write_file, replace", () => {
    expect(routeTool("gemini", "run_shell_command", { command: "ls" })).toEqual(shell("ls"));
    expect(routeTool("gemini", "run_shell_command", { command: "ls", dir_path: "/w/sub" })).toEqual(shell("ls", "/w/sub"));
    expect(routeTool("gemini", "run_shell_command", { command: "ls", dir_path: "/a", workdir: "/b", directory: "/c" })).toEqual(shell("ls", "/a"));
    expect(routeTool("gemini", "run_shell_command", { command: "ls", workdir: "/b", directory: "/c" })).toEqual(shell("ls", "/b"));
    expect(routeTool("gemini", "run_shell_command", { command: "ls", directory: "/c" })).toEqual(shell("ls", "/c"));
    expect(routeTool("gemini", "run_shell_command", { command: "ls", dir_path: 3 })).toEqual(shell("ls"));
    expect(routeTool("gemini", "write_file", { file_path: "/a", content: "x" })).toEqual(write("/a", "x"));
    expect(routeTool("gemini", "replace", { file_path: "/a", old_string: "x", new_string: "y" })).toEqual(edit("/a", "x", "y"));
    expect(routeTool("gemini", "replace", { file_path: "/a", old_string: "x" })).toEqual(unknown("the replace call has no file path and old/new strings"));
  });

  test("other agents' tool names are refused", () => {
    for (const tool of ["Bash", "shell", "bash", "Write", "apply_patch"]) {
      expect(routeTool("gemini", tool, { command: "ls", patch: "p" })).toEqual(unknown(`polar has no guard for the gemini tool \`${tool}\``));
    }
  });
});

describe("routeTool: OpenCode", () => {
  test("bash, write and edit (camelCase fields), patch and apply_patch (patchText or patch)", () => {
    expect(routeTool("opencode", "bash", { command: "ls", description: "d" })).toEqual(shell("ls"));
    expect(routeTool("opencode", "write", { filePath: "/a", content: "x" })).toEqual(write("/a", "x"));
    expect(routeTool("opencode", "write", { file_path: "/a", content: "x" })).toEqual(unknown("the write call has no `file_path` and `content` strings"));
    expect(routeTool("opencode", "edit", { filePath: "/a", oldString: "x", newString: "y" })).toEqual(edit("/a", "x", "y"));
    expect(routeTool("opencode", "edit", { filePath: "/a", old_string: "x", new_string: "y" }).kind).toBe("unknown");
    for (const tool of ["patch", "apply_patch"]) {
      expect(routeTool("opencode", tool, { patchText: "T", patch: "P" })).toEqual(patch("T"));
      expect(routeTool("opencode", tool, { patch: "P" })).toEqual(patch("P"));
      expect(routeTool("opencode", tool, { input: "I" })).toEqual(unknown(`the ${tool} call has no patch text`));
    }
  });

  test("other agents' tool names are refused", () => {
    for (const tool of ["Bash", "run_shell_command", "Write", "write_file"]) {
      expect(routeTool("opencode", tool, { command: "ls" })).toEqual(unknown(`polar has no guard for the opencode tool \`${tool}\``));
    }
  });
});

/** A core guard that answers `d` and records what observe was given. */
function fakeCore(d: Record<string, unknown>): { guard: Guard; observed: unknown[][] } {
  const observed: unknown[][] = [];
  const decision = { approved: false, route: "Vetoed", reason: "irreversible", execution: null, ...d } as unknown as Decision;
  const guard = { check: () => decision, observe: (...a: unknown[]) => void observed.push(a) } as unknown as Guard;
  return { guard, observed };
}

describe("coreHookGuard: an MCP server's core guard as a HookGuard", () => {
  const call = { name: "delete_entities", arguments: { entityNames: ["a"] } };

  test("approved: allow, reason `approved (<reason>)`, the execution and the decision kept for the audit", () => {
    const { guard } = fakeCore({ approved: true, route: "Approved", reason: "reversible", execution: "x3", refusal: "ignored" });
    const a = coreHookGuard(guard).check(call);
    expect(a).toMatchObject({ action: "allow", reason: "approved (reversible)", code: "reversible", execution: "x3" });
    expect(a.decisions).toHaveLength(1);
    expect(a.decisions[0]).toMatchObject({ approved: true, execution: "x3" });
  });

  test("an escalation is an ask with the guard's question; any other refusal is a deny", () => {
    const asked = coreHookGuard(fakeCore({ route: "ConsentEscalated", reason: "irreversible", question: "Delete a? It cannot be undone." }).guard).check(call);
    expect(asked).toMatchObject({ action: "ask", reason: "Delete a? It cannot be undone.", code: "irreversible", execution: null });
    expect(coreHookGuard(fakeCore({ route: "Vetoed", refusal: "refused: would delete a" }).guard).check(call)).toMatchObject({ action: "deny", reason: "refused: would delete a" });
  });

  test("the refusal's text: the question, else the refusal, else the message, else `refused: <reason>`", () => {
    const text = (d: Record<string, unknown>) => coreHookGuard(fakeCore(d).guard).check(call).reason;
    expect(text({ question: "Q", refusal: "R", message: "M" })).toBe("Q");
    expect(text({ refusal: "R", message: "M" })).toBe("R");
    expect(text({ message: "M" })).toBe("M");
    expect(text({ reason: "unknown_tool" })).toBe("refused: unknown_tool");
  });

  test("observe: the tool's raw result, failed when the exit code is not 0, the execution when there is one", () => {
    const { guard, observed } = fakeCore({});
    const h = coreHookGuard(guard);
    h.observe(call, { exitCode: 0, raw: { content: [] } }, "x1");
    h.observe(call, { exitCode: 1 }, null);
    h.observe(call, { exitCode: -1, raw: "out" }, null);
    expect(observed).toEqual([
      [call, { content: [] }, { failed: false, execution: "x1" }],
      [call, null, { failed: true }],
      [call, "out", { failed: true }],
    ]);
  });
});

test("refusingGuard: every call is denied with its reason and code, no decision, nothing to observe", () => {
  const g = refusingGuard("refused: shell guard not available", "shell_guard_unavailable");
  expect(g.check({ name: "shell", arguments: { command: "ls" } })).toEqual({ action: "deny", reason: "refused: shell guard not available", code: "shell_guard_unavailable", execution: null, decisions: [] });
  expect(g.observe({ name: "shell", arguments: {} }, { exitCode: 0 }, "x1")).toBeUndefined();
});
