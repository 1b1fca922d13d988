// What the shell guard reads from a tool call before it judges anything: the decision's format, the
// `{ tool, args }` and `{ name, arguments }` shapes (a null `arguments` is malformed), the problem it
// names for a malformed call and an unknown tool (no typed calls in either), and where the
// restore-point store may be (never under the workspace, named by its link either).
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createShellGuard, ShellGuardError } from "../../src/shell/guard.js";
import { tempDir } from "./helpers.js";
import { guardOn } from "./verdict-fixture.js";

describe("the call's shape", () => {
  it("every decision names its format polar-shell-decision/1", async () => {
    const { g } = await guardOn("empty", "veto");
    expect(g.check({ tool: "shell", args: { command: "ls" } }).format).toBe("polar-shell-decision/1");
    expect(g.check({ tool: "shell", args: { command: "echo x > f" } }).format).toBe("polar-shell-decision/1");
  });

  it("a malformed call: its problem has no source and it has no typed calls; `{ name, arguments: null }` is malformed too", async () => {
    const { g } = await guardOn("empty", "advisory");
    for (const call of [{ tool: "shell", args: null }, { name: "shell", arguments: null }, { tool: "shell", arguments: null }]) {
      const d = g.check(call);
      expect(d, JSON.stringify(call)).toMatchObject({ approved: false, action: "deny", reason: "malformed_call", calls: [] });
      expect(d.problems).toEqual([{ reason: "malformed_call", detail: "a tool call is { tool, args } with args an object", source: "" }]);
    }
  });

  it("an unknown tool: the problem names it as its source, no typed calls", async () => {
    const { g } = await guardOn("empty", "escalate");
    const d = g.check({ tool: "teleport", args: { to: "mars" } });
    expect(d.calls).toEqual([]);
    expect(d.problems).toEqual([{ reason: "unknown_command", detail: "unknown tool `teleport`", source: "teleport" }]);
  });
});

describe("the restore-point store", () => {
  it("under the workspace named through a link to it: refused", async () => {
    const root = realpathSync(tempDir("polar-shell-store-"));
    mkdirSync(`${root}/ws`);
    symlinkSync(`${root}/ws`, `${root}/link`);
    const e = await createShellGuard({ cwd: `${root}/link`, store: `${root}/link/s` }).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(ShellGuardError);
    expect((e as ShellGuardError).code).toBe("bad-store");
    expect((e as Error).message).toBe(`the store ${root}/link/s is inside the workspace`);
  });
});
