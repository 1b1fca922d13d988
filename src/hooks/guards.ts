// The guards a hook asks, behind one small interface (HookGuard), and the mapping from each agent's tool
// names to the calls they judge. The shell guard (polar-guard/shell) judges shell commands and file
// edits; a core guard (createGuard) judges an MCP server's tools where an ontology for that server is
// configured. Anything else that reaches a hook is refused: the hooks are installed for these tools only.
import type { Decision, Guard } from "../guard/index.js";
import type { Agent, HookAction } from "./agents.js";

/** A call in the form the guards take: the shell guard's tools (`shell`, `write_file`, `edit_file`,
 * `apply_patch`) or an MCP tool's own name and arguments. */
export interface GuardCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What a guard answers for one call. */
export interface GuardAnswer {
  action: HookAction;
  /** One line: what the call would lose and the way back, or why it is refused. */
  reason: string;
  /** The reason code (`reversible`, `unknown_command`, `unknown_tool`, …). */
  code: string;
  /** The execution to pass to observe (null when nothing runs or nothing needs observing). */
  execution: string | null;
  /** The core Decision records behind the answer (replayed by `polar audit verify`). */
  decisions: Decision[];
  /** A read-only shell approval (no core decision): the command line, its directory and the catalogue's
   * digest, which `polar audit verify` dispatches again. */
  readOnly?: { command: string; cwd: string; catalogue: string } | null;
}

export interface HookGuard {
  check(call: GuardCall): GuardAnswer;
  observe(call: GuardCall, result: { exitCode: number; stdout?: string; stderr?: string; raw?: unknown }, execution: string | null): void;
}

/** Where an agent's tool goes: the shell guard, an MCP server's guard, or nowhere (refused). */
export type Route =
  | { kind: "shell"; call: GuardCall }
  | { kind: "mcp"; server: string; call: GuardCall }
  | { kind: "unknown"; why: string };

function s(input: Record<string, unknown>, key: string): string | null {
  const v = input[key];
  return typeof v === "string" ? v : null;
}

function bad(tool: string, what: string): Route {
  return { kind: "unknown", why: `the ${tool} call has no ${what}` };
}

/** The agent's tool call as a guard call. A wrong shape is refused (never judged on a default). */
export function routeTool(agent: Agent, tool: string, input: Record<string, unknown>): Route {
  const mcp = /^mcp__(.+?)__(.+)$/u.exec(tool);
  if (mcp !== null) return { kind: "mcp", server: mcp[1], call: { name: mcp[2], arguments: input } };
  const shell = (command: unknown): Route => {
    // Codex may pass argv as a list; a list is joined only when it is `bash -lc "<script>"`-shaped.
    if (Array.isArray(command) && command.every((c) => typeof c === "string")) {
      const argv = command as string[];
      if (argv.length === 3 && /^(ba|z)?sh$/u.test(argv[0].slice(argv[0].lastIndexOf("/") + 1)) && /^-l?c$/u.test(argv[1])) return shell(argv[2]);
      return { kind: "unknown", why: `the ${tool} call's argv is not a shell script polar can read` };
    }
    if (typeof command !== "string" || command === "") return bad(tool, "`command` string");
    const cwd = s(input, "dir_path") ?? s(input, "workdir") ?? s(input, "directory");
    return { kind: "shell", call: { name: "shell", arguments: cwd === null ? { command } : { command, cwd } } };
  };
  const write = (path: string | null, content: string | null): Route =>
    path === null || content === null ? bad(tool, "`file_path` and `content` strings") : { kind: "shell", call: { name: "write_file", arguments: { path, content } } };
  const edit = (path: string | null, oldText: string | null, newText: string | null): Route =>
    path === null || oldText === null || newText === null
      ? bad(tool, "file path and old/new strings")
      : { kind: "shell", call: { name: "edit_file", arguments: { path, old: oldText, new: newText } } };
  switch (agent) {
    case "claude-code":
      switch (tool) {
        case "Bash":
          return shell(input.command);
        case "Write":
          return write(s(input, "file_path"), s(input, "content"));
        case "Edit":
          return edit(s(input, "file_path"), s(input, "old_string"), s(input, "new_string"));
        case "MultiEdit": {
          // Judged as one edit of the file (what is at stake is the file's current content), but every
          // edit must have the shape the agent would apply: a malformed later edit is not judged on the first.
          const edits = input.edits;
          if (!Array.isArray(edits) || edits.length === 0) return bad(tool, "`edits` list");
          for (const e of edits) {
            if (typeof e !== "object" || e === null || Array.isArray(e)) return bad(tool, "`edits` list");
            const r = edit(s(input, "file_path"), s(e as Record<string, unknown>, "old_string"), s(e as Record<string, unknown>, "new_string"));
            if (r.kind === "unknown") return r;
          }
          const first = edits[0] as Record<string, unknown>;
          return edit(s(input, "file_path"), s(first, "old_string"), s(first, "new_string"));
        }
        case "NotebookEdit": {
          // A delete has no new source; any other edit mode must carry it as a string.
          const source = input.edit_mode === "delete" && input.new_source === undefined ? "" : s(input, "new_source");
          return edit(s(input, "notebook_path"), "", source);
        }
      }
      break;
    case "codex":
      switch (tool) {
        case "Bash":
        case "shell":
        case "local_shell":
        case "exec_command":
        case "unified_exec":
          return shell(input.command ?? input.cmd);
        case "apply_patch": {
          const patch = s(input, "patch") ?? s(input, "input") ?? s(input, "command");
          return patch === null ? bad(tool, "patch text") : { kind: "shell", call: { name: "apply_patch", arguments: { patch } } };
        }
      }
      break;
    case "gemini":
      switch (tool) {
        case "run_shell_command":
          return shell(input.command);
        case "write_file":
          return write(s(input, "file_path"), s(input, "content"));
        case "replace":
          return edit(s(input, "file_path"), s(input, "old_string"), s(input, "new_string"));
      }
      break;
    case "opencode":
      switch (tool) {
        case "bash":
          return shell(input.command);
        case "write":
          return write(s(input, "filePath"), s(input, "content"));
        case "edit":
          return edit(s(input, "filePath"), s(input, "oldString"), s(input, "newString"));
        case "patch":
        case "apply_patch": {
          const patch = s(input, "patchText") ?? s(input, "patch");
          return patch === null ? bad(tool, "patch text") : { kind: "shell", call: { name: "apply_patch", arguments: { patch } } };
        }
      }
      break;
  }
  return { kind: "unknown", why: `polar has no guard for the ${agent} tool \`${tool}\`` };
}

/** A core guard (one MCP server's ontology) as a HookGuard. */
export function coreHookGuard(guard: Guard): HookGuard {
  return {
    check(call) {
      const d = guard.check(call);
      const action: HookAction = d.approved ? "allow" : d.route === "ConsentEscalated" ? "ask" : "deny";
      const reason = d.approved ? `approved (${d.reason})` : (d.question ?? d.refusal ?? d.message ?? `refused: ${d.reason}`);
      return { action, reason, code: d.reason, execution: d.execution, decisions: [d] };
    },
    observe(call, result, execution) {
      const failed = result.exitCode !== 0;
      guard.observe(call, result.raw ?? null, { failed, ...(execution === null ? {} : { execution }) });
    },
  };
}

/** A HookGuard whose every check is refused with `reason` (a guard that is not there). */
export function refusingGuard(reason: string, code: string): HookGuard {
  return {
    check: () => ({ action: "deny", reason, code, execution: null, decisions: [] }),
    observe: () => {},
  };
}
