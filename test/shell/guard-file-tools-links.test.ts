// The file-edit tools (write_file, edit_file, apply_patch) write through a symbolic link to its target,
// as a shell redirection does (open(2) follows links): the shell guard judges the target, so a link
// to a file with uncommitted work is not approved as if only the committed link changed. A deletion
// removes the link itself.
import { symlinkSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { guardOn, sh } from "./verdict-fixture.js";

describe("a write through a symbolic link judges its target", () => {
  it("write_file, edit_file and apply_patch's update on a committed link to a file with uncommitted work: refused under veto like `echo x > link` (was: approved, undo `git restore link`)", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    writeFileSync(`${ws}/a.txt`, "uncommitted\n");
    const calls = [
      { tool: "write_file", args: { path: "link", content: "x" } },
      { tool: "edit_file", args: { path: `${ws}/link`, old: "alpha", new: "beta" } },
      sh("echo x > link"),
    ];
    for (const c of calls) {
      const d = g.check(c);
      expect(d.calls.map((x) => [x.name, x.arguments.path]), JSON.stringify(c)).toEqual([["fs_write", `${ws}/a.txt`]]);
      expect(d, JSON.stringify(c)).toMatchObject({ approved: false, reason: "irreversible" });
    }
    const p = g.check({ tool: "apply_patch", args: { patch: "*** Begin Patch\n*** Update File: link\n@@\n-alpha\n+beta\n*** End Patch\n" } });
    expect(p.calls.map((x) => [x.name, x.arguments.path])).toEqual([["fs_write", `${ws}/a.txt`], ["fs_write", `${ws}/link`]]);
    expect(p).toMatchObject({ approved: false, reason: "irreversible" });
  });

  it("a chain of links and a dangling link: the final target (a new file there is undone by removing it)", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    symlinkSync("b", `${ws}/a`);
    symlinkSync("c", `${ws}/b`);
    const d = g.check({ tool: "write_file", args: { path: "a", content: "x" } });
    expect(d.calls).toEqual([{ name: "fs_write", arguments: { path: `${ws}/c` }, source: `write_file ${ws}/c` }]);
    expect(d).toMatchObject({ approved: true, reason: "reversible" });
    expect(d.inverse.map((s) => [s.tool, s.arguments])).toEqual([["fs_remove", { path: `${ws}/c` }]]);
  });

  it("apply_patch's deletion of a link removes the link, not its target", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    writeFileSync(`${ws}/a.txt`, "uncommitted\n");
    const d = g.check({ tool: "apply_patch", args: { patch: "*** Begin Patch\n*** Delete File: link\n*** End Patch\n" } });
    expect(d.calls.map((x) => [x.name, x.arguments.path])).toEqual([["fs_remove", `${ws}/link`]]);
    expect(d).toMatchObject({ approved: true, reason: "reversible" });
  });

  it("apply_patch's update of a link: its target and the link itself, each named by the patch's text", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    symlinkSync("t.txt", `${ws}/l`);
    const d = g.check({ tool: "apply_patch", args: { patch: "*** Begin Patch\n*** Update File: l\n@@\n-a\n+b\n*** End Patch\n" } });
    expect(d.calls).toEqual([{ name: "fs_write", arguments: { path: `${ws}/t.txt` }, source: "apply_patch l" }, { name: "fs_write", arguments: { path: `${ws}/l` }, source: "apply_patch l" }]);
  });
});
