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

/** One event of OpenCode's as the hook payload (a call id that is not there is left out by JSON). */
function hookEvent(name: "tool.execute.before" | "tool.execute.after", directory: string, input: ToolInput, args: unknown): Record<string, unknown> {
  return { hook_event_name: name, session_id: input.sessionID, cwd: directory, tool_name: input.tool, tool_input: args, tool_use_id: input.callID };
}

/** Sends one event to the daemon: its stdout, or its refusal thrown (the reason, `polar: …`). */
async function send(payload: Record<string, unknown>): Promise<string> {
  const out = await runHookClient("opencode", JSON.stringify(payload), {
    home: polarHome(),
    timeoutMs: 20_000,
    serveCommand: [process.env.POLAR_NODE ?? "node", cliPath(), "serve"],
  });
  if (out.exitCode !== 0) throw new Error(out.stderr.trim());
  return out.stdout;
}

/** The daemon's answer to a pre-tool event; anything that is not one is thrown (a refusal). */
function answerOf(stdout: string): { action: string; reason: string } {
  let answer: unknown;
  try {
    answer = JSON.parse(stdout);
  } catch {
    throw new Error("polar: refused: the daemon's answer is not JSON");
  }
  const a = answer as { action?: unknown; reason?: unknown };
  // JSON's null has no properties to read; any other value that is not an object (a string, a number,
  // a boolean) has no `action` or `reason` of type string, so the field checks refuse it.
  if (a === null || typeof a.action !== "string" || typeof a.reason !== "string") throw new Error("polar: refused: the daemon's answer has no action");
  return { action: a.action, reason: a.reason };
}

/** The plugin: `tool.execute.before` throws polar's refusal (an `ask` too: OpenCode has no way to ask
 * from a plugin); `tool.execute.after` tells polar what ran. */
export const PolarGuard = async (ctx: { directory: string }): Promise<Record<string, (input: ToolInput, output: { args?: unknown; output?: unknown; metadata?: unknown }) => Promise<void>>> => {
  const directory = ctx.directory;
  return {
    "tool.execute.before": async (input, output) => {
      if (!OPENCODE_TOOLS.has(input.tool)) return;
      const a = answerOf(await send(hookEvent("tool.execute.before", directory, input, output.args)));
      if (a.action !== "allow") throw new Error(`polar: ${a.reason}`);
    },
    "tool.execute.after": async (input, output) => {
      if (!OPENCODE_TOOLS.has(input.tool)) return;
      // OpenCode passes the call's args with the input of this event; without them nothing is observed.
      const args = (input as ToolInput & { args?: unknown }).args ?? output.args ?? {};
      await send({ ...hookEvent("tool.execute.after", directory, input, args), tool_response: { output: output.output, metadata: output.metadata } }).catch(() => {});
    },
  };
};

export default PolarGuard;
