// polar-guard/opencode: OpenCode's plugin. OpenCode runs plugins in its own process and blocks a tool
// call when `tool.execute.before` throws; this plugin asks the polar daemon (the same one the command
// hooks ask, as agent `opencode`) and throws the refusal. Fail-closed: the daemon down (it is started
// for the next call), no answer in time, an answer that is not one: it throws. In opencode.json:
//   { "plugin": ["polar-guard/opencode"] }
import { fileURLToPath } from "node:url";
import { runHookClient } from "./client.js";
import { polarHome } from "./server.js";

/** OpenCode's tools that polar judges (shell, file writes and edits, patches); the others pass. */
export const OPENCODE_TOOLS: ReadonlySet<string> = new Set(["bash", "write", "edit", "patch", "apply_patch"]);

interface ToolInput {
  tool: string;
  sessionID: string;
  callID?: string;
}

function cliPath(): string {
  // dist/opencode.js → bin/polar.js of the same package.
  return fileURLToPath(new URL("../bin/polar.js", import.meta.url));
}

async function ask(event: "tool.execute.before" | "tool.execute.after", directory: string, input: ToolInput, args: unknown, result?: unknown): Promise<{ action: string; reason: string }> {
  const payload: Record<string, unknown> = {
    hook_event_name: event,
    session_id: input.sessionID,
    cwd: directory,
    tool_name: input.tool,
    tool_input: args,
  };
  if (input.callID !== undefined) payload.tool_use_id = input.callID;
  if (event === "tool.execute.after") payload.tool_response = result ?? null;
  const out = await runHookClient("opencode", JSON.stringify(payload), {
    home: polarHome(),
    timeoutMs: 20_000,
    serveCommand: [process.env.POLAR_NODE ?? "node", cliPath(), "serve"],
  });
  if (out.exitCode !== 0) throw new Error(out.stderr.trim() || "polar: refused (no reason given)");
  if (event === "tool.execute.after") return { action: "allow", reason: "" };
  let answer: unknown;
  try {
    answer = JSON.parse(out.stdout);
  } catch {
    throw new Error("polar: refused: the daemon's answer is not JSON");
  }
  const a = answer as { action?: unknown; reason?: unknown };
  if (a === null || typeof a !== "object" || typeof a.action !== "string" || typeof a.reason !== "string") throw new Error("polar: refused: the daemon's answer has no action");
  return { action: a.action, reason: a.reason };
}

/** The plugin: `tool.execute.before` throws polar's refusal (an `ask` too: OpenCode has no way to ask
 * from a plugin); `tool.execute.after` tells polar what ran. */
export const PolarGuard = async (ctx: { directory: string }): Promise<Record<string, (input: ToolInput, output: { args?: unknown; output?: unknown; metadata?: unknown }) => Promise<void>>> => {
  const directory = ctx.directory;
  return {
    "tool.execute.before": async (input, output) => {
      if (!OPENCODE_TOOLS.has(input.tool)) return;
      const a = await ask("tool.execute.before", directory, input, output.args);
      if (a.action !== "allow") throw new Error(`polar: ${a.reason}`);
    },
    "tool.execute.after": async (input, output) => {
      if (!OPENCODE_TOOLS.has(input.tool)) return;
      // OpenCode passes the call's args with the input of this event; without them nothing is observed.
      const args = (input as ToolInput & { args?: unknown }).args ?? output.args ?? {};
      await ask("tool.execute.after", directory, input, args, { output: output.output, metadata: output.metadata }).catch(() => {});
    },
  };
};

export default PolarGuard;
