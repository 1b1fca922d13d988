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
  return r.ok ? r.commands.map(show) : [`${r.reason}: ${r.detail}`];
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

describe("a parser that fails is a refusal, never a partial reading", () => {
  it("no tree, a walk that throws (an Error or anything else) and a syntax error each refuse with the reason; the tree is freed", async () => {
    const parser = await loadBashParser();
    const spy = vi.spyOn(parser, "parse");
    try {
      spy.mockReturnValueOnce(null);
      expect(parseCommandLine("ls", "/w", "/h")).toEqual({ ok: false, reason: "unparsed", detail: "the parser gave no tree" });
      const freed: string[] = [];
      const broken = (thrown: unknown) => ({ get rootNode(): never { throw thrown; }, delete: () => freed.push(String(thrown)) });
      spy.mockReturnValueOnce(broken(new Error("boom")) as never);
      expect(parseCommandLine("ls", "/w", "/h")).toEqual({ ok: false, reason: "unparsed", detail: "parser walk failed: boom" });
      spy.mockReturnValueOnce(broken(7) as never);
      expect(parseCommandLine("ls", "/w", "/h")).toEqual({ ok: false, reason: "unparsed", detail: "parser walk failed: 7" });
      expect(freed).toEqual(["Error: boom", "7"]);
      // A real tree is freed after the walk, read or refused.
      spy.mockRestore();
      const real = vi.spyOn(parser, "parse");
      const deleted: number[] = [];
      real.mockImplementation(function (this: typeof parser, ...args: Parameters<typeof parser.parse>) {
        real.mockRestore();
        const tree = parser.parse(...args)!;
        const del = tree.delete.bind(tree);
        tree.delete = () => { deleted.push(1); del(); };
        return tree;
      });
      expect(parseCommandLine("rm a; if", "/w", "/h").ok).toBe(false);
      expect(deleted).toEqual([1]);
    } finally {
      spy.mockRestore();
    }
  });

  it.each([
    ["X=(a b", "syntax error near ``"], // a missing `)`: the error is the empty node where it belongs
    [`rm a; if ${"x".repeat(60)}`, `syntax error near \`rm a; if ${"x".repeat(31)}\``], // the first 40 characters
    ["echo ok; echo $(", "syntax error near `$(`"],
  ])("%j is refused: %s", async (line, detail) => {
    await loadBashParser();
    expect(parseCommandLine(line, "/w", "/h")).toEqual({ ok: false, reason: "unparsed", detail });
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
    // `unset PATH; ls` runs ./ls (bash looks in the working directory): kept with PATH unknown.
    ["unset PATH; ls", ["/w: PATH=?PATH{unset} ", "/w: ls"]],
    ["unset -v X PATH; rm $X", ["/w: PATH=?PATH{unset} ", "/w: rm ?$X{unset or unknown variable $X}"]],
    ["unset -f PATH; ls", ["/w: ls"]],
    // The names are words as bash reads them: quoted or escaped, `unset "X"` is `unset X` (bash then
    // expands $X empty: `X=a; unset "X"; rm -rf d/$X` removes d; both were taken as still set).
    ["X=a; unset \"X\"; rm d/$X", ["/w: rm ?d/$X{unset or unknown variable $X}"]],
    ["X=a; unset 'X'; rm d/$X", ["/w: rm ?d/$X{unset or unknown variable $X}"]],
    ["X=a; unset -v -- \\X; rm d/$X", ["/w: rm ?d/$X{unset or unknown variable $X}"]],
    ["unset \"PATH\"; ls", ["/w: PATH=?PATH{unset} ", "/w: ls"]],
    ["unset 'PA'TH; ls", ["/w: PATH=?PATH{unset} ", "/w: ls"]],
    // A name not known at check time may be any variable, PATH included.
    ["X=a; unset $V; rm $X", ["/w: PATH=?PATH{unset} ", "/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; unset -f X; rm $X", ["/w: rm a"]],
    ["X=a; unset -f \"X\" PATH; rm $X", ["/w: rm a"]],
    // The builtins run as commands (`builtin`, `command`, an escaped name): every variable is unknown after them.
    ["X=a; builtin unset Y; rm $X", ["/w: builtin unset Y", "/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; \\unset \"X\"; rm d/$X", ["/w: unset X", "/w: rm ?d/$X{unset or unknown variable $X}"]],
    ["X=a; command export X=/; rm d/$X", ["/w: command export X=/", "/w: rm ?d/$X{unset or unknown variable $X}"]],
    ["X=a; builtin declare X=/; rm d/$X", ["/w: builtin declare X=/", "/w: rm ?d/$X{unset or unknown variable $X}"]],
    ["export HOME; rm $HOME/x", ["/w: rm /home/u/x"]],
    ["for f in a b; do rm $f; done", ["/w: rm ?$f{unset or unknown variable $f}"]],
    ["for f in $(rm x); do :; done", ["/w: rm x","/w: :"]],
    ["for ((i=0;i<3;i++)); do rm a; done", ["/w: rm a"]],
    ["case $X in a) rm a;; b) rm b;; esac", ["/w: rm a","/w: rm b"]],
    ["f() { rm a; }", ["?: rm a"]],
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
    // `==` and `=~` are words of a command (`rm == a` removes `==`; they were dropped), `$"…"` is the
    // string (`x$"y"` is `xy`; was `x$y`), also as a value or a redirection's target.
    ["rm == a =~ b", ["/w: rm == a =~ b"]],
    ["rm ==\"x\"", ["unparsed: `==` joined to the word after it"]],
    ["rm x$\"y\" a$ $\"z\"", ["/w: rm xy a$ z"]],
    ["X=$\"a b\"; rm \"$X\"; echo > $\"f\"", ["/w: rm \"a b\"","/w: echo >f"]],
    ["rm {.\"x\".} {1..1000000000000000000000000000000000000000000}", ["/w: rm {.x.} ?{1..1000000000000000000000000000000000000000000}{brace_expression {1..100000000000000000000000000000000000}"]],
    ["cd --; rm x", ["/w: cd --","/home/u: rm x"]],
    ["rm a\\ b c\\*d", ["/w: rm \"a b\" c*d"]],
    ["rm a\\\nb", ["unparsed: a line continuation inside a word"]],
    ["cat <<EOF\n$(rm a)\nEOF", ["/w: rm a","/w: cat <<"]],
    ["cat <<EOF > f\nbody\nEOF", ["/w: cat << >f"]],
    ["rm x; if", ["unparsed: syntax error near `rm x; if`"]],
    // Words after a redirection's target are the command's: bash passes them on, tree-sitter files
    // them under the redirection (was: `rm 2>/dev/null x` read as `rm` alone, removing nothing).
    ["rm 2>/dev/null x y", ["/w: rm x y >/dev/null"]],
    ["rm a > f b > g c", ["/w: rm a b c >f >g"]],
    ["cat 2>&1 x", ["/w: cat x >&1"]],
    ["cd >/dev/null src; rm *", ["/w: cd src >/dev/null","/w/src: rm *(glob)"]],
    [">f g rm x", ["/w: g rm x >f"]],
    ["rm >&- x; cat <&- y; cat <&-", ["/w: rm x >&-","/w: cat y <&-","/w: cat <&-"]],
    ["cat <<EOF x $(rm a)\nhi\nEOF", ["/w: rm a","/w: cat x ?$(rm a){command substitution $(rm a)} <<"]],
    ["cat <<EOF > f x\nhi\nEOF", ["/w: cat x << >f"]],
    ["{ :; } > f x", ["unparsed: words after a redirection of a compound_statement statement"]],
    ["[[ a ]] > f x", ["unparsed: words after a redirection of a test_command statement"]],
    // What bash reads otherwise than tree-sitter between two tokens: a carriage return is a character
    // of a word to bash (`\<CR><LF>` continues nothing: `ls a\<CR><LF>rm x` was read as `ls a rm x`,
    // read-only, while bash runs `rm x`); a line continuation (or several) with a word's character on
    // both sides joins them (`rm a\<nl>\<nl>b` removes `ab`; was read as `rm a b`).
    ["ls a\\\r\nrm x", ["unparsed: a carriage return between words (bash reads it as part of a word)"]],
    ["rm a\r\nrm b", ["unparsed: a carriage return between words (bash reads it as part of a word)"]],
    ["rm \"a\r\" b", ["unparsed: a carriage return between words (bash reads it as part of a word)"]],
    ["rm a\r", ["unparsed: a carriage return between words (bash reads it as part of a word)"]],
    ["rm 'a\r' \"b\\\r\n\"", ["/w: rm a\r b\\\r\n"]],
    ["rm a\\\n\\\nb", ["unparsed: a line continuation inside a word"]],
    ["declare X=a\\\nb; rm $X", ["unparsed: a line continuation inside a word"]],
    ["echo a >f\\\ng", ["unparsed: a line continuation inside a word"]],
    ["rm \"a\"\\\n\"b\"", ["unparsed: a line continuation inside a word"]],
    ["rm a \\\nb c\\\n d", ["/w: rm a b c d"]],
    ["a &&\\\nb;\\\nc|\\\nd", ["/w: a","/w: b","/w: c","/w: d"]],
    ["echo $(\\\nls) <\\\nf", ["/w: ls","/w: echo ?$(\\\nls){command substitution $(\\\nls)} <f"]],
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

  it("a word's whole answer: its text, its source, whether it is a pattern and why it is not known", async () => {
    await loadBashParser();
    const w = (text: string | null, raw: string, glob = false, why: string | null = null): Word => ({ text, raw, glob, why });
    expect(parseCommandLine("A= B=$X rm $ *.ts $X ~/a", "/w", "/home/u")).toEqual({
      ok: true,
      commands: [{
        argv: [w("rm", "rm"), w("$", "$"), w("*.ts", "*.ts", true), w(null, "$X", false, "unset or unknown variable $X"), w("/home/u/a", "~/a")],
        redirects: [],
        cwd: "/w",
        env: { A: w("", ""), B: w(null, "$X", false, "unset or unknown variable $X") },
        text: "A= B=$X rm $ *.ts $X ~/a",
      }],
    });
  });
});

// What a command line changes in the shell for the commands after it (variables, the directory, how
// words are split and globbed), read the way bash runs it: where the parser cannot follow a change, the
// words and directories it touches are unknown, never a value bash would not use.
const SHELL_STATE: Case[] = [
    // Redirections: an outer one applies to every command inside; substitutions in a target run.
    ["{ rm a > x; } > y", ["/w: rm a >y >x"]],
    ["[[ -n $(rm a) ]] > f", ["/w: rm a","/w:  >f"]],
    ["(( 1 )) > f", ["/w:  >f"]],
    ["if [[ x ]]; then :; fi > f", ["/w: : >f"]],
    ["{ echo $(rm a); } > f", ["/w: rm a","/w: echo ?$(rm a){command substitution $(rm a)} >f"]],
    ["while :; do cat; done <<< x", ["/w: : <<<","/w: cat <<<"]],
    ["{ cat; } <<EOF\nx\nEOF", ["/w: cat <<"]],
    ["cat <<EOF | rm a\nx\nEOF", ["/w: rm a","/w: cat <<"]],
    ["> f; < g", ["/w:  >f","/w:  <g"]],
    ["rm a 2>&1 >> log &> all >| p <&- >&-", ["/w: rm a >&1 >>log &>all >|p <&- >&-"]],
    ["echo x > $(rm a)", ["/w: rm a","/w: echo x >?$(rm a){command substitution $(rm a)}"]],
    ["cat <<< \"$(rm a)\"", ["/w: rm a","/w: cat <<<"]],
    // Variables: assignments, appends, elements, declarations, unset.
    ["rm $HOME/x $PWD/y", ["/w: rm /home/u/x /w/y"]],
    ["A=1 B=2; rm $A$B", ["/w: rm 12"]],
    ["X=a; X+=.txt; rm $X", ["/w: rm a.txt"]],
    ["X+=b; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; X+=$U; rm \"$X\"; X=a; X+=\"$(ls)\"; rm \"$X\"", ["/w: rm ?\"$X\"{unset or unknown variable $X}","/w: ls","/w: rm ?\"$X\"{unset or unknown variable $X}"]],
    ["X=a rm $X", ["/w: X=a rm ?$X{unset or unknown variable $X}"]],
    ["X=a; X+=b cmd; Y+=c cmd", ["/w: X=ab cmd","/w: Y=?Y+=c{Y+= on a value not known} cmd"]],
    ["X=a; X[0]=v; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; X=(b c); rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["declare -u X=a; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["declare X=a; rm $X", ["/w: rm a"]],
    ["R=a; declare -n R; rm $R", ["/w: rm ?$R{unset or unknown variable $R}"]],
    ["X=a; declare -x X; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; declare X; rm $X", ["/w: rm a"]],
    ["X=1; unset -v X; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=~/a; rm $X", ["/w: rm /home/u/a"]],
    ["X=*.ts; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    // Builtins that set the variables they name make every variable unknown after them.
    ["X=a; read Y; rm $X", ["/w: read Y","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; printf -v Y b; rm $X", ["/w: printf -v Y b","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; printf -vY b; rm $X", ["/w: printf -vY b","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; printf b; rm $X", ["/w: printf b","/w: rm a"]],
    ["X=a; printf $U; rm $X", ["/w: printf ?$U{unset or unknown variable $U}","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; command read Y; rm $X", ["/w: command read Y","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; builtin command printf -vY b; rm $X", ["/w: builtin command printf -vY b","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; mapfile Y; rm $X", ["/w: mapfile Y","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; readarray Y; rm $X", ["/w: readarray Y","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; getopts o Y; rm $X", ["/w: getopts o Y","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; let Y=1; rm $X", ["/w: let Y=1","/w: rm ?$X{unset or unknown variable $X}"]],
    // Arithmetic may assign the names it holds; substitutions inside it run.
    ["X=a; ((X=1)); rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; echo $((X=1)); rm $X", ["/w: echo ?$((X=1)){arithmetic expansion}","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; for ((i=0; i<3; i++)); do rm $i $X; done", ["/w: rm ?$i{unset or unknown variable $i} a"]],
    ["echo $(( $(rm a) ))", ["/w: rm a","/w: echo ?$(( $(rm a) )){arithmetic expansion}"]],
    ["X=a; [[ -n $X ]]; rm $X", ["/w: rm a"]],
    // A parameter expansion with an operator is not resolved; what it holds runs, and it may assign.
    ["echo ${X:-$(rm a)}", ["/w: rm a","/w: echo ?${X:-$(rm a)}{parameter expansion ${X:-$(rm a)}}"]],
    ["X=; echo ${X:=a}; rm $X", ["/w: echo ?${X:=a}{parameter expansion ${X:=a}}","/w: rm ?$X{unset or unknown variable $X}"]],
    ["echo ${#X} ${X[0]} ${@:2}", ["/w: echo ?${#X}{parameter expansion ${#X}} ?${X[0]}{parameter expansion ${X[0]}} ?${@:2}{parameter expansion ${@:2}}"]],
    // An unquoted empty value is no word; a changed IFS splits differently.
    ["X=; rm $X a \"$X\"", ["/w: rm ?$X{unquoted $X would be split or globbed} a "]],
    ["IFS=.; X=a.txt; rm $X \"$X\"", ["/w: rm ?$X{unquoted $X would be split or globbed} a.txt"]],
    ["IFS=.; rm \"a b\"", ["/w: rm \"a b\""]],
    // A word is unknown from its first unknown part, and the substitutions after that part still run.
    ["rm $U$(rm a)", ["/w: rm a","/w: rm ?$U$(rm a){unset or unknown variable $U}"]],
    ["echo \"$U$(rm a)\"", ["/w: rm a","/w: echo ?\"$U$(rm a)\"{unset or unknown variable $U}"]],
    ["echo \"$(rm a)$(rm b)\"", ["/w: rm a","/w: rm b","/w: echo ?\"$(rm a)$(rm b)\"{command substitution $(rm a)}"]],
    // `~` is $HOME as the line sets it.
    ["HOME=/etc; rm ~/passwd ~", ["/w: HOME=/etc ", "/w: rm /etc/passwd /etc"]], // HOME set alone is kept as a command of its own (the dispatcher asks it)
    ["unset HOME; rm ~/x", ["/w: rm ?~/x{~ with $HOME not known}"]],
    ["HOME=/etc; cd; rm x", ["/w: HOME=/etc ", "/w: cd","/etc: rm x"]],
    ["unset HOME; cd; rm x", ["/w: cd","?: rm x"]],
    ["rm '~'/x '~' \\~/y", ["/w: rm ~/x ~ ~/y"]],
    // `cd`: options, `--`, $CDPATH, an absolute directory after an unknown one; pushd, popd, builtin cd.
    ["cd -- -d; rm x", ["/w: cd -- -d","/w/-d: rm x"]],
    ["cd -P -- src; rm x", ["/w: cd -P -- src","/w/src: rm x"]],
    ["cd -L -e; rm x", ["/w: cd -L -e","/home/u: rm x"]],
    // `cd -P` resolves a `..` on the filesystem (far/.. is the parent of where far leads), and bash's
    // $PWD is then the physical path, so a later `cd ..` leaves from there; `set -P` / `set -o physical`
    // make every cd physical: a `..` of a cd after them is not followed. `cd -P src` without one, `-L`
    // last, and a `set` that cannot turn it on are followed.
    ["cd -P far/..; rm x", ["/w: cd -P far/..","?: rm x"]],
    ["cd -LP far/..; rm x", ["/w: cd -LP far/..","?: rm x"]],
    ["cd -PL far/..; rm x", ["/w: cd -PL far/..","/w: rm x"]],
    ["cd -P far; rm x; cd ..; rm y; cd src; rm z", ["/w: cd -P far","/w/far: rm x","/w/far: cd ..","?: rm y","?: cd src","?: rm z"]],
    ["cd -P far; cd -L ../src; rm y", ["/w: cd -P far","/w/far: cd -L ../src","?: rm y"]],
    ["cd -P far; cd /tmp; rm y", ["/w: cd -P far","/w/far: cd /tmp","/tmp: rm y"]],
    ["set -P; cd far/..; rm x", ["/w: set -P","/w: cd far/..","?: rm x"]],
    ["set -eP; cd ..; rm x", ["/w: set -eP","/w: cd ..","?: rm x"]],
    ["set -o physical; cd ..; rm x", ["/w: set -o physical","/w: cd ..","?: rm x"]],
    ["set $X; cd ..; rm x", ["/w: set ?$X{unset or unknown variable $X}","/w: cd ..","?: rm x"]],
    ["set -euo pipefail; cd ..; rm x", ["/w: set -euo pipefail","/w: cd ..","/: rm x"]],
    ["cd $X; cd /tmp; rm x", ["/w: cd ?$X{unset or unknown variable $X}","?: cd /tmp","/tmp: rm x"]],
    ["cd \"\"; rm x", ["/w: cd ","/w: rm x"]],
    ["CDPATH=/etc; cd ssh; rm x", ["/w: cd ssh","?: rm x"]],
    ["CDPATH=/etc; cd ./src; rm x; cd ..; rm y; cd .; rm z; cd ../q; rm q", ["/w: cd ./src","/w/src: rm x","/w/src: cd ..","/w: rm y","/w: cd .","/w: rm z","/w: cd ../q","/q: rm q"]],
    ["pushd src; rm x", ["/w: pushd src","?: rm x"]],
    ["popd; rm x", ["/w: popd","?: rm x"]],
    ["builtin cd src; rm x", ["/w: builtin cd src","/w/src: rm x"]],
    ["command cd src; rm x", ["/w: command cd src","/w/src: rm x"]],
    ["command; builtin; command builtin; rm x", ["/w: command","/w: builtin","/w: command builtin","/w: rm x"]],
    // Code run in this shell (eval, source, .): anything may have changed.
    ["eval x; rm $HOME a *", ["/w: eval x","?: rm ?$HOME{unset or unknown variable $HOME} a ?*{a glob after shopt, set or GLOBIGNORE may have changed what it matches}"]],
    ["source f; rm x", ["/w: source f","?: rm x"]],
    [". f; rm x", ["/w: . f","?: rm x"]],
    // shopt, set and GLOBIGNORE change what a glob matches.
    ["shopt -s dotglob; rm * a", ["/w: shopt -s dotglob","/w: rm ?*{a glob after shopt, set or GLOBIGNORE may have changed what it matches} a"]],
    ["set -f; rm *", ["/w: set -f","/w: rm ?*{a glob after shopt, set or GLOBIGNORE may have changed what it matches}"]],
    ["GLOBIGNORE=x; rm *", ["/w: rm ?*{a glob after shopt, set or GLOBIGNORE may have changed what it matches}"]],
    // A function's body runs when it is called, with the variables and directory of that moment.
    ["f() { rm a $HOME *; }", ["?: rm a ?$HOME{unset or unknown variable $HOME} ?*{a glob after shopt, set or GLOBIGNORE may have changed what it matches}"]],
    ["X=a; f() { X=b; }; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["f() { cd /; }; rm x", ["?: cd /","?: rm x"]],
    ["f() { :; }; rm * a", ["?: :","/w: rm ?*{a glob after shopt, set or GLOBIGNORE may have changed what it matches} a"]],
    // A call of a function the line defines runs its body (judged where it is defined), not the command
    // or builtin of that name, and may call itself: its name is not known (`:(){ :|:& };:` is no `:`).
    [":(){ :|:& };:", ["?: ?:{a function this line defines (`:`): what a call of it runs is not followed}","?: ?:{a function this line defines (`:`): what a call of it runs is not followed}","/w: ?:{a function this line defines (`:`): what a call of it runs is not followed}"]],
    ["ls() { rm -r .; }; ls -l", ["?: rm -r .","/w: ?ls{a function this line defines (`ls`): what a call of it runs is not followed} -l"]],
    ["(cd() { :; }); cd x; rm y", ["?: :","/w: ?cd{a function this line defines (`cd`): what a call of it runs is not followed} x","/w: rm y"]],
    ["function true { :; }; builtin true; command true; \\true", ["?: :","/w: builtin true","/w: command true","/w: ?\\true{a function this line defines (`true`): what a call of it runs is not followed}"]],
    ["ls; ls() { :; }", ["/w: ls","?: :"]],
    ["f() { :; }; > out", ["?: :","/w:  >out"]],
    // A part that may not run (after && or ||, a branch) or may run many times (a loop): what it changes is unknown after it.
    ["test -d b && cd b; rm x", ["/w: test -d b","/w: cd b","?: rm x"]],
    ["cd src && rm x && rm y", ["/w: cd src","/w/src: rm x","/w/src: rm y"]],
    ["cd src || rm x; rm y", ["/w: cd src","/w/src: rm x","/w/src: rm y"]],
    ["H='~'; rm \"$H\"/x $H/y", ["/w: rm ~/x ~/y"]],
    ["X=a; c && Y=b; rm $X $Y", ["/w: c","/w: rm a ?$Y{unset or unknown variable $Y}"]],
    ["c || true; rm x", ["/w: c","/w: true","/w: rm x"]],
    ["while c; do :; done; rm x", ["/w: c","/w: :","/w: rm x"]],
    ["X=a; for f in $X; do rm $f $X; done", ["/w: rm ?$f{unset or unknown variable $f} a"]],
    ["X=a; for ((;;)); do rm $X; done", ["/w: rm a"]],
    ["for ((ii=0; ii<3; ii++)); do rm $ii; done", ["/w: rm ?$ii{unset or unknown variable $ii}"]],
    ["CDPATH=/etc; cd .x; rm y", ["/w: cd .x","?: rm y"]],
    ["CDPATH=/etc; cd a/./b; rm y", ["/w: cd a/./b","?: rm y"]],
    ["CDPATH=/etc; cd src/..; rm y", ["/w: cd src/..","?: rm y"]],
    ["X=\"a b\"; rm x$X \"x$X\"", ["/w: rm ?x$X{unquoted $X would be split or globbed} \"xa b\""]],
    ["rm \"a\\\nb\"", ["/w: rm ab"]],
    ["diff <(cd src) a; rm x", ["/w: cd src","/w: diff ?<(cd src){command substitution <(cd src)} a","/w: rm x"]],
    ["declare X=a-b; rm $X", ["/w: rm a-b"]],
    ["X=a; unset -v X; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    ["cd a && cd b && rm x; rm y", ["/w: cd a","/w/a: cd b","/w/a/b: rm x","?: rm y"]],
    ["a || cd b && rm x", ["/w: a","/w: cd b","?: rm x"]],
    ["X=a; if c; then cd b; else rm $X; fi; rm x", ["/w: c","/w: cd b","?: rm a","?: rm x"]],
    ["X=a; if c; then X=b; fi; rm $X", ["/w: c","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; if X=c; then rm $X; fi", ["/w: rm c"]],
    ["case $X in a) cd /;; esac; rm x", ["/w: cd /","?: rm x"]],
    ["X=a; while c; do rm $X; X=b; done", ["/w: c","/w: rm ?$X{unset or unknown variable $X}"]],
    ["X=a; for f in 1; do rm $X; done; rm $X", ["/w: rm a","/w: rm a"]],
    ["until false; do cd ..; done; rm x", ["?: false","?: cd ..","?: rm x"]],
    ["for i in 1; do for j in 2; do X=b; done; done; rm $X", ["/w: rm ?$X{unset or unknown variable $X}"]],
    // Each command of a pipeline, and one sent to the background, runs in a subshell.
    ["cd src | rm x; rm y", ["/w: cd src","/w: rm x","/w: rm y"]],
    ["cd / & rm x", ["/w: cd /","/w: rm x"]],
    ["echo $(cd src; rm x); rm y", ["/w: cd src","/w/src: rm x","/w: echo ?$(cd src; rm x){command substitution $(cd src; rm x)}","/w: rm y"]],
    ["X=a; echo $(X=b); ( X=c ); rm $X", ["/w: echo ?$(X=b){command substitution $(X=b)}","/w: rm a"]],
    // Words: braces, quotes, escapes, a command name built from parts.
    ["rm {ab,c} {a,bc} x{a,b {a..c} {a,\"b\"} \"{a,b}\"x {a,b\"}\" {ab..cd}", ["/w: rm ?{ab,c}{brace expansion} ?{a,bc}{brace expansion} x{a,b ?{a..c}{brace expansion} ?{a,\"b\"}{brace expansion} {a,b}x {a,b} ?{ab..cd}{brace expansion}"]],
    ["\"r\"m a", ["/w: rm a"]],
    ["X=rm; $X a", ["/w: rm a"]],
    ["rm \"\\$x \\` \\\\ \\a\"", ["/w: rm \"$x ` \\\\ \\\\a\""]],
    ["rm a[bc] 'a*' \"b?\" c\\[d", ["/w: rm a[bc](glob) a* b? c[d"]],
    // A quoted or escaped pattern character beside a live one: the text has lost which is which
    // (bash's `\[a\]*` matches `[a]x`, the pattern `[a]*` would match `ax`), so the word is not known.
    ["rm \\[a\\]* '*'x* \"[\"b]? c\\?* d[e]'*' f*", ["/w: rm ?\\[a\\]*{a glob beside quoted or escaped glob characters} ?'*'x*{a glob beside quoted or escaped glob characters} ?\"[\"b]?{a glob beside quoted or escaped glob characters} ?c\\?*{a glob beside quoted or escaped glob characters} ?d[e]'*'{a glob beside quoted or escaped glob characters} f*(glob)"]],
    ["rm $(echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)", ["/w: echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","/w: rm ?$(echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa){command substitution $(echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}"]],
    ["rm <(echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)", ["/w: echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","/w: rm ?<(echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa){command substitution <(echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}"]],
];

describe("the shell's state along the line: variables, directory, globs", () => {
  it("a loop of 2,000 simple commands is read (walking it first to see what it changes keeps nothing)", async () => {
    await loadBashParser();
    const r = parseCommandLine(`while :; do ${":;".repeat(1999)} done`, "/w", "/h");
    expect(r.ok && r.commands.length).toBe(2000);
  });

  it("nested loops are walked once each to see what they change, not once per enclosing loop", async () => {
    await loadBashParser();
    const line = `${"for i in 1; do ".repeat(40)}rm a${"; done".repeat(40)}`;
    expect(parse(line)).toEqual(["/w: rm a"]);
  });

  it.each(SHELL_STATE)("%j", async (line, expected) => {
    await loadBashParser();
    expect(parse(line)).toEqual(expected);
  });
});
