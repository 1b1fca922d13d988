// Each coding agent's hook contract: its stdin JSON read into one HookEvent, and a HookAnswer written
// back as that agent's stdout and exit code. Pure data, no I/O (docs/hooks.md states each contract and
// how it fails). Every agent here reads some failure as "allow" (a crash, a timeout, text that is not
// JSON, an unsupported field), so a refusal is always written in the one form the agent is sure to
// read as a block, and `failClosed` gives it for any error before an answer exists.

/** The agents with a command hook (`polar hook <agent>`, `polar init <agent>`). */
export const AGENTS = ["claude-code", "codex", "gemini"] as const;
/** OpenCode runs plugins in its own process: polar-guard/opencode asks the daemon as `opencode`. */
export type Agent = (typeof AGENTS)[number] | "opencode";

export function isHookAgent(v: unknown): v is (typeof AGENTS)[number] {
  return (AGENTS as readonly unknown[]).includes(v);
}

export function isAgent(v: unknown): v is Agent {
  return isHookAgent(v) || v === "opencode";
}

/** One hook call of an agent, agent-neutral. */
export interface HookEvent {
  agent: Agent;
  /** `pre`: before the tool runs (answer allow / ask / deny); `post`: after (observed); `start`: a session began. */
  phase: "pre" | "post" | "start";
  sessionId: string;
  cwd: string;
  /** The agent's own tool name (Bash, run_shell_command, mcp__server__tool, …); "" for `start`. */
  tool: string;
  input: Record<string, unknown>;
  /** `post`: what the tool returned (the agent's shape). */
  response?: unknown;
  toolUseId?: string;
}

export type HookAction = "allow" | "ask" | "deny";

export interface HookAnswer {
  action: HookAction;
  /** One line for the agent (deny) or the user (ask). */
  reason: string;
}

/** What the hook process prints and how it exits. */
export interface AgentOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export class HookInputError extends Error {
  override readonly name = "HookInputError";
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(o: Record<string, unknown>, key: string): string {
  const v = o[key];
  if (typeof v !== "string" || v === "") throw new HookInputError("bad-payload", `the hook payload has no \`${key}\` string`);
  return v;
}

/** Each agent's event names. */
const EVENTS: Record<Agent, { pre: string; post: string; start: string }> = {
  "claude-code": { pre: "PreToolUse", post: "PostToolUse", start: "SessionStart" },
  codex: { pre: "PreToolUse", post: "PostToolUse", start: "SessionStart" },
  gemini: { pre: "BeforeTool", post: "AfterTool", start: "SessionStart" },
  opencode: { pre: "tool.execute.before", post: "tool.execute.after", start: "session.created" },
};

export function eventNames(agent: Agent): { pre: string; post: string; start: string } {
  return EVENTS[agent];
}

/** The agent's stdin text read into a HookEvent; a wrong shape is a HookInputError, never a default. */
export function parseHookInput(agent: Agent, text: string): HookEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new HookInputError("bad-payload", "the hook payload is not JSON");
  }
  if (!isObject(raw)) throw new HookInputError("bad-payload", "the hook payload is not a JSON object");
  const name = str(raw, "hook_event_name");
  const names = EVENTS[agent];
  const phase = name === names.pre ? "pre" : name === names.post ? "post" : name === names.start ? "start" : null;
  if (phase === null) throw new HookInputError("unknown-event", `the hook event \`${name}\` is not one polar answers for ${agent}`);
  const sessionId = str(raw, "session_id");
  const cwd = str(raw, "cwd");
  if (phase === "start") return { agent, phase, sessionId, cwd, tool: "", input: {} };
  const tool = str(raw, "tool_name");
  const input = raw.tool_input;
  if (!isObject(input)) throw new HookInputError("bad-payload", "the hook payload's `tool_input` is not an object");
  const ev: HookEvent = { agent, phase, sessionId, cwd, tool, input };
  if (typeof raw.tool_use_id === "string") ev.toolUseId = raw.tool_use_id;
  if (phase === "post") ev.response = raw.tool_response ?? null;
  return ev;
}

/** One line, bounded: agents show the reason in a prompt or feed it to the model. */
function oneLine(s: string): string {
  const t = s.replace(/\s+/gu, " ").trim();
  return t.length > 2000 ? `${t.slice(0, 1997)}...` : t === "" ? "refused by polar (no reason given)" : t;
}

/** The answer to an event that decides nothing (a post-tool event, a session start): polar was told. */
export function acknowledge(agent: Agent): AgentOutput {
  return { stdout: agent === "codex" ? "" : "{}\n", stderr: "", exitCode: 0 };
}

/** The answer as the agent reads it. `phase` decides the event name in the JSON. */
export function formatAnswer(agent: Agent, phase: HookEvent["phase"], answer: HookAnswer): AgentOutput {
  if (phase !== "pre") return acknowledge(agent);
  const reason = oneLine(answer.reason);
  // "ask" exists for Claude Code and Gemini CLI; Codex rejects it as unsupported and runs the call,
  // so an escalation for Codex is a denial (the reason says how to approve: `polar approve ID`).
  const action: HookAction = answer.action === "ask" && agent === "codex" ? "deny" : answer.action;
  switch (agent) {
    case "claude-code":
    case "codex": {
      if (action === "allow") {
        // No decision: the agent's own permission rules still apply (polar never grants more), and
        // Codex rejects `permissionDecision: "allow"` as unsupported.
        return { stdout: agent === "codex" ? "" : "{}\n", stderr: "", exitCode: 0 };
      }
      const out = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: action, permissionDecisionReason: reason } };
      return { stdout: `${JSON.stringify(out)}\n`, stderr: "", exitCode: 0 };
    }
    case "opencode":
      // The plugin throws the reason unless the action is allow.
      return { stdout: `${JSON.stringify({ action, reason })}\n`, stderr: "", exitCode: 0 };
    case "gemini": {
      if (action === "allow") return { stdout: "{}\n", stderr: "", exitCode: 0 };
      return { stdout: `${JSON.stringify({ decision: action, reason })}\n`, stderr: "", exitCode: 0 };
    }
  }
}

/** The refusal for an error before an answer exists, in the form every one of these agents reads as a
 * block whatever else happens: exit 2 with the reason on stderr and nothing on stdout (Claude Code,
 * Codex and Gemini CLI all block on exit 2 and show stderr; a JSON body could be half-written). For a
 * post-tool event nothing can be blocked any more: the error is reported on stderr, exit 2. */
export function failClosed(reason: string): AgentOutput {
  return { stdout: "", stderr: `polar: ${oneLine(reason)}\n`, exitCode: 2 };
}
