// The shell guard in a linked worktree (`git worktree add`: `.git` is a file, the stash lives in the git
// folder it shares with the main repository). Was: the workspace looked for the stash's reflog under
// `<worktree>/.git/logs`, found none, counted 0 stashes, and `git stash clear` there was approved as
// "nothing to undo" under veto (and run without a restore point under snapshot): every stash of the
// repository lost.
import { realpathSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard, type ShellPolicy } from "../../src/shell/guard.js";
import { buildTemplate, copyTemplate, diffManifests, manifest, runBash, sh, tempDir } from "./helpers.js";

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
    // Under snapshot: approved only with a restore point (it holds the shared stash), never as "nothing
    // to undo".
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

/** The worktree's files and its git state read through git (its HEAD and index are its own, in the
 * shared folder's worktrees/NAME; refs and the stash are the repository's). */
function state(wt: string): Map<string, string> {
  const m = manifest(wt);
  m.set("git", sh(wt, `cat "$(git rev-parse --git-path HEAD)"; echo --refs; git for-each-ref --format='%(refname) %(objectname)'; echo --index; git ls-files -s; echo --stash; git stash list --format=%H`));
  return m;
}

describe("restore points in a linked worktree", () => {
  it("a line that changes the worktree's HEAD, index, refs or stash in a dirty work tree gets a restore point and is undone exactly, run for real (regression: every such point failed, restore_failed: the point read `<worktree>/.git/HEAD`, and `.git` is a file there)", async () => {
    const lines = [
      "git reset --hard",
      "git stash",
      "git clean -fd",
      "git commit -qam wip",
      "git checkout -q -b other",
      "git rm -q -f a.txt",
      "git add -A",
      "git stash && git stash drop",
      "git checkout -q --detach",
    ];
    for (const command of lines) {
      const { wt, store } = worktree();
      sh(wt, "echo more >> a.txt && echo new > fresh.txt && mkdir -p junk && echo j > junk/x");
      const g = await createShellGuard({ cwd: wt, store, policy: "snapshot" });
      const before = state(wt);
      const call = { tool: "shell", args: { command } };
      const d = g.check(call);
      expect([command, d.action, d.reason], d.message ?? "").toEqual([command, "allow", "restore_point"]);
      expect(runBash(wt, command), command).toBe(0);
      g.observe(call, { exitCode: 0 }, { execution: d.execution! });
      expect(diffManifests(before, state(wt)).length, command).toBeGreaterThan(0);
      const u = await g.undo();
      expect([command, u.reason], u.message).toEqual([command, "undone"]);
      expect(diffManifests(before, state(wt)), command).toEqual([]);
    }
  });
});
