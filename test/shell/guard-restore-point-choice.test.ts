// Under the snapshot policy the shell guard takes a restore point only where one can lift the
// refusal: the line's only obstacles are workspace data a point keeps (uncommitted work, or a git
// state whose inverse needs one). A point is written to the store before the second verdict, so a
// point taken where it cannot help is a cost (it copies what the line's files hold) and, over its
// bound, a misleading reason. Each case states the verdict and what the store holds after it.
import { mkdirSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { guardOn, points, sh } from "./verdict-fixture.js";

describe("under snapshot, a restore point where it lifts the refusal", () => {
  it("a line that creates one file and removes uncommitted work: one point, approved, its undo names the point", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const d = g.check(sh("echo x > fresh.txt; rm notes.txt"));
    expect(d).toMatchObject({ approved: true, action: "allow", route: "Approved", reason: "restore_point", tier: "T1", restorePoint: { files: 1, bytes: 5 } });
    expect(points(store)).toEqual([`${d.restorePoint!.id}.json`]);
    expect(d.inverse.map((s) => s.tool)).toEqual(["restore_point_apply", "fs_remove"]);
  });

  it("git calls whose inverse needs a point (no T4 step, the condition of every other inverse false): stash, merge, add over uncommitted work", async () => {
    for (const line of ["git stash", "git merge topic", "git add a.txt"]) {
      const { g, store } = await guardOn("rich", "snapshot");
      const d = g.check(sh(line));
      expect(d, line).toMatchObject({ approved: true, reason: "restore_point", tier: "T1" });
      expect(points(store), line).toHaveLength(1);
      // Under veto the same line is refused: its inverse's condition does not hold without a point.
      const v = await guardOn("rich", "veto");
      expect(v.g.check(sh(line)), line).toMatchObject({ approved: false, reason: "bound_violated" });
    }
  });
});

describe("under snapshot, no restore point where none can lift the refusal", () => {
  it("a package install changes the environment, which no point keeps: refused as irreversible, the store empty", async () => {
    const { g, store } = await guardOn("empty", "snapshot");
    const d = g.check(sh("npm install left-pad"));
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "irreversible", tier: "T4", restorePoint: null, execution: null });
    expect(points(store)).toEqual([]);
  });

  it("uncommitted work lost beside a package install: a point would keep the file but not the environment, so none is taken", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const d = g.check(sh("rm notes.txt; npm install left-pad"));
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "irreversible", restorePoint: null });
    expect(points(store)).toEqual([]);
  });

  it("a git call before the `git init` that makes its repository acts in no repository (no_candidate): no point of the workspace is taken for it", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    mkdirSync(`${ws}/sub`);
    for (const line of ["git add . && git init", "git -C sub add . && rm notes.txt && git init sub"]) {
      const d = g.check(sh(line));
      expect(d, line).toMatchObject({ approved: false, action: "ask", reason: "no_candidate", restorePoint: null, execution: null });
    }
    expect(points(store)).toEqual([]);
  });

  it("a point over its bound is never the reason for a line no point can lift", async () => {
    const { g, ws } = await guardOn("empty", "snapshot", { restoreBounds: { maxFiles: 0 } });
    writeFileSync(`${ws}/notes.txt`, "work\n");
    mkdirSync(`${ws}/sub`);
    expect(g.check(sh("git -C sub add . && rm notes.txt && git init sub")).reason).toBe("no_candidate");
    expect(g.check(sh("npm install left-pad")).reason).toBe("irreversible");
    // Where a point would lift it, the bound is the reason.
    expect(g.check(sh("rm notes.txt")).reason).toBe("over_bound");
  });
});
