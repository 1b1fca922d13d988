// A link the line itself makes (`ln`, `cp -l`/`-s`, a link moved or copied as a link) changes what a later
// path of the same line reaches, and the check reads the filesystem as it is before the line. Before:
// `ln -s notes.txt l; echo x > l` was judged as writing a new file `l` (undo: remove it) and approved,
// and running it overwrote notes.txt, which the undo did not put back (so with `cp -l a h && echo >> h`
// and `ln -s src d && rm -r d/`). Such a later path is now not known at check time.
import { describe, expect, it } from "vitest";
import { dispatch, useWorkspace, type Case } from "./dispatch-cases.js";

useWorkspace();

const through = (raw: string, link: string): string => `unresolved_argument: ${raw}: through @/${link}, a link this line makes: what it reaches is not known at check time`;

const LINK_CASES: Case[] = [
  ["ln -s a.txt l; echo x > l", ["fs_write path=@/l", through("l", "l")]],
  ["ln a.txt h; echo x >> h", ["fs_write path=@/h", through("h", "h")]],
  ["cp -l a.txt h; echo x > h", ["fs_write path=@/h", through("h", "h")]],
  ["cp --symbolic-link a.txt h; rm h", ["fs_write path=@/h", through("h", "h")]],
  ["ln -s src d && rm -r d/", ["fs_write path=@/d", through("d/", "d")]],
  ["ln -s src d && rm d/x.ts", ["fs_write path=@/d", through("d/x.ts", "d")]],
  ["ln -s -t sub a.txt; echo x > sub/a.txt", ["fs_write path=@/sub/a.txt", through("sub/a.txt", "sub/a.txt")]],
  // A link that exists (link -> a.txt), moved or copied as a link: the new name is a link too.
  ["mv link l2; echo x > l2", ["fs_move source=@/link destination=@/l2", through("l2", "l2")]],
  ["cp -a link l2; echo x > l2", ["fs_write path=@/l2", through("l2", "l2")]],
  ["cp -P link l2; echo x > l2", ["fs_write path=@/l2", through("l2", "l2")]],
  // Not a link: cp copies what a link points to; a file moved or copied is a file.
  ["cp link l2; echo x > l2", ["fs_write path=@/l2", "fs_write path=@/l2"]],
  ["cp -a a.txt c; echo x > c", ["fs_write path=@/c", "fs_write path=@/c"]],
  ["mv a.txt c; echo x > c", ["fs_move source=@/a.txt destination=@/c", "fs_write path=@/c"]],
  // Into and out of a `sh -c` string.
  ["ln -s a.txt l; sh -c 'echo x > l'", ["fs_write path=@/l", through("l", "l")]],
  ["sh -c 'ln -s a.txt l'; rm l", ["fs_write path=@/l", through("l", "l")]],
  // Reading through the new link, and paths beside it, are as before.
  ["ln -s a.txt l; cat l", ["fs_write path=@/l"]],
  ["ln -s src d && rm dd", ["fs_write path=@/d", "fs_remove path=@/dd"]],
];

describe("a later path through a link the line makes", () => {
  it.each(LINK_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});
