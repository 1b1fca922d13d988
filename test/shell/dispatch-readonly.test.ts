// Read-only commands and what makes them write: the catalogue's readOnlyUnless (a read-only command
// with these options or operands writes files, runs a program or changes the system: asked), and the
// wrappers' own files and command lines. Every "asked" or written case below was approved before as
// read-only.
import { describe, expect, it } from "vitest";
import { parseCatalogue } from "../../src/shell/index.js";
import { CATALOGUE_JSON, dispatch, useWorkspace, type Case } from "./dispatch-cases.js";

useWorkspace();

const asked = (name: string, why: string): string => `unknown_effect: ${name} ${why} may write files or change the system`;

const READ_ONLY_UNLESS_CASES: Case[] = [
  // An alias definition changes what a later command of that name runs (bash expands aliases in a
  // multi-line string after `shopt -s expand_aliases`, and agents' shells enable it): the removal was
  // approved as reading a.txt.
  ["shopt -s expand_aliases\nalias cat='rm -f'\ncat a.txt", [asked("alias", "with 1 operands")]],
  ["alias ll='ls -l'", [asked("alias", "with 1 operands")]],
  ["alias", []],
  ["alias -p", []],
  // Writes a file in place, or a file named by an option.
  ["yq '.a' a.txt", []],
  ["yq -i '.a = 1' a.txt", [asked("yq", "-i")]],
  ["yq --inplace '.a = 1' a.txt", [asked("yq", "--inplace")]],
  ["yq -Pi '.a = 1' a.txt", [asked("yq", "-i")]],
  ["yq -s '.a' a.txt", [asked("yq", "-s")]],
  ["tree -L 2 src", []],
  ["tree -o out.txt src", [asked("tree", "-o")]],
  ["tree -ao out.txt", [asked("tree", "-o")]],
  ["info -o out.txt ls", [asked("info", "-o")]],
  ["info --output=out.txt ls", [asked("info", "--output")]],
  ["cloc --report-file=out.txt .", [asked("cloc", "--report-file")]],
  ["cloc --by-file src", []],
  ["less -o log.txt a.txt", [asked("less", "-o")]],
  ["less --log-file=log.txt a.txt", [asked("less", "--log-file")]],
  ["file -C -m magic", [asked("file", "-C")]],
  ["file a.txt", []],
  // An output operand: `uniq IN OUT`, `xxd IN OUT` write OUT.
  ["uniq a.txt", []],
  ["uniq -c a.txt", []],
  ["uniq a.txt out.txt", [asked("uniq", "with 2 operands")]],
  ["uniq -f 1 a.txt", []],
  ["uniq --skip-fields 1 a.txt", []],
  ["uniq -f1 a.txt out.txt", [asked("uniq", "with 2 operands")]],
  ["xxd a.txt", []],
  ["xxd -c 8 -g 1 a.txt", []],
  ["xxd -cols 8 a.txt", []],
  ["xxd a.txt out.bin", [asked("xxd", "with 2 operands")]],
  ["xxd -r -p a.txt out.bin", [asked("xxd", "with 2 operands")]],
  // Runs a program.
  ["fd x", []],
  ["fd -e ts . src", []],
  ["fd . -x rm", [asked("fd", "-x")]],
  ["fdfind -X rm", [asked("fdfind", "-X")]],
  ["fd --exec-batch rm", [asked("fd", "--exec-batch")]],
  ["rg --pre ./decode x", [asked("rg", "--pre")]],
  ["rg --pre=./decode x", [asked("rg", "--pre")]],
  ["rg -n x src", []],
  ["ack --pager='rm -rf x' y", [asked("ack", "--pager")]],
  ["ag --pager rm y", [asked("ag", "--pager")]],
  ["man -P 'rm x' ls", [asked("man", "-P")]],
  ["man -Hfirefox ls", [asked("man", "-H")]],
  // man-db's config file (-C) names the programs man runs (its pager, browser, troff); -X starts gxditview.
  ["man -C my.conf ls", [asked("man", "-C")]],
  ["man --config-file=my.conf ls", [asked("man", "--config-file")]],
  ["man -aC my.conf ls", [asked("man", "-C")]],
  ["man -X ls", [asked("man", "-X")]],
  ["man ls", []],
  ["less '+!rm x' a.txt", [asked("less", "+!rm x")]],
  ["zless +G a.txt", [asked("zless", "+G")]],
  ["less -N a.txt", []],
  // A lesskey file's #env section sets LESSOPEN, the preprocessor less runs (less 590 here: `less
  // --lesskey-src=k a.txt` ran k's command; approved as a read); info's --dribble writes its keystrokes.
  ["less --lesskey-src=keys.txt a.txt", [asked("less", "--lesskey-src")]],
  ["less -k keys a.txt", [asked("less", "-k")]],
  ["zless --lesskey-content='#env' a.txt", [asked("zless", "--lesskey-content")]],
  ["LESSKEYIN=keys.txt less a.txt", ["unknown_effect: less: LESSKEYIN changes the code or configuration it loads"]],
  ["info --dribble=a.txt ls", [asked("info", "--dribble")]],
  ["hash -p /bin/rm ls", [asked("hash", "-p")]],
  ["hash", []],
  // Changes the system.
  ["hostname", []],
  ["hostname -f", []],
  ["hostname evil", [asked("hostname", "with 1 operands")]],
  ["hostname -F /etc/x", [asked("hostname", "-F")]],
  ["date +%F", []],
  ["date -s 2020-01-01", [asked("date", "-s")]],
  ["date --set=2020-01-01", [asked("date", "--set")]],
  ["ip addr", []],
  ["ip route get 1.1.1.1", []],
  ["ip link set eth0 down", [asked("ip", "set")]],
  ["ip addr add 10.0.0.1/24 dev eth0", [asked("ip", "add")]],
  ["ip route flush all", [asked("ip", "flush")]],
  ["ip -batch cmds.txt", [asked("ip", "-batch")]],
  ["ifconfig", []],
  ["ifconfig eth0", []],
  ["ifconfig eth0 down", [asked("ifconfig", "with 2 operands")]],
  ["history", []],
  ["history 10", []],
  ["history -c", [asked("history", "-c")]],
  ["history -w out.txt", [asked("history", "-w")]],
  ["tldr tar", []],
  ["tldr --update", [asked("tldr", "--update")]],
  ["ss -tlnp", []],
  ["ss -K dst 1.2.3.4", [asked("ss", "-K")]],
  ["nvidia-smi", []],
  ["nvidia-smi -q -d MEMORY -i 0", []],
  ["nvidia-smi --query-gpu=name --format=csv", []],
  ["nvidia-smi -pm 1", [asked("nvidia-smi", "-pm")]],
  ["nvidia-smi -r", [asked("nvidia-smi", "-r")]],
  ["nvidia-smi -f log.txt", [asked("nvidia-smi", "-f")]],
  ["nvidia-smi mig -cgi 9", [asked("nvidia-smi", "-c")]],
  ["nvidia-smi topo -m", [asked("nvidia-smi", "with 1 operands")]],
  // A word that is not known may be any of them.
  ["yq $OPT a.txt", [asked("yq", "$OPT")]],
  ["uniq $X", [asked("uniq", "$X")]],
  // The same commands fed arguments by xargs or find are asked, never passed as read-only.
  ["xargs uniq", ["unresolved_argument: xargs feeds uniq arguments from standard input"]],
  ["xargs -0", []],
  ["xargs yq -i .a", [asked("yq", "-i"), "unresolved_argument: xargs feeds yq arguments from standard input"]],
  ["xargs -n 1 rm -rf", ["unresolved_argument: xargs feeds rm arguments from standard input"]],
  ["xargs -0 sed -i s/a/b/", ["unresolved_argument: xargs feeds sed arguments from standard input"]],
  ["find src -exec uniq {} out.txt \\;", ["unresolved_argument: find -exec uniq acts on the files find lists"]],
  ["find src -exec grep x {} +", []],
];

// Files that always write, or write on most of their forms: not read-only at all.
const NOT_READ_ONLY_CASES: Case[] = [
  ["pdftotext doc.pdf", ["unknown_command: pdftotext is not in the command catalogue"]],
  ["exiftool -Artist=x a.txt", ["unknown_command: exiftool is not in the command catalogue"]],
];

const WRAPPER_CASES: Case[] = [
  // `time -o FILE` writes its report to FILE (in the directory the wrapper runs in).
  ["time -o out.txt ls", ["fs_write path=@/out.txt"]],
  ["time --output=out.txt ls", ["fs_write path=@/out.txt"]],
  ["time -o link ls", ["fs_write path=@/a.txt"]],
  ["time -f %e -o out.txt rm a.txt", ["fs_write path=@/out.txt", "fs_remove path=@/a.txt"]],
  ["time --format=%e ls", []],
  ["time -o", ["unresolved_argument: time: an output option without a value", "unknown_effect: time with no command reads standard input"]],
  ["time -o $X ls", ["unresolved_argument: $X: unset or unknown variable $X"]],
  // `env -S LINE` runs a line env splits itself (it was env alone: read-only).
  ["env -S 'rm -rf a.txt'", ["unknown_effect: env -S runs a command line whose effect is not known"]],
  ["env '-Srm a.txt'", ["unknown_effect: env -S runs a command line whose effect is not known"]],
  ["env --split-string='rm a.txt'", ["unknown_effect: env --split-string runs a command line whose effect is not known"]],
  ["env -u X -S 'ls'", ["unknown_effect: env -S runs a command line whose effect is not known"]],
  ["env -u S ls", []],
];

describe("read-only commands with the arguments that make them write, run a program or change the system: asked", () => {
  it.each(READ_ONLY_UNLESS_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// The read verbs of commands that are not read-only, with the options that make them start or make
// something (the catalogue's readOnlyUnless under the verb): each was approved read-only.
const READ_VERB_CASES: Case[] = [
  ["npm help --browser install", ["unknown_effect: npm help --browser may write files or change the system"]],
  ["npm help --viewer=browser install", ["unknown_effect: npm help --viewer may write files or change the system"]],
  ["npm help --viewer browser install", ["unknown_effect: npm help --viewer may write files or change the system"]],
  ["npm help $T", ["unknown_effect: npm help $T may write files or change the system"]],
  ["npm help install", []],
  ["docker buildx inspect --bootstrap", ["unknown_effect: docker buildx inspect --bootstrap may write files or change the system"]],
  ["docker buildx inspect --bootstrap mybuilder", ["unknown_effect: docker buildx inspect --bootstrap may write files or change the system"]],
  ["docker buildx inspect mybuilder", []],
  ["docker inspect x", []],
  ["gh pr view 3 --web", ["unknown_effect: gh pr view --web may write files or change the system"]],
  ["gh issue list -w", ["unknown_effect: gh issue list -w may write files or change the system"]],
  ["gh search repos -w polar", ["unknown_effect: gh search repos -w may write files or change the system"]],
  ["gh pr view 3", []],
  ["gh pr checks 3", []],
  // gh browse opens a browser; -n prints the address.
  ["gh browse", ["unknown_effect: gh browse starts a browser (without -n)"]],
  ["gh browse src/x.ts", ["unknown_effect: gh browse starts a browser (without -n)"]],
  ["gh browse -n", []],
  ["gh browse --no-browser src/x.ts", []],
];

describe("read verbs of other commands with the options that make them start or make something: asked", () => {
  it.each(READ_VERB_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("commands that write on most of their forms are not read-only", () => {
  it.each(NOT_READ_ONLY_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("wrappers: the file `time -o` writes, the line `env -S` runs", () => {
  it.each(WRAPPER_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// GNU getopt_long takes any unique prefix of a long option: `sed --i` edits in place, `sort --o=F` writes
// F, `env --sp=LINE` runs LINE (each checked with GNU coreutils/sed, each approved as a read before).
const ABBREVIATED_CASES: Case[] = [
  ["sed --i s/a/b/ a.txt", ["unresolved_argument: sed --i: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["sort --o=b.txt a.txt", ["unresolved_argument: sort --o=b.txt: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["sort --out b.txt a.txt", ["unresolved_argument: sort --out: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["env --sp='rm -rf a.txt'", ["unresolved_argument: env --sp=rm -rf a.txt: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["env --ch=sub rm a.txt", ["unresolved_argument: env --ch=sub: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["chmod --ref=a.txt b.txt", ["unresolved_argument: chmod --ref=a.txt: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["mkdir --p new/a", ["unresolved_argument: mkdir --p: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["cp --t=src a.txt", ["unresolved_argument: cp --t=src: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["info --out=x.txt ls", [asked("info", "--out=x.txt")]],
  ["sed --in-place=.bak s/a/b/ a.txt", ["fs_write path=@/a.txt"]],
  ["cp --preserve=mode a.txt c.txt", ["fs_write path=@/c.txt"]],
  ["rm --dir sub", ["fs_remove path=@/sub"]],
  ["rm -- --i", ["fs_remove path=@/--i"]],
  ["xargs rm --forc", ["unresolved_argument: xargs feeds rm arguments from standard input"]],
];

describe("GNU commands: a long option written as a prefix is not read as another", () => {
  it.each(ABBREVIATED_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("the catalogue's readOnlyUnless", () => {
  it("is required, an object", () => {
    for (const bad of [undefined, null, "yq"]) expect(() => parseCatalogue({ ...CATALOGUE_JSON, readOnlyUnless: bad })).toThrow("the command catalogue is not polar-shell-commands/1");
  });

  it.each([
    ["not an object", 1],
    ["null", null],
    ["a list", ["-i"]],
    ["an unknown field", { option: ["-i"] }],
    ["options not a list", { options: "-i" }],
    ["an empty option", { options: [""] }],
    ["optionsWithValue not names", { optionsWithValue: [3] }],
    ["words not a list", { words: "set" }],
    ["a negative operand count", { operands: -1 }],
    ["a fractional operand count", { operands: 1.5 }],
    ["operands not a number", { operands: "1" }],
    ["an empty operand prefix", { operandPrefix: "" }],
    ["an operand prefix not a string", { operandPrefix: 1 }],
  ])("refuses an entry that is %s", (_, entry) => {
    expect(() => parseCatalogue({ ...CATALOGUE_JSON, readOnlyUnless: { yq: entry } })).toThrow("readOnlyUnless.yq is not { options, optionsWithValue, words: names; operands: a count; operandPrefix: a string }");
  });

  it("takes every field, each optional", () => {
    const entry = { options: ["-i"], optionsWithValue: ["-n"], operands: 0, words: ["set"], operandPrefix: "+" };
    expect(parseCatalogue({ ...CATALOGUE_JSON, readOnlyUnless: { yq: entry, tree: {} } }).readOnlyUnless).toEqual({ yq: entry, tree: {} });
  });

  it("names only read-only commands, or verbs of the remote and environment commands (`npm help`)", () => {
    const c = parseCatalogue(CATALOGUE_JSON);
    const verb = (n: string): boolean => n.includes(" ") && ["remote", "environment"].includes(c.commands[n.split(" ")[0]!]?.effect ?? "");
    expect(Object.keys(c.readOnlyUnless).filter((n) => !c.readOnly.has(n) && !verb(n))).toEqual([]);
  });
});
