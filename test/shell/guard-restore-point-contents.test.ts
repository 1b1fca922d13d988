// What the shell guard's restore point keeps, so that its undo can put back everything the line can
// change: a checkout of paths keeps the tracked paths under them (of the repository they are in), a
// second repository's paths are kept whole, a discard keeps the tracked paths of every tree the line
// writes from, and an overlapping line keeps every path it touches (the source of a move too).
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

describe("a checkout of paths, more", () => {
  it("two paths of one repository: the tracked paths under both, not an untracked file under one of them", async () => {
    const { g, ws, store } = await guardOn("rich", "snapshot");
    writeFileSync(`${ws}/src/x.ts`, "changed\n");
    writeFileSync(`${ws}/src/new.ts`, "untracked\n");
    const d = g.check(sh("git checkout -- a.txt src"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    expect(rel(ws, pointOf(store, d.restorePoint!.id)).sort()).toEqual(["a.txt", "src/lib/y.ts", "src/x.ts"]);
  });

  it("outside any repository (git fails there, or it is not git's to give back): the path kept whole", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const d = g.check(sh("git checkout -- notes.txt"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { files: 1, bytes: 5 } });
    expect(rel(ws, pointOf(store, d.restorePoint!.id))).toEqual(["notes.txt"]);
  });

  it("with a clean of the untracked files: the checked-out tracked path and the untracked paths", async () => {
    const { g, ws, store } = await guardOn("rich", "snapshot");
    const d = g.check(sh("git checkout -- a.txt && git clean -fd"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    const p = pointOf(store, d.restorePoint!.id);
    expect(p.repo?.scope).toBe("untracked");
    expect(rel(ws, p).sort()).toEqual(["a.txt", "draft-link", "notes", "untracked.txt"]);
  });
});

describe("a file command beside a repository-wide git call", () => {
  it("an untracked file removed on a line that resets the tracked ones: kept beside the tracked scope", async () => {
    const { g, ws, store } = await guardOn("rich", "snapshot");
    const d = g.check(sh("rm untracked.txt; git reset --hard"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    const p = pointOf(store, d.restorePoint!.id);
    expect(p.repo?.scope).toBe("tracked");
    expect(rel(ws, p)).toContain("untracked.txt");
    expect(rel(ws, p)).toContain("a.txt");
  });
});

describe("a single file command keeps what exists at the path it changes", () => {
  it("a move over an existing file keeps the destination (the source is moved back, not restored)", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/a`, "a");
    writeFileSync(`${ws}/b`, "bb");
    const d = g.check(sh("mv a b"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { files: 1, bytes: 2 } });
    expect(rel(ws, pointOf(store, d.restorePoint!.id))).toEqual(["b"]);
    expect(d.inverse.map((s) => [s.tool, s.arguments])).toEqual([["fs_move_back_restore", { source: `${ws}/a`, destination: `${ws}/b`, point: d.restorePoint!.id }]]);
  });

  it("an existing folder `mkdir -p` meets is not kept (the mkdir loses nothing there)", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    mkdirSync(`${ws}/src`);
    writeFileSync(`${ws}/src/big.txt`, "big\n");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const d = g.check(sh("mkdir -p src; rm notes.txt"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { files: 1, bytes: 5 } });
    expect(rel(ws, pointOf(store, d.restorePoint!.id))).toEqual(["notes.txt"]);
  });

  it("a write over an existing file keeps it", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const d = g.check(sh("echo x > notes.txt"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { files: 1, bytes: 5 } });
    expect(rel(ws, pointOf(store, d.restorePoint!.id))).toEqual(["notes.txt"]);
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

describe("the repository in a point", () => {
  it("an overlap in a repository keeps the whole tree once: a file the line removes there is not kept a second time", async () => {
    const { g, ws, store } = await guardOn("rich", "snapshot");
    const whole = g.check(sh("git add a.txt && rm untracked.txt"));
    expect(whole).toMatchObject({ approved: true, reason: "restore_point" });
    const p = pointOf(store, whole.restorePoint!.id);
    expect(p.paths.map((x) => x.path)).toEqual([ws]);
    expect(p.repo?.root).toBe(ws);
    expect(whole.restorePoint!.files).toBe(p.paths[0]!.entries!.length);
    // A checkout of paths beside a stash: the whole tree holds its tracked paths too.
    const co = g.check(sh("git checkout -- a.txt; git stash"));
    expect(co).toMatchObject({ approved: true, reason: "restore_point" });
    const q = pointOf(store, co.restorePoint!.id);
    expect(q.paths.map((x) => x.path)).toEqual([ws]);
    expect(q.repo).toMatchObject({ root: ws });
    expect(q.repo!.scope).toBeUndefined();
  });

  it("a branch made beside a file command: the point keeps the file, not the repository (a ref's undo needs none)", async () => {
    const { g, ws, store } = await guardOn("rich", "snapshot");
    const d = g.check(sh("git branch x; rm untracked.txt"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { files: 1 } });
    const p = pointOf(store, d.restorePoint!.id);
    expect(rel(ws, p)).toEqual(["untracked.txt"]);
    expect(p.repo).toBeNull();
  });
});
