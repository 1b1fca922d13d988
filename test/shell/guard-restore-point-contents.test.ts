// What the shell guard's restore point keeps, so that its undo can put back everything the line can
// change: a checkout of paths keeps the tracked paths under them (of the repository they are in), a
// second repository's paths are kept whole, a discard keeps the tracked paths of every tree the line
// writes from, and an overlapping line keeps every path it touches (the source of a move too).
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { guardOn, sh } from "./verdict-fixture.js";

interface Point {
  paths: { path: string; entries: { rel: string }[] | null }[];
  repo: { root: string; scope?: string } | null;
}
const pointOf = (store: string, id: string): Point => JSON.parse(readFileSync(`${store}/points/${id}.json`, "utf8")) as Point;
const rel = (ws: string, p: Point): string[] => p.paths.map((x) => x.path.slice(ws.length + 1));

describe("a checkout of paths", () => {
  it("`git checkout -- .` at the repository's root keeps its tracked paths, not the untracked or ignored files", async () => {
    const { g, ws, store } = await guardOn("rich", "snapshot");
    const d = g.check(sh("git checkout -- ."));
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    const kept = rel(ws, pointOf(store, d.restorePoint!.id));
    expect(kept).toContain("a.txt");
    expect(kept).toContain("src/x.ts");
    expect(kept).not.toContain("untracked.txt");
    expect(kept).not.toContain(".env.local");
    expect(kept).not.toContain("");
  });

  it("in two repositories: the first's tracked paths, the second's paths whole (its untracked files too)", async () => {
    const { g, ws, store } = await guardOn("rich", "snapshot");
    const inner = await guardOn("clean", "veto");
    cpSync(inner.ws, `${ws}/inner`, { recursive: true, verbatimSymlinks: true });
    writeFileSync(`${ws}/inner/src/x.ts`, "changed\n");
    writeFileSync(`${ws}/inner/src/new.ts`, "untracked\n");
    const d = g.check(sh("git checkout -- a.txt; git -C inner checkout -- src"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    const p = pointOf(store, d.restorePoint!.id);
    expect(p.paths.map((x) => [x.path.slice(ws.length + 1), x.entries?.map((e) => e.rel)])).toEqual([
      ["a.txt", [""]],
      ["inner/src", ["", "lib", "lib/y.ts", "new.ts", "x.ts"]],
    ]);
  });
});

describe("a discard with a write from another tree", () => {
  it("keeps the tracked paths of HEAD and of that tree: an untracked file the restore overwrites is kept", async () => {
    const { g, ws, store } = await guardOn("rich", "snapshot");
    writeFileSync(`${ws}/topic.txt`, "mine\n");
    const d = g.check(sh("git restore --source=topic topic.txt && git reset --hard"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    const p = pointOf(store, d.restorePoint!.id);
    expect(p.repo?.scope).toBe("tracked");
    expect(rel(ws, p)).toContain("topic.txt");
    expect(rel(ws, p)).toContain("a.txt");
    expect(rel(ws, p)).not.toContain("untracked.txt");
  });
});

describe("an overlapping line", () => {
  it("keeps both ends of a move, the absent one as absent, and its undo puts back the point first", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/a`, "a");
    const d = g.check(sh("mv a c && rm c"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { files: 1, bytes: 1 } });
    const p = pointOf(store, d.restorePoint!.id);
    expect(p.paths.map((x) => [x.path.slice(ws.length + 1), x.entries === null ? null : x.entries.map((e) => e.rel)])).toEqual([["a", [""]], ["c", null]]);
    expect(d.inverse.map((s) => s.tool)).toEqual(["restore_point_apply", "fs_move_back_restore"]);
  });
});
