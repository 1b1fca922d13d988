// sed: in place (-i) it writes its files; in any mode its script may write files (`w`, `W`, `s///w`) or
// run commands (`e`, `s///e`). A script of the commands that only print, substitute, branch and read is
// read-only; any other script (or a script file, which is not read) is asked. Each "asked" case below
// was approved before as a read-only sed.
import { describe, expect, it } from "vitest";
import { cpuTime } from "../cpu-time.js";
import { dispatch, useWorkspace, type Case } from "./dispatch-cases.js";

useWorkspace();

const ASKED = (script: string): string => `unknown_effect: sed: the script ${script} may write files or run commands (w, W, e)`;

const SED_READ_ONLY_CASES: Case[] = [
  ["sed s/a/b/ a.txt", []],
  ["sed -n p a.txt", []],
  ["sed -n '1,10p' a.txt", []],
  ["sed '/^#/d' a.txt", []],
  ["sed '$!N;s/\\n/ /;P;D' a.txt", []],
  ["sed -e :a -e '$!N;s/\\n//;ta' a.txt", []],
  ["sed ':top; /x$/ { N; b top }' a.txt", []],
  ["sed 's|/usr|/opt|g; s/x/y/2; s/a/b/Ig' a.txt", []],
  ["sed 's/\\//x/' a.txt", []],
  ["sed 's/a/b\\\nc/' a.txt", []],
  ["sed 'y/abc/xyz/' a.txt", []],
  ["sed -n '/start/,/end/{=;p}' a.txt", []],
  ["sed '0,/x/I!d' a.txt", []],
  ["sed -n '1~2p; 3,+2p; 5,~4p' a.txt", []],
  ["sed '5q; 7Q 3; l 40; z; F; x; h; H; g; G' a.txt", []],
  ["sed '1i header; w ignored, this is the inserted text' a.txt", []],
  ["sed '# a comment: w x' a.txt", []],
  ["sed 'r other.txt' a.txt", []],
  ["sed -E 's/(a|b)+/\\1/' a.txt", []],
  ["sed --sandbox 'w out.txt' a.txt", []],
  ["sed", []],
  // Only the script options' values are scripts (`-l N` is a line length); only the first operand
  // without -e is the script (the others are files, whatever their names).
  ["sed -l 5 -e p a.txt", []],
  ["sed p w.txt e.txt", []],
];

const SED_ASKED_CASES: Case[] = [
  ["sed -n 'w out.txt' a.txt", [ASKED("'w out.txt'")]],
  ["sed 's/a/b/w out.txt' a.txt", [ASKED("'s/a/b/w out.txt'")]],
  ["sed 's/a/b/gw out.txt' a.txt", [ASKED("'s/a/b/gw out.txt'")]],
  ["sed 's/.*/rm -rf x/e' a.txt", [ASKED("'s/.*/rm -rf x/e'")]],
  ["sed '1e rm a.txt' a.txt", [ASKED("'1e rm a.txt'")]],
  ["sed 'e' a.txt", [ASKED("'e'")]],
  ["sed -n '/x/W out.txt' a.txt", [ASKED("'/x/W out.txt'")]],
  ["sed -e p -e 'w out.txt' a.txt", [ASKED("'w out.txt'")]],
  ["sed --expression='w out.txt' a.txt", [ASKED("--expression='w out.txt'")]],
  ["sed -ne 'w out.txt' a.txt", [ASKED("'w out.txt'")]],
  // A label ends at a blank: what follows it is a command.
  ["sed 'b end w x' a.txt", [ASKED("'b end w x'")]],
  ["sed ':a w x' a.txt", [ASKED("':a w x'")]],
  // Text after `a` continues on the next line after a backslash: not read as text, asked.
  ["sed 'a x\\\nw out.txt' a.txt", [ASKED("'a x\\\nw out.txt'")]],
  // An address form not listed (a custom delimiter), an unterminated s.
  ["sed '\\,x,d' a.txt", [ASKED("'\\,x,d'")]],
  ["sed 's/a/b' a.txt", [ASKED("'s/a/b'")]],
  // In place: its files are written, and the script is judged as well.
  ["sed -i 's/a/b/w out.txt' a.txt", ["fs_write path=@/a.txt", ASKED("'s/a/b/w out.txt'")]],
  ["sed -i -e 's/a/b/' -e 'e ls' a.txt b.txt", ["fs_write path=@/a.txt", "fs_write path=@/b.txt", ASKED("'e ls'")]],
  // A script file is not read; a script that is not known is asked.
  ["sed -f script.sed a.txt", ["unknown_effect: sed: the script file script.sed is not read"]],
  ["sed --file=s.sed a.txt", ["unknown_effect: sed: the script file --file=s.sed is not read"]],
  ["sed -n --file s.sed a.txt", ["unknown_effect: sed: the script file s.sed is not read"]],
  ["sed --file=x.sed -n a.txt", ["unknown_effect: sed: the script file --file=x.sed is not read"]],
  ["sed -f script.sed -i a.txt", ["fs_write path=@/a.txt", "unknown_effect: sed: the script file script.sed is not read"]],
  ["sed \"$X\" a.txt", ["unresolved_argument: sed: the script \"$X\" is not known"]],
  ["sed -e \"$X\" a.txt", ["unresolved_argument: sed: the script \"$X\" is not known"]],
  ["sed -i s/a/b/ $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
];

describe("sed: a script that only prints, substitutes, branches and reads is read-only", () => {
  it.each(SED_READ_ONLY_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("sed: a script that may write a file or run a command is asked, in place or not", () => {
  it.each(SED_ASKED_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("sed: a long script that is not read-only is refused in linear time", () => {
  it.each([
    ["labels", "b x ".repeat(2_000)],
    ["exit codes", "q  ".repeat(2_000)],
    ["text lines", "a a ".repeat(2_000) + "\nw"],
    ["flags", "s/a/b/pp ".repeat(1_000)],
    ["addresses", "1  p ".repeat(2_000)],
  ])("%s", (_, script) => {
    const line = `sed '${script}w x' a.txt`;
    const { value, ms } = cpuTime(() => dispatch(line));
    expect(value).toEqual([ASKED(`'${script}w x'`)]);
    expect(ms).toBeLessThan(2_000);
  });
});
