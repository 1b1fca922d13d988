// find: what `find` changes is judged on the directories it starts from; its options before them and a
// read-only wrapper in `-exec` were misread (each case below was approved before its fix).
import { describe, expect, it } from "vitest";
import { dispatch, useWorkspace, type Case } from "./dispatch-cases.js";

useWorkspace();

const FIND_START_CASES: Case[] = [
  // `-H`, `-L`, `-P`, `-D DEBUGOPTS`, `-OLEVEL` come before the starting points: the roots were `.` before.
  // -L (and -follow) delete through the links under the roots (`find -L dir -delete` emptied the folder
  // a link in dir points to, outside dir); -H follows a root that is a link (its target's files go).
  ["find -L /tmp/elsewhere -delete", ["unresolved_argument: find -L (or -follow) deletes through the symbolic links under its starting points: what they reach is not judged"]],
  ["find src -follow -delete", ["unresolved_argument: find -L (or -follow) deletes through the symbolic links under its starting points: what they reach is not judged"]],
  ["find -L src -exec rm {} +", ["unresolved_argument: find -L (or -follow) runs rm through the symbolic links under its starting points: what they reach is not judged"]],
  ["find -L src -exec grep x {} +", []],
  ["find -L -P src -delete", ["fs_remove path=@/src"]],
  ["find -H src -delete", ["fs_remove path=@/src"]],
  ["find -H srclink2 -delete", ["fs_remove path=@/srclink2", "fs_remove path=@/src"]],
  ["find srclink2 -delete", ["fs_remove path=@/srclink2"]],
  ["find -P -O3 src out -delete", ["fs_remove path=@/src", "fs_remove path=@/out"]],
  ["find -D tree src -delete", ["fs_remove path=@/src"]],
  ["find -O src -delete", ["fs_remove path=@/src"]],
  ["find -L -delete", ["unresolved_argument: find -L (or -follow) deletes through the symbolic links under its starting points: what they reach is not judged"]],
  ["find -L", []],
  // A test named like an option still starts the expression.
  ["find -name x -delete", ["fs_remove path=@"]],
  ["find -Lx src -delete", ["fs_remove path=@"]],
  // The starting points read from a file (GNU find 4.9): they were `.`.
  ["find -files0-from list -delete", ["unresolved_argument: find -files0-from: the starting points are read from a file"]],
  // A root whose name ends like `-O2` is a root (only a word that is -O and digits is an option).
  ["find build-O2 -delete", ["fs_remove path=@/build-O2"]],
  // No root: `.`, which in a directory not known is not known.
  ["cd $X && find -delete", ["unresolved_argument: .: relative to a directory that is not known (cd)"]],
  ["find -L -files0-from list -name x", ["unresolved_argument: find -files0-from: the starting points are read from a file"]],
];

const FIND_EXEC_CASES: Case[] = [
  // `env` and `command` are read-only alone, but run the command after them on the files find lists.
  ["find src -exec env rm {} \\;", ["unresolved_argument: find -exec env acts on the files find lists"]],
  ["find src -execdir command rm {} +", ["unresolved_argument: find -exec command acts on the files find lists"]],
  ["find src -ok sudo rm {} \\;", ["unresolved_argument: find -exec sudo acts on the files find lists"]],
  ["find src -exec grep x {} +", []],
  ["find src -okdir shred {} +", ["fs_remove path=@/src"]],
  ["find src -exec chmod 600 {} +", ["fs_write path=@/src"]],
  // chmod, chown, touch, truncate, shred act on what a link they are given points to: a link under the
  // roots (or a root that is one) reaches what they do not hold.
  ["find . -exec chmod 600 {} +", ["unresolved_argument: find -exec chmod: @/link is a symbolic link, which chmod follows: what it reaches is not judged"]],
  ["find srclink -exec truncate -s 0 {} +", ["unresolved_argument: find -exec truncate: @/srclink is a symbolic link, which truncate follows: what it reaches is not judged"]],
  ["find . -exec shred {} +", ["unresolved_argument: find -exec shred: @/link is a symbolic link, which shred follows: what it reaches is not judged"]],
  ["find src -exec sed -i s/a/b/ {} +", ["fs_write path=@/src"]],
  ["find src -exec mv {} out \\;", ["unresolved_argument: find -exec mv acts on the files find lists"]],
  ["find src -exec", ["unresolved_argument: find -exec without a command"]],
  ["find src -exec $X {} \\;", ["unresolved_argument: find -exec without a command"]],
  ["find src -fprint0 out/list -fls out/ls", ["fs_write path=@/out/list", "fs_write path=@/out/ls"]],
  ["find src -fprintf out/list %p", ["fs_write path=@/out/list"]],
  ["find src -fprint", []],
  // The command ends at `;` or `+`: the expression goes on after it.
  ["find src -exec rm {} \\; -fprint out.txt", ["fs_remove path=@/src", "fs_write path=@/out.txt"]],
  ["find src -exec rm {} + -fprint out.txt", ["fs_remove path=@/src", "fs_write path=@/out.txt"]],
];

describe("find: the starting points after find's own options", () => {
  it.each(FIND_START_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("find -exec/-execdir/-ok/-okdir: the command's effect on the roots, a wrapper asked", () => {
  it.each(FIND_EXEC_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});
