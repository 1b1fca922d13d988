// Restore points in the repositories agents really work in, run and undone for real: a clone (whose
// refs/remotes/origin/HEAD is a symbolic ref to origin's branch) and a submodule (whose `.git` is a
// file naming its git folder in the superproject). Was: every undo of a point holding a clone's refs
// failed (`git update-ref`: "multiple updates for 'refs/remotes/origin/master' (including one via
// symref 'refs/remotes/origin/HEAD') are not allowed"), after the work tree was written back and
// before the stash and HEAD were: `git stash` or `git checkout -b x` in a dirty clone was approved
// with a restore point and its undo left the stash, or HEAD on the new branch.
import { realpathSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/guard.js";
import { diffManifests, manifest, runBash, sh, tempDir } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const ID = "git config user.email a@example.com && git config user.name a";

/** A repository `up` with two branches, cloned as `cl` (origin/HEAD a symbolic ref), and `sup`, a
 * superproject holding `up` as the submodule `sub`; the clone and the submodule each with a modified
 * and an untracked file. */
function repos(): { cl: string; sub: string; sup: string } {
  const root = realpathSync(tempDir("polar-shell-clone-"));
  made.push(root);
  sh(root, `git init -q -b main up && cd up && ${ID} && echo a > a.txt && git add . && git commit -qm a && git branch side && cd ..
    git clone -q up cl && cd cl && ${ID} && git branch -q side origin/side && echo more >> a.txt && echo new > fresh.txt && cd ..
    git init -q -b main sup && cd sup && ${ID} && echo s > s.txt && git add . && git commit -qm s
    git -c protocol.file.allow=always submodule add -q ../up sub && git commit -qm sub && cd sub && ${ID} && echo more >> a.txt && echo new > fresh.txt`);
  return { cl: `${root}/cl`, sub: `${root}/sup/sub`, sup: `${root}/sup` };
}

/** The work tree's files and the git state read through git (a submodule's HEAD and index are in its
 * git folder in the superproject). */
function state(ws: string): Map<string, string> {
  const m = manifest(ws);
  m.set("git", sh(ws, `cat "$(git rev-parse --git-path HEAD)"; echo --refs; git for-each-ref --format='%(refname) %(objectname) %(symref)'; echo --index; git ls-files -s; echo --stash; git stash list --format=%H`));
  return m;
}

describe("restore points in a clone and in a submodule, run and undone", () => {
  const lines = ["git reset --hard", "git stash", "git checkout -q -b topic", "git commit -qam wip", "git clean -fd && git checkout -q side"];
  for (const where of ["cl", "sub"] as const) {
    it.each(lines)(`${where}: %s`, async (command) => {
      const r = repos();
      const ws = r[where];
      const g = await createShellGuard({ cwd: ws, store: `${ws}-store`, policy: "snapshot" });
      const before = state(ws);
      const call = { tool: "shell", args: { command } };
      const d = g.check(call);
      expect(`${d.action} ${d.reason}`, d.message ?? "").toBe("allow restore_point");
      expect(runBash(ws, command)).toBe(0);
      g.observe(call, { exitCode: 0 }, { execution: d.execution! });
      expect(diffManifests(before, state(ws)).length).toBeGreaterThan(0);
      const u = g.undo();
      expect(u.reason, u.message).toBe("undone");
      expect(diffManifests(before, state(ws))).toEqual([]);
      // The clone's origin/HEAD is a symbolic ref again, not a copy of the commit it named.
      if (where === "cl") expect(sh(ws, "git symbolic-ref refs/remotes/origin/HEAD").trim()).toBe("refs/remotes/origin/main");
    });
  }
});
