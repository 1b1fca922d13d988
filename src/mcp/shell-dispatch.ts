// The shell guard (polar-guard/shell) as the MCP gateway's dispatcher for a server's command-running
// tool (`run_command`, `bash`, `shell`): each command string is judged on the workspace the server runs
// it in, with restore points and the undo journal `polar undo` reads (the store the hooks use). Node
// only; loaded by `polar mcp --dispatch TOOL=shell:ARG` alone.
import type { DispatcherTool, DispatchVerdict } from "./gateway.js";
import type { ShellDecision, ShellGuard, ShellPolicy } from "../shell/index.js";

/** What this file uses of polar-guard/shell, passed in (the bash grammar loads only when configured). */
export type ShellModule = Pick<typeof import("../shell/index.js"), "createShellGuard">;

export function shellVerdictOf(d: ShellDecision): DispatchVerdict {
  return { action: d.action, reason: d.reason, message: d.message, meta: { tier: d.tier, restorePoint: d.restorePoint, execution: d.execution, session: d.session, calls: d.calls } };
}

/** Dispatcher tools judged by the shell guard on `workspace` (one guard per client session). */
export function shellDispatchers(shell: ShellModule, options: { tools: ReadonlyArray<{ tool: string; argument: string }>; workspace: string; store: string; policy?: ShellPolicy }): Map<string, DispatcherTool> {
  const perSession = new WeakMap<object, Promise<ShellGuard>>();
  const out = new Map<string, DispatcherTool>();
  for (const { tool, argument } of options.tools) {
    out.set(tool, {
      kind: "shell",
      argument,
      async create({ guard }) {
        let sg = perSession.get(guard);
        if (sg === undefined) {
          sg = shell.createShellGuard({ cwd: options.workspace, store: options.store, policy: options.policy });
          perSession.set(guard, sg);
          sg.catch(() => perSession.delete(guard));
        }
        const g = await sg;
        const calls = new WeakMap<DispatchVerdict, { call: { tool: string; args: { command: string } }; execution: string }>();
        return {
          judge(_call, text) {
            const call = { tool: "shell", args: { command: text } };
            const d = g.check(call);
            const v = shellVerdictOf(d);
            if (d.execution) calls.set(v, { call, execution: d.execution });
            return v;
          },
          observe(v, outcome) {
            const c = calls.get(v);
            // The server answered without error: it ran (exit 0). Lost after sending: its outcome is unknown.
            if (c !== undefined) g.observe(c.call, outcome === "ran" ? { exitCode: 0 } : undefined, { execution: c.execution });
          },
        };
      },
    });
  }
  return out;
}
