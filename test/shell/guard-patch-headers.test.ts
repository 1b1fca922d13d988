// apply_patch: the shell guard judges the files a patch's headers name (`*** Add/Update/Delete File:`,
// `*** Move to:`, unified `---`/`+++`), read from the first character of a line, so text inside a hunk
// that looks like a header is content; a file marker is found as codex's apply_patch finds it (the line
// without its carriage return and its surrounding blanks), and its name is the rest of that line.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { guardOn } from "./verdict-fixture.js";

const patch = (text: string) => ({ tool: "apply_patch", args: { patch: text } });

describe("apply_patch headers", () => {
  it("an added line that holds a header's text is content, not a file the patch changes", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const lines = ["+*** Delete File: keep.txt", "+*** Add File: other.txt", "+*** Update File: other.txt", "+*** Move to: moved.txt", "++++ b/plus.txt", "+--- a/minus.txt", " +++ b/space.txt", "+rename to r.txt", " copy to c.txt"];
    const d = g.check(patch(`*** Begin Patch\n*** Add File: n.txt\n${lines.join("\n")}\n*** End Patch\n`));
    expect(d.calls).toEqual([{ name: "fs_write", arguments: { path: `${ws}/n.txt` }, source: "apply_patch n.txt" }]);
    expect(d).toMatchObject({ approved: true, reason: "reversible" });
  });

  it("a removed line `-- x` of a unified diff followed by `++ y` is content (---/+++ need their space)", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const d = g.check(patch("--- a/q.sql\n+++ b/q.sql\n@@ -1 +1 @@\n---x\n+++y\n"));
    expect(d.calls.map((c) => c.arguments.path)).toEqual([`${ws}/q.sql`]);
  });

  it("a header with a CRLF end is a header, as codex reads it (was: missed, so an added file beside it was approved while codex deleted the other)", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const d = g.check(patch("*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: notes.txt\r\n*** End Patch\n"));
    expect(d.calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_write", `${ws}/a.txt`], ["fs_remove", `${ws}/notes.txt`]]);
    expect(d).toMatchObject({ approved: false, reason: "irreversible" });
    const crlf = g.check(patch("*** Begin Patch\r\n*** Add File: n.txt\r\n+x\r\n*** Update File: u.txt\r\n*** Move to: m.txt\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n"));
    expect(crlf.calls.map((c) => [c.name, c.arguments.path, c.source])).toEqual([["fs_write", `${ws}/n.txt`, "apply_patch n.txt"], ["fs_write", `${ws}/u.txt`, "apply_patch u.txt"], ["fs_write", `${ws}/m.txt`, "apply_patch m.txt"]]);
  });

  it("a header with blanks before or after it is a header (codex trims a hunk's first line: spaces, tabs, NEL, no-break spaces)", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    for (const header of ["  *** Delete File: notes.txt", "\t*** Delete File: notes.txt  ", "\u0085*** Delete File: notes.txt", "\u00a0*** Delete File: notes.txt\u3000", "\v*** Delete File: notes.txt\v"]) {
      const d = g.check(patch(`*** Begin Patch\n*** Add File: a.txt\n+x\n${header}\n*** End Patch\n`));
      expect(d.calls.map((c) => [c.name, c.arguments.path]), JSON.stringify(header)).toEqual([["fs_write", `${ws}/a.txt`], ["fs_remove", `${ws}/notes.txt`]]);
      expect(d.approved, JSON.stringify(header)).toBe(false);
    }
  });

  it("opencode's reading too: no blank needed after the colon (was: missed, so a deletion beside an added file was approved)", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const d = g.check(patch("*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File:notes.txt\n*** End Patch\n"));
    expect(d.calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_write", `${ws}/a.txt`], ["fs_remove", `${ws}/notes.txt`]]);
    expect(d.approved).toBe(false);
    const move = g.check(patch("*** Begin Patch\n*** Update File:u.txt\n*** Move to:m.txt\n@@\n-a\n+b\n*** End Patch\n"));
    expect(move.calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_write", `${ws}/u.txt`], ["fs_write", `${ws}/m.txt`]]);
  });

  it("where the two readings name different files, both are judged: a second blank (codex keeps it in the name, opencode trims it), a line separator, a trailing NEL", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const d = g.check(patch("*** Begin Patch\n*** Add File:  n.txt\n+x\n*** Delete File: a\u2028b\n*** Delete File: c\u0085\n*** Move to:  m.txt\n*** End Patch\n"));
    expect(d.calls.map((c) => [c.name, c.arguments.path])).toEqual([
      ["fs_write", `${ws}/ n.txt`],
      ["fs_write", `${ws}/n.txt`],
      ["fs_remove", `${ws}/a\u2028b`],
      ["fs_remove", `${ws}/c`],
      ["fs_remove", `${ws}/c\u0085`],
      ["fs_write", `${ws}/ m.txt`],
      ["fs_write", `${ws}/m.txt`],
    ]);
  });

  it("a marker with no name is no header", async () => {
    const { g } = await guardOn("empty", "veto");
    expect(g.check(patch("*** Begin Patch\n*** Delete File: \n*** Delete File:\n*** Add File:\t\n*** Move to:\n*** Move to:\t\n*** End Patch\n"))).toMatchObject({ reason: "unparsed" });
  });

  it("a deletion `+++ /dev/null` with no `---` before it names no file: no file header", async () => {
    const { g } = await guardOn("empty", "snapshot");
    expect(g.check(patch("+++ /dev/null\n"))).toMatchObject({ approved: false, reason: "unparsed", message: "not judged (unparsed): apply_patch: no file header in the patch" });
  });
});

describe("apply_patch as a git diff: a rename", () => {
  it("`--- a/old` `+++ b/new` judges old too: git apply renames it, GNU patch changes it in place (was: only new judged, so old's uncommitted work went unjudged)", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/old.txt`, "uncommitted work\n");
    const d = g.check(patch("diff --git a/old.txt b/new.txt\nsimilarity index 90%\nrename from old.txt\nrename to new.txt\n--- a/old.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-uncommitted work\n+changed\n"));
    expect(d.calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_write", `${ws}/old.txt`], ["fs_write", `${ws}/new.txt`]]);
    expect(d).toMatchObject({ approved: false, reason: "irreversible" });
  });

  it("a rename with no hunk (`rename from`/`rename to` only) and a copy name their files", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const d = g.check(patch("diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\ndiff --git a/c.txt b/d.txt\nsimilarity index 100%\ncopy from c.txt\ncopy to d.txt\n"));
    expect(d.calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_write", `${ws}/a.txt`], ["fs_write", `${ws}/b.txt`], ["fs_write", `${ws}/d.txt`]]);
  });

  it("a plain diff between two names (`--- old` `+++ new`, with or without a/ b/, no rename lines) judges both", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    for (const text of ["--- a/old.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-a\n+b\n", "--- old.txt\n+++ new.txt\n@@ -1 +1 @@\n-a\n+b\n"]) {
      expect(g.check(patch(text)).calls.map((c) => [c.name, c.arguments.path]), text).toEqual([["fs_write", `${ws}/new.txt`], ["fs_write", `${ws}/old.txt`]]);
    }
  });
});

describe("apply_patch unified headers, more", () => {
  it("a `+++` with no `---` before it names its file alone; names are trimmed; CRLF ends are dropped", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const alone = g.check(patch("+++ b/x.txt\n@@ -0,0 +1 @@\n+a\n"));
    expect(alone.calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_write", `${ws}/x.txt`]]);
    expect(alone).toMatchObject({ approved: true, problems: [] });
    // A context line that reads like a `---` header (a blank first) is content: it names no old file.
    expect(g.check(patch(" --- a/x.txt\n+++ b/y.txt\n")).calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_write", `${ws}/y.txt`]]);
    expect(g.check(patch("--- a/x.txt \n+++ b/x.txt \n")).calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_write", `${ws}/x.txt`]]);
    expect(g.check(patch("--- a/x.txt\r\n+++ b/y.txt\r\n")).calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_write", `${ws}/y.txt`], ["fs_write", `${ws}/x.txt`]]);
  });

  it("a file deleted and added again in one patch is two calls", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const d = g.check(patch("*** Begin Patch\n*** Delete File: f.txt\n*** Add File: f.txt\n+x\n*** End Patch\n"));
    expect(d.calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_remove", `${ws}/f.txt`], ["fs_write", `${ws}/f.txt`]]);
  });
});
