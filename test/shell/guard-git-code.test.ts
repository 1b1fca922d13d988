// A write into a repository's `.git` config or hooks is code git runs in later commands: `git status`
// runs a core.fsmonitor, a commit its pre-commit hook, and those commands are judged as they read
// (status read-only, commit undone by moving HEAD back). Each write below was approved before (undo:
// remove the new hook, or a restore point of the config), and the line after it ran the code unasked.
import { describe, expect, it } from "vitest";
import { guardOn, sh } from "./verdict-fixture.js";

const CODE_WRITES = [
  sh("cp a.txt .git/hooks/pre-commit"),
  sh("printf '[core]\\n\\tfsmonitor = ./x\\n' >> .git/config"),
  { tool: "write_file", args: { path: ".git/hooks/pre-commit", content: "#!/bin/sh\nrm -rf ~\n" } },
  { tool: "edit_file", args: { path: ".git/config", old: "[core]", new: "[core]\n\tfsmonitor = ./x" } },
  { tool: "apply_patch", args: { patch: "*** Begin Patch\n*** Add File: .git/hooks/post-checkout\n+rm -rf ~\n*** End Patch\n" } },
];

describe("writes into .git's config and hooks are asked: git runs them later", () => {
  it.each(CODE_WRITES)("%j: not judged (unknown_effect) under veto and snapshot", async (call) => {
    for (const policy of ["veto", "snapshot"] as const) {
      const { g, ws } = await guardOn("rich", policy);
      const d = g.check(call);
      expect(d, policy).toMatchObject({ approved: false, action: policy === "veto" ? "deny" : "ask", reason: "unknown_effect", restorePoint: null });
      expect(d.message).toMatch(new RegExp(`^not judged \\(unknown_effect\\): ${ws}/\\.git/(config|hooks/[a-z-]+): git runs the settings and hooks there in later commands`));
    }
  });

  it("files beside .git (.gitignore, .github/) and a removed hook are judged as any other", async () => {
    const { g } = await guardOn("rich", "veto");
    expect(g.check({ tool: "write_file", args: { path: ".gitignore", content: "x\n" } })).toMatchObject({ approved: true, reason: "reversible" });
    expect(g.check(sh("mkdir -p .github/workflows"))).toMatchObject({ approved: true });
    expect(g.check(sh("rm -f .git/hooks/pre-commit.sample")).reason).not.toBe("unknown_effect");
  });

  it("the problem's source is the tool and the path it was given; a hook deleted by apply_patch is judged as any file", async () => {
    const { g, ws } = await guardOn("rich", "veto");
    expect(g.check({ tool: "write_file", args: { path: ".git/hooks/pre-commit", content: "x" } }).problems).toEqual([{ reason: "unknown_effect", detail: expect.any(String), source: `write_file ${ws}/.git/hooks/pre-commit` }]);
    expect(g.check({ tool: "apply_patch", args: { patch: "*** Begin Patch\n*** Add File: .git/hooks/post-checkout\n+x\n*** End Patch\n" } }).problems).toEqual([{ reason: "unknown_effect", detail: expect.any(String), source: "apply_patch .git/hooks/post-checkout" }]);
    const del = g.check({ tool: "apply_patch", args: { patch: "*** Begin Patch\n*** Delete File: .git/hooks/pre-commit.sample\n*** End Patch\n" } });
    expect(del.problems).toEqual([]);
    expect(del.reason).not.toBe("unknown_effect");
  });
});
