// A `..` is resolved by the kernel on the filesystem, not on the path's text: `d/..` needs `d` to be a
// directory when the command runs, and `..` of a link to a directory is the parent of its target.
// `mkdir -p x/../y` (x absent) was judged as making y only (undo: remove y) and bash made x too;
// `mkdir x/../y` and `touch missing/../f` were approved as making y and writing f, and bash fails
// (ENOENT); through a link to a directory elsewhere, `far/../f` was judged as writing a file beside
// the link while bash writes one beside the link's target.
import { mkdirSync, symlinkSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { dispatch, useWorkspace, ws, type Case } from "./dispatch-cases.js";

useWorkspace();
beforeAll(() => {
  mkdirSync(`${ws}/sub/deep`);
  symlinkSync("sub/deep", `${ws}/far`); // far/.. is sub, not the workspace
});

const PARENT_STEP_CASES: Case[] = [
  // mkdir -p walks the path as written: x, then x/.. (the workspace), then y.
  ["mkdir -p x/../y", ["fs_mkdir path=@/x", "fs_mkdir path=@/y"]],
  ["mkdir -p a/b/../c", ["fs_mkdir path=@/a", "fs_mkdir path=@/a/b", "fs_mkdir path=@/a/c"]],
  ["mkdir -p x/../x/z", ["fs_mkdir path=@/x", "fs_mkdir path=@/x/z"]],
  ["mkdir --parents x/../y", ["fs_mkdir path=@/x", "fs_mkdir path=@/y"]],
  ["mkdir -p src/../n", ["fs_mkdir path=@/n"]],
  // An earlier mkdir of the line may fail (a/b without a): mkdir -p's own chain does not stop at it.
  ["mkdir a/b; mkdir -p a/b/c", ["fs_mkdir path=@/a/b", "fs_mkdir path=@/a", "fs_mkdir path=@/a/b", "fs_mkdir path=@/a/b/c"]],
  ["mkdir -p far/../n", ["unresolved_argument: far/../n: @/far/..: @/far leads to @/sub/deep, whose parent is not @"]],
  // Without -p the missing part is not made: mkdir fails.
  ["mkdir x/../y", ["unresolved_argument: x/../y: @/x/..: @/x is not a directory now (the command fails, or makes it first)"]],
  ["touch missing/../f", ["unresolved_argument: missing/../f: @/missing/..: @/missing is not a directory now (the command fails, or makes it first)"]],
  ["rm -f missing/../a.txt", ["unresolved_argument: missing/../a.txt: @/missing/..: @/missing is not a directory now (the command fails, or makes it first)"]],
  ["echo x > missing/../a.txt", ["unresolved_argument: missing/../a.txt: @/missing/..: @/missing is not a directory now (the command fails, or makes it first)"]],
  ["touch a.txt/../f", ["unresolved_argument: a.txt/../f: @/a.txt/..: @/a.txt is not a directory now (the command fails, or makes it first)"]],
  ["touch far/../f", ["unresolved_argument: far/../f: @/far/..: @/far leads to @/sub/deep, whose parent is not @"]],
  ["rm nope*/../a.txt", ["unresolved_argument: nope*/../a.txt: @/nope*/..: @/nope* is not a directory now (the command fails, or makes it first)"]],
  // The glob's match keeps the `..`: far/../deep is sub/deep to bash (readdir of far/.. reads sub).
  ["rm -r f*/../deep", ["unresolved_argument: f*/../deep: @/far/..: @/far leads to @/sub/deep, whose parent is not @"]],
  // A directory that is there (or a link whose target's parent is the link's own directory), or one the line makes first.
  ["touch src/../f", ["fs_write path=@/f"]],
  ["touch srclink/../f", ["fs_write path=@/f"]],
  ["rm src/../*.txt", ["fs_remove path=@/a.txt", "fs_remove path=@/b.txt"]],
  ["touch sub/deep/../../f", ["fs_write path=@/f"]],
  ["mkdir x && touch x/../f", ["fs_mkdir path=@/x", "fs_write path=@/f"]],
  ["cd srclink && touch ../f", ["fs_write path=@/f"]],
  // mkdir fails on what is there: a link stays a link.
  ["mkdir far; touch far/../f", ["fs_mkdir path=@/far", "unresolved_argument: far/../f: @/far/..: @/far leads to @/sub/deep, whose parent is not @"]],
  ["cd far && touch ../f", ["unresolved_argument: ../f: @/far/..: @/far leads to @/sub/deep, whose parent is not @"]],
  // Directories changed to with chdir(2) (env -C, sudo -D, git -C) resolve their `..` the same way.
  ["env -C far/.. rm deep/x", ["unresolved_argument: env -C: @/far/..: @/far leads to @/sub/deep, whose parent is not @"]],
  ["env --chdir=missing/.. rm a.txt", ["unresolved_argument: env --chdir=missing/..: @/missing/..: @/missing is not a directory now (the command fails, or makes it first)"]],
  ["env -C src/.. rm a.txt", ["fs_remove path=@/a.txt"]],
  ["git -C far/.. rm -q x", ["unresolved_argument: git -C far/..: @/far/..: @/far leads to @/sub/deep, whose parent is not @"]],
];

describe("a `..` after a part that is not a directory now, or a link elsewhere, is not the path its text says", () => {
  it.each(PARENT_STEP_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("mkdir -p before a `..`: the chain of missing parts is bounded like mkdir -p's own", () => {
  it("64 missing parts are made; 65 are over the bound", () => {
    const parts = (n: number): string => Array.from({ length: n }, (_, i) => `d${i}`).join("/");
    const made = dispatch(`mkdir -p ${parts(64)}/../y`);
    expect(made).toHaveLength(65);
    expect(made.at(-1)).toBe(`fs_mkdir path=@/${parts(63)}/y`);
    const over = dispatch(`mkdir -p ${parts(65)}/../y`);
    expect(over).toHaveLength(65);
    expect(over.at(-1)).toBe(`over_bound: mkdir -p ${parts(65)}/../y: more than 64 missing directories`);
  });
});
