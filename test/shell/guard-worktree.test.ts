// The shell guard in a linked worktree (`git worktree add`: `.git` is a file, the stash lives in the git
// folder it shares with the main repository). Was: the workspace looked for the stash's reflog under
// `<worktree>/.git/logs`, found none, counted 0 stashes, and `git stash clear` there was approved as
// "nothing to undo" under veto (and run without a restore point under snapshot): every stash of the
// repository lost.
import { realpathSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard, type ShellPolicy } from "../../src/shell/guard.js";
import { buildTemplate, copyTemplate, sh, tempDir } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

let tpl: string | null = null;
/** The `rich` template (it holds one stash) and a linked worktree of it on branch `side`. */
function worktree(): { main: string; wt: string; store: string } {
  if (tpl === null) {
    tpl = buildTemplate("rich");
    made.push(tpl);
  }
  const root = realpathSync(tempDir("polar-shell-wt-"));
  made.push(root);
  const main = copyTemplate(tpl, `${root}/main`);
  sh(main, `git worktree add -q '${root}/wt' -b side`);
  return { main, wt: `${root}/wt`, store: `${root}/store` };
}

const stashes = (dir: string): string => sh(dir, "git stash list --format=%H");

describe("git stash drop / clear in a linked worktree", () => {
  it("with a stash of the shared repository: denied under veto as irreversible, asked under escalate; under snapshot never approved without a restore point", async () => {
    const { main, wt, store } = worktree();
    const before = stashes(main);
    expect(before).not.toBe("");
    const expected: Record<"veto" | "escalate", [string, string]> = { veto: ["deny", "irreversible"], escalate: ["ask", "irreversible"] };
    for (const [policy, [action, reason]] of Object.entries(expected)) {
      const g = await createShellGuard({ cwd: wt, store: `${store}-${policy}`, policy: policy as ShellPolicy });
      for (const command of ["git stash clear", "git stash drop"]) {
        const d = g.check({ tool: "shell", args: { command } });
        expect([policy, command, d.action, d.reason, d.approved]).toEqual([policy, command, action, reason, false]);
      }
    }
    // Restore points of a linked worktree are not taken yet (restore.ts reads `.git/HEAD`): asked as
    // restore_failed, never let through as "nothing to undo".
    const g = await createShellGuard({ cwd: wt, store: `${store}-snapshot`, policy: "snapshot" });
    for (const command of ["git stash clear", "git stash drop"]) {
      const d = g.check({ tool: "shell", args: { command } });
      expect(d.approved ? d.restorePoint : "not approved").not.toBeNull();
      expect(d.reason).not.toBe("reversible");
    }
    expect(stashes(main)).toBe(before);
  });

  it("with no stash anywhere: nothing to lose, approved under veto", async () => {
    const { main, wt, store } = worktree();
    sh(main, "git stash clear");
    const g = await createShellGuard({ cwd: wt, store, policy: "veto" });
    const d = g.check({ tool: "shell", args: { command: "git stash clear" } });
    expect([d.action, d.reason]).toEqual(["allow", "reversible"]);
  });
});
