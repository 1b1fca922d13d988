// src/hooks/shell.ts: the shell guard (polar-guard/shell) behind the hooks' HookGuard. What the hook
// answers for each shell decision (an allow only when the decision approved it: a decision that does
// not hang together is a refusal), the reason shown, the records kept for the audit, and what the shell
// guard is told after the call ran.
import { describe, expect, test } from "vitest";
import type { Decision } from "../../src/guard/index.js";
import { adaptShellGuard, type ShellDecisionLike, type ShellGuardLike } from "../../src/hooks/shell.js";

function shellGuard(d: Partial<ShellDecisionLike>): ShellGuardLike & { checked: unknown[]; observed: unknown[][] } {
  const checked: unknown[] = [];
  const observed: unknown[][] = [];
  return {
    checked,
    observed,
    check(call) {
      checked.push(call);
      return { approved: false, action: "deny", reason: "irreversible", message: "", execution: null, core: null, ...d };
    },
    observe(...a) {
      observed.push(a);
    },
  };
}

const call = { name: "shell", arguments: { command: "rm a.txt", cwd: "/w" } };

describe("adaptShellGuard: check", () => {
  test("the call is given as the shell guard's tool and args", () => {
    const sg = shellGuard({});
    adaptShellGuard(sg).check(call);
    expect(sg.checked).toEqual([{ tool: "shell", args: { command: "rm a.txt", cwd: "/w" } }]);
  });

  test("allow only when the decision says allow and approved; ask stays ask; anything else is deny", () => {
    const action = (d: Partial<ShellDecisionLike>) => adaptShellGuard(shellGuard(d)).check(call).action;
    expect(action({ action: "allow", approved: true })).toBe("allow");
    expect(action({ action: "allow", approved: false })).toBe("deny");
    expect(action({ action: "deny", approved: true })).toBe("deny");
    expect(action({ action: "ask", approved: false })).toBe("ask");
    expect(action({ action: "ask", approved: true })).toBe("ask");
    expect(action({ action: "permit" as ShellDecisionLike["action"], approved: true })).toBe("deny");
  });

  test("the reason: the decision's message, else `approved: <reason>` or `refused: <reason>`", () => {
    const reason = (d: Partial<ShellDecisionLike>) => adaptShellGuard(shellGuard(d)).check(call).reason;
    expect(reason({ message: "would delete a.txt (untracked): refused" })).toBe("would delete a.txt (untracked): refused");
    expect(reason({ message: "" })).toBe("refused: irreversible");
    expect(reason({ message: "", action: "allow", approved: true, reason: "reversible" })).toBe("approved: reversible");
    expect(reason({ message: "", action: "allow", approved: false, reason: "reversible" })).toBe("refused: reversible");
    expect(reason({ message: "", action: "ask", reason: "irreversible" })).toBe("refused: irreversible");
    expect(reason({ message: undefined as unknown as string, reason: "unknown_command" })).toBe("refused: unknown_command");
  });

  test("code, execution, the core decision for the audit, and a read-only approval's evidence when there is one", () => {
    const core = { approved: true, reason: "reversible" } as unknown as Decision;
    const readOnly = { command: "ls", cwd: "/w", catalogue: "c".repeat(64) };
    expect(adaptShellGuard(shellGuard({ action: "allow", approved: true, reason: "reversible", message: "ok", execution: "x4", core })).check(call)).toEqual({
      action: "allow",
      reason: "ok",
      code: "reversible",
      execution: "x4",
      decisions: [core],
    });
    expect(adaptShellGuard(shellGuard({ action: "allow", approved: true, reason: "read_only", message: "ok", readOnly })).check(call)).toEqual({
      action: "allow",
      reason: "ok",
      code: "read_only",
      execution: null,
      decisions: [],
      readOnly,
    });
    expect("readOnly" in adaptShellGuard(shellGuard({ readOnly: null })).check(call)).toBe(false);
  });
});

describe("adaptShellGuard: observe", () => {
  test("the exit code, and stdout and stderr when the agent gave them; the execution when there is one", () => {
    const sg = shellGuard({});
    const g = adaptShellGuard(sg);
    g.observe(call, { exitCode: 0, stdout: "o", stderr: "e", raw: { x: 1 } }, "x2");
    g.observe(call, { exitCode: 3 }, null);
    g.observe(call, { exitCode: 0, stdout: "" }, null);
    // Strictly: an output the agent did not give is not there at all (not there as undefined).
    expect(sg.observed).toStrictEqual([
      [{ tool: "shell", args: call.arguments }, { exitCode: 0, stdout: "o", stderr: "e" }, { execution: "x2" }],
      [{ tool: "shell", args: call.arguments }, { exitCode: 3 }, {}],
      [{ tool: "shell", args: call.arguments }, { exitCode: 0, stdout: "" }, {}],
    ]);
  });
});
