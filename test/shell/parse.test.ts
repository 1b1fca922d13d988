// The bash front end (src/shell/parse.ts) stated in-process: a command line becomes the simple
// commands bash would run, each word resolved where its value is known at check time (literals,
// assignments earlier on the line, the directory after `cd`, `~`) and marked unknown, with the reason,
// where it is not. Lines are run in /w with home /home/u; nothing touches the filesystem.
import { describe, expect, it, vi } from "vitest";
import { joinPath, loadBashParser, MAX_COMMAND_BYTES, parseCommandLine, type SimpleCommand, type Word } from "../../src/shell/parse.js";

type Case = [string, string[]];

/** A word: its text (quoted when it holds a blank, `(glob)` when it is a pattern), or `?raw{why}`. */
const word = (w: Word): string => (w.text === null ? `?${w.raw}{${w.why}}` : `${/ /.test(w.text) ? JSON.stringify(w.text) : w.text}${w.glob ? "(glob)" : ""}`);

/** A simple command: `cwd: ENV=v argv… redirections` (cwd `?` when a cd made it unknown). */
function show(c: SimpleCommand): string {
  const env = Object.entries(c.env).map(([k, v]) => `${k}=${word(v)} `).join("");
  const red = c.redirects.map((r) => ` ${r.op}${r.target === null ? "" : word(r.target)}`).join("");
  return `${c.cwd ?? "?"}: ${env}${c.argv.map(word).join(" ")}${red}`;
}

function parse(line: string): string[] {
  const r = parseCommandLine(line, "/w", "/home/u");
  return r.ok ? r.commands.map(show) : [`unparsed: ${r.detail}`];
}

describe("before the grammar is loaded", () => {
  it("parsing throws a clear error (callers await loadBashParser first)", async () => {
    vi.resetModules();
    const fresh = await import("../../src/shell/parse.js");
    expect(() => fresh.parseCommandLine("ls", "/w", "/h")).toThrow("the bash parser is not loaded: await loadBashParser() first");
    const p = await fresh.loadBashParser();
    expect(await fresh.loadBashParser()).toBe(p);
    expect(fresh.parseCommandLine("ls", "/w", "/h").ok).toBe(true);
  });
});

describe("limits: what a parse may cost before the line is refused", () => {
  it("refuses a non-string, a line over the byte bound, a NUL byte and sh -c nested too deep", async () => {
    await loadBashParser();
    expect(parseCommandLine(42 as unknown as string, "/w", "/h")).toEqual({ ok: false, reason: "unparsed", detail: "the command is not a string" });
    expect(parseCommandLine("é".repeat(MAX_COMMAND_BYTES / 2 + 1), "/w", "/h")).toEqual({ ok: false, reason: "unparsed", detail: `the command is over ${MAX_COMMAND_BYTES} bytes` });
    expect(parseCommandLine(`echo ${"x".repeat(MAX_COMMAND_BYTES - 5)}`, "/w", "/h").ok).toBe(true);
    expect(parseCommandLine("rm a\u0000b", "/w", "/h")).toEqual({ ok: false, reason: "unparsed", detail: "the command holds a NUL byte" });
    expect(parseCommandLine("ls", "/w", "/h", 9)).toEqual({ ok: false, reason: "unparsed", detail: "sh -c nested too deep" });
    expect(parseCommandLine("ls", "/w", "/h", 8).ok).toBe(true);
  });

  it("refuses more than 2,000 simple commands; 2,000 are read", async () => {
    await loadBashParser();
    expect(parseCommandLine(":;".repeat(2001), "/w", "/h")).toEqual({ ok: false, reason: "unparsed", detail: "more than 2000 simple commands" });
    const ok = parseCommandLine(":;".repeat(2000), "/w", "/h");
    expect(ok.ok && ok.commands.length).toBe(2000);
  });
});

describe("joinPath resolves `.` and `..` textually", () => {
  it.each([
    ["/w", "a/./b/../c", "/w/a/c"],
    ["/w", "/abs//x/", "/abs/x"],
    ["/w", "../../..", "/"],
    ["/", ".", "/"],
    ["/w/src", "", "/w/src"],
  ])("%s + %s = %s", (base, p, out) => {
    expect(joinPath(base, p)).toBe(out);
  });
});

// Every statement form is walked: lists, pipelines, groups, subshells, control flow, functions,
// substitutions, redirections; words resolved from the line's own assignments and directory.
const CASES: Case[] = [
    ["rm a.txt", ["/w: rm a.txt"]],
    ["{ rm a; rm b; }", ["/w: rm a","/w: rm b"]],
    ["while true; do rm a; done", ["/w: true","/w: rm a"]],
    ["until false; do rm a; done", ["/w: false","/w: rm a"]],
    ["if true; then rm a; elif false; then rm b; else rm c; fi", ["/w: true","/w: rm a","/w: false","/w: rm b","/w: rm c"]],
    ["! rm a", ["/w: rm a"]],
    ["rm a # comment", ["/w: rm a"]],
    ["(cd src; rm x); rm a", ["/w: cd src","/w/src: rm x","/w: rm a"]],
    ["{ rm a; } > out.txt", ["/w: rm a >out.txt"]],
    ["( rm a ) 2> err.txt", ["/w: rm a >err.txt"]],
    ["> f", ["/w:  >f"]],
    ["X=a.txt; rm $X", ["/w: rm a.txt"]],
    ["A=1 B=2", []],
    ["export X=a.txt; rm $X", ["/w: rm a.txt"]],
    ["declare X; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["local Y=b.txt; rm $Y", ["/w: rm b.txt"]],
    ["unset X; X=1; unset X; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["export HOME; rm $HOME/x", ["/w: rm /home/u/x"]],
    ["for f in a b; do rm $f; done", ["/w: rm ?$f{unset or unknown variable $f}"]],
    ["for f in $(rm x); do :; done", ["/w: rm x","/w: rm x","/w: :"]],
    ["for ((i=0;i<3;i++)); do rm a; done", ["/w: rm a"]],
    ["case $X in a) rm a;; b) rm b;; esac", ["/w: rm a","/w: rm b"]],
    ["f() { rm a; }", ["/w: rm a"]],
    ["[[ -f $(rm a) ]]", ["/w: rm a"]],
    ["(( x = 1 ))", []],
    ["echo $((1+2))", ["/w: echo ?$((1+2)){arithmetic expansion}"]],
    ["cat <<< $(rm a)", ["/w: rm a","/w: cat <<<"]],
    ["A=1 rm a", ["/w: A=1 rm a"]],
    ["A= rm a", ["/w: A= rm a"]],
    ["A=$(rm z) rm a", ["/w: rm z","/w: A=?$(rm z){command substitution $(rm z)} rm a"]],
    ["cd; rm x", ["/w: cd","/home/u: rm x"]],
    ["cd $X; rm x", ["/w: cd ?$X{unset or unknown variable $X}","?: rm x"]],
    ["cd *; rm x", ["/w: cd *(glob)","?: rm x"]],
    ["cd -; rm x", ["/w: cd -","?: rm x"]],
    ["cd src; rm x", ["/w: cd src","/w/src: rm x"]],
    ["cd -P src; rm x", ["/w: cd -P src","/w/src: rm x"]],
    ["cd $X; cd src; rm x", ["/w: cd ?$X{unset or unknown variable $X}","?: cd src","?: rm x"]],
    ["cd src; rm $PWD/x.ts", ["/w: cd src","/w/src: rm /w/src/x.ts"]],
    ["cd ../..; rm x", ["/w: cd ../..","/: rm x"]],
    ["rm /a/../../b //c/./d", ["/w: rm /a/../../b //c/./d"]],
    ["rm ~ ~/x \"~/y\" ~user a~", ["/w: rm /home/u /home/u/x ~/y ?~user{another user's home (~user)} a~"]],
    ["rm {a,b} {1..3} \"{a,b}\" a{b,c}", ["/w: rm ?{a,b}{brace expansion} ?{1..3}{brace_expression {1..3}} {a,b} ?a{b,c}{brace expansion}"]],
    ["rm *.ts \\*.ts 'a b' $'x' $\"y\"", ["/w: rm *.ts(glob) *.ts \"a b\" ?$'x'{ANSI-C quoting ($'…')} y"]],
    ["rm \"a\\\"b\" a\"b\"'c' \"~\"/x", ["/w: rm a\"b abc ~/x"]],
    ["X=v; rm $X ${X} ${X:-y} ${#X} $1 $@", ["/w: rm v v ?${X:-y}{parameter expansion ${X:-y}} ?${#X}{parameter expansion ${#X}} ?$1{unset or unknown variable $1} ?$@{unset or unknown variable $@}"]],
    ["X=\"a b\"; rm $X \"$X\"", ["/w: rm ?$X{unquoted $X would be split or globbed} \"a b\""]],
    ["X=\"*\"; rm $X", ["/w: rm ?$X{unquoted $X would be split or globbed}"]],
    ["rm $(ls) `ls`", ["/w: ls","/w: ls","/w: rm ?$(ls){command substitution $(ls)} ?`ls`{command substitution `ls`}"]],
    ["rm $", ["/w: rm $"]],
    ["rm 1 2>&1", ["/w: rm 1 >&1"]],
    ["echo \"$(rm a)\"", ["/w: rm a","/w: echo ?\"$(rm a)\"{command substitution $(rm a)}"]],
    ["rm <(ls) >(cat)", ["/w: ls","/w: cat","/w: rm ?<(ls){command substitution <(ls)} ?>(cat){command substitution >(cat)}"]],
    ["X=$(rm q); rm $X", ["/w: rm q","/w: rm ?$X{unset or unknown variable $X}"]],
    ["echo x | rm a && rm b || rm c", ["/w: echo x","/w: rm a","/w: rm b","/w: rm c"]],
    ["rm \"$X\"", ["/w: rm ?\"$X\"{unset or unknown variable $X}"]],
    ["rm \"a$(ls)\"", ["/w: ls","/w: rm ?\"a$(ls)\"{command substitution $(ls)}"]],
    ["time rm a", ["/w: time rm a"]],
    ["rm a &", ["/w: rm a"]],
    ["coproc rm a", ["/w: coproc rm a"]],
    ["echo \"${X}\"", ["/w: echo ?\"${X}\"{unset or unknown variable $X}"]],
    ["X='lit'; rm \"$X\"", ["/w: rm lit"]],
    ["Y=*.ts; rm $Y", ["/w: rm ?$Y{unset or unknown variable $Y}"]],
    ["rm $ b", ["/w: rm $ b"]],
    ["cd --; rm x", ["/w: cd --","/home/u: rm x"]],
    ["rm a\\ b c\\*d", ["/w: rm \"a b\" c*d"]],
    ["rm a\\\nb", ["unparsed: a line continuation inside a word"]],
    ["cat <<EOF\n$(rm a)\nEOF", ["/w: rm a","/w: cat <<"]],
    ["cat <<EOF > f\nbody\nEOF", ["/w: cat << >f"]],
    ["rm x; if", ["unparsed: syntax error near `rm x; if`"]],
    ["echo $(", ["unparsed: syntax error near `$(`"]],
    ["rm \"unterminated", ["unparsed: syntax error near `\"unterminated`"]],
    ["rm ${X", ["unparsed: syntax error near `${X`"]],
    ["rm a \\\n b", ["/w: rm a b"]],
    ["r\\\nm a", ["unparsed: a line continuation inside a word"]],
    ["rm $\"y\" $ x", ["/w: rm y $ x"]],
];

describe("simple commands, words and directories", () => {
  it.each(CASES)("%j", async (line, expected) => {
    await loadBashParser();
    expect(parse(line)).toEqual(expected);
  });
});
