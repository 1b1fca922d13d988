// `git init` followed by git calls on one line: the shell guard leaves those git calls out of the
// judgement only when the init makes a new repository (no .git there, none above): they then change only
// the new .git, which the init's undo removes whole. Where a repository exists already, `git init`
// only re-initialises it and the git calls act on that repository's work: judged on it.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { guardOn, sh } from "./verdict-fixture.js";

describe("git init where a repository exists already", () => {
  it("its git add is judged on that repository: with the init's mkdir it overlaps, so veto denies it", async () => {
    const { g, ws } = await guardOn("rich", "veto");
    const d = g.check(sh("git init && git add a.txt"));
    expect(d).toMatchObject({ approved: false, action: "deny", reason: "overlap" });
    expect(d.calls.map((c) => c.name)).toEqual(["fs_mkdir", "fs_mkdir", "git_stage"]);
    expect(d.calls[1]!.arguments.path).toBe(`${ws}/.git`);
  });

  it("under snapshot the restore point keeps that repository (its refs and index), not only the paths", async () => {
    const { g, store } = await guardOn("rich", "snapshot");
    const d = g.check(sh("git init && git add a.txt"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    const point = JSON.parse(readFileSync(`${store}/points/${d.restorePoint!.id}.json`, "utf8")) as { repo: { refs: unknown[] } | null };
    expect(point.repo).not.toBeNull();
    expect(point.repo!.refs.length).toBeGreaterThan(0);
  });

  it("a .git file (a linked work tree or a submodule's gitdir link) is a repository too", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/.git`, "gitdir: /nowhere\n");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const d = g.check(sh("git init && git add notes.txt"));
    expect(d.approved).toBe(false);
  });
});

describe("which git init makes a plain new repository", () => {
  it("with -q, -b NAME, --initial-branch[=| ]NAME, blanks between words and a directory: its git calls are left out (approved under veto)", async () => {
    const { g } = await guardOn("empty", "veto");
    for (const line of ["git init -b main && git add .", "git init --initial-branch=trunk && git add .", "git init --initial-branch trunk && git add .", "git  init && git add .", "git init  -q && git add .", "git init -q -b  trunk my.repo/sub && git -C my.repo/sub add ."]) {
      expect(g.check(sh(line)), line).toMatchObject({ approved: true, reason: "reversible" });
    }
  });

  it("an init with an assignment or a wrapper before it (GIT_DIR=… puts the repository elsewhere), or a word the rule does not read: its git calls are judged as they are", async () => {
    const { g } = await guardOn("empty", "veto");
    // GIT_DIR in a command's environment is not followed by the dispatcher at all.
    expect(g.check(sh("GIT_DIR=elsewhere git init && git add .")).approved).toBe(false);
    for (const line of ["env git init && git add .", "command git init && git add .", "git init sub=x && git -C sub=x add ."]) {
      expect(g.check(sh(line)), line).toMatchObject({ approved: false, reason: "unknown_state" });
    }
  });
});
