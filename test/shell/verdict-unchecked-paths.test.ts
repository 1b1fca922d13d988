// The shell guard's verdict over work git status does not show: a tracked file git was told to assume
// unchanged (`git update-index --assume-unchanged`) holds uncommitted work that reset --hard, a
// checkout of the path and rm destroy. Each was approved under veto as T1 ("git gives it back"), and
// the work was lost: the workspace read it as clean (src/shell/workspace.ts reads `git ls-files -v`
// now). In-process, no call is run.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sh as bash } from "./helpers.js";
import { guardOn, sh } from "./verdict-fixture.js";

describe("work in a path git assumes unchanged", () => {
  it("reset --hard, a checkout of the path and rm of it are not approved under veto (were: T1)", async () => {
    for (const line of ["git reset --hard", "git checkout -- a.txt", "rm a.txt", "git checkout HEAD~1 -- a.txt"]) {
      const { g, ws } = await guardOn("clean", "veto");
      bash(ws, "git update-index --assume-unchanged a.txt");
      writeFileSync(`${ws}/a.txt`, "uncommitted work");
      expect(bash(ws, "git status --porcelain"), line).toBe("");
      const d = g.check(sh(line));
      expect(d.approved, `${line}: ${d.reason} ${d.message}`).toBe(false);
    }
  });

  it("a path git skips in the work tree is never clean for rm (its content is not compared), but reset --hard, which leaves it alone, is approved", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    expect(g.check(sh("rm a.txt")).approved).toBe(true);
    bash(ws, "git update-index --skip-worktree b.txt");
    expect(g.check(sh("rm b.txt")).approved).toBe(false);
    // reset --hard leaves a skipped path alone: the repository is clean.
    expect(g.check(sh("git reset --hard")).approved).toBe(true);
  });
});
