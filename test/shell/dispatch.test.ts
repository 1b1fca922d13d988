// The dispatcher (src/shell/dispatch.ts) stated in-process: a command line met in a workspace becomes
// the typed calls of the shell ontology and the problems that make it ask. Each case is the whole
// answer (every call with its arguments, every problem with its reason and message), on a plain
// directory of files and symbolic links (the dispatcher reads the filesystem only to expand globs,
// follow links and tell directories and existing paths; git is never run). The guard's verdicts on
// real repositories, executed and undone, are test/shell/guard.test.ts and the executed corpus.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchCommand, loadBashParser, parseCatalogue, type Catalogue, type TypedCall } from "../../src/shell/index.js";
import { followLinks } from "../../src/shell/dispatch.js";

type Case = [string, string[]];

const CATALOGUE_JSON = JSON.parse(readFileSync(new URL("../../ontologies/shell/commands.json", import.meta.url), "utf8")) as Record<string, unknown>;
const catalogue: Catalogue = parseCatalogue(CATALOGUE_JSON);
const HOME = "/home/u";
let ws: string;

beforeAll(async () => {
  await loadBashParser();
  ws = realpathSync(mkdtempSync(`${tmpdir()}/polar-dispatch-`));
  for (const f of ["a.txt", "b.txt", "src/x.ts", "src/y.ts", "out/keep"]) {
    mkdirSync(`${ws}/${f}`.replace(/\/[^/]+$/, ""), { recursive: true });
    writeFileSync(`${ws}/${f}`, "x");
  }
  mkdirSync(`${ws}/sub`);
  symlinkSync("a.txt", `${ws}/link`); // relative target
  symlinkSync("l2", `${ws}/l1`); // a chain: l1 → l2 → a.txt (absolute)
  symlinkSync(`${ws}/a.txt`, `${ws}/l2`);
  symlinkSync("nowhere", `${ws}/dangling`);
  symlinkSync("loop2", `${ws}/loop1`);
  symlinkSync("loop1", `${ws}/loop2`);
  symlinkSync("../b.txt", `${ws}/sub/rel`); // relative to the link's own directory
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** A typed call as one line: `name key=value …` (arrays as JSON), the workspace written `@`. */
function show(c: TypedCall): string {
  const args = Object.entries(c.arguments).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
  const tracked = c.tracked === undefined ? "" : ` tracked=${JSON.stringify(c.tracked.trees)}`;
  return `${c.name} ${args.join(" ")}${tracked}`.replaceAll(ws, "@").trimEnd();
}

/** Every call, then every problem (`reason: detail`), of a line run in the workspace. */
function dispatch(line: string, cat: Catalogue = catalogue): string[] {
  const d = dispatchCommand(line, ws, cat, HOME);
  return [...d.calls.map(show), ...d.problems.map((p) => `${p.reason}: ${p.detail.replaceAll(ws, "@")}`)];
}

describe("the command catalogue", () => {
  it("reads polar-shell-commands/1 and adds the caller's read-only commands", () => {
    const c = parseCatalogue(CATALOGUE_JSON, ["mytool"]);
    expect(c.readOnly.has("ls")).toBe(true);
    expect(c.readOnly.has("mytool")).toBe(true);
    expect(catalogue.readOnly.has("mytool")).toBe(false);
    expect(c.commands.rm).toEqual({ effect: "remove" });
    expect(c.wrappers.sudo?.optionsWithValue).toContain("-u");
    expect(dispatchCommand("mytool --delete x", ws, c, HOME)).toEqual({ calls: [], problems: [], commands: 1 });
  });

  it.each([
    ["null", null],
    ["a string", "polar-shell-commands/1"],
    ["another format", { ...CATALOGUE_JSON, format: "polar-shell-commands/2" }],
    ["no format", { ...CATALOGUE_JSON, format: undefined }],
    ["readOnly not a list", { ...CATALOGUE_JSON, readOnly: { ls: true } }],
    ["wrappers not an object", { ...CATALOGUE_JSON, wrappers: "sudo" }],
    ["commands not an object", { ...CATALOGUE_JSON, commands: 1 }],
    // A wrong shape is refused when read (these were taken, and every line then failed or found nothing).
    ["wrappers null", { ...CATALOGUE_JSON, wrappers: null }],
    ["commands null", { ...CATALOGUE_JSON, commands: null }],
    ["commands a list", { ...CATALOGUE_JSON, commands: [] }],
    ["readOnlyUnless a list", { ...CATALOGUE_JSON, readOnlyUnless: [] }],
  ])("refuses %s", (_, json) => {
    expect(() => parseCatalogue(json)).toThrow("the command catalogue is not polar-shell-commands/1");
  });

  it.each([[""], [3], [null]])("refuses a read-only name %j, in the file or from the caller", (bad) => {
    expect(() => parseCatalogue({ ...CATALOGUE_JSON, readOnly: ["ls", bad] })).toThrow("a read-only command name is not a non-empty string");
    expect(() => parseCatalogue(CATALOGUE_JSON, ["ok", bad as string])).toThrow("a read-only command name is not a non-empty string");
  });

  it("a wrapper marked onlyWithOperands changes nothing alone, read-only or not; another asks", () => {
    const c = parseCatalogue({ ...CATALOGUE_JSON, readOnly: (CATALOGUE_JSON.readOnly as string[]).filter((x) => x !== "command" && x !== "env") });
    expect(dispatch("command", c)).toEqual([]);
    expect(dispatch("env", c)).toEqual(["unknown_effect: env with no command reads standard input"]);
    expect(dispatch("command rm a.txt", c)).toEqual(["fs_remove path=@/a.txt"]);
  });

  it("a catalogue effect the dispatcher does not know is an unknown command", () => {
    const c = parseCatalogue({ ...CATALOGUE_JSON, commands: { ...(CATALOGUE_JSON.commands as object), zap: { effect: "vaporise" } } });
    expect(dispatch("zap a.txt", c)).toEqual(["unknown_command: zap: catalogue effect `vaporise` is not known"]);
  });
});

describe("a line it cannot read is refused, never thrown", () => {
  it("a syntax error is unparsed, with the line (first 200 characters) as its source", () => {
    const line = `echo 'unterminated ${"x".repeat(300)}`;
    const d = dispatchCommand(line, ws, catalogue, HOME);
    expect(d.calls).toEqual([]);
    expect(d.commands).toBe(0);
    expect(d.problems).toHaveLength(1);
    expect(d.problems[0]!.reason).toBe("unparsed");
    expect(d.problems[0]!.detail).toMatch(/^syntax error near /);
    expect(d.problems[0]!.source).toBe(line.slice(0, 200));
  });

  it("an internal error (a catalogue that throws) is an unparsed problem, not an exception", () => {
    const broken = { ...catalogue, commands: new Proxy({}, { get: () => { throw new Error("boom"); } }) } as Catalogue;
    const d = dispatchCommand("rm a.txt", ws, broken, HOME);
    expect(d.calls).toEqual([]);
    expect(d.problems).toEqual([{ reason: "unparsed", detail: "dispatcher error: boom", source: "rm a.txt" }]);
    const thrower = { ...catalogue, commands: new Proxy({}, { get: () => { throw "not an Error"; } }) } as unknown as Catalogue;
    expect(dispatchCommand("rm a.txt", ws, thrower, HOME).problems[0]!.detail).toBe("dispatcher error: not an Error");
  });

  it("sh -c nested deeper than the parser allows is unparsed", () => {
    let line = "rm a.txt";
    for (let i = 0; i < 9; i++) line = `sh -c ${JSON.stringify(line).replace(/\$/g, "\\$")}`;
    expect(dispatch(line)).toEqual(["unparsed: sh -c nested too deep"]);
  });
});

describe("calls and problems carry their simple command", () => {
  it("each call's source is the simple command it came from; each command is counted", () => {
    const d = dispatchCommand("ls; rm a.txt && touch b.txt | cat", ws, catalogue, HOME);
    expect(d.calls.map((c) => [c.name, c.source])).toEqual([["fs_remove", "rm a.txt"], ["fs_write", "touch b.txt"]]);
    expect(d.commands).toBe(4);
    const inner = dispatchCommand("bash -c 'ls; rm a.txt'", ws, catalogue, HOME);
    expect(inner.commands).toBe(3);
    expect(inner.calls.map((c) => c.source)).toEqual(["rm a.txt"]);
  });

  it("sources and remote commands are cut at 200 characters", () => {
    const long = `rm ${"a".repeat(250)}.txt`;
    const d = dispatchCommand(long, ws, catalogue, HOME);
    expect(d.calls[0]!.source).toBe(long.slice(0, 200));
    const p = dispatchCommand(`frob ${"y".repeat(250)}`, ws, catalogue, HOME);
    expect(p.problems[0]!.source).toHaveLength(200);
    const r = dispatchCommand(`ssh host ${"z".repeat(250)}`, ws, catalogue, HOME);
    expect(r.calls[0]!.arguments).toEqual({ command: `ssh host ${"z".repeat(250)}`.slice(0, 200) });
    for (const line of [`curl -d x ${"u".repeat(250)}`, `npm publish ${"p".repeat(250)}`, `npm install ${"p".repeat(250)}`, `git push ${"o".repeat(250)}`]) {
      expect((dispatchCommand(line, ws, catalogue, HOME).calls[0]!.arguments as { command: string }).command).toBe(line.slice(0, 200));
    }
  });

  it("a heredoc's output redirection is a write; its body is not a command", () => {
    expect(dispatch("cat <<EOF > here.txt\nrm a.txt\nEOF")).toEqual(["fs_write path=@/here.txt"]);
  });

  it("`~` and $HOME are the home directory", () => {
    expect(dispatch("rm ~/x \"$HOME/y\"")).toEqual(["fs_remove path=/home/u/x", "fs_remove path=/home/u/y"]);
  });
});

describe("mkdir -p creates every missing ancestor, up to a bound", () => {
  const deep = (n: number): string => Array.from({ length: n }, (_, i) => `d${i}`).join("/");
  it("64 missing ancestors and the directory: 65 fs_mkdir, outermost first", () => {
    const out = dispatch(`mkdir -p ${deep(65)}`);
    expect(out).toHaveLength(65);
    expect(out[0]).toBe("fs_mkdir path=@/d0");
    expect(out[64]).toBe(`fs_mkdir path=@/${deep(65)}`);
  });
  it("65 missing ancestors: over the bound, no call (the undo would leave the outer ones)", () => {
    expect(dispatch(`mkdir -p ${deep(66)}`)).toEqual([`over_bound: mkdir -p @/${deep(66)}: more than 64 missing directories`]);
  });
});

describe("writes through symbolic links", () => {
  let chain: string;
  beforeAll(() => {
    chain = mkdtempSync(`${ws}/chain-`);
    writeFileSync(`${chain}/f`, "x");
    let prev = "f";
    for (let i = 1; i <= 41; i++) {
      symlinkSync(prev, `${chain}/l${i}`);
      prev = `l${i}`;
    }
  });

  it("a chain of 40 links (what open(2) follows) is judged at its file; one of 41 (ELOOP: nothing written) at the link", () => {
    expect(followLinks(`${chain}/l40`)).toBe(`${chain}/f`);
    expect(followLinks(`${chain}/l41`)).toBe(`${chain}/l41`);
    expect(followLinks(`${ws}/loop1`)).toBe(`${ws}/loop1`);
    expect(followLinks(`${ws}/a.txt`)).toBe(`${ws}/a.txt`);
    expect(followLinks(`${ws}/none/such`)).toBe(`${ws}/none/such`);
  });
});

// file commands: what they remove, write, create, copy, move or link (globs, links, `--`, option values)
const FILES_CASES: Case[] = [
    ["ls -la", []],
    ["cat a.txt", []],
    ["frobnicate x", ["unknown_command: frobnicate is not in the command catalogue"]],
    ["rm a.txt b.txt", ["fs_remove path=@/a.txt","fs_remove path=@/b.txt"]],
    ["rm -rf src", ["fs_remove path=@/src"]],
    ["rm \"\" a.txt", ["fs_remove path=@/a.txt"]],
    ["rm -- -f", ["fs_remove path=@/-f"]],
    ["rm src/*.ts", ["fs_remove path=@/src/x.ts","fs_remove path=@/src/y.ts"]],
    ["rm *.nomatch", ["fs_remove path=@/*.nomatch"]],
    ["rm $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["rmdir out", ["fs_remove path=@/out"]],
    ["touch new.txt", ["fs_write path=@/new.txt"]],
    ["touch link", ["fs_write path=@/a.txt"]],
    ["touch l1", ["fs_write path=@/a.txt"]],
    ["touch dangling", ["fs_write path=@/nowhere"]],
    ["touch loop1", ["fs_write path=@/loop1"]],
    ["touch sub/rel", ["fs_write path=@/b.txt"]],
    ["touch -r a.txt b.txt", ["fs_write path=@/b.txt"]],
    ["touch --reference=a.txt b.txt", ["fs_write path=@/b.txt"]],
    ["touch -r", []],
    ["chmod 644 a.txt", ["fs_write path=@/a.txt"]],
    ["chmod --reference=a.txt b.txt", ["fs_write path=@/b.txt"]],
    // A mode written as an option (GNU chmod: `-x`, `-rw`, `-755`) is no operand (was approved as a read).
    ["chmod -x a.txt", ["fs_write path=@/a.txt"]],
    ["chmod -R -w src", ["fs_write path=@/src"]],
    ["chmod -rwx a.txt b.txt", ["fs_write path=@/a.txt","fs_write path=@/b.txt"]],
    ["chmod -755 a.txt", ["fs_write path=@/a.txt"]],
    ["chmod -Rv 644 a.txt", ["fs_write path=@/a.txt"]],
    ["chown u:g a.txt b.txt", ["fs_write path=@/a.txt","fs_write path=@/b.txt"]],
    ["mkdir newdir", ["fs_mkdir path=@/newdir"]],
    ["mkdir -p new/a/b", ["fs_mkdir path=@/new","fs_mkdir path=@/new/a","fs_mkdir path=@/new/a/b"]],
    ["mkdir -p src/new", ["fs_mkdir path=@/src/new"]],
    ["mkdir --parents new/a", ["fs_mkdir path=@/new","fs_mkdir path=@/new/a"]],
    ["mkdir -pm 755 new/a", ["fs_mkdir path=@/new","fs_mkdir path=@/new/a"]],
    ["mkdir -m755 d", ["fs_mkdir path=@/d"]],
    ["mkdir $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["cp a.txt c.txt", ["fs_write path=@/c.txt"]],
    ["cp a.txt src", ["fs_write path=@/src/a.txt"]],
    ["cp -T a.txt out", ["fs_write path=@/out"]],
    ["cp a.txt b.txt src", ["fs_write path=@/src/a.txt","fs_write path=@/src/b.txt"]],
    ["cp -t src a.txt", ["fs_write path=@/src/a.txt"]],
    ["cp --target-directory=src a.txt", ["fs_write path=@/src/a.txt"]],
    ["cp a.txt", ["unresolved_argument: cp: no source or destination"]],
    ["cp a.txt src/*.ts", ["unresolved_argument: cp: the destination matches 2 paths"]],
    ["cp $X b.txt", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["cp a.txt $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["cp a.txt link", ["fs_write path=@/a.txt"]],
    // A source written `dir/.` (or `.`) is its contents, merged into a destination folder itself; one
    // written `dir/..` goes in under the name `..` (out/.. is not out/<name>).
    ["cp -a src/. out", ["fs_write path=@/out"]],
    ["cp -r . out", ["fs_write path=@/out"]],
    ["cp -r src/. new", ["fs_write path=@/new"]],
    ["cp -r src/.. out", ["unresolved_argument: cp src/..: a source ending in .. is copied under the name .."]],
    // A destination an earlier mkdir of the line makes is a folder: the source goes in under its name.
    ["mkdir into && mv a.txt into", ["fs_mkdir path=@/into","fs_move source=@/a.txt destination=@/into/a.txt"]],
    ["mkdir -p into && cp -r src into", ["fs_mkdir path=@/into","fs_write path=@/into/src"]],
    ["mkdir into; git mv a.txt into", ["fs_mkdir path=@/into","fs_move source=@/a.txt destination=@/into/a.txt","git_stage paths=[\"@/a.txt\",\"@/into\"] dir=@"]],
    ["cp b.txt l1", ["fs_write path=@/a.txt"]],
    ["mv a.txt c.txt", ["fs_move source=@/a.txt destination=@/c.txt"]],
    ["mv a.txt src", ["fs_move source=@/a.txt destination=@/src/a.txt"]],
    ["mv -t src a.txt b.txt", ["fs_move source=@/a.txt destination=@/src/a.txt","fs_move source=@/b.txt destination=@/src/b.txt"]],
    ["ln -s a.txt newlink", ["fs_write path=@/newlink"]],
    ["ln -s /x/y", ["fs_write path=@/y"]],
    ["ln -s $X l", ["unresolved_argument: ln: a source is not known"]],
    ["cd $X; ln -s /x/y", ["unresolved_argument: .: relative to a directory that is not known (cd)"]],
    ["echo x | tee a.txt $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["ln -s ../a.txt src", ["fs_write path=@/src/a.txt"]],
    ["ln -sf a.txt link", ["fs_write path=@/link"]],
    ["echo x | tee a.txt /dev/null", ["fs_write path=@/a.txt"]],
    ["echo x | tee -a link", ["fs_write path=@/a.txt"]],
    ["sed -i s/a/b/ a.txt", ["fs_write path=@/a.txt"]],
    ["sed s/a/b/ a.txt", []],
    ["sed -i.bak s/a/b/ a.txt", ["fs_write path=@/a.txt"]],
    ["sed --in-place=.bak s/a/b/ a.txt", ["fs_write path=@/a.txt"]],
    ["sed -i -e s/a/b/ a.txt b.txt", ["fs_write path=@/a.txt","fs_write path=@/b.txt"]],
    ["sed -ni p a.txt", ["fs_write path=@/a.txt"]],
    ["sed -n p a.txt", []],
    ["sed -f script.sed -i a.txt", ["fs_write path=@/a.txt","unknown_effect: sed: the script file script.sed is not read"]],
    ["sort -o out.txt a.txt", ["fs_write path=@/out.txt"]],
    ["sort --output=out.txt a.txt", ["fs_write path=@/out.txt"]],
    ["sort -o", ["unresolved_argument: sort: an output option without a value"]],
    ["sort -o $X a.txt", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["sort a.txt", []],
    ["chown --reference=a.txt b.txt", ["fs_write path=@/b.txt"]],
    ["sort a.txt -o out.txt", ["fs_write path=@/out.txt"]],
    ["cp --no-target-directory a.txt out", ["fs_write path=@/out"]],
    ["ln -s a.txt b.txt src", ["fs_write path=@/src/a.txt","fs_write path=@/src/b.txt"]],
    ["sed --in-place s/a/b/ a.txt", ["fs_write path=@/a.txt"]],
    ["sed --expression=s/a/b/ -i a.txt b.txt", ["fs_write path=@/a.txt","fs_write path=@/b.txt"]],
    ["sed --file=x.sed -i a.txt", ["fs_write path=@/a.txt","unknown_effect: sed: the script file --file=x.sed is not read"]],
    ["sed -Ei.bak s/a/b/ a.txt", ["fs_write path=@/a.txt"]],
    ["sed -fi a.txt", ["unknown_effect: sed: the script file -fi is not read"]],
    ["touch -ra.txt b.txt", ["fs_write path=@/b.txt"]],
    ["mkdir -p /nonexistent-root-dir/a", ["fs_mkdir path=/nonexistent-root-dir","fs_mkdir path=/nonexistent-root-dir/a"]],
    ["touch --no-create b.txt", ["fs_write path=@/b.txt"]],
    ["rm - a.txt", ["fs_remove path=@/-","fs_remove path=@/a.txt"]],
    ["sort -o=out.txt a.txt", ["fs_write path=@/=out.txt"]],
    ["cp -tsrc a.txt", ["fs_write path=@/src/a.txt"]],
    ["cp -vt src a.txt", ["fs_write path=@/src/a.txt"]],
    ["sort a.txt -ro", ["unresolved_argument: sort: an output option without a value"]],
    ["touch $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["touch link l1 a.txt", ["fs_write path=@/a.txt","fs_write path=@/a.txt","fs_write path=@/a.txt"]],
    ["cp --strip-trailing-slashes a.txt b.txt", ["fs_write path=@/b.txt"]],
];

describe("file commands: what they remove, write, create, copy, move or link (globs, links, `--`, option values)", () => {
  it.each(FILES_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// `sh -c` scripts and `cd`: the inner line is judged in the directory it runs in
const SHELL_CASES: Case[] = [
    ["cd $X && rm a.txt", ["unresolved_argument: a.txt: relative to a directory that is not known (cd)"]],
    ["cd $X && rm /abs/file", ["fs_remove path=/abs/file"]],
    ["bash -c 'rm a.txt'", ["fs_remove path=@/a.txt"]],
    ["sh -xc 'rm a.txt'", ["fs_remove path=@/a.txt"]],
    ["bash script.sh", ["unknown_effect: bash runs a script whose effect is not known"]],
    ["bash --version", []],
    ["bash --help", []],
    ["bash -c", ["unresolved_argument: bash -c with a string that is not known"]],
    ["bash -c \"$X\"", ["unresolved_argument: bash -c with a string that is not known"]],
    ["cd $X && bash -c 'ls'", ["unresolved_argument: bash -c in a directory that is not known"]],
    ["bash -c 'ls; ls'", []],
    ["bash -lc 'rm b.txt'", ["fs_remove path=@/b.txt"]],
    ["cd src && rm x.ts", ["fs_remove path=@/src/x.ts"]],
    ["cd src; cd ..; rm a.txt", ["fs_remove path=@/a.txt"]],
    ["bash -ec 'rm a.txt'", ["fs_remove path=@/a.txt"]],
    ["bash --norc -c 'rm a.txt'", ["fs_remove path=@/a.txt"]],
    ["bash --noprofile script.sh", ["unknown_effect: bash runs a script whose effect is not known"]],
];

describe("`sh -c` scripts and `cd`: the inner line is judged in the directory it runs in", () => {
  it.each(SHELL_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// redirections: a file written, a descriptor or device not
// What the line changes in the shell for the commands after it (variables, the directory, globs),
// followed as bash runs it: a value the parser cannot follow makes the word or directory unknown.
const LINE_STATE_CASES: Case[] = [
    // Each of these was read wrongly before (the parser's own statements: test/shell/parse.test.ts).
    ["echo $(( $(rm a.txt) ))", ["fs_remove path=@/a.txt"]],
    ["echo ${X:-$(rm a.txt)}", ["fs_remove path=@/a.txt"]],
    ["echo \"$U$(rm a.txt)\"", ["fs_remove path=@/a.txt"]],
    ["X=b.txt; printf -v X a.txt; rm $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["X=b.txt; read X <<< a.txt; rm $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["X=a; X+=.txt; rm $X", ["fs_remove path=@/a.txt"]],
    ["declare -u X=a.txt; rm $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["HOME=/etc; rm ~/passwd", ["fs_remove path=/etc/passwd", "unknown_effect: HOME set for the commands after it: HOME changes the code or configuration it loads"]],
    ["X=; cd $X; rm -rf *", ["unresolved_argument: *: relative to a directory that is not known (cd)"]],
    ["shopt -s dotglob; rm -rf *", ["unresolved_argument: *: a glob after shopt, set or GLOBIGNORE may have changed what it matches"]],
    ["test -d sub && cd sub; rm a.txt", ["unresolved_argument: a.txt: relative to a directory that is not known (cd)"]],
    ["cd src | rm a.txt", ["fs_remove path=@/a.txt"]],
    ["pushd src; rm x.ts", ["unresolved_argument: x.ts: relative to a directory that is not known (cd)"]],
    ["command cd src; rm x.ts", ["fs_remove path=@/src/x.ts"]],
    ["IFS=.; X=a.txt; rm $X", ["unresolved_argument: $X: unquoted $X would be split or globbed"]],
    ["rm \\~/a.txt", ["fs_remove path=@/~/a.txt"]],
    ["X=b.txt; while :; do rm $X; X=a.txt; done", ["unresolved_argument: $X: unset or unknown variable $X"]],
    // A cd that fails leaves the commands after it where they were: its directory must exist or be made first.
    ["cd build; rm -rf *", ["fs_remove path=@/build/*","unresolved_argument: cd to @/build, which is not a directory now: if the cd fails, the commands after it run where they were"]],
    ["cd build && rm a.txt", ["fs_remove path=@/build/a.txt","unresolved_argument: cd to @/build, which is not a directory now: if the cd fails, the commands after it run where they were"]],
    ["mkdir -p build && cd build && rm a.txt", ["fs_mkdir path=@/build","fs_remove path=@/build/a.txt"]],
    ["cd src; rm x.ts", ["fs_remove path=@/src/x.ts"]],
    ["cd sub; rm rel", ["fs_remove path=@/sub/rel"]],
    ["cd sub && cd .. && rm a.txt; rm b.txt", ["fs_remove path=@/a.txt","unresolved_argument: b.txt: relative to a directory that is not known (cd)"]],
    ["cd sub || rm a.txt", ["fs_remove path=@/sub/a.txt"]],
    // A statement with no simple command still opens the files of its redirections (they were lost).
    ["[[ -n x ]] > a.txt", ["fs_write path=@/a.txt"]],
    ["(( 1 )) > a.txt", ["fs_write path=@/a.txt"]],
    // `trap` runs its string later in this shell (it was read-only: the string was never judged).
    ["trap 'rm -rf a.txt' EXIT", ["unknown_effect: trap runs code later whose effect is not known"]],
    ["trap -- 'rm a.txt' INT TERM", ["unknown_effect: trap runs code later whose effect is not known"]],
    ["trap $X EXIT", ["unknown_effect: trap runs code later whose effect is not known"]],
    ["trap", []],
    ["trap -p INT", []],
    ["trap -l", []],
    ["trap - INT", []],
    ["trap '' INT", []],
    ["trap 'x'", []],
];

describe("the shell's state along the line: a change it cannot follow is never judged as the value before it", () => {
  it.each(LINE_STATE_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

const REDIRECT_CASES: Case[] = [
    ["echo hi > out.txt", ["fs_write path=@/out.txt"]],
    ["echo hi >> a.txt", ["fs_write path=@/a.txt"]],
    ["echo hi > link", ["fs_write path=@/a.txt"]],
    ["cat < a.txt", []],
    ["ls 2>&1", []],
    ["ls >&2", []],
    ["ls > /dev/null 2>/dev/stderr", []],
    ["ls > /dev/fd/3", []],
    ["echo hi >& out.txt", ["fs_write path=@/out.txt"]],
    ["ls &> all.txt", ["fs_write path=@/all.txt"]],
    ["echo > *.txt", ["unresolved_argument: *.txt: a glob as a redirection target"]],
    ["echo > $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["> empty.txt", ["fs_write path=@/empty.txt"]],
    ["ls 2>&-", []],
    ["ls 1>&2", []],
    ["cat <&3", []],
    ["ls 2>>err.txt", ["fs_write path=@/err.txt"]],
    ["ls >| f.txt", ["fs_write path=@/f.txt"]],
    ["ls &>> f.txt", ["fs_write path=@/f.txt"]],
    ["echo x > /dev/tty", []],
    ["echo x > /dev/zero", []],
    ["echo x > /dev/fd/12", []],
    ["echo x > /dev/sda", ["fs_write path=/dev/sda"]],
    ["ls >&12", []],
    ["ls >&1x", ["fs_write path=@/1x"]],
    ["ls >&x1", ["fs_write path=@/x1"]],
    ["echo x > 1", ["fs_write path=@/1"]],
];

describe("redirections: a file written, a descriptor or device not", () => {
  it.each(REDIRECT_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// Read as bash reads it (src/shell/parse.ts): words after a redirection's target are the command's
// operands (each line was read as `rm` alone or `ls a rm …`: read-only, approved), and a carriage
// return or a line continuation that bash reads otherwise than tree-sitter is refused.
const READ_AS_BASH_CASES: Case[] = [
    ["rm 2>/dev/null a.txt", ["fs_remove path=@/a.txt"]],
    ["rm >&- a.txt", ["fs_remove path=@/a.txt"]],
    ["rm <<EOF a.txt\nx\nEOF", ["fs_remove path=@/a.txt"]],
    ["cd >/dev/null src; rm x.ts", ["fs_remove path=@/src/x.ts"]],
    ["ls a.txt\\\r\nrm -rf src", ["unparsed: a carriage return between words (bash reads it as part of a word)"]],
    ["rm a.txt\\\n\\\nb.txt", ["unparsed: a line continuation inside a word"]],
    ["rm == a.txt x$\"y\"", ["fs_remove path=@/==", "fs_remove path=@/a.txt", "fs_remove path=@/xy"]],
];

describe("words after a redirection, carriage returns and line continuations are read as bash reads them", () => {
  it.each(READ_AS_BASH_CASES)("%j", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// find: -delete and -exec judged on its roots, -fprint files written
const FIND_CASES: Case[] = [
    ["find src -delete", ["fs_remove path=@/src"]],
    ["find -delete", ["fs_remove path=@"]],
    ["find . -name x -exec rm {} +", ["fs_remove path=@"]],
    ["find src -exec cat {} ;", []],
    ["find src -exec sed -i s/a/b/ {} +", ["fs_write path=@/src"]],
    ["find src -exec touch {} +", ["fs_write path=@/src"]],
    ["find src -exec frob {} ;", ["unresolved_argument: find -exec frob acts on the files find lists"]],
    ["find src -exec", ["unresolved_argument: find -exec without a command"]],
    ["find src -fprint out.txt", ["fs_write path=@/out.txt"]],
    ["find src -fprint", []],
    ["find $X -delete", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["find src ! -name x -delete", ["fs_remove path=@/src"]],
    ["find src -name $X -delete", ["fs_remove path=@/src"]],
    ["find src -execdir rm {} ;", ["fs_remove path=@/src"]],
    ["find src -ok rm {} ;", ["fs_remove path=@/src"]],
    ["find src -okdir rm {} ;", ["fs_remove path=@/src"]],
    ["find src -fprint0 o0 -fprintf of fmt -fls ol", ["fs_write path=@/o0","fs_write path=@/of","fs_write path=@/ol"]],
    ["find src -exec rm {} ; -delete", ["fs_remove path=@/src","unknown_command: -delete is not in the command catalogue"]],
    ["find src \\( -name a \\) -delete", ["fs_remove path=@/src"]],
    ["find src -fprint $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["find src -exec rm {} \\; -delete", ["fs_remove path=@/src","fs_remove path=@/src"]],
    ["find src -exec touch {} \\; -exec cat {} +", ["fs_write path=@/src"]],
];

describe("find: -delete and -exec judged on its roots, -fprint files written", () => {
  it.each(FIND_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// xargs: arguments from standard input are never known
const XARGS_CASES: Case[] = [
    ["xargs", []],
    ["xargs grep x", []],
    ["xargs rm", ["unresolved_argument: xargs feeds rm arguments from standard input"]],
    ["xargs -n1 rm -f a.txt", ["fs_remove path=@/a.txt","unresolved_argument: xargs feeds rm arguments from standard input"]],
    ["xargs env rm", ["unresolved_argument: xargs feeds env arguments from standard input"]],
    ["xargs sudo ls", ["unresolved_argument: xargs feeds sudo arguments from standard input"]],
    ["xargs $X", ["unresolved_argument: the command name $X is not known: unset or unknown variable $X","unresolved_argument: xargs feeds $X arguments from standard input"]],
    ["xargs -I {} cat {}", []],
];

describe("xargs: arguments from standard input are never known", () => {
  it.each(XARGS_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// package managers and interpreters: publish, install, run
const ENVIRONMENT_CASES: Case[] = [
    ["python --version", []],
    ["python -V", []],
    ["node --help", []],
    ["python x.py", ["unknown_effect: python runs code whose effect is not known"]],
    ["python", ["unknown_effect: python runs code whose effect is not known"]],
    ["python --version x", ["unknown_effect: python runs code whose effect is not known"]],
    ["npm", []],
    ["npm --version", []],
    ["npm -v", []],
    ["npm -h", []],
    ["npm --help", []],
    ["npm -g", ["unresolved_argument: npm: the subcommand is not known"]],
    ["npm $X", ["unresolved_argument: npm: the subcommand is not known"]],
    ["npm publish", ["remote_write command=npm publish"]],
    ["npm login", ["remote_write command=npm login"]],
    ["npm ls", []],
    ["npm audit", []],
    ["npm audit fix", ["env_change command=npm audit fix"]],
    ["npm run build", ["unknown_effect: npm run runs code whose effect is not known"]],
    ["npm test", ["unknown_effect: npm test runs code whose effect is not known"]],
    ["npm install lodash", ["env_change command=npm install lodash"]],
    ["pip install x", ["env_change command=pip install x"]],
    ["cargo build", ["unknown_effect: cargo build runs code whose effect is not known"]],
    ["pip -V", []],
    ["npm --help install", ["env_change command=npm --help install"]],
];

describe("package managers and interpreters: publish, install, run", () => {
  it.each(ENVIRONMENT_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// wrappers run the command after their own options; unknown and path-named commands
const WRAPPERS_CASES: Case[] = [
    ["sudo rm a.txt", ["fs_remove path=@/a.txt"]],
    ["sudo -u root rm a.txt", ["fs_remove path=@/a.txt"]],
    ["sudo -- rm a.txt", ["fs_remove path=@/a.txt"]],
    ["env A=1 rm a.txt", ["fs_remove path=@/a.txt"]],
    ["env -u X rm a.txt", ["fs_remove path=@/a.txt"]],
    ["env", []],
    ["timeout 5 rm a.txt", ["fs_remove path=@/a.txt"]],
    ["timeout -s KILL 5 rm a.txt", ["fs_remove path=@/a.txt"]],
    ["timeout 5", ["unknown_effect: timeout with no command reads standard input"]],
    ["nice", ["unknown_effect: nice with no command reads standard input"]],
    ["sudo", ["unknown_effect: sudo with no command reads standard input"]],
    ["command -v rm", []],
    ["command -V rm", []],
    ["command rm a.txt", ["fs_remove path=@/a.txt"]],
    ["command", []],
    ["sudo $X", ["unresolved_argument: $X: an argument of sudo is not known"]],
    ["nohup - x", ["unknown_command: - is not in the command catalogue"]],
    ["nice -n 5 -- rm a.txt", ["fs_remove path=@/a.txt"]],
    ["$X a", ["unresolved_argument: the command name $X is not known: unset or unknown variable $X"]],
    ["*.sh a", ["unresolved_argument: the command name *.sh is not known: a glob"]],
    ["./script.sh", ["unknown_effect: ./script.sh runs a program whose effect is not known"]],
    ["/bin/rm a.txt", ["unknown_effect: /bin/rm runs a program whose effect is not known"]],
    ["sudo A=1 rm a.txt", ["unknown_command: A=1 is not in the command catalogue"]],
    ["env -C src rm x.ts", ["fs_remove path=@/src/x.ts"]],
    ["env --chdir=src rm x.ts", ["fs_remove path=@/src/x.ts"]],
    ["env -C $X rm x.ts", ["unresolved_argument: x.ts: relative to a directory that is not known (cd)"]],
    ["env -C src", []],
    ["sudo -D src rm x.ts", ["fs_remove path=@/src/x.ts"]],
    ["sudo --chdir=/tmp rm x.ts", ["fs_remove path=/tmp/x.ts"]],
    ["sudo -u root -D src rm y.ts", ["fs_remove path=@/src/y.ts"]],
    ["cd $X && env -C src rm x.ts", ["unresolved_argument: x.ts: relative to a directory that is not known (cd)"]],
    ["env -C", []],
    ["sudo -D", ["unknown_effect: sudo with no command reads standard input"]],
    ["env _X=1 rm a.txt", ["fs_remove path=@/a.txt"]],
    ["env A_1=1 rm a.txt", ["fs_remove path=@/a.txt"]],
    ["env a=1 rm a.txt", ["fs_remove path=@/a.txt"]],
    ["env 1X=1 rm a.txt", ["unknown_command: 1X=1 is not in the command catalogue"]],
    ["env -i PATH=/bin rm a.txt", ["fs_remove path=@/a.txt"]],
    ["nice -- -x", ["unknown_command: -x is not in the command catalogue"]],
    ["sudo -- -rm a.txt", ["unknown_command: -rm is not in the command catalogue"]],
    ["command -v rm a.txt", []],
    ["command -V rm a.txt", []],
    ["env -Csrc rm x.ts", ["fs_remove path=@/src/x.ts"]],
    ["sudo -Dsrc rm x.ts", ["fs_remove path=@/src/x.ts"]],
    ["env -C=src rm x.ts", ["fs_remove path=@/=src/x.ts"]],
    ["env -v rm a.txt", ["fs_remove path=@/a.txt"]],
];

describe("wrappers run the command after their own options; unknown and path-named commands", () => {
  it.each(WRAPPERS_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// network commands: what leaves the machine and what they write locally
const REMOTE_CASES: Case[] = [
    ["curl https://x", []],
    ["curl -d a=b https://x", ["remote_write command=curl -d a=b https://x"]],
    ["curl --data-binary @f https://x", ["remote_write command=curl --data-binary @f https://x"]],
    ["curl -X POST https://x", ["remote_write command=curl -X POST https://x"]],
    ["curl -X GET https://x", []],
    ["curl -X get https://x", []],
    ["curl -X HEAD https://x", []],
    ["curl -X $X https://x", ["remote_write command=curl -X $X https://x"]],
    ["curl --request=PUT https://x", ["remote_write command=curl --request=PUT https://x"]],
    ["curl -o out.html https://x", ["fs_write path=@/out.html"]],
    ["curl -o - https://x", []],
    ["curl -o /dev/null https://x", []],
    ["curl -O https://x/f.tgz?x=1", ["fs_write path=@/f.tgz"]],
    ["curl --remote-name https://x/f.tgz", ["fs_write path=@/f.tgz"]],
    ["curl -O https://x/", ["fs_write path=@/index.html"]],
    ["curl -o $X https://x", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["curl -O", ["unresolved_argument: curl: the file it writes is not known"]],
    ["wget https://x/a.zip", ["fs_write path=@/a.zip"]],
    ["wget -O out https://x/a.zip", ["fs_write path=@/out"]],
    ["wget -O - https://x/a.zip", []],
    ["wget --post-data=x https://x/a", ["remote_write command=wget --post-data=x https://x/a","fs_write path=@/a"]],
    ["wget https://example.com/", ["fs_write path=@/index.html"]],
    ["wget https://example.com", ["fs_write path=@/index.html"]],
    ["cd $X && wget https://x/a.zip", ["unresolved_argument: wget: the file it writes is not known"]],
    ["wget", ["unresolved_argument: wget: the file it writes is not known"]],
    ["scp a.txt host:/x", ["remote_write command=scp a.txt host:/x"]],
    ["scp host:/x b.txt", ["fs_write path=@/b.txt"]],
    ["rsync -a src/ dst/", ["fs_write path=@/dst"]],
    ["rsync --delete src/ dst/", ["unknown_effect: rsync --delete removes files the dispatcher cannot list"]],
    ["rsync -a --delete-after src/ dst/", ["unknown_effect: rsync --delete removes files the dispatcher cannot list"]],
    ["scp", ["unresolved_argument: scp: the destination is not known"]],
    ["scp a.txt $X", ["unresolved_argument: scp: the destination is not known"]],
    ["scp a.txt ./a:b", ["fs_write path=@/a:b"]],
    ["gh pr view", []],
    ["gh pr create", ["remote_write command=gh pr create"]],
    ["gh", []],
    ["gh --help", []],
    ["gh --version", []],
    ["gh auth status", []],
    ["docker ps", []],
    ["docker run x", ["remote_write command=docker run x"]],
    ["docker rm top", ["remote_write command=docker rm top"]],
    ["docker container ls", ["remote_write command=docker container ls"]],
    ["kubectl get pods", []],
    ["kubectl delete pod x", ["remote_write command=kubectl delete pod x"]],
    ["kubectl delete pod logs", ["remote_write command=kubectl delete pod logs"]],
    ["ssh host ls", ["remote_write command=ssh host ls"]],
    ["aws s3 ls", ["remote_write command=aws s3 ls"]],
    ["docker container ps", []],
    ["docker container rm x", ["remote_write command=docker container rm x"]],
    ["docker image ls", ["remote_write command=docker image ls"]],
    ["gh pr create view", ["remote_write command=gh pr create view"]],
    ["wget example.com/dir/", ["fs_write path=@/index.html"]],
    ["wget https://x/a.zip#frag", ["fs_write path=@/a.zip"]],
    ["wget -o log.txt https://x/a.zip", ["fs_write path=@/a.zip","fs_write path=@/log.txt"]],
    ["wget -a log.txt -O - https://x/a.zip", ["fs_write path=@/log.txt"]],
    ["curl -D hdr.txt https://x", ["fs_write path=@/hdr.txt"]],
    ["curl -c jar.txt -o /dev/null https://x", ["fs_write path=@/jar.txt"]],
    ["curl --trace - https://x", []],
    ["curl --stderr /dev/null https://x", []],
    ["curl --data x u", ["remote_write command=curl --data x u"]],
    ["curl --data-raw x u", ["remote_write command=curl --data-raw x u"]],
    ["curl --data-urlencode x=1 u", ["remote_write command=curl --data-urlencode x=1 u"]],
    ["curl -F f=@a.txt u", ["remote_write command=curl -F f=@a.txt u"]],
    ["curl --form f=@a.txt u", ["remote_write command=curl --form f=@a.txt u"]],
    ["curl -T a.txt u", ["remote_write command=curl -T a.txt u"]],
    ["curl --upload-file a.txt u", ["remote_write command=curl --upload-file a.txt u"]],
    ["curl --json {} u", ["remote_write command=curl --json {} u"]],
    ["curl --output out.html u", ["fs_write path=@/out.html"]],
    ["curl -D $X u", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["curl --dump-header h.txt --cookie-jar c.txt --trace-ascii t.txt u", ["fs_write path=@/h.txt","fs_write path=@/c.txt","fs_write path=@/t.txt"]],
    ["wget --post-file=a.txt u/x", ["remote_write command=wget --post-file=a.txt u/x","fs_write path=@/x"]],
    ["wget --method=DELETE u/x", ["remote_write command=wget --method=DELETE u/x","fs_write path=@/x"]],
    ["wget --method=GET u/x", ["fs_write path=@/x"]],
    ["wget --output-document=o.html u/x", ["fs_write path=@/o.html"]],
    ["wget --output-file=log.txt --append-output=log2.txt -O - u/x", ["fs_write path=@/log.txt","fs_write path=@/log2.txt"]],
    ["wget -a - -O - u/x", []],
    ["docker --version", []],
    ["kubectl", []],
    ["kubectl config view", []],
    ["gh api repos", ["remote_write command=gh api repos"]],
    ["gh repo delete view", ["remote_write command=gh repo delete view"]],
    ["docker container", ["remote_write command=docker container"]],
    ["gh auth logout", ["remote_write command=gh auth logout"]],
    ["gh api -X DELETE repos/o/r", ["remote_write command=gh api -X DELETE repos/o/r"]],
    ["kubectl config set-context x", ["remote_write command=kubectl config set-context x"]],
    ["kubectl config get-contexts", []],
];

describe("network commands: what leaves the machine and what they write locally", () => {
  it.each(REMOTE_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// git: each subcommand as the typed calls of the shell ontology (in the directory git runs in)
const GIT_CASES: Case[] = [
    ["git status", []],
    ["git bisect start", ["unknown_effect: git bisect moves HEAD"]],
    ["git bisect", []],
    ["git", []],
    ["git -C src status", []],
    ["git -C src add x", ["git_stage paths=[\"x\"] dir=@/src"]],
    ["git -C", ["unresolved_argument: git -C with a directory that is not known"]],
    ["git -C $X add a", ["unresolved_argument: git -C with a directory that is not known"]],
    ["cd $X && git -C sub add a", ["unresolved_argument: git -C with a directory that is not known"]],
    ["git -c user.name=b commit -m x", ["git_commit dir=@"]],
    ["git --no-pager commit", ["git_commit dir=@"]],
    ["git --paginate commit", ["git_commit dir=@"]],
    ["git -p commit", ["git_commit dir=@"]],
    ["git -P commit", ["git_commit dir=@"]],
    ["git --no-optional-locks commit", ["git_commit dir=@"]],
    ["git --bare commit", ["git_commit dir=@"]],
    ["git --literal-pathspecs commit", ["git_commit dir=@"]],
    ["git --git-dir=x status", ["unknown_effect: git --git-dir=x: a global option the dispatcher does not follow"]],
    ["git $X", ["unresolved_argument: git: $X is not known"]],
    ["cd $X && git commit -m x", ["unresolved_argument: git runs in a directory that is not known (cd)"]],
    ["git branch -d old", ["git_ref_delete ref=refs/heads/old dir=@"]],
    ["git branch -D a b", ["git_ref_delete ref=refs/heads/a dir=@","git_ref_delete ref=refs/heads/b dir=@"]],
    ["git branch --delete a", ["git_ref_delete ref=refs/heads/a dir=@"]],
    ["git branch -d $X", ["unresolved_argument: git branch -d: a branch name is not known"]],
    ["git branch -m new", ["unresolved_argument: git branch -m: the old or new name is not known (the current branch)"]],
    ["git branch -m old new", ["git_ref_delete ref=refs/heads/old dir=@","git_ref_add ref=refs/heads/new dir=@"]],
    ["git branch -M old new", ["git_ref_delete ref=refs/heads/old dir=@","git_ref_delete ref=refs/heads/new dir=@","git_ref_add ref=refs/heads/new dir=@"]],
    ["git branch --move old new", ["git_ref_delete ref=refs/heads/old dir=@","git_ref_add ref=refs/heads/new dir=@"]],
    ["git branch -m old $X", ["unresolved_argument: git branch -m: the old or new name is not known (the current branch)"]],
    ["git branch", []],
    ["git branch -a", []],
    ["git branch -r", []],
    ["git branch -l", []],
    ["git branch --list foo", []],
    ["git branch -v", []],
    ["git branch -vv", []],
    ["git branch --show-current", []],
    ["git branch --contains abc", []],
    ["git branch --merged main", []],
    ["git branch --no-merged main", []],
    ["git branch --format=x", []],
    ["git branch --sort=x", []],
    ["git branch --points-at=x", []],
    ["git branch newb", ["git_ref_add ref=refs/heads/newb dir=@"]],
    ["git branch -f newb", ["git_ref_delete ref=refs/heads/newb dir=@","git_ref_add ref=refs/heads/newb dir=@"]],
    ["git branch --force newb", ["git_ref_delete ref=refs/heads/newb dir=@","git_ref_add ref=refs/heads/newb dir=@"]],
    ["git branch $X", ["unresolved_argument: git branch: the name is not known"]],
    ["git branch -u origin/x", ["unknown_effect: git branch: changes the branch's configuration (upstream, description)"]],
    ["git tag -d v1", ["git_ref_delete ref=refs/tags/v1 dir=@"]],
    ["git tag --delete v1 v2", ["git_ref_delete ref=refs/tags/v1 dir=@","git_ref_delete ref=refs/tags/v2 dir=@"]],
    ["git tag -d $X", ["unresolved_argument: git tag -d: a name is not known"]],
    ["git tag", []],
    ["git tag -l", []],
    ["git tag --list", []],
    ["git tag -n", []],
    ["git tag --contains x", []],
    ["git tag --points-at x", []],
    ["git tag -v v1", []],
    ["git tag --verify v1", []],
    ["git tag v2", ["git_ref_add ref=refs/tags/v2 dir=@"]],
    ["git tag -f v2", ["git_ref_delete ref=refs/tags/v2 dir=@","git_ref_add ref=refs/tags/v2 dir=@"]],
    ["git tag --force v2", ["git_ref_delete ref=refs/tags/v2 dir=@","git_ref_add ref=refs/tags/v2 dir=@"]],
    ["git tag -m msg v2", ["git_ref_add ref=refs/tags/v2 dir=@"]],
    ["git tag $X", ["unresolved_argument: git tag: the name is not known"]],
    ["git reset --hard", ["git_discard target=HEAD dir=@"]],
    ["git reset --hard HEAD~1", ["git_discard target=HEAD~1 dir=@"]],
    ["git reset --merge", ["git_discard target=HEAD dir=@"]],
    ["git reset --keep x", ["git_discard target=x dir=@"]],
    ["git reset -- a.txt", ["git_stage paths=[\"a.txt\"] dir=@"]],
    ["git reset HEAD -- a.txt", ["git_stage paths=[\"a.txt\"] dir=@"]],
    ["git reset a.txt", ["git_stage paths=[\"a.txt\"] dir=@"]],
    ["git reset", ["git_stage paths=[\".\"] dir=@"]],
    ["git reset HEAD~1", ["git_move_head target=HEAD~1 dir=@"]],
    ["git reset --soft HEAD~1", ["git_move_head target=HEAD~1 dir=@"]],
    ["git reset nonexist", ["git_move_head target=nonexist dir=@"]],
    ["git reset -- $X", ["git_stage paths=[\"\"] dir=@","unresolved_argument: git reset: a path is not known"]],
    ["git reset a.txt b.txt", ["git_stage paths=[\"a.txt\",\"b.txt\"] dir=@"]],
    ["git reset a.txt nonexist", ["git_stage paths=[\"nonexist\"] dir=@"]],
    ["git checkout -- a.txt", ["fs_write path=@/a.txt tracked=[]"]],
    ["git checkout HEAD~1 -- a.txt", ["fs_write path=@/a.txt tracked=[\"HEAD~1\"]","git_stage paths=[\"@/a.txt\"] dir=@"]],
    ["git checkout $X -- a.txt", ["fs_write path=@/a.txt","git_stage paths=[\"@/a.txt\"] dir=@"]],
    ["git checkout -- $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["git checkout -b nb", ["git_ref_add ref=refs/heads/nb dir=@","git_switch target=nb dir=@"]],
    ["git checkout -B nb", ["git_ref_delete ref=refs/heads/nb dir=@","git_ref_add ref=refs/heads/nb dir=@","git_switch target=nb dir=@"]],
    ["git checkout -b", ["unresolved_argument: git checkout -b: the name is not known"]],
    ["git checkout -b $X", ["unresolved_argument: git checkout -b: the name is not known"]],
    ["git checkout --track origin/x", ["unknown_effect: git checkout --track without -b: creates a branch the dispatcher does not name"]],
    ["git checkout -t origin/x", ["unknown_effect: git checkout --track without -b: creates a branch the dispatcher does not name"]],
    ["git checkout -f main", ["git_discard target=HEAD dir=@","git_switch target=main dir=@"]],
    ["git checkout --force main", ["git_discard target=HEAD dir=@","git_switch target=main dir=@"]],
    ["git checkout", []],
    ["git checkout -f", ["git_discard target=HEAD dir=@"]],
    ["git checkout $X", ["unresolved_argument: git checkout: the target is not known"]],
    ["git checkout .", ["fs_write path=@ tracked=[]"]],
    ["git checkout a.txt", ["fs_write path=@/a.txt tracked=[]"]],
    ["git checkout a.txt b.txt", ["fs_write path=@/a.txt tracked=[]","fs_write path=@/b.txt tracked=[]"]],
    ["git checkout main", ["git_switch target=main dir=@"]],
    ["git checkout a.txt nonexist", ["fs_write path=@/nonexist tracked=[\"a.txt\"]","git_stage paths=[\"@/nonexist\"] dir=@"]],
    ["git switch -c nb", ["git_ref_add ref=refs/heads/nb dir=@","git_switch target=nb dir=@"]],
    ["git switch -C nb", ["git_ref_delete ref=refs/heads/nb dir=@","git_ref_add ref=refs/heads/nb dir=@","git_switch target=nb dir=@"]],
    ["git switch --create=nb", ["git_ref_add ref=refs/heads/nb dir=@","git_switch target=nb dir=@"]],
    ["git switch --force-create nb", ["git_ref_delete ref=refs/heads/nb dir=@","git_ref_add ref=refs/heads/nb dir=@","git_switch target=nb dir=@"]],
    ["git switch -c", ["unresolved_argument: git switch -c: the name is not known"]],
    ["git switch -c $X", ["unresolved_argument: git switch -c: the name is not known"]],
    ["git switch -f main", ["git_discard target=HEAD dir=@","git_switch target=main dir=@"]],
    ["git switch --force main", ["git_discard target=HEAD dir=@","git_switch target=main dir=@"]],
    ["git switch --discard-changes main", ["git_discard target=HEAD dir=@","git_switch target=main dir=@"]],
    ["git switch", ["unresolved_argument: git switch: the target is not known"]],
    ["git switch $X", ["unresolved_argument: git switch: the target is not known"]],
    ["git switch main", ["git_switch target=main dir=@"]],
    ["git restore a.txt", ["fs_write path=@/a.txt tracked=[]"]],
    ["git restore --staged a.txt", ["git_stage paths=[\"@/a.txt\"] dir=@"]],
    ["git restore -S a.txt", ["git_stage paths=[\"@/a.txt\"] dir=@"]],
    ["git restore -S -W a.txt", ["fs_write path=@/a.txt tracked=[]","git_stage paths=[\"@/a.txt\"] dir=@"]],
    ["git restore --staged --worktree a.txt", ["fs_write path=@/a.txt tracked=[]","git_stage paths=[\"@/a.txt\"] dir=@"]],
    ["git restore --source=HEAD~1 a.txt", ["fs_write path=@/a.txt tracked=[\"HEAD~1\"]"]],
    ["git restore -s HEAD~1 a.txt", ["fs_write path=@/a.txt tracked=[\"HEAD~1\"]"]],
    ["git restore -s $X a.txt", ["fs_write path=@/a.txt"]],
    ["git restore $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["git clean -n", []],
    ["git clean --dry-run -f", []],
    ["git clean -i", ["unknown_effect: git clean -i asks interactively"]],
    ["git clean --interactive -f", ["unknown_effect: git clean -i asks interactively"]],
    // Without -f git cleans when clean.requireForce is false (a repository's config may set it): judged
    // as cleaning (was approved read-only; git 2.39 with the setting false removed the untracked file).
    ["git clean -d", ["git_clean ignored=false dir=@"]],
    ["git clean", ["git_clean ignored=false dir=@"]],
    ["git clean -x", ["git_clean ignored=true dir=@"]],
    ["git clean -dX src", ["git_clean ignored=true dir=@"]],
    ["git clean $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["git clean -dn", []],
    ["git clean -fd", ["git_clean ignored=false dir=@"]],
    ["git clean --force", ["git_clean ignored=false dir=@"]],
    ["git clean -fdx", ["git_clean ignored=true dir=@"]],
    ["git clean -fX", ["git_clean ignored=true dir=@"]],
    ["git clean -f $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["git clean -f src", ["git_clean ignored=false dir=@"]],
    ["git stash", ["git_stash_push dir=@"]],
    ["git stash list", []],
    ["git stash show", []],
    ["git stash drop", ["git_stash_drop all=false dir=@"]],
    ["git stash clear", ["git_stash_drop all=true dir=@"]],
    ["git stash pop", ["git_stash_drop all=false dir=@","git_discard target=HEAD dir=@"]],
    ["git stash apply", ["git_discard target=HEAD dir=@"]],
    ["git stash push", ["git_stash_push dir=@"]],
    ["git stash save", ["git_stash_push dir=@"]],
    ["git stash -u", ["git_stash_push dir=@"]],
    ["git stash branch x", ["unknown_effect: git stash branch"]],
    ["git stash frob", ["unknown_command: git stash frob"]],
    ["git stash frob", ["unknown_command: git stash frob"]],
    ["git stash -m msg", ["git_stash_push dir=@"]],
    ["git commit -m x", ["git_commit dir=@"]],
    ["git commit -am x", ["git_stage paths=[\".\"] dir=@","git_commit dir=@"]],
    ["git commit -a", ["git_stage paths=[\".\"] dir=@","git_commit dir=@"]],
    ["git commit --all", ["git_stage paths=[\".\"] dir=@","git_commit dir=@"]],
    ["git add a.txt", ["git_stage paths=[\"a.txt\"] dir=@"]],
    ["git add -n a.txt", []],
    ["git add --dry-run a.txt", []],
    ["git add -A", ["git_stage paths=[\".\"] dir=@"]],
    ["git add -u", ["git_stage paths=[\".\"] dir=@"]],
    ["git add --update", ["git_stage paths=[\".\"] dir=@"]],
    ["git add --all", ["git_stage paths=[\".\"] dir=@"]],
    ["git add --no-ignore-removal", ["git_stage paths=[\".\"] dir=@"]],
    ["git add -A src", ["git_stage paths=[\"src\"] dir=@"]],
    ["git add", ["git_stage paths=[] dir=@"]],
    ["git add $X", ["git_stage paths=[\"\"] dir=@","unresolved_argument: git add: a path is not known"]],
    ["git rm a.txt", ["fs_remove path=@/a.txt","git_stage paths=[\"@/a.txt\"] dir=@"]],
    ["git rm --cached a.txt", ["git_stage paths=[\"@/a.txt\"] dir=@"]],
    ["git rm $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["git mv a.txt c.txt", ["fs_move source=@/a.txt destination=@/c.txt","git_stage paths=[\"@/a.txt\",\"@/c.txt\"] dir=@"]],
    ["git mv a.txt src", ["fs_move source=@/a.txt destination=@/src/a.txt","git_stage paths=[\"@/a.txt\",\"@/src\"] dir=@"]],
    ["git mv a.txt b.txt src", ["fs_move source=@/a.txt destination=@/src/a.txt","fs_move source=@/b.txt destination=@/src/b.txt","git_stage paths=[\"@/a.txt\",\"@/b.txt\",\"@/src\"] dir=@"]],
    ["git mv a.txt", []],
    ["git mv $X c.txt", ["unresolved_argument: $X: unset or unknown variable $X"]],
    ["git merge topic", ["git_move_head target=topic dir=@"]],
    ["git merge", ["git_move_head target=HEAD dir=@"]],
    ["git rebase", ["git_move_head target=HEAD dir=@"]],
    ["git cherry-pick x", ["git_move_head target=x dir=@"]],
    ["git revert x", ["git_move_head target=x dir=@"]],
    ["git am", ["git_move_head target=HEAD dir=@"]],
    ["git pull", ["git_fetch dir=@","git_move_head target=FETCH_HEAD dir=@"]],
    ["git fetch", ["git_fetch dir=@"]],
    ["git push", ["remote_write command=git push"]],
    ["git push -n", []],
    ["git push --dry-run", []],
    ["git push origin main", ["remote_write command=git push origin main"]],
    ["git init", ["fs_mkdir path=@","fs_mkdir path=@/.git"]],
    ["git init sub", ["fs_mkdir path=@/sub","fs_mkdir path=@/sub/.git"]],
    ["cd $X && git init", ["unresolved_argument: git init in a directory that is not known"]],
    ["git clone https://x/r.git", ["fs_write path=@/r"]],
    ["git clone https://x/r.git dir", ["fs_write path=@/dir"]],
    ["git clone", ["unresolved_argument: git clone: the destination is not known"]],
    ["git clone $X", ["unresolved_argument: git clone: the destination is not known"]],
    ["cd $X && git clone u", ["unresolved_argument: git clone: the destination is not known"]],
    ["git remote", []],
    ["git remote -v", []],
    ["git remote add o u", ["unknown_effect: git remote add: changes configuration or refs the ontology does not model"]],
    ["git remote show o", []],
    ["git config --get x", []],
    ["git config user.name x", ["unknown_effect: git config user.name: changes configuration or refs the ontology does not model"]],
    ["git config --list", []],
    ["git config -l", []],
    ["git config --get-all x", []],
    ["git config get x", []],
    ["git worktree list", []],
    ["git worktree add x", ["unknown_effect: git worktree add: changes configuration or refs the ontology does not model"]],
    ["git submodule update", ["unknown_effect: git submodule update: changes configuration or refs the ontology does not model"]],
    ["git notes add", ["unknown_effect: git notes add: changes configuration or refs the ontology does not model"]],
    ["git reflog", []],
    ["git reflog expire", ["unknown_effect: git reflog expire: changes configuration or refs the ontology does not model"]],
    ["git frob", ["unknown_command: git frob is not in the catalogue"]],
    ["git remote -v remove o", ["unknown_effect: git remote remove: changes configuration or refs the ontology does not model"]],
    ["git config --get-regexp x", []],
    ["git config --unset x", ["unknown_effect: git config x: changes configuration or refs the ontology does not model"]],
    ["git notes show", []],
    ["git branch -m $X new", ["unresolved_argument: git branch -m: the old or new name is not known (the current branch)"]],
    ["git branch -a 'feat*'", []],
    ["git branch -r 'origin/*'", []],
    ["git branch -l 'f*'", []],
    // -v, --format and --sort do not make a listing (git 2.39: `git branch -v x` creates x).
    ["git branch -v 'f*'", ["git_ref_add ref=refs/heads/f* dir=@"]],
    ["git branch -vv 'f*'", ["git_ref_add ref=refs/heads/f* dir=@"]],
    ["git branch --show-current x", []],
    ["git branch --contains abc 'f*'", []],
    ["git branch --merged main 'f*'", []],
    ["git branch --no-merged main 'f*'", []],
    ["git branch --format=%s 'f*'", ["git_ref_add ref=refs/heads/f* dir=@"]],
    ["git branch --sort=-date 'f*'", ["git_ref_add ref=refs/heads/f* dir=@"]],
    ["git branch --points-at HEAD 'f*'", []],
    ["git tag -l 'v*'", []],
    ["git tag --list 'v*'", []],
    ["git tag -n 'v*'", []],
    ["git tag --contains x 'v*'", []],
    ["git tag --points-at x 'v*'", []],
    ["git checkout --orphan newroot", ["unknown_effect: git checkout --orphan: switches to a new unborn branch"]],
    ["git switch --orphan newroot", ["unresolved_argument: git switch: the target is not known"]],
    ["cd $X && git reset /abs", ["unresolved_argument: git runs in a directory that is not known (cd)"]],
];

describe("git: each subcommand as the typed calls of the shell ontology (in the directory git runs in)", () => {
  it.each(GIT_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});
