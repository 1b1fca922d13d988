// What the hook suites share: each agent's event and shell-tool names, a payload in an agent's form, and
// a guard that answers what it is told and records what it saw.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Agent } from "../../src/hooks/agents.js";
import { HookEngine } from "../../src/hooks/engine.js";
import type { GuardAnswer, GuardCall, HookGuard } from "../../src/hooks/guards.js";

export const PRE: Record<Agent, string> = { "claude-code": "PreToolUse", codex: "PreToolUse", gemini: "BeforeTool", opencode: "tool.execute.before" };
export const POST: Record<Agent, string> = { "claude-code": "PostToolUse", codex: "PostToolUse", gemini: "AfterTool", opencode: "tool.execute.after" };
export const SHELL: Record<Agent, string> = { "claude-code": "Bash", codex: "Bash", gemini: "run_shell_command", opencode: "bash" };

export function payload(agent: Agent, tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ session_id: "sess-1", cwd: "/tmp/ws", hook_event_name: PRE[agent], tool_name: tool, tool_input: input, ...extra });
}

/** A guard that answers what it is told, and records what it saw. */
export function fakeGuard(answer: Partial<GuardAnswer> | (() => GuardAnswer)): HookGuard & { checks: GuardCall[]; observed: Array<{ call: GuardCall; exitCode: number; execution: string | null }> } {
  const checks: GuardCall[] = [];
  const observed: Array<{ call: GuardCall; exitCode: number; execution: string | null }> = [];
  return {
    checks,
    observed,
    check(call) {
      checks.push(call);
      if (typeof answer === "function") return answer();
      return { action: "allow", reason: "ok", code: "reversible", execution: "x1", decisions: [], ...answer };
    },
    observe(call, result, execution) {
      observed.push({ call, exitCode: result.exitCode, execution });
    },
  };
}

export function engineWith(guard: HookGuard | null, mcp?: Record<string, () => HookGuard>): { engine: HookEngine; home: string } {
  const home = mkdtempSync(join(tmpdir(), "polar-hooks-"));
  return { engine: new HookEngine({ home, shellGuard: guard === null ? null : () => guard, mcp }), home };
}
