// git calls judged on the repository's state as Layer B reads it: HEAD (a clean reset or a commit is
// undone by going back to the commit HEAD named), the stash (dropping an entry loses it unless a
// restore point keeps it), fetch (only remote-tracking refs move).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { guardOn, points, sh } from "./verdict-fixture.js";

const headOf = (ws: string): string => readFileSync(`${ws}/.git/refs/heads/main`, "utf8").trim();

describe("HEAD", () => {
  it("reset --hard on a clean tree: approved under veto, undone by resetting to the commit HEAD named", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    const d = g.check(sh("git reset --hard"));
    expect(d).toMatchObject({ approved: true, reason: "reversible", tier: "T1" });
    expect(d.inverse.map((s) => [s.tool, s.arguments])).toEqual([["git_reset_to", { target: headOf(ws) }]]);
  });

  it("a commit: undone by a soft reset to the commit HEAD named", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    const d = g.check(sh("git commit --allow-empty -m x"));
    expect(d).toMatchObject({ approved: true, reason: "reversible" });
    expect(d.inverse.map((s) => [s.tool, s.arguments])).toEqual([["git_uncommit", { target: headOf(ws) }]]);
  });
});

describe("the stash and fetch", () => {
  it("dropping a stash entry: refused under veto as irreversible; under snapshot a restore point keeps the stash", async () => {
    const v = await guardOn("rich", "veto");
    expect(v.g.check(sh("git stash drop"))).toMatchObject({ approved: false, reason: "irreversible", tier: "T4" });
    const s = await guardOn("rich", "snapshot");
    const d = s.g.check(sh("git stash drop"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    expect(points(s.store)).toEqual([`${d.restorePoint!.id}.json`]);
  });

  it("fetch: approved, nothing of ours to undo (T3: the remote-tracking refs moved)", async () => {
    const { g } = await guardOn("clean", "veto");
    const d = g.check(sh("git fetch"));
    expect(d).toMatchObject({ approved: true, reason: "reversible", tier: "T3" });
    expect(d.inverse.map((s) => s.tool)).toEqual(["nothing"]);
  });
});
