// The dispatcher: a command line (or a file-edit tool call) becomes typed calls of the shell ontology
// (ontologies/shell/shell.polar), driven by the command catalogue (ontologies/shell/commands.json).
// What it cannot resolve is a problem with a reason (unknown_command, unresolved_argument,
// unknown_effect, unparsed, over_bound): such a call is never approved without a question.
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { expandGlob } from "./glob.js";
import { joinPath, parseCommandLine, type Redirect, type SimpleCommand, type Word } from "./parse.js";
import { codeVariable } from "./variables.js";
import { perProcess } from "./workspace.js";

export interface TypedCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The simple command (or tool) it came from. */
  source: string;
  /** A write by git of the tracked paths under `path` (checkout/restore with paths): from the index,
   * or from these trees. A restore point keeps those paths, not the untracked or ignored ones. */
  tracked?: { trees: string[] };
}

export type ProblemReason = "unknown_command" | "unresolved_argument" | "unknown_effect" | "unparsed" | "over_bound";

export interface Problem {
  reason: ProblemReason;
  detail: string;
  source: string;
}

export interface Dispatch {
  calls: TypedCall[];
  problems: Problem[];
  /** Simple commands seen (read-only ones included). */
  commands: number;
}

/** When a read-only command is not read-only: any of `options` (alone, in a bundle of short options
 * or as `--option=value`), more than `operands` operands (counted after `optionsWithValue`' values),
 * an operand that is one of `words`, or an operand starting with `operandPrefix`. Such a line is asked. */
export interface ReadOnlyUnless {
  options?: string[];
  optionsWithValue?: string[];
  operands?: number;
  words?: string[];
  operandPrefix?: string;
}

export interface Catalogue {
  readOnly: Set<string>;
  readOnlyUnless: Record<string, ReadOnlyUnless>;
  wrappers: Record<string, { optionsWithValue: string[]; assignments?: boolean; positionals?: number; onlyWithOperands?: boolean; outputOptions?: string[]; commandOptions?: string[] }>;
  commands: Record<string, { effect: string; optionsWithValue?: string[]; skipOperands?: number; outputOptions?: string[] }>;
}

export function parseCatalogue(json: unknown, extraReadOnly: readonly string[] = []): Catalogue {
  const j = json as { format?: unknown; readOnly?: unknown; readOnlyUnless?: unknown; wrappers?: unknown; commands?: unknown };
  const object = (x: unknown): boolean => typeof x === "object" && x !== null && !Array.isArray(x);
  if (j === null || typeof j !== "object" || j.format !== "polar-shell-commands/1" || !Array.isArray(j.readOnly) || !object(j.readOnlyUnless) || !object(j.wrappers) || !object(j.commands)) {
    throw new Error("the command catalogue is not polar-shell-commands/1");
  }
  const readOnly = new Set<string>();
  for (const x of [...(j.readOnly as unknown[]), ...extraReadOnly]) {
    if (typeof x !== "string" || x === "") throw new Error("a read-only command name is not a non-empty string");
    readOnly.add(x);
  }
  const strings = (x: unknown): boolean => x === undefined || (Array.isArray(x) && x.every((s) => typeof s === "string" && s !== ""));
  for (const [name, u] of Object.entries(j.readOnlyUnless as Record<string, unknown>)) {
    const e = u as Record<string, unknown> | null;
    const known = ["options", "optionsWithValue", "operands", "words", "operandPrefix"];
    if (
      e === null || typeof e !== "object" || Array.isArray(e) || Object.keys(e).some((k) => !known.includes(k)) ||
      !strings(e.options) || !strings(e.optionsWithValue) || !strings(e.words) ||
      (e.operands !== undefined && !(Number.isInteger(e.operands) && (e.operands as number) >= 0)) ||
      (e.operandPrefix !== undefined && (typeof e.operandPrefix !== "string" || e.operandPrefix === ""))
    ) {
      throw new Error(`readOnlyUnless.${name} is not { options, optionsWithValue, words: names; operands: a count; operandPrefix: a string }`);
    }
  }
  return { readOnly, readOnlyUnless: j.readOnlyUnless as Catalogue["readOnlyUnless"], wrappers: j.wrappers as Catalogue["wrappers"], commands: j.commands as Catalogue["commands"] };
}

interface Ctx {
  cat: Catalogue;
  home: string;
  out: Dispatch;
  depth: number;
  /** Paths an earlier command of the line makes links at (`ln`, `cp -l`/`-s`, a link copied as a link
   * or moved): a later path at or under one reaches whatever the link points to, which the check,
   * reading the filesystem as it is before the line, cannot see. */
  links: string[];
  /** What an earlier command of the line moves (`mv`, `git mv`) or copies with the links in it kept
   * (`cp -r`/`-a`/`-P`/`-d`: the copy's links are the source's, their targets the same text): a later
   * path under `to` is what is now under `from`, so a link there (a folder's link to a file or folder
   * elsewhere, `dir/l -> ../../out/f`) is reached through it, which the check, reading `to` as it is
   * before the line (absent), cannot see. */
  moved: { from: string; to: string }[];
}

const DEVICES = /^\/dev\/(null|stdout|stderr|stdin|tty|fd\/\d+|zero|random|urandom)$/;

/** Dispatches a whole command line run in `cwd`. Never throws. `links`, `moved`: the paths made links at
 * and what was moved or copied so far (shared with a `sh -c` string inside the line; see Ctx). */
export function dispatchCommand(command: string, cwd: string, cat: Catalogue, home: string, depth = 0, links: string[] = [], moved: Ctx["moved"] = []): Dispatch {
  const out: Dispatch = { calls: [], problems: [], commands: 0 };
  try {
    const parsed = parseCommandLine(command, cwd, home, depth);
    if (!parsed.ok) {
      out.problems.push({ reason: "unparsed", detail: parsed.detail, source: command.slice(0, 200) });
      return out;
    }
    const ctx: Ctx = { cat, home, out, depth, links, moved };
    for (const c of parsed.commands) simple(ctx, c);
  } catch (e) {
    out.problems.push({ reason: "unparsed", detail: `dispatcher error: ${e instanceof Error ? e.message : String(e)}`, source: command.slice(0, 200) });
  }
  return out;
}

function problem(ctx: Ctx, reason: ProblemReason, detail: string, source: string): void {
  ctx.out.problems.push({ reason, detail, source: source.slice(0, 200) });
}

function call(ctx: Ctx, name: string, args: Record<string, unknown>, source: string): void {
  const to = name === "fs_write" ? args.path : name === "fs_move" ? args.destination : undefined;
  if (typeof to === "string" && gitCode(to)) problem(ctx, "unknown_effect", gitCodeDetail(to), source);
  ctx.out.calls.push({ name, arguments: args, source: source.slice(0, 200) });
}

/** Paths of the words (globs expanded); null after a problem was recorded. */
function paths(ctx: Ctx, words: Word[], cwd: string | null, source: string): string[] | null {
  const res: string[] = [];
  for (const w of words) {
    if (w.text === null) {
      problem(ctx, "unresolved_argument", `${w.raw}: ${w.why ?? "unknown value"}`, source);
      return null;
    }
    if (cwd === null && !w.text.startsWith("/")) {
      problem(ctx, "unresolved_argument", `${w.raw}: relative to a directory that is not known (cd)`, source);
      return null;
    }
    if (w.text === "") continue;
    const base = cwd ?? "/";
    // A `..` is resolved on the filesystem (parentSteps): in the word's text, or, for a glob, in each of
    // its matches (a match keeps the pattern's `..`: `src/../*.txt` matches `src/../a.txt`); a glob that
    // matches nothing is its own text. True after a problem was recorded.
    const upIn = (texts: readonly string[], from: string): boolean => {
      const up = texts.map((t) => parentSteps(ctx, from, t)).find((x) => x !== null);
      if (up !== undefined) problem(ctx, "unresolved_argument", `${w.raw}: ${up}`, source);
      return up !== undefined;
    };
    if (!w.glob && upIn([w.text], base)) return null;
    const at = joinPath(base, w.text);
    // Under /proc (by its text or a link on the way) a path is the opening process's: /proc/self/cwd is
    // bash's directory there, the guard's here (followLinks and globs would read the guard's).
    // (The standard streams and devices, /dev/stderr -> /proc/self/fd/2, are what they were: no file.)
    const proc = DEVICES.test(w.text) ? null : perProcess(at);
    if (proc !== null) {
      problem(ctx, "unresolved_argument", `${w.raw}: ${proc}`, source);
      return null;
    }
    const through = (p: string): boolean => {
      const why = lineLink(ctx, p);
      if (why !== null) problem(ctx, "unresolved_argument", `${w.raw}: ${why}: what it reaches is not known at check time`, source);
      return why !== null;
    };
    if (through(at)) return null;
    // A trailing slash resolves through a final symbolic link (POSIX: as if `/.` were appended):
    // `rm -r link/` removes what is in the link's target directory, not the link.
    const final = (p: string): string => (w.text!.length > 1 && w.text!.endsWith("/") ? followLinks(p) : p);
    if (w.glob) {
      const g = expandGlob(w.text, base);
      if (g.over) {
        problem(ctx, "over_bound", `${w.raw}: the glob matches too many files to judge`, source);
        return null;
      }
      if (g.matches.length > 0) {
        if (upIn(g.matches, "/") || g.matches.some((m) => through(joinPath("/", m)))) return null;
        res.push(...g.matches.map((m) => final(joinPath("/", m))));
        continue;
      }
      if (upIn([w.text], base)) return null;
    }
    res.push(final(at));
  }
  return res;
}

/** Why a `..` in `text` (relative to base) does not lead where the path, read as text, says, or null.
 * The kernel resolves `d/..` on the filesystem: `d` must be a directory when the command runs (`touch
 * missing/../f` fails, `mkdir -p x/../y` creates x too), and `..` of a link to a directory is the
 * parent of its target, not of the link. So each part before a `..` must be a directory now whose
 * parent is the one the text names, or a directory an earlier command of the line makes (`mkdir`
 * makes a directory, not a link). A glob is judged on each of its matches. */
function parentSteps(ctx: Ctx, base: string, text: string): string | null {
  const segs = text.split("/");
  if (!segs.includes("..")) return null;
  let cur = text.startsWith("/") ? "/" : base;
  for (const seg of segs) {
    if (seg === "" || seg === ".") continue;
    if (seg !== "..") {
      cur = joinPath(cur, seg);
      continue;
    }
    // A directory the line makes is one only where nothing is now (`mkdir far` fails on a link).
    if (cur !== "/" && !(madeByLine(ctx, cur) && !pathExists(cur))) {
      if (!isDirectoryNow(cur)) return `${cur}/..: ${cur} is not a directory now (the command fails, or makes it first)`;
      let real: string;
      let parent: string;
      try {
        real = realpathSync(cur);
        parent = realpathSync(dirname(cur));
      } catch {
        return `${cur}/..: ${cur} cannot be resolved`;
      }
      if (dirname(real) !== parent) return `${cur}/..: ${cur} leads to ${real}, whose parent is not ${dirname(cur)}`;
    }
    cur = dirname(cur);
  }
  return null;
}

/** Why `at` goes through a link the line makes (`ln`, `cp -s`, a link moved or copied: ctx.links) or
 * through a link that is now inside what an earlier command of the line moves or copies with its links
 * (ctx.moved: `mv dir other && echo x > other/l`, l a link in dir; any part of the path under the
 * destination, the last one too), or null. Each move is followed back to where its source is before
 * the line (`mv a b; mv b c`: c/x is a/x now). */
function lineLink(ctx: Ctx, at: string): string | null {
  let cur = at;
  for (let i = ctx.moved.length - 1; ; i--) {
    const made = ctx.links.find((l) => cur === l || cur.startsWith(`${l}/`));
    if (made !== undefined) return `through ${made}, a link this line makes`;
    if (i < 0) return null;
    const m = ctx.moved[i]!;
    if (cur !== m.to && !cur.startsWith(`${m.to}/`)) continue;
    const rest = cur.slice(m.to.length);
    let p = m.from;
    for (const seg of rest.split("/")) {
      if (seg === "") continue;
      p = `${p}/${seg}`;
      if (isLinkNow(p)) return `through ${m.to}${p.slice(m.from.length)}, which this line moves or copies there from ${p}, a link`;
    }
    cur = m.from + rest;
  }
}

/** A directory an earlier command of the line makes (`mkdir`, `mkdir -p`'s ancestors, `git init`). */
function madeByLine(ctx: Ctx, p: string): boolean {
  return ctx.out.calls.some((k) => k.name === "fs_mkdir" && k.arguments.path === p);
}

/** The directories `mkdir -p` makes before each `..` of the path as written (each missing part that a
 * `..` follows: its parent is there or made just before), added to `made`; `paths()` then judges each
 * `..` against them. False (over_bound) past the bound of mkdir -p's own chain. */
function mkdirBeforeParentSteps(ctx: Ctx, cwd: string, text: string, source: string, made: Set<string>): boolean {
  const segs = text.split("/");
  let cur = text.startsWith("/") ? "/" : cwd;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      cur = dirname(cur);
      continue;
    }
    cur = joinPath(cur, seg);
    if (!segs.slice(i + 1).includes("..") || pathExists(cur) || madeByLine(ctx, cur)) continue;
    if (made.size === MAX_MKDIR_CHAIN) {
      problem(ctx, "over_bound", `mkdir -p ${text}: more than ${MAX_MKDIR_CHAIN} missing directories`, source);
      return false;
    }
    call(ctx, "fs_mkdir", { path: cur }, source);
    made.add(cur);
  }
  return true;
}

function isLinkNow(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Linux's MAXSYMLINKS: open(2) follows this many links and fails with ELOOP after. */
const MAX_LINKS = 40;

/** Writing through a symbolic link writes its target (POSIX open(2) follows links): the path judged
 * is the link's final target, or the link itself when it does not resolve within MAX_LINKS hops (a
 * loop, or a chain open(2) refuses too, so nothing is written through it). */
export function followLinks(p: string): string {
  let cur = p;
  for (let i = 0; i <= MAX_LINKS; i++) {
    let target: string;
    try {
      // readlink(2) fails on anything that is not a link (EINVAL) or not there (ENOENT).
      target = readlinkSync(cur);
    } catch {
      return cur;
    }
    // An absolute target replaces the directory (joinPath starts again at `/`).
    cur = joinPath(dirname(cur), target);
  }
  return p;
}

function isDirectory(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function redirects(ctx: Ctx, rs: Redirect[], cwd: string | null, source: string): void {
  for (const r of rs) {
    if (r.target === null || !r.op.includes(">")) continue;
    // `2>&1`, `>&2`: a descriptor, not a file (`<&3` reads; `>&-` closes and has no target).
    if (r.op === ">&" && r.target.text !== null && /^(\d+|-)$/.test(r.target.text)) continue;
    if (r.target.text !== null && DEVICES.test(r.target.text)) continue;
    // bash opens a network connection for /dev/tcp/HOST/PORT and /dev/udp/…: what is written leaves the machine.
    if (r.target.text !== null && /^\/dev\/(tcp|udp)\//.test(r.target.text)) {
      call(ctx, "remote_write", { command: `${source} ${r.op} ${r.target.raw}`.slice(0, 200) }, source);
      continue;
    }
    if (r.target.glob) {
      problem(ctx, "unresolved_argument", `${r.target.raw}: a glob as a redirection target`, source);
      continue;
    }
    const p = paths(ctx, [r.target], cwd, source);
    if (p !== null) for (const x of p) call(ctx, "fs_write", { path: followLinks(x) }, source);
  }
}

/** Splits argv after the command name into options and operands (`--` ends options). */
function operands(args: Word[], optionsWithValue: readonly string[]): { opts: string[]; ops: Word[]; optValues: Map<string, Word>; values: [string, Word][] } {
  const opts: string[] = [];
  const ops: Word[] = [];
  // The last value of each option, and every value in order (`sed -e A -e B`).
  const optValues = new Map<string, Word>();
  const values: [string, Word][] = [];
  const set = (name: string, w: Word): void => {
    optValues.set(name, w);
    values.push([name, w]);
  };
  let done = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const t = w.text;
    if (done || t === null || !t.startsWith("-") || t === "-") {
      ops.push(w);
      continue;
    }
    if (t === "--") {
      done = true;
      continue;
    }
    const eq = t.indexOf("=");
    const name = t.startsWith("--") && eq > 0 ? t.slice(0, eq) : t;
    opts.push(name);
    if (optionsWithValue.includes(name)) {
      if (t.startsWith("--") && eq > 0) set(name, { ...w, text: t.slice(eq + 1) });
      else if (i + 1 < args.length) set(name, args[++i]!);
    } else if (!t.startsWith("--") && t.length > 2) {
      // Bundled short options: -rf; one taking a value ends the bundle (-n5, -t dir).
      for (let k = 1; k < t.length; k++) {
        const o = `-${t[k]}`;
        opts.push(o);
        if (optionsWithValue.includes(o)) {
          if (k + 1 < t.length) set(o, { ...w, text: t.slice(k + 1) });
          else if (i + 1 < args.length) set(o, args[++i]!);
          break;
        }
      }
    }
  }
  return { opts, ops, optValues, values };
}

/** Wrappers' options that set the directory the command runs in. */
const WRAPPER_CHDIR: Record<string, readonly string[]> = { env: ["-C", "--chdir"], sudo: ["-D", "--chdir"] };

const has = (opts: string[], ...names: string[]): boolean => names.some((n) => opts.includes(n));

/** The missing ancestors `mkdir -p` may create in one path before the line is asked instead. */
const MAX_MKDIR_CHAIN = 64;

function simple(ctx: Ctx, c: SimpleCommand): void {
  ctx.out.commands++;
  if (c.argv.length > 0) {
    for (const [name, value] of Object.entries(c.env)) {
      const why = codeVariable(name, value);
      if (why !== null) problem(ctx, "unknown_effect", `${c.argv[0]!.raw}: ${why}`, c.text);
    }
  } else {
    // A variable set on its own (`export LD_PRELOAD=./x.so; ls`, `PATH=.:$PATH; ls`): the commands after
    // it on the line run with it (exported, or already in the environment).
    for (const [name, value] of Object.entries(c.env)) {
      const why = codeVariable(name, value);
      if (why !== null) problem(ctx, "unknown_effect", `${name} set for the commands after it: ${why}`, c.text);
    }
  }
  redirects(ctx, c.redirects, c.cwd, c.text);
  run(ctx, c.argv, c.cwd, c.text);
  // A `cd` that fails leaves the commands after it where they were (`cd build; rm -rf *`): its
  // directory must be one now, or be made earlier on the line.
  if (c.chdir !== undefined && !isDirectoryNow(c.chdir) && !ctx.out.calls.some((k) => k.name === "fs_mkdir" && k.arguments.path === c.chdir)) {
    problem(ctx, "unresolved_argument", `cd to ${c.chdir}, which is not a directory now: if the cd fails, the commands after it run where they were`, c.text);
  }
}

/** A directory, or a link to one. */
function isDirectoryNow(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A sed script of commands that only print, substitute, branch and read (GNU sed's `p`, `d`, `s///`
 * without the `w` and `e` flags, `y`, labels, `a`/`i`/`c` text, `r`/`R`, blocks), each with its
 * addresses: anything else (`w`, `W`, `e`, an address form not listed) is not read as read-only. Each
 * part ends where the next must start (the lookaheads), so a script that does not match is refused in
 * time linear in its length, never by trying every split of it. */
const SED_ADDRESS = String.raw`(?:\d+(?:~\d+)?(?!\d)|\$|/(?:\\.|[^/\\\n])*/[IM]*(?![IM]))`;
const SED_COMMAND = [
  String.raw`[pdDnNPhHgGxzF=]`,
  String.raw`[qQlL](?:[ \t]*\d+)?(?![ \t]*\d)`,
  String.raw`[{}]`,
  String.raw`[btT](?:[ \t]*[^;\n}\s#]+)?(?![ \t]*[^;\n}\s#])`,
  String.raw`:[ \t]*[^;\n}\s#]+(?![^;\n}\s#])`,
  String.raw`[#aicrR][^\n]*(?![^\n])`,
  String.raw`s(?<s>[^\\\n])(?:\\.|(?!\k<s>)[^\\\n])*\k<s>(?:\\[\s\S]|(?!\k<s>)[^\\])*\k<s>[gpiImM\d]*(?![gpiImM\d])`,
  String.raw`y(?<y>[^\\\n])(?:\\.|(?!\k<y>)[^\\\n])*\k<y>(?:\\.|(?!\k<y>)[^\\\n])*\k<y>`,
].join("|");
const SED_READ_ONLY = new RegExp(String.raw`^(?:[\s;]*(?:${SED_ADDRESS}(?:\s*,\s*(?:${SED_ADDRESS}|[+~]\d+(?!\d)))?\s*(?:!\s*)?)?(?:${SED_COMMAND}))*[\s;]*$`);

/** The first word (or the operand count) that makes a read-only command write or change the system,
 * or null. An operand that is not known may be any of them. */
function notReadOnly(u: ReadOnlyUnless | undefined, args: Word[]): string | null {
  if (u === undefined) return null;
  const { opts, ops } = operands(args, u.optionsWithValue ?? []);
  const cut = abbreviation(args, [...(u.options ?? []), ...(u.optionsWithValue ?? [])]);
  if (cut !== null) return cut;
  const option = opts.find((o) => u.options?.includes(o));
  if (option !== undefined) return option;
  for (const w of ops) {
    if (w.text === null) return w.raw;
    if (u.words?.includes(w.text) === true || (u.operandPrefix !== undefined && w.text.startsWith(u.operandPrefix))) return w.text;
  }
  if (u.operands !== undefined && ops.length > u.operands) return `with ${ops.length} operands`;
  return null;
}

/** Judges argv (a command and its arguments) run in cwd. */
function run(ctx: Ctx, argv: Word[], cwd: string | null, source: string): void {
  if (argv.length === 0) return;
  const head = argv[0]!;
  if (head.text === null || head.glob) {
    problem(ctx, "unresolved_argument", `the command name ${head.raw} is not known: ${head.why ?? "a glob"}`, source);
    return;
  }
  const name = head.text;
  const rest = argv.slice(1);
  const wrap = ctx.cat.wrappers[name];
  if (wrap !== undefined) {
    let i = 0;
    let positionals = wrap.positionals ?? 0;
    // `env -C DIR cmd`, `sudo -D DIR cmd`: the command runs in DIR.
    let dir = cwd;
    const chdir = WRAPPER_CHDIR[name] ?? [];
    while (i < rest.length) {
      const t = rest[i]!.text;
      if (t === null) {
        problem(ctx, "unresolved_argument", `${rest[i]!.raw}: an argument of ${name} is not known`, source);
        return;
      }
      if (t === "--") {
        i++;
        break;
      }
      if (t.startsWith("-") && t !== "-") {
        if (abbreviation([rest[i]!], longOptions(ctx, name)) !== null) return problem(ctx, "unresolved_argument", abbreviated(name, t), source);
        // The value in the word (`--chdir=DIR`, `-CDIR`) or the next word (`-C DIR`).
        const eq = t.startsWith("--") ? t.indexOf("=") : -1;
        const short = !t.startsWith("--") && t.length > 2 && chdir.includes(t.slice(0, 2));
        const inWord = eq > 0 ? t.slice(eq + 1) : short ? t.slice(2) : null;
        if (chdir.includes(eq > 0 ? t.slice(0, eq) : t) || short) {
          const v = inWord ?? rest[i + 1]?.text;
          // chdir(2) resolves a `..` on the filesystem (`env -C far/.. rm x`, far a link elsewhere).
          const up = v === undefined || v === null || dir === null ? null : parentSteps(ctx, dir, v);
          if (up !== null) return problem(ctx, "unresolved_argument", `${name} ${t}: ${up}`, source);
          dir = v === undefined || v === null || dir === null ? null : joinPath(dir, v);
          i += inWord === null ? 2 : 1;
          continue;
        }
        const option = eq > 0 ? t.slice(0, eq) : t;
        // `env -S 'rm x'` (`-S'rm x'`, `--split-string=…`) runs a line env splits itself.
        if (wrap.commandOptions?.some((o) => o === option || (!o.startsWith("--") && t.startsWith(o))) === true) {
          problem(ctx, "unknown_effect", `${name} ${option.slice(0, 2) === "--" ? option : option.slice(0, 2)} runs a command line whose effect is not known`, source);
          return;
        }
        // `time -o FILE cmd` writes its report to FILE.
        if (wrap.outputOptions?.includes(option) === true) {
          const v = eq > 0 ? { ...rest[i]!, text: t.slice(eq + 1) } : rest[i + 1];
          if (v === undefined) problem(ctx, "unresolved_argument", `${name}: an output option without a value`, source);
          else {
            const ps = paths(ctx, [v], dir, source);
            if (ps !== null) for (const p of ps) call(ctx, "fs_write", { path: followLinks(p) }, source);
          }
          i += eq > 0 ? 1 : 2;
          continue;
        }
        i += wrap.optionsWithValue.includes(t) ? 2 : 1;
        continue;
      }
      if (wrap.assignments === true && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
        const eq = t.indexOf("=");
        const why = codeVariable(t.slice(0, eq), { ...rest[i]!, text: t.slice(eq + 1) });
        if (why !== null) problem(ctx, "unknown_effect", `${name}: ${why}`, source);
        i++;
        continue;
      }
      if (positionals > 0) {
        positionals--;
        i++;
        continue;
      }
      break;
    }
    if (i >= rest.length) {
      // `env` alone prints the environment: read-only by the catalogue.
      if (ctx.cat.readOnly.has(name) || wrap.onlyWithOperands === true) return;
      problem(ctx, "unknown_effect", `${name} with no command reads standard input`, source);
      return;
    }
    if (name === "command" && (rest[0]?.text === "-v" || rest[0]?.text === "-V")) return;
    run(ctx, rest.slice(i), dir, source);
    return;
  }
  // `trap 'rm -rf x' EXIT` runs its string later, in this shell: code whose effect is not known. A
  // listing (`trap`, `-p`, `-l`, `-P`), `trap - SIG` (reset) and `trap '' SIG` (ignore) run nothing.
  const trapped = rest[0]?.text === "--" ? rest.slice(1) : rest;
  if (name === "trap" && trapped.length > 1 && !["-", "", "-p", "-P", "-l"].includes(trapped[0]!.text as string)) {
    problem(ctx, "unknown_effect", "trap runs code later whose effect is not known", source);
    return;
  }
  for (const v of variablesSet(name, rest)) {
    const why = v.text === null ? `${v.raw} is not known` : codeVariable(v.text, { text: null });
    if (why !== null) problem(ctx, "unknown_effect", `${name} sets a variable for the commands after it: ${why}`, source);
  }
  if (ctx.cat.readOnly.has(name)) {
    const why = notReadOnly(ctx.cat.readOnlyUnless[name], rest);
    if (why !== null) problem(ctx, "unknown_effect", `${name} ${why} may write files or change the system`, source);
    return;
  }
  const entry = ctx.cat.commands[name];
  if (entry === undefined) {
    if (name.includes("/")) problem(ctx, "unknown_effect", `${name} runs a program whose effect is not known`, source);
    else problem(ctx, "unknown_command", `${name} is not in the command catalogue`, source);
    return;
  }
  // An output option (sort -o FILE) takes a value like the options that are listed as taking one.
  const { opts, ops, optValues, values } = operands(rest, [...(entry.optionsWithValue ?? []), ...(entry.outputOptions ?? [])]);
  const cut = GNU_EFFECTS.has(entry.effect) ? abbreviation(entry.effect === "xargs" && ops.length > 0 ? rest.slice(0, rest.indexOf(ops[0]!)) : rest, longOptions(ctx, name)) : null;
  if (cut !== null) return problem(ctx, "unresolved_argument", abbreviated(name, cut), source);
  switch (entry.effect) {
    case "remove": {
      const ps = paths(ctx, ops, cwd, source);
      if (ps === null) return;
      for (const p of ps) {
        call(ctx, "fs_remove", { path: p }, source);
        // shred overwrites the file a link points to (and with -u removes the link).
        if (name === "shred" && followLinks(p) !== p) call(ctx, "fs_write", { path: followLinks(p) }, source);
      }
      return;
    }
    case "write": {
      // `chmod MODE FILE…`, but `chmod --reference=REF FILE…`: with a reference there is no mode operand;
      // nor with a mode written as an option (GNU chmod reads `-x`, `-rw`, `-755` as modes).
      const modeOption = name === "chmod" && opts.some((o) => /^-[rwxXstugoa,+=0-7]/.test(o));
      const ps = paths(ctx, ops.slice(has(opts, "--reference") || modeOption ? 0 : (entry.skipOperands ?? 0)), cwd, source);
      if (ps !== null) for (const p of ps) call(ctx, "fs_write", { path: followLinks(p) }, source);
      return;
    }
    case "write_option": {
      for (const o of entry.outputOptions ?? []) {
        const v = optValues.get(o);
        if (v === undefined) continue;
        const ps = paths(ctx, [v], cwd, source);
        if (ps !== null) for (const p of ps) call(ctx, "fs_write", { path: followLinks(p) }, source);
      }
      if ((entry.outputOptions ?? []).some((o) => opts.includes(o) && !optValues.has(o))) problem(ctx, "unresolved_argument", `${name}: an output option without a value`, source);
      return;
    }
    case "mkdir": {
      const parents = has(opts, "-p", "--parents");
      // `mkdir -p x/../y` walks the path as written: it makes x (then x/.. is the directory x is in), then y.
      const made = new Set<string>();
      if (parents && cwd !== null) for (const w of ops) if (w.text !== null && !w.glob && !mkdirBeforeParentSteps(ctx, cwd, w.text, source, made)) return;
      const ps = paths(ctx, ops, cwd, source);
      if (ps === null) return;
      for (const p of ps) {
        if (parents) {
          const chain: string[] = [];
          // Only the missing ancestors are created (and removed again by the undo); every one of them,
          // or the undo would leave the outer ones behind.
          // `/` always exists, so the walk ends there at the latest.
          // (Not those an earlier mkdir of the line makes: it may fail, `mkdir a/b; mkdir -p a/b/c`.)
          for (let d = dirname(p); !pathExists(d) && !made.has(d); d = dirname(d)) {
            if (chain.length === MAX_MKDIR_CHAIN) {
              problem(ctx, "over_bound", `mkdir -p ${p}: more than ${MAX_MKDIR_CHAIN} missing directories`, source);
              return;
            }
            chain.unshift(d);
          }
          for (const d of chain) call(ctx, "fs_mkdir", { path: d }, source);
        }
        call(ctx, "fs_mkdir", { path: p }, source);
      }
      return;
    }
    case "copy":
    case "move":
    case "link": {
      const target = optValues.get("-t") ?? optValues.get("--target-directory");
      let srcWords = ops;
      let destWord: Word | undefined = target;
      if (destWord === undefined) {
        if (entry.effect === "link" && ops.length === 1) {
          destWord = { text: ".", raw: ".", glob: false, why: null };
        } else {
          destWord = ops[ops.length - 1];
          srcWords = ops.slice(0, -1);
        }
      }
      if (destWord === undefined || srcWords.length === 0) {
        problem(ctx, "unresolved_argument", `${name}: no source or destination`, source);
        return;
      }
      // `cp --parents src/x.ts out` writes out/src/x.ts (the source's path under the destination).
      if (has(opts, "--parents")) {
        problem(ctx, "unknown_effect", `${name} --parents: writes the sources' whole paths under the destination`, source);
        return;
      }
      const dest = paths(ctx, [destWord], cwd, source);
      if (dest === null || dest.length !== 1) {
        if (dest !== null) problem(ctx, "unresolved_argument", `${name}: the destination matches ${dest.length} paths`, source);
        return;
      }
      // Link targets are not read (a symbolic link's target is text); sources are paths.
      const srcs = entry.effect === "link" ? srcWords.map((w) => (w.text === null ? null : joinPath(cwd ?? "/", w.text))) : paths(ctx, srcWords, cwd, source);
      if (srcs === null || srcs.includes(null)) {
        if (srcs !== null) problem(ctx, "unresolved_argument", `${name}: a source is not known`, source);
        return;
      }
      // A destination that is a directory, or a link to one (cp, mv and ln follow it: `mv a dl` with dl ->
      // d moves a to d/a; not with -T, nor ln -n), receives the sources under their names; so does one an
      // earlier mkdir of the line makes (`mkdir into && mv dir into` makes into/dir).
      const folder = isDirectoryNow(dest[0]!) || (madeByLine(ctx, dest[0]!) && !pathExists(dest[0]!));
      const intoDir = target !== undefined || srcs.length > 1 || (folder && !has(opts, "-T", "--no-target-directory") && !(entry.effect === "link" && has(opts, "-n", "--no-dereference")));
      const into = intoDir ? followLinks(dest[0]!) : dest[0]!;
      // A source copied as `dir/.` into a folder is its contents, merged into the folder itself (`cp -a
      // dir/. out/` writes out/x, not out/dir; `cp -r . out` too); one copied as `dir/..` goes in as out/..
      const contents = new Set<string>();
      if (entry.effect === "copy") {
        for (const w of srcWords) {
          if (w.text === null) continue;
          if (intoDir && /(^|\/)\.\.\/*$/.test(w.text)) return problem(ctx, "unresolved_argument", `${name} ${w.raw}: a source ending in .. is copied under the name ..`, source);
          if (!w.glob && /(^|\/)\.\/*$/.test(w.text)) contents.add(joinPath(cwd ?? "/", w.text));
        }
      }
      // What the line makes a link at: every `ln`; `cp -l`/`-s`; a link moved, or copied as a link (cp
      // -a/-d/-P/-R keep a source that is a link a link; without them cp copies what it points to).
      const linkCopy = has(opts, "-l", "--link", "-s", "--symbolic-link");
      const keepsLinks = has(opts, "-a", "--archive", "-d", "-P", "--no-dereference", "-R", "-r", "--recursive") && !has(opts, "-L", "--dereference");
      for (const s of srcs as string[]) {
        const d = intoDir && !contents.has(s) ? joinPath(into, basename(s)) : into;
        if (entry.effect === "link" || (entry.effect === "copy" && (linkCopy || (keepsLinks && isLinkNow(s)))) || (entry.effect === "move" && isLinkNow(s))) ctx.links.push(d);
        // The links inside a folder moved, or copied with its links (ctx.moved).
        if (entry.effect === "move" || (entry.effect === "copy" && keepsLinks)) ctx.moved.push({ from: s, to: d });
        if (entry.effect === "move") call(ctx, "fs_move", { source: s, destination: d }, source);
        // cp writes through a link to a file; install and `cp --remove-destination` remove the link
        // first and write a new file in its place (checked with coreutils 9 here).
        else if (entry.effect === "copy") call(ctx, "fs_write", { path: name === "install" || has(opts, "--remove-destination") ? d : followLinks(d) }, source);
        else call(ctx, "fs_write", { path: d }, source);
      }
      return;
    }
    case "tee": {
      const ps = paths(ctx, ops, cwd, source);
      if (ps !== null) for (const p of ps) if (!DEVICES.test(p)) call(ctx, "fs_write", { path: followLinks(p) }, source);
      return;
    }
    case "sed": {
      // `-i.bak`, `-ni` are bundles that hold `-i`; `--in-place=.bak` is named `--in-place` (operands()).
      const inPlace = has(opts, "-i", "--in-place");
      const scriptOptions = has(opts, "-e", "--expression", "-f", "--file");
      // The script may write files (`w`, `W`, `s///w`) or run commands (`e`, `s///e`): it is read
      // (sedReadOnly) unless --sandbox makes sed refuse those; a script file is not read at all.
      if (!has(opts, "--sandbox")) {
        const scripts = scriptOptions ? values.filter(([o]) => o === "-e" || o === "--expression" || o === "-f" || o === "--file") : ops.slice(0, 1).map((w): [string, Word] => ["", w]);
        for (const [o, w] of scripts) {
          if (o === "-f" || o === "--file") problem(ctx, "unknown_effect", `${name}: the script file ${w.raw} is not read`, source);
          else if (w.text === null) problem(ctx, "unresolved_argument", `${name}: the script ${w.raw} is not known`, source);
          else if (!SED_READ_ONLY.test(w.text)) problem(ctx, "unknown_effect", `${name}: the script ${w.raw} may write files or run commands (w, W, e)`, source);
        }
      }
      if (!inPlace) return;
      const files = scriptOptions ? ops : ops.slice(1);
      const ps = paths(ctx, files, cwd, source);
      // sed -i replaces a symbolic link by a file; with --follow-symlinks it writes the link's target.
      const follow = has(opts, "--follow-symlinks");
      if (ps !== null) for (const p of ps) call(ctx, "fs_write", { path: follow ? followLinks(p) : p }, source);
      return;
    }
    case "find":
      find(ctx, rest, cwd, source);
      return;
    case "xargs": {
      // xargs' options end at the command (`xargs yq -i …`: the -i is yq's).
      const inner = ops.length === 0 ? [] : rest.slice(rest.indexOf(ops[0]!));
      if (inner.length === 0) return; // echo
      const innerName = inner[0]!.text;
      // The arguments come from standard input: only a read-only command is safe whatever they are.
      if (innerName !== null && ctx.cat.readOnly.has(innerName) && !ctx.cat.wrappers[innerName] && !ctx.cat.readOnlyUnless[innerName]) return;
      run(ctx, inner, cwd, source);
      problem(ctx, "unresolved_argument", `xargs feeds ${inner[0]!.raw} arguments from standard input`, source);
      return;
    }
    case "shell": {
      // The shell's own options come first (`-o OPT`, `-O OPT`, `--rcfile FILE` take a value; `-` and
      // `--` end them); with `-c` the first operand is the command string, without it a script file
      // (`bash ./x.sh -c ls` runs x.sh: the `-c` after it is the script's).
      let i = 0;
      let c = false;
      let info = false;
      for (; i < rest.length; i++) {
        const w = rest[i]!;
        const t = w.text;
        if (t === null) {
          // After `-c`: the string, or an option before it (either way the string is not known).
          if (c) break;
          problem(ctx, "unresolved_argument", `${name}: an argument ${w.raw} is not known`, source);
          return;
        }
        if (t === "--" || t === "-") {
          i++;
          break;
        }
        if (!/^[-+]./.test(t)) break;
        if (t === "--version" || t === "--help") info = true;
        else if (t === "--rcfile" || t === "--init-file") i++;
        else if (!t.startsWith("--")) {
          if (t.startsWith("-") && t.includes("c")) c = true;
          if (/[oO]/.test(t)) i++;
        }
      }
      if (info) return;
      if (!c) {
        problem(ctx, "unknown_effect", `${name} runs a script whose effect is not known`, source);
        return;
      }
      const script = rest[i];
      if (script === undefined || script.text === null) {
        problem(ctx, "unresolved_argument", `${name} -c with a string that is not known`, source);
        return;
      }
      if (cwd === null) {
        problem(ctx, "unresolved_argument", `${name} -c in a directory that is not known`, source);
        return;
      }
      // The links the line made so far reach into the string, and the string's reach the rest of the line.
      const inner = dispatchCommand(script.text, cwd, ctx.cat, ctx.home, ctx.depth + 1, ctx.links, ctx.moved);
      ctx.out.calls.push(...inner.calls);
      ctx.out.problems.push(...inner.problems);
      ctx.out.commands += inner.commands;
      return;
    }
    case "cd":
      return;
    case "git":
      git(ctx, rest, cwd, source);
      return;
    case "remote":
      remote(ctx, name, rest, opts, ops, cwd, source);
      return;
    case "environment":
      environment(ctx, name, rest, ops, opts, source);
      return;
    case "program":
      if (rest.length === 1 && (rest[0]!.text === "--version" || rest[0]!.text === "-V" || rest[0]!.text === "--help")) return;
      problem(ctx, "unknown_effect", `${name} runs code whose effect is not known`, source);
      return;
    default:
      problem(ctx, "unknown_command", `${name}: catalogue effect \`${entry.effect}\` is not known`, source);
  }
}

function find(ctx: Ctx, args: Word[], cwd: string | null, source: string): void {
  let i = 0;
  // How find treats symbolic links (the last of -H, -L, -P; `-follow` in the expression is -L).
  let follow = "P";
  // GNU find's options before the roots: `-H`, `-L`, `-P`, `-D DEBUGOPTS`, `-OLEVEL` (`find -L DIR
  // -delete` deletes under DIR, not under `.`).
  while (i < args.length) {
    const t = args[i]!.text;
    if (t === "-H" || t === "-L" || t === "-P") {
      follow = t.slice(1);
      i++;
    } else if (t !== null && /^-O\d*$/.test(t)) i++;
    else if (t === "-D") i += 2;
    else break;
  }
  const roots: Word[] = [];
  while (i < args.length) {
    const t = args[i]!.text;
    if (t !== null && (t.startsWith("-") || t === "(" || t === "!")) break;
    roots.push(args[i]!);
    i++;
  }
  // `-files0-from FILE` reads the starting points from FILE: not `.`.
  if (args.some((w) => w.text === "-files0-from")) {
    problem(ctx, "unresolved_argument", "find -files0-from: the starting points are read from a file", source);
    return;
  }
  const listed = paths(ctx, roots.length === 0 ? [{ text: ".", raw: ".", glob: false, why: null }] : roots, cwd, source);
  if (listed === null) return;
  if (args.slice(i).some((w) => w.text === "-follow")) follow = "L";
  // -H: a root that is a link is followed (its target's files are found; the link stays): both judged.
  const rootPaths = follow !== "H" ? listed : [...new Set(listed.flatMap((r) => [r, followLinks(r)]))];
  /** -L follows every link it meets: what it deletes or changes is also where links under the roots lead. */
  const followsLinks = (what: string): boolean => {
    if (follow === "L") problem(ctx, "unresolved_argument", `find -L (or -follow) ${what} through the symbolic links under its starting points: what they reach is not judged`, source);
    return follow === "L";
  };
  for (; i < args.length; i++) {
    const t = args[i]!.text;
    if (t === "-delete" && followsLinks("deletes")) return;
    if (t === "-delete") {
      // Everything it may delete is under its roots: judged (and kept) as the roots.
      for (const r of rootPaths) call(ctx, "fs_remove", { path: r }, source);
    } else if (t === "-exec" || t === "-execdir" || t === "-ok" || t === "-okdir") {
      const inner: Word[] = [];
      let j = i + 1;
      for (; j < args.length; j++) {
        const x = args[j]!.text;
        if (x === ";" || x === "+") break;
        inner.push(args[j]!);
      }
      i = j;
      const innerName = inner[0]?.text;
      if (innerName === undefined || innerName === null) {
        problem(ctx, "unresolved_argument", "find -exec without a command", source);
        continue;
      }
      // A read-only wrapper (`env`, `command`) runs the command after it on the files.
      // A read-only command that writes with some arguments (readOnlyUnless) gets them from find.
      if (ctx.cat.readOnly.has(innerName) && !ctx.cat.wrappers[innerName] && !ctx.cat.readOnlyUnless[innerName]) continue;
      const effect = ctx.cat.commands[innerName]?.effect;
      if ((effect === "remove" || effect === "write" || effect === "sed") && followsLinks(`runs ${innerName}`)) return;
      // chmod, chown, touch, truncate and shred act on what a link they are given points to (find gives
      // them the links it finds): a link under the roots reaches what the roots do not hold.
      if (effect === "write" || innerName === "shred") {
        const link = linkUnder(rootPaths);
        if (link !== null) {
          problem(ctx, "unresolved_argument", `find -exec ${innerName}: ${link}, which ${innerName} follows: what it reaches is not judged`, source);
          return;
        }
      }
      if (effect === "remove") for (const r of rootPaths) call(ctx, "fs_remove", { path: r }, source);
      else if (effect === "write" || effect === "sed") for (const r of rootPaths) call(ctx, "fs_write", { path: r }, source);
      else problem(ctx, "unresolved_argument", `find -exec ${innerName} acts on the files find lists`, source);
    } else if (t === "-fprint" || t === "-fprint0" || t === "-fprintf" || t === "-fls") {
      const w = args[i + 1];
      if (w === undefined) continue;
      const ps = paths(ctx, [w], cwd, source);
      if (ps !== null) for (const p of ps) call(ctx, "fs_write", { path: followLinks(p) }, source);
      i++;
    }
  }
}

/** The first symbolic link at or under the paths ("… is a link"), a walk over its bound, or null. */
function linkUnder(roots: readonly string[]): string | null {
  let n = 0;
  const walk = (p: string): string | null => {
    if (++n > MAX_LINK_WALK) return `more than ${MAX_LINK_WALK} entries under ${roots.join(", ")} (any may be a link)`;
    let st;
    try {
      st = lstatSync(p);
    } catch {
      return null; // (absent: nothing under it)
    }
    if (st.isSymbolicLink()) return `${p} is a symbolic link`;
    if (!st.isDirectory()) return null;
    let names: string[];
    try {
      names = readdirSync(p).sort();
    } catch {
      return `${p} cannot be read`;
    }
    for (const name of names) {
      const found = walk(`${p === "/" ? "" : p}/${name}`);
      if (found !== null) return found;
    }
    return null;
  };
  for (const r of roots) {
    const found = walk(r);
    if (found !== null) return found;
  }
  return null;
}

/** Entries linkUnder walks before it answers that one may be a link. */
const MAX_LINK_WALK = 20_000;

/** A repository's `.git`, its config (`config`, `config.worktree`) or a hook: what git runs in later
 * commands (a commit its hooks, `git status` a `core.fsmonitor`, any command an alias or pager). A write
 * there is undone like any other, but the commands after it, read as they are, would run it. */
export function gitCode(p: string): boolean {
  return /(^|\/)\.git(\/(.*\/)?(config(\.worktree)?|hooks(\/.*)?))?$/.test(p);
}

export const gitCodeDetail = (p: string): string => `${p}: git runs the settings and hooks there in later commands (a commit its hooks, \`git status\` a core.fsmonitor)`;

/** The variables a builtin sets as an assignment would (`read PATH`, `read -a NAME`, `printf -v PATH …`,
 * `getopts OPTS NAME`, and `unset PATH`): one that loads or runs code changes what the commands after it run. */
function variablesSet(name: string, rest: Word[]): Word[] {
  if (name === "read") {
    const o = operands(rest, ["-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u"]);
    const array = o.optValues.get("-a");
    return array === undefined ? o.ops : [...o.ops, array];
  }
  if (name === "printf") {
    const v = operands(rest, ["-v"]).optValues.get("-v");
    return v === undefined ? [] : [v];
  }
  // `unset PATH`: bash then runs a command from the working directory (`unset PATH; ls` runs ./ls).
  if (name === "unset") {
    const o = operands(rest, []);
    return has(o.opts, "-f") ? [] : o.ops.filter((w) => w.text === null || w.text === "PATH");
  }
  return name === "getopts" ? rest.slice(1, 2) : [];
}

/** GNU getopt_long (coreutils, sed, xargs, sudo) and git take any unique prefix of a long option
 * (`sed --i` is `--in-place`, `sort --o=F` `--output`, `env --sp=LINE` `--split-string`, `git clean --forc`
 * `--force`, `git reset --har` `--hard`): the first word before `--` that is a proper prefix of one of
 * the long options the dispatcher reads, and is not one of them itself, or null. */
function abbreviation(words: readonly Word[], known: readonly string[]): string | null {
  for (const w of words) {
    const t = w.text;
    if (t === "--") return null;
    if (t === null || !t.startsWith("--") || t.length === 2) continue;
    const eq = t.indexOf("=");
    const name = eq > 0 ? t.slice(0, eq) : t;
    if (!known.includes(name) && known.some((k) => k.startsWith(name))) return t;
  }
  return null;
}

const abbreviated = (name: string, word: string): string => `${name} ${word}: an abbreviated long option (the command takes a unique prefix as the option): write it in full`;

/** The catalogue's commands whose options GNU getopt_long reads (every effect but the shell, find, git,
 * remote and environment ones, which are read by their own rules). */
const GNU_EFFECTS = new Set(["remove", "write", "write_option", "mkdir", "copy", "move", "link", "tee", "sed", "xargs"]);
/** The long options each effect's rule reads besides the catalogue's lists. */
const EFFECT_OPTIONS: Record<string, readonly string[]> = {
  write: ["--reference"],
  mkdir: ["--parents"],
  copy: ["--target-directory", "--no-target-directory", "--parents", "--remove-destination"],
  move: ["--target-directory", "--no-target-directory"],
  link: ["--target-directory", "--no-target-directory", "--no-dereference"],
  sed: ["--in-place", "--expression", "--file", "--sandbox", "--follow-symlinks"],
};

/** Every long option the catalogue and the dispatcher read for a command. */
function longOptions(ctx: Ctx, name: string): string[] {
  const w = ctx.cat.wrappers[name];
  const e = ctx.cat.commands[name];
  const u = ctx.cat.readOnlyUnless[name];
  return [
    ...(w?.optionsWithValue ?? []), ...(w?.outputOptions ?? []), ...(w?.commandOptions ?? []), ...(WRAPPER_CHDIR[name] ?? []),
    ...(e?.optionsWithValue ?? []), ...(e?.outputOptions ?? []), ...(e === undefined ? [] : (EFFECT_OPTIONS[e.effect] ?? [])),
    ...(u?.options ?? []), ...(u?.optionsWithValue ?? []),
  ].filter((o) => o.startsWith("--"));
}

/** `git -c` settings that run nothing (identity, colours, advice, display). */
const GIT_HARMLESS_SETTING = /^(user\.(name|email)|color\.[\w.-]+|advice\.[\w.-]+|core\.(quotepath|abbrev)|safe\.directory|init\.defaultbranch|column\.ui|pull\.(rebase|ff)|i18n\.[\w.-]+|log\.(date|decorate|abbrevcommit)|diff\.(renames|algorithm|colormoved|noprefix|mnemonicprefix)|merge\.conflictstyle|format\.pretty)$/i;

const GIT_READ = new Set([
  "status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree", "cat-file", "blame", "grep", "describe",
  "shortlog", "whatchanged", "count-objects", "help", "version", "check-ignore", "merge-base", "name-rev",
  "for-each-ref", "show-ref", "var", "rev-list", "diff-tree", "diff-files", "diff-index", "ls-remote", "annotate",
  "show-branch", "cherry", "range-diff", "format-patch", "verify-commit", "verify-tag", "fsck", "check-attr", "bisect",
]);

function git(ctx0: Ctx, args: Word[], cwd: string | null, source: string): void {
  let dir = cwd;
  // Every typed git call carries the directory git runs in (its repository is read from there).
  const ctx = ctx0;
  const gitCall = (name: string, a: Record<string, unknown>, src: string): void => {
    if (dir === null) {
      problem(ctx, "unresolved_argument", "git runs in a directory that is not known (cd)", src);
      return;
    }
    const withDir = name.startsWith("git_") ? { ...a, dir } : a;
    call(ctx, name, withDir, src);
  };
  let i = 0;
  let literal = false;
  let bare = false;
  // Global options before the subcommand.
  while (i < args.length) {
    const t = args[i]!.text;
    if (t === null) {
      problem(ctx, "unresolved_argument", `git: ${args[i]!.raw} is not known`, source);
      return;
    }
    if (t === "-C") {
      const d = args[i + 1];
      if (d === undefined || d.text === null || dir === null) {
        problem(ctx, "unresolved_argument", "git -C with a directory that is not known", source);
        return;
      }
      // git changes directory with chdir(2): a `..` is resolved on the filesystem.
      const up = parentSteps(ctx, dir, d.text);
      if (up !== null) {
        problem(ctx, "unresolved_argument", `git -C ${d.raw}: ${up}`, source);
        return;
      }
      dir = joinPath(dir, d.text);
      i += 2;
    } else if (t === "-c") {
      // `git -c diff.external=./x diff`, `-c core.fsmonitor=./x status`, `-c core.pager=…`: a setting
      // may run a command in any subcommand; only settings that run nothing pass.
      const v = args[i + 1]?.text;
      if (v === null || (v !== undefined && !GIT_HARMLESS_SETTING.test(v.split("=")[0]!))) {
        problem(ctx, "unknown_effect", `git -c ${v ?? args[i + 1]!.raw}: a setting that may run a command`, source);
        return;
      }
      i += 2;
    } else if (t === "--no-pager" || t === "--paginate" || t === "-p" || t === "--no-optional-locks" || t === "-P" || t === "--bare" || t === "--literal-pathspecs") {
      if (t === "--literal-pathspecs") literal = true;
      if (t === "--bare") bare = true;
      i++;
    } else if (t.startsWith("-")) {
      problem(ctx, "unknown_effect", `git ${t}: a global option the dispatcher does not follow`, source);
      return;
    } else break;
  }
  // The loop above returned on an unknown word, so the subcommand is known when there is one.
  const sub = args[i]?.text;
  if (typeof sub !== "string") return;
  const rest = args.slice(i + 1);
  const cut = abbreviation(rest, GIT_READ.has(sub) ? GIT_READ_OPTIONS : [...(GIT_VALUE_OPTIONS[sub] ?? []), ...(GIT_OPTIONS[sub] ?? []), "--patch"]);
  if (cut !== null) {
    problem(ctx, "unresolved_argument", abbreviated(`git ${sub}`, cut), source);
    return;
  }
  if (GIT_READ.has(sub)) {
    if (sub === "bisect" && rest.length > 0) problem(ctx, "unknown_effect", "git bisect moves HEAD", source);
    // The reading commands' options that write a file or run a program.
    // `git grep -nO./x`: `-O` (its pager) in a bundle of short options, before any that takes a value.
    const writes = rest.find((w) => w.text === null || /^--(output|output-directory|open-files-in-pager|upload-pack)(=|$)|^-O/.test(w.text) || (sub === "grep" && /^-[^-ABCefm]*O/.test(w.text)) || (sub === "format-patch" && w.text === "-o"));
    if (writes !== undefined) problem(ctx, "unknown_effect", `git ${sub} ${writes.raw}: writes a file or runs a program`, source);
    else if (sub === "format-patch" && !rest.some((w) => w.text === "--stdout")) problem(ctx, "unknown_effect", "git format-patch writes patch files", source);
    return;
  }
  const { opts, ops, optValues, values } = operands(rest, GIT_VALUE_OPTIONS[sub] ?? []);
  // `git checkout --pathspec-from-file=list` (restore, rm, reset, add, stash, commit): the paths it
  // writes, removes or stages are read from a file.
  if (has(opts, "--pathspec-from-file")) {
    problem(ctx, "unresolved_argument", `git ${sub} --pathspec-from-file: the paths are read from a file`, source);
    return;
  }
  const text = ops.map((w) => w.text);
  const where = dir;
  // `-p`/`--patch` (checkout, restore, reset, add): the hunks are chosen interactively (`yes |` takes
  // every one) from the paths given, or from the whole tree without paths.
  const patch = has(opts, "-p", "--patch");
  const here: Word = { text: ".", raw: ".", glob: false, why: null };
  // git reads its path operands as pathspecs: `*`, `?`, `[` and `\` match in every folder (`git checkout
  // -- '*.txt'` discards the changes of every .txt file, and a shell glob that matched nothing reaches git
  // as it is) and a leading `:` is magic (`:/` the whole tree, `:!x` all but x). What a pattern matches
  // is not a path the dispatcher judges (unless git runs with --literal-pathspecs).
  // A shell glob reaches git as the names it matched, or as it is when it matched nothing (or where the
  // directory is not known).
  const matched = (w: Word): boolean => w.glob && where !== null && expandGlob(w.text!, where).matches.length > 0;
  const pattern = (ws: Word[]): Word | undefined =>
    literal ? undefined : ws.find((w) => w.text !== null && (w.text.startsWith(":") || (/[*?[\\]/.test(w.text) && !matched(w))));
  /** A path operand: it exists, or a shell glob gave git the names it matched (a branch name holds no glob character). */
  const existing = (w: Word): boolean => w.text !== null && where !== null && (matched(w) || pathExists(joinPath(where, w.text)));
  const pathList = (ws: Word[]): string[] | null => {
    const p = pattern(ws);
    if (p === undefined) return paths(ctx, ws, where, source);
    problem(ctx, "unresolved_argument", `git ${sub} ${p.raw}: git reads it as a pattern (a pathspec), and the paths it matches are not known`, source);
    return null;
  };
  /** fs_write of paths git writes from the index or the trees (no marker when a tree is not known). git
   * does not write a tracked path through a link in its way (a folder of the path, inside the
   * repository, that is a link now: `dir -> ../out/odir` for dir/a.txt): it removes the link and makes
   * the folder, so each such link is written too (kept by a restore point as the link it is). */
  let repoTop: string | null | undefined; // the repository git runs in: found at the first tracked write
  const trackedWrite = (p: string, trees: (string | null)[]): void => {
    if (repoTop === undefined) {
      repoTop = null;
      for (let d = where ?? "/"; repoTop === null; d = dirname(d)) {
        if (pathExists(`${d === "/" ? "" : d}/.git`)) repoTop = d;
        if (d === "/") break;
      }
    }
    const root = repoTop;
    const inTheWay: string[] = [];
    if (root !== null) for (let a = dirname(p); a.startsWith(`${root === "/" ? "" : root}/`); a = dirname(a)) if (isLinkNow(a)) inTheWay.unshift(a);
    for (const a of inTheWay) gitCall("fs_write", { path: a }, source);
    const before = ctx.out.calls.length;
    gitCall("fs_write", { path: p }, source);
    const c = ctx.out.calls[before];
    if (c !== undefined && trees.every((t) => t !== null)) c.tracked = { trees: trees as string[] };
  };
  /** The commit a reset, merge or rebase goes to: HEAD without one; a word not known is asked (`git reset
   * --hard $X` was judged as a reset to HEAD). */
  const target = (ref: string | null | undefined): string | null => {
    if (ref === null) problem(ctx, "unresolved_argument", `git ${sub}: the commit is not known`, source);
    return ref === null ? null : (ref ?? "HEAD");
  };
  const moveTo = (name: string, ref: string | null | undefined): void => {
    const t = target(ref);
    if (t !== null) gitCall(name, { target: t }, source);
  };
  switch (sub) {
    case "branch": {
      if (has(opts, "-d", "-D", "--delete")) {
        // `-r`: the remote-tracking branches (`git branch -dr origin/x` deletes refs/remotes/origin/x).
        const kind = has(opts, "-r", "--remotes") ? "remotes" : "heads";
        for (const n of text) if (n !== null) gitCall("git_ref_delete", { ref: `refs/${kind}/${n}` }, source);
        if (text.includes(null)) problem(ctx, "unresolved_argument", "git branch -d: a branch name is not known", source);
        return;
      }
      // -m moves a branch (-M over an existing one); -c copies it (-C over an existing one).
      const copy = has(opts, "-c", "-C", "--copy");
      if (copy || has(opts, "-m", "-M", "--move")) {
        const [a, b] = text.length === 1 ? [null, text[0]] : [text[0], text[1]];
        if (b === undefined || b === null || (a === null && !copy)) {
          problem(ctx, "unresolved_argument", `git branch ${copy ? "-c" : "-m"}: the old or new name is not known (the current branch)`, source);
          return;
        }
        if (!copy) gitCall("git_ref_delete", { ref: `refs/heads/${a}` }, source);
        if (has(opts, "-M", "-C", "-f", "--force")) gitCall("git_ref_delete", { ref: `refs/heads/${b}` }, source);
        gitCall("git_ref_add", { ref: `refs/heads/${b}` }, source);
        return;
      }
      if (has(opts, "-u", "--set-upstream-to", "--unset-upstream", "--edit-description")) {
        problem(ctx, "unknown_effect", "git branch: changes the branch's configuration (upstream, description)", source);
        return;
      }
      // Listing: no name, or an option that makes it a listing (`-a`/`-r` with a name fail). `-v`,
      // `--format` and `--sort` do not: `git branch -v -f x HEAD~3` moves x.
      if (ops.length === 0 || has(opts, "-a", "--all", "-r", "--remotes", "-l", "--list", "--show-current", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")) return;
      const n = text[0]!;
      if (n === null) {
        problem(ctx, "unresolved_argument", "git branch: the name is not known", source);
        return;
      }
      if (has(opts, "-f", "--force")) gitCall("git_ref_delete", { ref: `refs/heads/${n}` }, source);
      gitCall("git_ref_add", { ref: `refs/heads/${n}` }, source);
      return;
    }
    case "tag": {
      if (has(opts, "-d", "--delete")) {
        for (const n of text) if (n !== null) gitCall("git_ref_delete", { ref: `refs/tags/${n}` }, source);
        if (text.includes(null)) problem(ctx, "unresolved_argument", "git tag -d: a name is not known", source);
        return;
      }
      if (ops.length === 0 || has(opts, "-l", "--list", "-n", "--contains", "--points-at", "-v", "--verify")) return;
      const n = text[0]!;
      if (n === null) {
        problem(ctx, "unresolved_argument", "git tag: the name is not known", source);
        return;
      }
      if (has(opts, "-f", "--force")) gitCall("git_ref_delete", { ref: `refs/tags/${n}` }, source);
      gitCall("git_ref_add", { ref: `refs/tags/${n}` }, source);
      return;
    }
    case "reset": {
      const dd = rest.findIndex((w) => w.text === "--");
      const pathspec = dd >= 0 ? rest.slice(dd + 1) : [];
      if (has(opts, "--hard", "--merge", "--keep")) {
        moveTo("git_discard", text[0]);
        return;
      }
      // The operands before `--` (pathspec is empty below the next test).
      const commitish = ops;
      // `git reset [<tree>] -- <paths>` / `git reset <paths>`: the index entries of the paths.
      if (pathspec.length > 0 || (commitish.length > 0 && commitish.every(existing))) {
        gitCall("git_stage", { paths: (pathspec.length > 0 ? pathspec : commitish).map((w) => w.text ?? "") }, source);
        if (pathspec.some((w) => w.text === null)) problem(ctx, "unresolved_argument", "git reset: a path is not known", source);
        return;
      }
      if (commitish.length === 0) {
        gitCall("git_stage", { paths: ["."] }, source);
        return;
      }
      // `git reset TREE PATH…` (no `--`): HEAD moves to one commit only, so with more operands the first
      // is a tree and the others are paths whose index entries it sets (HEAD does not move).
      if (commitish.length >= 2) {
        gitCall("git_stage", { paths: commitish.slice(1).map((w) => w.text ?? "") }, source);
        if (commitish.some((w) => w.text === null)) problem(ctx, "unresolved_argument", "git reset: a path is not known", source);
        return;
      }
      // `git reset -p TREE`: the index entries of the chosen hunks, from TREE (HEAD does not move).
      if (patch) {
        gitCall("git_stage", { paths: ["."] }, source);
        return;
      }
      moveTo("git_move_head", text[0]);
      return;
    }
    case "checkout": {
      const dd = rest.findIndex((w) => w.text === "--");
      if (patch) {
        // `git checkout -p [<tree>] [--] [<paths>]` never switches: it writes the chosen hunks of the
        // paths (the whole tree without any) from the index, or from the tree into the index too.
        const tail = dd >= 0 ? rest.slice(dd + 1) : null;
        const trees = tail !== null ? ops.slice(0, ops.length - tail.length) : ops.every(existing) ? [] : ops.slice(0, 1);
        const named = tail ?? ops.slice(trees.length);
        const ps = pathList(named.length === 0 ? [here] : named);
        if (ps === null) return;
        for (const p of ps) trackedWrite(p, trees.map((w) => w.text));
        if (trees.length > 0) gitCall("git_stage", { paths: ps }, source);
        return;
      }
      if (dd >= 0) {
        // `git checkout [<tree>] -- <paths>`: the work tree (and with a tree, the index) of the paths.
        const ps = pathList(rest.slice(dd + 1));
        if (ps === null) return;
        const trees = ops.slice(0, ops.length - rest.slice(dd + 1).length).map((w) => w.text);
        for (const p of ps) trackedWrite(p, trees);
        if (ops.length > rest.slice(dd + 1).length) gitCall("git_stage", { paths: ps }, source);
        return;
      }
      if (has(opts, "-b", "-B")) {
        const v = operands(rest, ["-b", "-B"]).optValues.get(has(opts, "-b") ? "-b" : "-B");
        if (v === undefined || v.text === null) {
          problem(ctx, "unresolved_argument", "git checkout -b: the name is not known", source);
          return;
        }
        if (has(opts, "-B")) gitCall("git_ref_delete", { ref: `refs/heads/${v.text}` }, source);
        gitCall("git_ref_add", { ref: `refs/heads/${v.text}` }, source);
        gitCall("git_switch", { target: v.text }, source);
        return;
      }
      if (has(opts, "--orphan")) {
        // A new unborn branch, HEAD moved onto it: not a state the ontology models.
        problem(ctx, "unknown_effect", "git checkout --orphan: switches to a new unborn branch", source);
        return;
      }
      if (has(opts, "-t", "--track")) {
        // `git checkout --track origin/x` creates and switches to a branch named from the remote one.
        problem(ctx, "unknown_effect", "git checkout --track without -b: creates a branch the dispatcher does not name", source);
        return;
      }
      // No branch name holds `*`, `?`, `[` or `\` (git check-ref-format): such an operand is a pathspec
      // (`git checkout '*.txt'` discards the changes of every .txt file); one starting with `:` is a
      // pathspec's magic or a commit found by its message (`:/fix`): asked either way.
      if (pattern(ops) !== undefined) {
        pathList(ops);
        return;
      }
      if (has(opts, "-f", "--force")) gitCall("git_discard", { target: "HEAD" }, source);
      // `git checkout --detach` without a commit detaches HEAD where it is (git-checkout(1)).
      const t0 = text.length === 0 && has(opts, "--detach") ? "HEAD" : text[0];
      if (t0 === undefined) return;
      if (t0 === null) {
        problem(ctx, "unresolved_argument", "git checkout: the target is not known", source);
        return;
      }
      // `git checkout <path>` (no `--`): a path that exists is a path.
      if (ops.length > 0 && ops.every(existing)) {
        const ps = pathList(ops);
        if (ps !== null) for (const p of ps) trackedWrite(p, []);
        return;
      }
      // `git checkout <tree-ish> <paths>…` (no `--`): only one branch can be switched to, so with more
      // operands the first is a tree and the others are paths written from it (and staged).
      if (ops.length >= 2) {
        const ps = pathList(ops.slice(1));
        if (ps === null) return;
        for (const p of ps) trackedWrite(p, [t0]);
        gitCall("git_stage", { paths: ps }, source);
        return;
      }
      gitCall("git_switch", { target: t0 }, source);
      return;
    }
    case "switch": {
      if (has(opts, "-c", "-C", "--create", "--force-create")) {
        const n = operands(rest, ["-c", "-C", "--create", "--force-create"]).optValues;
        const v = n.get("-c") ?? n.get("-C") ?? n.get("--create") ?? n.get("--force-create");
        if (v === undefined || v.text === null) {
          problem(ctx, "unresolved_argument", "git switch -c: the name is not known", source);
          return;
        }
        if (has(opts, "-C", "--force-create")) gitCall("git_ref_delete", { ref: `refs/heads/${v.text}` }, source);
        gitCall("git_ref_add", { ref: `refs/heads/${v.text}` }, source);
        gitCall("git_switch", { target: v.text }, source);
        return;
      }
      if (has(opts, "-f", "--force", "--discard-changes")) gitCall("git_discard", { target: "HEAD" }, source);
      // `git switch --detach` without a commit detaches HEAD where it is (git-switch(1)).
      const t0 = text.length === 0 && has(opts, "-d", "--detach") ? "HEAD" : text[0];
      if (t0 === null || t0 === undefined) {
        problem(ctx, "unresolved_argument", "git switch: the target is not known", source);
        return;
      }
      gitCall("git_switch", { target: t0 }, source);
      return;
    }
    case "restore": {
      const ps = pathList(ops.length === 0 && patch ? [here] : ops);
      if (ps === null) return;
      const staged = has(opts, "-S", "--staged");
      const worktree = has(opts, "-W", "--worktree") || !staged;
      const src = optValues.get("--source") ?? optValues.get("-s");
      if (worktree) for (const p of ps) trackedWrite(p, src === undefined ? [] : [src.text]);
      if (staged) gitCall("git_stage", { paths: ps }, source);
      return;
    }
    case "clean": {
      if (has(opts, "-n", "--dry-run")) return;
      if (has(opts, "-i", "--interactive")) {
        problem(ctx, "unknown_effect", "git clean -i asks interactively", source);
        return;
      }
      // Without -f git refuses only while clean.requireForce is true (the default): a repository (or
      // user) config that sets it false cleans. The dispatcher reads no config (Layer B is read for the
      // calls it names), so `git clean` is judged as cleaning; where git refuses, nothing changed and the
      // undo of nothing is nothing.
      // The paths only narrow what git_clean (every untracked file) stands for.
      if (paths(ctx, ops, where, source) === null) return;
      gitCall("git_clean", { ignored: has(opts, "-x", "-X") }, source);
      return;
    }
    case "stash": {
      const s = text[0] ?? "push";
      if (s === "list" || s === "show") return;
      if (s === "drop") gitCall("git_stash_drop", { all: false }, source);
      else if (s === "clear") gitCall("git_stash_drop", { all: true }, source);
      else if (s === "pop" || s === "apply") {
        if (s === "pop") gitCall("git_stash_drop", { all: false }, source);
        gitCall("git_discard", { target: "HEAD" }, source);
      } else if (s === "push" || s === "save" || s.startsWith("-")) gitCall("git_stash_push", {}, source);
      else if (s === "branch") problem(ctx, "unknown_effect", "git stash branch", source);
      else problem(ctx, "unknown_command", `git stash ${s}`, source);
      return;
    }
    case "commit": {
      // `git commit PATH…` (`--only`, `-i`) commits the paths' work-tree contents: their index entries
      // are set from the work tree first (what was staged there is replaced), as `-a` does for every
      // path; `-p` and `--interactive` stage the hunks chosen (of the whole tree without paths).
      const whole = has(opts, "-a", "--all") || ((patch || has(opts, "--interactive")) && ops.length === 0);
      if (whole || ops.length > 0) gitCall("git_stage", { paths: whole ? ["."] : text.map((t) => t ?? "") }, source);
      if (text.includes(null)) problem(ctx, "unresolved_argument", "git commit: a path is not known", source);
      gitCall("git_commit", {}, source);
      return;
    }
    case "add": {
      if (has(opts, "-n", "--dry-run")) return;
      // -u / -A without a pathspec stage the whole tree (git's documentation), not nothing.
      const whole = text.length === 0 && (patch || has(opts, "-u", "--update", "-A", "--all", "--no-ignore-removal", "-i", "--interactive", "-e", "--edit"));
      gitCall("git_stage", { paths: whole ? ["."] : text.map((t) => t ?? "") }, source);
      if (text.includes(null)) problem(ctx, "unresolved_argument", "git add: a path is not known", source);
      return;
    }
    case "rm": {
      const ps = pathList(ops);
      if (ps === null) return;
      if (!has(opts, "--cached")) for (const p of ps) gitCall("fs_remove", { path: p }, source);
      gitCall("git_stage", { paths: ps }, source);
      return;
    }
    case "mv": {
      const ps = pathList(ops);
      if (ps === null || ps.length < 2) return;
      const dest = ps[ps.length - 1]!;
      // Several sources go into a directory (git refuses them otherwise), or one an earlier mkdir of the line makes.
      const intoDir = isDirectory(dest) || (madeByLine(ctx, dest) && !pathExists(dest));
      for (const s of ps.slice(0, -1)) {
        const d = intoDir ? joinPath(dest, basename(s)) : dest;
        // What the moved path is or holds is reached under its new name (as for mv).
        if (isLinkNow(s)) ctx.links.push(d);
        ctx.moved.push({ from: s, to: d });
        gitCall("fs_move", { source: s, destination: d }, source);
      }
      gitCall("git_stage", { paths: ps }, source);
      return;
    }
    case "merge":
    case "rebase":
    case "cherry-pick":
    case "revert":
    case "am":
      // `--abort`/`--skip`/`--quit` throw away the resolution in progress; `rebase -x CMD` runs CMD.
      if (has(opts, "--abort", "--skip", "--quit")) {
        problem(ctx, "unknown_effect", `git ${sub} ${opts.find((o) => o === "--abort" || o === "--skip" || o === "--quit")}: discards the work tree's resolution in progress`, source);
        return;
      }
      if (sub === "rebase" && has(opts, "-x", "--exec")) {
        problem(ctx, "unknown_effect", "git rebase --exec runs a command whose effect is not known", source);
        return;
      }
      moveTo("git_move_head", text[0]);
      return;
    case "pull":
    case "fetch": {
      if (has(opts, "--upload-pack")) {
        problem(ctx, "unknown_effect", `git ${sub} --upload-pack runs a command whose effect is not known`, source);
        return;
      }
      // A refspec after the remote whose destination is a local ref (`git fetch origin +x:main`, `git
      // fetch . HEAD~3:feature`) moves or overwrites that branch: not the remote-tracking refs a fetch
      // moves. `--refmap` names such destinations for every fetched ref.
      // `-P` (`--prune-tags`) deletes the local tags the remote does not have, `--tags` with `--force`
      // moves local tags of the same name, `tag NAME` fetches into the local tag NAME.
      const local = has(opts, "--refmap") ? "--refmap" : has(opts, "-P", "--prune-tags") ? "--prune-tags" : has(opts, "-t", "--tags") && has(opts, "-f", "--force") ? "--tags --force" : ops.slice(1).find((w) => w.text === null || w.text === "tag" || (w.text.includes(":") && !["", "FETCH_HEAD"].includes(w.text.slice(w.text.indexOf(":") + 1)) && !w.text.slice(w.text.indexOf(":") + 1).startsWith("refs/remotes/")))?.raw;
      if (local !== undefined) {
        problem(ctx, "unknown_effect", `git ${sub} ${local}: updates a local ref, not only the remote-tracking ones`, source);
        return;
      }
      gitCall("git_fetch", {}, source);
      if (sub === "pull") gitCall("git_move_head", { target: "FETCH_HEAD" }, source);
      return;
    }
    case "push":
      if (has(opts, "-n", "--dry-run")) return;
      gitCall("remote_write", { command: source.slice(0, 200) }, source);
      return;
    case "init": {
      // A template's hooks run in later commands; `--separate-git-dir` moves an existing repository.
      const runs = opts.find((o) => o === "--template" || o === "--separate-git-dir");
      if (runs !== undefined) {
        problem(ctx, "unknown_effect", `git init ${runs}: copies hooks from a template or moves the repository`, source);
        return;
      }
      if (where === null) {
        problem(ctx, "unresolved_argument", "git init in a directory that is not known", source);
        return;
      }
      const target = text[0] ? joinPath(where, text[0]) : where;
      gitCall("fs_mkdir", { path: target }, source);
      // `--bare` writes the repository's files (HEAD, config, hooks/, …) into the folder itself.
      if (!bare && !has(opts, "--bare")) gitCall("fs_mkdir", { path: joinPath(target, ".git") }, source);
      else if (pathExists(target)) problem(ctx, "unknown_effect", `git init --bare: writes the repository's files into ${target}, which exists`, source);
      return;
    }
    case "clone": {
      // A command run for the transfer, hooks from a template, settings (`core.fsmonitor`, …).
      const runs = opts.find((o) => ["-u", "--upload-pack", "--template", "-c", "--config"].includes(o));
      if (runs !== undefined) {
        problem(ctx, "unknown_effect", `git clone ${runs}: runs a command or hook whose effect is not known`, source);
        return;
      }
      // Without a directory git names it from the URL's last part (after `/` or `:`, without a trailing
      // `/.git` or `.git`), with `.git` again for `--bare` and `--mirror` (`git clone --bare h:o/x.git`: x.git).
      const url = text[0];
      const named = url === undefined || url === null ? null : url.replace(/\/+$/, "").replace(/\/\.git$/, "").replace(/^.*[/:]/, "").replace(/\.(git|bundle)$/, "");
      const d = text[1] ?? (named === "" || named === null ? null : has(opts, "--bare", "--mirror") ? `${named}.git` : named);
      if (d === null || where === null) {
        problem(ctx, "unresolved_argument", "git clone: the destination is not known", source);
        return;
      }
      gitCall("fs_write", { path: joinPath(where, d) }, source);
      return;
    }
    case "remote":
    case "config":
    case "worktree":
    case "notes":
    case "submodule":
    case "reflog":
      // Listing and reading only. `-v` lists only alone (`git remote -v remove o` removes o); the
      // read options are git config's.
      // `git config -e` opens the file in an editor.
      // (Only git config has these options: with another of these commands git refuses the line.)
      const edits = has(opts, "-e", "--edit");
      if (!edits && (ops.length === 0 || ["show", "list", "get"].some((x) => text[0] === x) || has(opts, "--get", "--get-all", "--get-regexp"))) return;
      problem(ctx, "unknown_effect", `git ${sub} ${text[0] ?? ""}: changes configuration or refs the ontology does not model`, source);
      return;
    default:
      problem(ctx, "unknown_command", `git ${sub} is not in the catalogue`, source);
  }
}

/** git's options that take a separate value, per subcommand (git's documentation of each command).
 * Options are not shared between subcommands: `-u` is `--set-upstream-to <upstream>` for branch but
 * `--update` (no value) for add, `-s` a strategy for merge but `--signoff` for cherry-pick, `-t` a
 * template for commit but `--track` (no value) for checkout. A flag listed where it takes no value
 * would swallow an operand (a path to stage, a branch to switch to); one missing where it takes a
 * value would make its value an operand. Long options with `=` carry their value in the word. */
const GIT_VALUE_OPTIONS: Record<string, readonly string[]> = {
  commit: ["-m", "--message", "-F", "--file", "-C", "--reuse-message", "-c", "--reedit-message", "--author", "--date", "-t", "--template", "--fixup", "--squash", "--cleanup", "--trailer", "--pathspec-from-file"],
  checkout: ["-b", "-B", "--orphan", "--pathspec-from-file"],
  switch: ["-c", "-C", "--create", "--force-create", "--orphan"],
  branch: ["-u", "--set-upstream-to", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--format", "--sort"],
  tag: ["-m", "--message", "-F", "--file", "-u", "--local-user", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--format", "--sort", "--cleanup", "--trailer"],
  restore: ["-s", "--source", "--pathspec-from-file"],
  reset: ["--pathspec-from-file"],
  add: ["--chmod", "--pathspec-from-file"],
  rm: ["--pathspec-from-file"],
  stash: ["-m", "--message", "--pathspec-from-file"],
  clean: ["-e", "--exclude"],
  merge: ["-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option", "--into-name", "--cleanup"],
  rebase: ["--onto", "-s", "--strategy", "-X", "--strategy-option", "-x", "--exec", "-C", "--whitespace"],
  "cherry-pick": ["-m", "--mainline", "--strategy", "-X", "--strategy-option", "--cleanup"],
  revert: ["-m", "--mainline", "--strategy", "-X", "--strategy-option", "--cleanup"],
  am: ["-C", "-p", "--directory", "--exclude", "--include", "--patch-format", "--resolvemsg", "--whitespace"],
  push: ["-o", "--push-option", "--receive-pack", "--exec", "--repo"],
  pull: ["-s", "--strategy", "-X", "--strategy-option", "--depth", "--deepen", "--shallow-since", "--shallow-exclude", "--upload-pack", "-o", "--server-option", "--negotiation-tip"],
  fetch: ["--depth", "--deepen", "--shallow-since", "--shallow-exclude", "--upload-pack", "-o", "--server-option", "--negotiation-tip", "--refmap", "-j", "--jobs"],
  clone: ["-o", "--origin", "-b", "--branch", "-u", "--upload-pack", "--reference", "--reference-if-able", "--separate-git-dir", "--depth", "--shallow-since", "--shallow-exclude", "-c", "--config", "--template", "--filter", "-j", "--jobs", "--bundle-uri", "--server-option"],
  init: ["--template", "--separate-git-dir", "-b", "--initial-branch", "--object-format", "--ref-format"],
  mv: [],
  // `git config -f list x y` sets x in the file `list` (was read as `git config list`).
  config: ["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"],
  notes: ["--ref"],
};

/** The flags (no value) each git subcommand's rule reads; GIT_READ_OPTIONS the reading commands'. */
const GIT_OPTIONS: Record<string, readonly string[]> = {
  branch: ["--delete", "--copy", "--move", "--force", "--unset-upstream", "--edit-description", "--list", "--show-current", "--all", "--remotes"],
  tag: ["--delete", "--list", "--verify", "--force"],
  reset: ["--hard", "--merge", "--keep"],
  checkout: ["--track", "--force"],
  switch: ["--force", "--discard-changes"],
  restore: ["--staged", "--worktree"],
  clean: ["--dry-run", "--interactive", "--force"],
  commit: ["--all", "--include", "--only", "--interactive"],
  add: ["--dry-run", "--update", "--all", "--no-ignore-removal", "--interactive", "--edit"],
  rm: ["--cached"],
  merge: ["--abort", "--skip", "--quit"],
  rebase: ["--abort", "--skip", "--quit"],
  "cherry-pick": ["--abort", "--skip", "--quit"],
  revert: ["--abort", "--skip", "--quit"],
  am: ["--abort", "--skip", "--quit"],
  push: ["--dry-run"],
  fetch: ["--prune", "--prune-tags", "--tags", "--force"],
  pull: ["--prune", "--prune-tags", "--tags", "--force"],
  init: ["--bare"],
  clone: ["--bare", "--mirror"],
  config: ["--edit", "--get", "--get-all", "--get-regexp", "--list"],
};
const GIT_READ_OPTIONS = ["--output", "--output-directory", "--open-files-in-pager", "--upload-pack", "--stdout"];

function pathExists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

const REMOTE_READ: Record<string, Set<string>> = {
  // Not `api` (`gh api -X DELETE …` writes) nor `auth` as a verb (`gh auth logout` drops a token;
  // `gh auth status` reads: its verb is `status`).
  gh: new Set(["view", "list", "status", "diff", "checks", "search", "browse"]),
  docker: new Set(["ps", "images", "logs", "inspect", "version", "info", "stats", "top", "port"]),
  // `kubectl config` is a group: `view`, `get-contexts`, `current-context` read; `set-context` writes.
  kubectl: new Set(["get", "describe", "logs", "version", "explain", "top", "api-resources", "view", "get-contexts", "current-context", "get-clusters", "get-users"]),
};

/** The global options that may come before a command's verb: those that take a value (the next word,
 * or `=value`) and those that do not. Another option before the verb makes the verb not known (its
 * value, if it takes one, could be read as the verb: `kubectl -n logs delete pod x`). */
const GLOBAL_OPTIONS: Record<string, { value: readonly string[]; flags: readonly string[] }> = {
  kubectl: {
    value: ["-n", "--namespace", "--context", "--cluster", "--user", "-s", "--server", "--kubeconfig", "--token", "--as", "--as-group", "--as-uid", "--request-timeout", "--certificate-authority", "--client-certificate", "--client-key", "--cache-dir", "--tls-server-name", "--username", "--password", "-v", "--v"],
    flags: ["--insecure-skip-tls-verify", "--match-server-version", "--warnings-as-errors"],
  },
  docker: { value: ["-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"], flags: ["-D", "--debug", "--tls", "--tlsverify"] },
};
const ENV_GLOBAL = { value: [], flags: ["-g", "--global", "-q", "--quiet", "-s", "--silent", "--json"] };

/** The words from a command's verb on, after its global options; null when an option that is not
 * listed comes before the verb (or a word that is not known). */
function fromVerb(rest: Word[], global: { value: readonly string[]; flags: readonly string[] }): Word[] | null {
  for (let i = 0; i < rest.length; i++) {
    const t = rest[i]!.text;
    if (t === null) return null;
    if (!t.startsWith("-") || t === "-") return rest.slice(i);
    if (t === "--") return rest.slice(i + 1);
    const eq = t.indexOf("=");
    const name = t.startsWith("--") && eq > 0 ? t.slice(0, eq) : t;
    if (global.value.includes(name)) {
      if (name === t) i++;
    } else if (!global.flags.includes(t)) return null;
  }
  return [];
}

/** Options of curl and wget that name a file they write besides the download. */
const CURL_FILES = ["-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc"];
const WGET_FILES = ["-o", "--output-file", "-a", "--append-output", "--save-cookies", "--rejected-log", "--hsts-file"];

/** wget's options that change the name it saves under in a way not known at check time: `-E` adds
 * `.html` (or `.css`) after the server's content type, `--default-page` names a URL ending in `/`,
 * `--restrict-file-names` escapes characters, `--backups` renames the files already there. */
const WGET_RENAMES = ["-E", "--adjust-extension", "--html-extension", "--default-page", "--restrict-file-names", "--backups"];

/** curl's options that write other files than the ones named: `--no-clobber` saves beside a file that is
 * there as `name.1` (curl 7.83), `--create-dirs` makes the output's missing directories (the undo of
 * the file left them). */
const CURL_RENAMES = ["--no-clobber", "--create-dirs"];

/** The long options of curl and wget the dispatcher reads, and the real ones that are prefixes of them
 * (`--head` of `--header`, `--cookie` of `--cookie-jar`): a shorter prefix is an abbreviation. */
const DOWNLOAD_OPTIONS: Record<string, readonly string[]> = {
  curl: ["--output", "--write-out", "--request", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--form", "--upload-file", "--header", "--head", "--user", "--max-time", "--json", "--connect-timeout", "--retry", "--output-dir", "--config", "--remote-header-name", "--remote-name", "--remote-name-all", "--cookie", ...CURL_RENAMES, ...CURL_FILES],
  wget: ["--output-document", "--post-data", "--post-file", "--method", "--directory-prefix", "--header", "--execute", "--input-file", "--config", "--recursive", "--mirror", "--page-requisites", "--force-directories", "--content-disposition", "--trust-server-names", ...WGET_RENAMES, ...WGET_FILES],
};

/** Commands whose first word names a group of verbs. */
const DOCKER_GROUPS = new Set(["container", "image", "network", "volume", "system", "context", "builder", "plugin", "node", "service", "stack", "secret", "config", "compose", "manifest", "trust", "buildx"]);
const REMOTE_GROUPS: Record<string, (first: string) => boolean> = {
  gh: () => true,
  docker: (first) => DOCKER_GROUPS.has(first),
  kubectl: (first) => first === "config",
};

/** The file `wget URL` (or `curl -O URL`) writes in its directory: the URL path's last segment, or
 * index.html when the path ends in `/` or is empty (wget's default name). */
function remoteFileName(url: string): string {
  const noQuery = url.split(/[?#]/)[0]!;
  const scheme = noQuery.indexOf("://");
  const rest = scheme >= 0 ? noQuery.slice(scheme + 3) : noQuery;
  const slash = rest.indexOf("/");
  const last = slash < 0 ? "" : rest.slice(rest.lastIndexOf("/") + 1);
  return last === "" ? "index.html" : last;
}

/** Why the name `wget URL` saves under is not the URL's last segment, or null. wget keeps the query
 * (`a?q=1`) and decodes %-escapes (`a%20b` is saved as `a b`); a name that is taken, now or by an
 * earlier URL of the call, gets the next free number (`a.1`, `a.2`: checked with wget 1.21) unless
 * `-N`, `-nc` or `-c` say what to do with it. */
function wgetNameUnknown(urls: string[], saved: string[], keepsName: boolean): string | null {
  for (let i = 0; i < urls.length; i++) {
    const url = urls[i]!.split("#")[0]!;
    if (url.includes("?")) return `${urls[i]}: it saves under a name with the query, escaped its own way (write -O FILE)`;
    if (remoteFileName(url).includes("%")) return `${urls[i]}: it saves under the name with its %-escapes decoded (write -O FILE)`;
    if (keepsName) continue;
    if (pathExists(saved[i]!) || saved.indexOf(saved[i]!) < i) return `${saved[i]} is taken: it saves under ${saved[i]}.1 or the next free number (write -O FILE)`;
  }
  return null;
}

function remote(ctx: Ctx, name: string, rest: Word[], opts: string[], ops: Word[], cwd: string | null, source: string): void {
  const words = rest.map((w) => w.text);
  if (name === "curl" || name === "wget") {
    const o = operands(rest, name === "curl" ? ["-o", "--output", "--write-out", "-X", "--request", "-d", "--data", "--data-raw", "--data-binary", "-F", "--form", "-T", "--upload-file", "-H", "--header", "-u", "--user", "-A", "-e", "-m", "--max-time", "--json", "-w", "--connect-timeout", "--retry", "--output-dir", "-K", "--config", ...CURL_FILES] : ["-O", "--output-document", "--post-data", "--post-file", "--method", "-P", "--directory-prefix", "--header", "-U", "-t", "-T", "-e", "--execute", "-i", "--input-file", "--config", ...WGET_FILES]);
    // Both take a unique prefix of a long option too (`curl --data-r x U` posts, `wget --output-d=F`).
    const cut = abbreviation(rest, DOWNLOAD_OPTIONS[name]!);
    if (cut !== null) {
      problem(ctx, "unresolved_argument", abbreviated(name, cut), source);
      return;
    }
    const method = o.optValues.get("-X") ?? o.optValues.get("--request") ?? o.optValues.get("--method");
    // (wget's `-T` is its timeout: curl's upload only.)
    const sends = (name === "curl" ? has(o.opts, "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "-F", "--form", "-T", "--upload-file", "--json") : has(o.opts, "--post-data", "--post-file")) || (method !== undefined && (method.text ?? "POST").toUpperCase() !== "GET" && (method.text ?? "").toUpperCase() !== "HEAD");
    if (sends) call(ctx, "remote_write", { command: source.slice(0, 200) }, source);
    // Options read from a file or run as commands, and downloads whose file names the dispatcher cannot
    // name (recursive, from the server's headers, from a list): not known.
    const unknown = o.opts.find((x) => (name === "curl" ? ["-K", "--config", "-J", "--remote-header-name", ...CURL_RENAMES] : ["-e", "--execute", "--config", "-r", "--recursive", "-m", "--mirror", "-p", "--page-requisites", "-x", "--force-directories", "--content-disposition", "--trust-server-names", "-i", "--input-file", ...WGET_RENAMES]).includes(x));
    if (unknown !== undefined) {
      problem(ctx, "unknown_effect", `${name} ${unknown}: reads options or writes files the dispatcher cannot name`, source);
      return;
    }
    // `-w '%output{FILE}…'` (curl 8.3) writes what follows to FILE; `-w @FILE` reads the format from FILE.
    const format = o.values.find(([x, w]) => name === "curl" && (x === "-w" || x === "--write-out") && (w.text === null || w.text.startsWith("@") || w.text.includes("%output{")));
    if (format !== undefined) {
      problem(ctx, "unknown_effect", `curl ${format[1].raw}: a write-out format that may write a file the dispatcher does not name`, source);
      return;
    }
    // Every output file (`curl -o a U1 -o b U2`), under curl's output directory (`--output-dir D`; wget's
    // `-O` ignores `-P`: `wget -P out -O a.txt U` writes ./a.txt); without one, the URL's own name (wget,
    // `curl -O`) for each URL, under the output directory (`wget -P D`).
    const dirWord = o.optValues.get(name === "curl" ? "--output-dir" : "-P") ?? o.optValues.get("--directory-prefix");
    const base = dirWord === undefined ? [cwd] : paths(ctx, [dirWord], cwd, source);
    if (base === null) return;
    const outs = o.values.filter(([x]) => (name === "curl" ? x === "-o" || x === "--output" : x === "-O" || x === "--output-document")).map(([, w]) => w);
    for (const out of outs) {
      if (out.text === "-") continue;
      const ps = paths(ctx, [out], name === "curl" ? base[0]! : cwd, source);
      if (ps !== null) for (const p of ps) if (!DEVICES.test(p)) call(ctx, "fs_write", { path: followLinks(p) }, source);
    }
    if (outs.length === 0 && (name === "wget" || has(o.opts, "-O", "--remote-name", "--remote-name-all"))) {
      // Every operand of wget is a URL, with a scheme or without one (`wget x.test/f` fetches http://x.test/f).
      const urls = name === "wget" ? o.ops : o.ops.some((w) => w.text !== null && w.text.includes("://")) ? o.ops.filter((w) => w.text === null || w.text.includes("://")) : o.ops.slice(-1);
      if (urls.length === 0 || urls.some((w) => w.text === null) || base[0] === null) problem(ctx, "unresolved_argument", `${name}: the file it writes is not known`, source);
      else {
        const saved = urls.map((u) => joinPath(base[0]!, remoteFileName(u.text!)));
        const why = name === "wget" ? wgetNameUnknown(urls.map((u) => u.text!), saved, has(o.opts, "-N", "--timestamping", "-nc", "--no-clobber", "-c", "--continue")) : null;
        if (why !== null) problem(ctx, "unresolved_argument", `wget: ${why}`, source);
        else for (const p of saved) call(ctx, "fs_write", { path: followLinks(p) }, source);
      }
    }
    // The files their logging options write (headers, cookies, traces, wget's log).
    for (const opt of name === "curl" ? CURL_FILES : WGET_FILES) {
      const v = o.optValues.get(opt);
      if (v === undefined || v.text === "-") continue;
      const ps = paths(ctx, [v], cwd, source);
      if (ps !== null) for (const p of ps) if (!DEVICES.test(p)) call(ctx, "fs_write", { path: followLinks(p) }, source);
    }
    return;
  }
  if (name === "scp" || name === "rsync") {
    // A program run locally for the transfer (`scp -S`, `-o ProxyCommand=…`, `-F` config, `rsync -e`),
    // sources removed, or files named elsewhere: not known.
    const runs = opts.find((x) => (name === "scp" ? ["-S", "-o", "-F"] : ["-e", "--rsh", "--remove-source-files", "--remove-sent-files", "--files-from", "--write-batch", "--only-write-batch", "--log-file", "--backup-dir"]).includes(x));
    if (runs !== undefined) {
      problem(ctx, "unknown_effect", `${name} ${runs}: runs a program or changes files the dispatcher cannot name`, source);
      return;
    }
    const dest = ops[ops.length - 1];
    if (dest === undefined || dest.text === null) {
      problem(ctx, "unresolved_argument", `${name}: the destination is not known`, source);
      return;
    }
    if (/^[^/]*:/.test(dest.text)) call(ctx, "remote_write", { command: source.slice(0, 200) }, source);
    else {
      // `--del` is rsync's own name for `--delete-during`.
      if (name === "rsync" && opts.some((x) => x === "--del" || x.startsWith("--delete"))) {
        problem(ctx, "unknown_effect", "rsync --delete removes files the dispatcher cannot list", source);
        return;
      }
      // scp opens the destination and writes through a link to a file (checked: `scp n.txt link` wrote
      // link's target); rsync writes a new file and renames it over the link.
      const ps = paths(ctx, [dest], cwd, source);
      if (ps !== null) for (const p of ps) call(ctx, "fs_write", { path: name === "scp" ? followLinks(p) : p }, source);
    }
    return;
  }
  const read = REMOTE_READ[name];
  // The verb is the first word after the global options, or the second after a group (`gh pr view`,
  // `docker container ps`); never a later operand (`docker rm top` removes the container named top).
  const from = fromVerb(rest, GLOBAL_OPTIONS[name] ?? { value: [], flags: [] });
  const sub = from?.[0]?.text ?? null;
  const verb = sub !== null && REMOTE_GROUPS[name]?.(sub) === true ? (from?.[1]?.text ?? null) : null;
  // A kubeconfig's user may be an exec credential plugin: `kubectl --kubeconfig ./k.yaml get pods` runs
  // its command to authenticate (as KUBECONFIG=./k.yaml does); `kubectl config …` only reads the file.
  if (name === "kubectl" && sub !== "config" && rest.some((w) => w.text !== null && /^--kubeconfig(=|$)/.test(w.text))) {
    problem(ctx, "unknown_effect", "kubectl --kubeconfig: the file's exec credential plugin may run a command", source);
    return;
  }
  // `docker --config DIR` (as DOCKER_CONFIG=DIR): its config.json names plugin folders and credential
  // helpers docker runs (`docker info` runs every plugin it finds).
  if (name === "docker" && rest.slice(0, rest.length - (from?.length ?? 0)).some((w) => w.text !== null && /^--config(=|$)/.test(w.text))) {
    problem(ctx, "unknown_effect", "docker --config: the folder's config.json may name plugins or credential helpers docker runs", source);
    return;
  }
  if (read !== undefined && (words.length === 0 || helpOnly(rest, GLOBAL_OPTIONS[name], REMOTE_GROUPS[name]!))) return;
  if (read !== undefined && ((sub !== null && read.has(sub)) || (verb !== null && read.has(verb)))) {
    // A read verb that starts or makes something with some options (`docker buildx inspect --bootstrap`
    // starts a builder, `gh pr view --web` a browser): the catalogue's readOnlyUnless of the verb.
    const why = verbNotReadOnly(ctx, name, sub!, verb, from!);
    if (why !== null) problem(ctx, "unknown_effect", why, source);
    // `gh browse` opens the page in a browser; with -n (--no-browser) it prints the address.
    else if (name === "gh" && sub === "browse" && !from!.some((w) => w.text === "-n" || w.text === "--no-browser")) problem(ctx, "unknown_effect", "gh browse starts a browser (without -n)", source);
    return;
  }
  call(ctx, "remote_write", { command: source.slice(0, 200) }, source);
}

/** Why a read verb of a command that is not read-only is not read-only with the words after it (the
 * catalogue's readOnlyUnless under `name group verb`, `name verb`: `docker buildx inspect`, `gh view`,
 * `npm help`), or null. `from` starts at the verb, or at the group when there is one. */
function verbNotReadOnly(ctx: Ctx, name: string, sub: string, verb: string | null, from: Word[]): string | null {
  const keys = verb === null ? [`${name} ${sub}`] : [`${name} ${sub} ${verb}`, `${name} ${sub}`, `${name} ${verb}`];
  const after = from.slice(verb === null ? 1 : 2);
  for (const key of keys) {
    const why = notReadOnly(ctx.cat.readOnlyUnless[key], after);
    if (why !== null) return `${name} ${verb === null ? sub : `${sub} ${verb}`} ${why} may write files or change the system`;
  }
  return null;
}

/** `--help` or `--version` among the command's own words: before any operand but its verb (and a
 * group's verb), so it prints and exits (`docker run --help`, `gh pr create --help`). After another
 * operand it may be an argument of what the command runs (`docker run alpine sh -c 'rm -rf /w'
 * --help` runs the sh in the container; `kubectl exec pod -- … --help`). */
function helpOnly(rest: Word[], global: { value: readonly string[] } | undefined, group: (first: string) => boolean): boolean {
  let first: string | null = null;
  let verbs = 0;
  for (let i = 0; i < rest.length; i++) {
    const t = rest[i]!.text;
    if (t === null || t === "--") return false;
    if (t === "--help" || t === "--version") return true;
    if (t.startsWith("-")) {
      if (global?.value.includes(t) === true) i++;
      continue;
    }
    if (verbs === 0) first = t;
    else if (verbs > 1 || !group(first!)) return false;
    verbs++;
  }
  return false;
}

const ENV_READ = new Set(["list", "ls", "show", "view", "info", "freeze", "search", "outdated", "check", "help", "config", "root", "prefix", "bin", "why", "explain", "policy", "doctor", "env", "version", "audit", "whoami", "vet"]);
// `fmt` rewrites the sources (`go fmt`, `cargo fmt`); `cargo check` runs build scripts.
const ENV_PROGRAM = new Set(["run", "test", "start", "exec", "x", "dlx", "build", "bench", "clippy", "run-script", "t", "tst", "fmt"]);
/** Read-only verbs that also change the environment or the project with more words: `npm config set`,
 * `go env -w`, `conda env create`, `pnpm env use`, `npm version patch` (edits package.json, commits, tags).
 * They read with no operand, with one of `words` first (`config get KEY`), or with operands that are all
 * `names`; and with no option but `options`. */
const ENV_READ_ONLY_WITH: Record<string, { words: readonly string[]; options: readonly string[]; names?: RegExp }> = {
  config: { words: ["get", "list", "ls", "show"], options: ["--list", "-l", "--show", "--get", "--json", "--global", "-g"] },
  // `go env GOPATH GOROOT` prints variables.
  env: { words: ["list", "export"], options: ["--json"], names: /^[A-Z][A-Z0-9_]*$/ },
  version: { words: [], options: ["--json"] },
};
/** The read verbs that are the tool's own: another verb of ENV_READ is, for these tools, an external
 * program (`cargo vet` runs cargo-vet; a `[alias]` of .cargo/config.toml; `brew x` runs brew-x from
 * PATH) or the project's package script of that name (`yarn doctor`, `pnpm show`); `yarn version`
 * asks for the new version on standard input and commits it. */
const ENV_OWN_READ: Record<string, Set<string>> = {
  cargo: new Set(["search", "help", "version", "config", "info"]),
  yarn: new Set(["list", "info", "check", "outdated", "help", "config", "bin", "why", "audit"]),
  pnpm: new Set(["list", "ls", "why", "outdated", "audit", "config", "root", "bin", "help", "env"]),
  brew: new Set(["list", "ls", "info", "search", "outdated", "doctor", "config", "help", "audit"]),
};
/** go's build flags that run a program: `go vet -vettool=./x`, `go list -toolexec ./x -export`. */
const GO_PROGRAM_FLAG = /^--?(vettool|toolexec|exec)(=|$)/;
const ENV_PUBLISH = new Set(["publish", "upload", "push", "deploy", "unpublish", "deprecate", "owner", "dist-tag", "login", "adduser"]);

function environment(ctx: Ctx, name: string, rest: Word[], ops: Word[], opts: string[], source: string): void {
  // `yarn` alone installs the project's dependencies (the others print their help).
  if (ops.length === 0 && ((opts.length === 0 && name !== "yarn") || has(opts, "--version", "-v", "-V", "--help", "-h"))) return;
  if (ops.length === 0 && name === "yarn" && opts.length === 0) {
    call(ctx, "env_change", { command: source.slice(0, 200) }, source);
    return;
  }
  const sub = ops[0]?.text;
  if (sub === null || sub === undefined) {
    problem(ctx, "unresolved_argument", `${name}: the subcommand is not known`, source);
    return;
  }
  if (ENV_PUBLISH.has(sub)) {
    call(ctx, "remote_write", { command: source.slice(0, 200) }, source);
    return;
  }
  // Read-only only when the subcommand comes first: an option before it that is not listed may take it
  // as its value (`npm -w ls install x` installs), and only with the words that keep it a read.
  const from = fromVerb(rest, ENV_GLOBAL);
  const more = ENV_READ_ONLY_WITH[sub];
  const after = from !== null && from[0] === ops[0] ? operands(from.slice(1), []) : null;
  const first = after?.ops[0]?.text ?? null;
  const readOnly =
    after !== null &&
    (more === undefined ||
      ((after.ops.length === 0 || (first !== null && more.words.includes(first)) || after.ops.every((w) => w.text !== null && more.names?.test(w.text) === true)) &&
        after.opts.every((o) => more.options.includes(o))));
  // `cargo check` compiles and runs build scripts (not one of cargo's own reads; `pip check`, `poetry
  // check`, `apt-get check` read).
  const runs = (ENV_READ.has(sub) && ENV_OWN_READ[name]?.has(sub) === false) || (name === "go" && rest.some((w) => w.text !== null && GO_PROGRAM_FLAG.test(w.text)));
  // `npm audit fix`, `pnpm audit --fix` (overrides written into package.json).
  // `go list -mod=mod` (`-mod mod`) updates go.mod and go.sum as it needs (the default is readonly).
  const goMod = name === "go" && rest.some((w, i) => w.text !== null && (/^--?mod=mod$/.test(w.text) || (/^--?mod$/.test(w.text) && rest[i + 1]?.text === "mod")));
  if (ENV_READ.has(sub) && readOnly && !runs && !goMod && !(sub === "audit" && (ops.some((w) => w.text === "fix") || has(opts, "--fix")))) {
    // `npm help --viewer browser` starts a browser: the catalogue's readOnlyUnless of the verb.
    const why = verbNotReadOnly(ctx, name, sub, null, from!);
    if (why !== null) problem(ctx, "unknown_effect", why, source);
    return;
  }
  if (ENV_PROGRAM.has(sub) || runs) {
    problem(ctx, "unknown_effect", `${name} ${sub} runs code whose effect is not known`, source);
    return;
  }
  call(ctx, "env_change", { command: source.slice(0, 200) }, source);
}
