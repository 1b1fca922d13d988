// The shell guard (polar-guard/shell) behind the HookGuard interface. A session's guard that cannot be
// built (the workspace is gone, the store is not writable) refuses every call with the reason
// (src/hooks/engine.ts); an engine built without a factory refuses with "shell guard not available".
import type { Decision } from "../guard/index.js";
import type { HookAction } from "./agents.js";
import type { ShellGuardFactory } from "./engine.js";
import type { HookGuard } from "./guards.js";

/** What the hook needs of a shell guard's decision (polar-guard/shell's ShellDecision). */
export interface ShellDecisionLike {
  approved: boolean;
  action: HookAction;
  reason: string;
  message: string;
  execution: string | null;
  core: Decision | null;
  readOnly?: { command: string; cwd: string; catalogue: string } | null;
}

export interface ShellGuardLike {
  check(call: unknown): ShellDecisionLike;
  observe(call: unknown, result?: unknown, options?: { execution?: string }): unknown;
}

/** A shell guard as a HookGuard. An answer that does not hang together (allow without approval) is a
 * refusal. */
export function adaptShellGuard(sg: ShellGuardLike): HookGuard {
  return {
    check(call) {
      const d = sg.check({ tool: call.name, args: call.arguments });
      const action: HookAction = d.action === "allow" && d.approved ? "allow" : d.action === "ask" ? "ask" : "deny";
      const reason = typeof d.message === "string" && d.message !== "" ? d.message : `${action === "allow" ? "approved" : "refused"}: ${d.reason}`;
      return { action, reason, code: d.reason, execution: d.execution, decisions: d.core === null ? [] : [d.core], ...(d.readOnly ? { readOnly: d.readOnly } : {}) };
    },
    observe(call, result, execution) {
      const r = { exitCode: result.exitCode, ...(result.stdout === undefined ? {} : { stdout: result.stdout }), ...(result.stderr === undefined ? {} : { stderr: result.stderr }) };
      sg.observe({ tool: call.name, args: call.arguments }, r, execution === null ? {} : { execution });
    },
  };
}

/** The shell guard of a session's workspace: polar-guard/shell's `createShellGuard` (snapshot policy:
 * restore points before approving what they make undoable). */
export async function shellGuardFactory(): Promise<ShellGuardFactory | null> {
  const { createShellGuard } = await import("../shell/index.js");
  return async ({ cwd, store, session }) => adaptShellGuard(await createShellGuard({ cwd, store, session }));
}
