// Operands with a trailing slash: POSIX resolves `link/` as `link/.`, through a final symbolic link, so
// `rm -r srclink/` removes what is in src (GNU rm then fails on the link itself). It was judged as
// removing the link, which git restores: approved under veto while src's uncommitted work was lost
// (found by h-mshellguard).
import { describe, expect, it } from "vitest";
import { dispatch, useWorkspace, type Case } from "./dispatch-cases.js";

useWorkspace();

const TRAILING_SLASH_CASES: Case[] = [
  ["rm -r srclink/", ["fs_remove path=@/src"]],
  ["rm -rf srclink//", ["fs_remove path=@/src"]],
  ["rm -r srclink2/", ["fs_remove path=@/src"]],
  ["rm -r srcli*/", ["fs_remove path=@/src", "fs_remove path=@/src"]],
  ["rm srclink", ["fs_remove path=@/srclink"]],
  ["rm -r src/", ["fs_remove path=@/src"]],
  ["rm -r /", ["fs_remove path=/"]],
  ["chmod 700 srclink/", ["fs_write path=@/src"]],
  ["find srclink/ -delete", ["fs_remove path=@/src"]],
  ["git rm -r srclink/", ["fs_remove path=@/src", "git_stage paths=[\"@/src\"] dir=@"]],
];

describe("a trailing slash resolves through a final symbolic link", () => {
  it.each(TRAILING_SLASH_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});
