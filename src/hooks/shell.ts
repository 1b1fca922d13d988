// The shell guard (polar-guard/shell, issue 23) behind the HookGuard interface. Until a build carries
// it, the factory is null and the engine refuses shell commands and file edits ("shell guard not
// available"): never allowed unjudged.
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
      return { action, reason, code: d.reason, execution: d.execution, decisions: d.core === null ? [] : [d.core] };
    },
    observe(call, result, execution) {
      const r = { exitCode: result.exitCode, ...(result.stdout === undefined ? {} : { stdout: result.stdout }), ...(result.stderr === undefined ? {} : { stderr: result.stderr }) };
      sg.observe({ tool: call.name, args: call.arguments }, r, execution === null ? {} : { execution });
    },
  };
}

export async function shellGuardFactory(): Promise<ShellGuardFactory | null> {
  return null;
}
