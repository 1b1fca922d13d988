// The bash front end: tree-sitter-bash (through web-tree-sitter) parses a command line; this file walks
// the syntax tree into the simple commands it runs, with each word resolved where its value is known
// (literals, assignments earlier on the line, the cwd, `~`) and marked unresolved where it is not.
// Lists, pipelines, subshells, groups, control flow, command and process substitutions, redirections
// and heredocs are followed. Globs are expanded later, against the real filesystem (./glob.ts).
// Why tree-sitter-bash: docs/shell.md, "Parser".
import { createRequire } from "node:module";
import { Language, Parser, type Node } from "web-tree-sitter";
import { codeVariable } from "./variables.js";

/** A word after expansion: its text, or null when its value is not known at check time. */
export interface Word {
  text: string | null;
  /** The source text (for messages). */
  raw: string;
  /** Unquoted glob characters: the text is a pattern to expand against the filesystem. */
  glob: boolean;
  /** Why the text is unknown (null when known). */
  why: string | null;
}

export interface Redirect {
  /** `>`, `>>`, `&>`, `&>>`, `>|`, `<`, `<<`, `<<<`, `>&`, `<&`, … */
  op: string;
  /** The file (or fd number for `>&`). Null for heredocs. */
  target: Word | null;
}

export interface SimpleCommand {
  argv: Word[];
  redirects: Redirect[];
  /** The directory the command runs in; null when a `cd` before it could not be resolved. */
  cwd: string | null;
  /** Variables set for this command only (`A=1 cmd`). */
  env: Record<string, Word>;
  /** Source text, for messages. */
  text: string;
  /** For a `cd` to a known directory: that directory (a `cd` that fails leaves the commands after it
   * where they were, so the dispatcher checks that it exists). */
  chdir?: string;
}

export type ParseResult =
  | { ok: true; commands: SimpleCommand[] }
  | { ok: false; reason: "unparsed"; detail: string };

/** Limits: what a parse may cost before the call is refused as unparsed. */
export const MAX_COMMAND_BYTES = 256 * 1024;
export const MAX_COMMANDS = 2_000;
export const MAX_NESTING = 8;

let parserPromise: Promise<Parser> | null = null;
let parserReady: Parser | null = null;

/** Loads the grammar once per process (about 30 ms); later calls reuse it. */
export function loadBashParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const lang = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const p = new Parser();
    p.setLanguage(lang);
    parserReady = p;
    return p;
  })();
  return parserPromise;
}

/** The parser once loaded (loadBashParser first). */
export function bashParser(): Parser {
  if (parserReady === null) throw new Error("the bash parser is not loaded: await loadBashParser() first");
  return parserReady;
}

interface Scope {
  /** The directory; null once a `cd` (or a function that may run one) made it unknown. */
  cwd: string | null;
  /** Variables of the line, HOME and PWD from the start; null when set to a value not known here.
   * Their presence matters too: IFS (splitting), CDPATH (`cd`), GLOBIGNORE and GLOBS (globs). */
  vars: Map<string, string | null>;
  /** Walking a loop once only to see what it changes (its commands are not kept). */
  trial: boolean;
  /** Names the line defines as functions, shared by every scope of the line (a definition in a
   * subshell or a branch that may not run counts too: the safe side). A call of one runs its body. */
  functions: Set<string>;
}

class Unparsed extends Error {}

/** Parses a command line into its simple commands. Never throws for any input string. */
export function parseCommandLine(source: string, cwd: string, home: string, depth = 0): ParseResult {
  if (typeof source !== "string") return { ok: false, reason: "unparsed", detail: "the command is not a string" };
  if (Buffer.byteLength(source) > MAX_COMMAND_BYTES) return { ok: false, reason: "unparsed", detail: `the command is over ${MAX_COMMAND_BYTES} bytes` };
  if (source.includes("\u0000")) return { ok: false, reason: "unparsed", detail: "the command holds a NUL byte" };
  if (depth > MAX_NESTING) return { ok: false, reason: "unparsed", detail: "sh -c nested too deep" };
  const tree = bashParser().parse(source);
  if (tree === null) return { ok: false, reason: "unparsed", detail: "the parser gave no tree" };
  try {
    const root = tree.rootNode;
    if (root.hasError) return { ok: false, reason: "unparsed", detail: `syntax error near \`${firstError(root)}\`` };
    if (source.includes("\r") || source.includes("\\\n")) between(root, source);
    const out: SimpleCommand[] = [];
    walk(root, { cwd, vars: new Map([["HOME", home], ["PWD", cwd]]), trial: false, functions: new Set() }, out, []);
    return { ok: true, commands: out };
  } catch (e) {
    if (e instanceof Unparsed) return { ok: false, reason: "unparsed", detail: e.message };
    return { ok: false, reason: "unparsed", detail: `parser walk failed: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    tree.delete();
  }
}

/** The text of the innermost node holding the error (a MISSING node is an error too, with no text). */
function firstError(n: Node): string {
  const inner = tokens(n).find((c) => c.hasError);
  return inner === undefined ? n.text.slice(0, 40) : firstError(inner);
}

/** What bash reads differently from tree-sitter between two of its tokens. A carriage return: bash keeps
 * it in the word (`rm a<CR><LF>`, `"a<CR>"`), and after a backslash it is no line continuation
 * (`ls a\<CR><LF>rm x` is two commands to bash, one to tree-sitter). A line continuation with a word's
 * character on both sides: bash removes it first and joins them (`a\<newline>b` is `ab`, as is
 * `a\<newline>\<newline>b`), tree-sitter reads two words. Called only for a line holding either. */
function between(root: Node, source: string): void {
  let end = 0;
  const leaves = (n: Node): void => {
    const kids = tokens(n);
    if (kids.length > 0) return kids.forEach(leaves);
    const gap = source.slice(end, n.startIndex);
    if (gap.includes("\r")) throw new Unparsed("a carriage return between words (bash reads it as part of a word)");
    if (/^(\\\n)+$/.test(gap) && /[^\s|&;()<>]$/.test(source.slice(0, end)) && /^[^\s|&;()<>]/.test(source.slice(n.startIndex))) {
      throw new Unparsed("a line continuation inside a word");
    }
    end = n.endIndex;
  };
  leaves(root);
  if (source.slice(end).includes("\r")) throw new Unparsed("a carriage return between words (bash reads it as part of a word)");
}

/** A node's named children, or (`tokens`) all of them. */
const named = (n: Node): Node[] => present(n.namedChildren);
const tokens = (n: Node): Node[] => present(n.children);

/** web-tree-sitter types children as nullable, which a tree never holds: not read if it does. */
function present(all: (Node | null)[]): Node[] {
  if (all.includes(null)) throw new Unparsed("the parser gave a null node");
  return all as Node[];
}

function push(out: SimpleCommand[], c: SimpleCommand): void {
  if (out.length >= MAX_COMMANDS) throw new Unparsed(`more than ${MAX_COMMANDS} simple commands`);
  out.push(c);
}

const copy = (s: Scope): Scope => ({ cwd: s.cwd, vars: new Map(s.vars), trial: s.trial, functions: s.functions });

/** Walks a part that may not run (`again`: or may run many times): what it changes in the shell is
 * unknown after it (and, when it may run again, in it: found by walking it once beforehand). */
function maybe(scope: Scope, again: boolean, run: (s: Scope, out: SimpleCommand[]) => void, out: SimpleCommand[]): void {
  if (again && !scope.trial) {
    const t = { ...copy(scope), trial: true };
    run(t, []);
    merge(scope, t);
  }
  const s = copy(scope);
  run(s, out);
  merge(scope, s);
}

/** What `s` (a copy of `scope` after a part that may not have run) changed is unknown in `scope`. */
function merge(scope: Scope, s: Scope): void {
  for (const [k, v] of s.vars) if (scope.vars.get(k) !== v) scope.vars.set(k, null);
  if (s.cwd !== scope.cwd) moved(scope, null);
}

/** Walks any node for what runs in it: the simple commands of statements, lists, pipelines, control
 * flow (every branch may run), and the command and process substitutions inside words and expressions.
 * A node type not named here is walked child by child, so nothing inside it is missed. `redirects` are
 * those of enclosing redirected statements (they apply to every command inside). */
function walk(n: Node, scope: Scope, out: SimpleCommand[], redirects: Redirect[]): void {
  switch (n.type) {
    case "subshell":
    case "command_substitution":
    case "process_substitution": {
      // Run in a copy of the shell: a `cd` or an assignment inside does not reach the commands after.
      const inner = copy(scope);
      for (const c of named(n)) walk(c, inner, out, n.type === "subshell" ? redirects : []);
      return;
    }
    case "list": {
      // `a && b && c`: the first part runs; the rest may not, each seeing what the parts before it
      // did. With `||` among them, each part after the first may or may not run on its own.
      const parts: Node[] = [];
      const ops: string[] = [];
      chain(n, parts, ops);
      const [first, ...rest] = parts;
      walk(first!, scope, out, redirects);
      if (ops.every((o) => o === "&&")) maybe(scope, false, (s, o) => rest.forEach((c) => walk(c, s, o, redirects)), out);
      else for (const c of rest) maybe(scope, false, (s, o) => walk(c, s, o, redirects), out);
      return;
    }
    case "if_statement":
    case "case_statement": {
      // `if a; then b; elif …; else …; fi`, `case w in …)`: the condition (the word) runs, each
      // statement and branch after it may not.
      const [first, ...rest] = named(n);
      walk(first!, scope, out, redirects);
      for (const c of rest) maybe(scope, false, (s, o) => walk(c, s, o, redirects), out);
      return;
    }
    case "while_statement":
    case "for_statement":
    case "c_style_for_statement":
      maybe(scope, true, (s, o) => loop(n, s, o, redirects), out);
      return;
    case "pipeline":
      // Each command of a pipeline runs in a subshell of its own.
      for (const c of named(n)) walk(c, copy(scope), out, redirects);
      return;
    case "redirected_statement": {
      // The redirections apply to every command of the body (the other children).
      const own = [...redirects];
      const body: Node[] = [];
      const args: Word[] = [];
      for (const c of named(n)) {
        if (REDIRECTIONS.has(c.type)) collectRedirects(c, scope, out, own, args);
        else body.push(c);
      }
      const start = out.length;
      if (args.length > 0) {
        // `rm 2>/dev/null x`: words after a redirection's target are the command's (bash: a syntax
        // error after a compound statement).
        if (body.length !== 1 || body[0]!.type !== "command") throw new Unparsed(`words after a redirection of a ${body[0]?.type ?? "missing"} statement`);
        command(body[0]!, scope, out, own, args);
      } else for (const c of body) walk(c, scope, out, own);
      // A body with no simple command to carry them (`> f`, `[[ … ]] > f`, `((…)) > f`) still opens the files.
      if (!out.slice(start).some((c) => own.every((r) => c.redirects.includes(r)))) push(out, { argv: [], redirects: own, cwd: scope.cwd, env: {}, text: n.text });
      return;
    }
    case "variable_assignment":
      assign(n, scope, out, true);
      return;
    case "declaration_command": {
      // `declare -u/-l/-i/-n X=…` changes or redirects the value (upper case, arithmetic, a name
      // reference): with an option, the names it sets are unknown.
      const options = named(n).some((c) => /^[-+]/.test(c.text));
      for (const c of named(n)) {
        if (c.type === "variable_assignment") assign(c, scope, out, !options);
        else if (options) scope.vars.set(c.text, null);
      }
      return;
    }
    case "command":
      command(n, scope, out, redirects);
      return;
    case "function_definition": {
      // The body runs when the function is called, later on the line, with the variables and directory
      // of that moment: walked with both unknown. Whatever it may set is unknown after the definition.
      // (Globs too: the function may run after a `shopt`, and may run one.)
      // From here on (and in the body: it may call itself) a call of the name runs the body, not the
      // command or builtin of that name (`:(){ :|:& };:` is not `:`).
      scope.functions.add(field(n, "name").text);
      const inner: Scope = { cwd: null, vars: new Map([[GLOBS, null]]), trial: scope.trial, functions: scope.functions };
      for (const c of named(n)) walk(c, inner, out, redirects);
      for (const k of inner.vars.keys()) scope.vars.set(k, null);
      if (inner.vars.has("PWD")) scope.cwd = null;
      return;
    }
    case "unset_command": {
      // `unset NAME…`: the names are words as bash reads them (`unset "PATH"`, `unset 'X'`, `unset P\ATH`
      // are `unset PATH`, `unset X`), each unknown after it; a name not known at check time may be any
      // variable. `unset -f` removes functions only. Without PATH bash runs a command found in the working
      // directory (`unset PATH; ls` runs ./ls): kept as a command of its own with PATH unknown, as a code
      // variable set alone is.
      const names = unsetNames(named(n).map((c) => (c.type === "variable_name" ? literalWord(c.text) : word(c, scope, out))));
      for (const name of names) {
        if (name === null) forget(scope);
        else scope.vars.set(name, null);
      }
      if (names.some((name) => name === null || name === "PATH")) {
        push(out, { argv: [], redirects: [], cwd: scope.cwd, env: { PATH: { text: null, raw: "PATH", glob: false, why: "unset" } }, text: n.text });
      }
      return;
    }
    case "variable_name":
      // A bare name outside `$…` is an arithmetic context (`((X=1))`, `$((X++))`, a C-style for) or
      // `unset X`: it may be assigned there.
      scope.vars.set(n.text, null);
      return;
    case "simple_expansion":
      // `$X` reads X: nothing inside it runs.
      return;
    default:
      // A statement followed by `&` runs in the background, in a subshell.
      for (const c of named(n)) walk(c, c.nextSibling?.type === "&" ? copy(scope) : scope, out, redirects);
  }
}

/** The parts of `a && b || c` (tree-sitter nests them to the left) and the operators between them. */
function chain(n: Node, parts: Node[], ops: string[]): void {
  for (const c of tokens(n)) {
    if (!c.isNamed) ops.push(c.type);
    else if (c.type === "list") chain(c, parts, ops);
    else parts.push(c);
  }
}

function loop(n: Node, scope: Scope, out: SimpleCommand[], redirects: Redirect[]): void {
  for (const c of named(n)) {
    walk(c, scope, out, redirects);
    // `for ((i=0; i<3; i++))`: the names in the header change each time round (tree-sitter reads
    // some of them as plain words).
    if (n.type === "c_style_for_statement" && c.type !== "do_group") for (const [name] of c.text.matchAll(/[A-Za-z_]\w*/g)) scope.vars.set(name, null);
  }
}

/** A field the grammar always gives the node; a tree without it is not read. */
function field(n: Node, name: string): Node {
  const f = n.childForFieldName(name);
  if (f === null) throw new Unparsed(`a ${n.type} without its ${name}`);
  return f;
}

/** The value an assignment gives its variable: `X=v`, `X+=v` (appended to the value it had), `X=` (empty). */
function assigned(n: Node, scope: Scope, out: SimpleCommand[]): Word {
  const value = n.childForFieldName("value");
  const w = value === null ? { text: "", raw: "", glob: false, why: null } : word(value, scope, out);
  if (!tokens(n).some((c) => c.type === "+=")) return w;
  const old = scope.vars.get(field(n, "name").text);
  return typeof old === "string" && w.text !== null ? { ...w, text: old + w.text } : unknown(n.text, `${field(n, "name").text}+= on a value not known`);
}

function assign(n: Node, scope: Scope, out: SimpleCommand[], known: boolean): void {
  const w = assigned(n, scope, out);
  // `X[1]=v` sets one element (`X[0]=v` is $X): the variable is not known after it.
  const name = field(n, "name");
  const whole = name.type === "variable_name";
  const key = whole ? name.text : name.text.replace(/\[.*$/s, "");
  scope.vars.set(key, known && whole && !w.glob ? w.text : null);
  // A variable that changes what later commands run (`export LD_PRELOAD=./x.so; ls`) is kept as a
  // command of its own, with no words, so the dispatcher judges the line with it.
  if (codeVariable(key, known && whole ? w : { text: null }) !== null) push(out, { argv: [], redirects: [], cwd: scope.cwd, env: { [key]: w }, text: n.text });
}

const REDIRECTIONS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);

/** Adds the redirection `n` (one of REDIRECTIONS) to `into`; substitutions in it are walked. The words
 * tree-sitter files under a redirection after its target (`rm 2>/dev/null x`, `cat <&- x`,
 * `cat <<EOF x`) are the command's arguments to bash: added to `args`. */
function collectRedirects(n: Node, scope: Scope, out: SimpleCommand[], into: Redirect[], args: Word[]): void {
  if (n.type === "file_redirect") {
    const op = tokens(n).filter((c) => !c.isNamed).map((c) => c.text).join("");
    const dests = present(n.childrenForFieldName("destination"));
    // `<&-` and `>&-` close a descriptor: they take no file.
    into.push({ op, target: op.endsWith("-") ? null : word(dests.shift()!, scope, out) });
    for (const d of dests) args.push(word(d, scope, out));
  } else if (n.type === "heredoc_redirect") {
    into.push({ op: "<<", target: null });
    // `cat <<EOF > f`: tree-sitter files the output redirection under the heredoc, the command's
    // arguments after the heredoc's start, and a pipeline or list after it (`cat <<EOF | sh`) too.
    const argument = new Set(present(n.childrenForFieldName("argument")).map((c) => c.id));
    for (const c of named(n)) {
      if (REDIRECTIONS.has(c.type)) collectRedirects(c, scope, out, into, args);
      else if (argument.has(c.id)) args.push(word(c, scope, out));
      else walk(c, scope, out, []);
    }
  } else {
    into.push({ op: "<<<", target: null });
    walk(n, scope, out, []);
  }
}

/** Builtins that set variables they name (`read X`, `printf -v X`, `mapfile X`, `getopts o X`, `let X=1`). */
const SETTERS = new Set<string | null | undefined>(["read", "printf", "mapfile", "readarray", "getopts", "let"]);
/** Builtins that declare variables: run as commands (`builtin export X=1`), their assignments are not followed. */
const DECLARERS = new Set<string | null | undefined>(["export", "declare", "typeset", "local", "readonly"]);
/** Marks, among the variables, that a `shopt` or `set` (or a function that may run one) changed what a glob matches. */
const GLOBS = " globs";
/** Marks that a `cd` may resolve a `..` physically, on the filesystem, not in the text: after `cd -P`
 * (bash's $PWD is then the physical path, and a later `cd ..` leaves from there) or a `set` that may
 * turn on `-P` (`set -P`, `set -o physical`). */
const PHYSICAL = " physical";

/** `extra`: the words after the command's redirections (`rm 2>/dev/null x`), which tree-sitter files
 * under them (collectRedirects). */
function command(n: Node, scope: Scope, out: SimpleCommand[], outer: Redirect[], extra: Word[] = []): void {
  const argv: Word[] = [];
  const env: Record<string, Word> = {};
  const redirects = [...outer];
  for (const c of tokens(n)) {
    if (c.type === "variable_assignment") env[field(c, "name").text] = assigned(c, scope, out);
    else if (REDIRECTIONS.has(c.type)) collectRedirects(c, scope, out, redirects, argv);
    else if (c.type === "command_name") argv.push(word(named(c)[0] ?? c, scope, out));
    else if (c.isNamed) argv.push(word(c, scope, out));
    // A lone `$` (`rm $`), `==` and `=~` (`rm == a`) are anonymous nodes: bash passes each as the word
    // of its text. A `$` right before a string is the `$"…"` prefix of that string; `==` joined to the
    // word after it is one word to bash, two to tree-sitter (`rm =="x"`).
    else if (c.nextSibling?.startIndex !== c.endIndex) argv.push({ text: c.text, raw: c.text, glob: false, why: null });
    else if (c.type !== "$") throw new Unparsed(`\`${c.text}\` joined to the word after it`);
  }
  argv.push(...extra);
  // A call of a function the line defines runs its body, judged where it is defined, with whatever
  // the call's arguments and the shell are by then, and maybe itself again: not followed.
  const head = argv[0];
  if (head !== undefined && head.text !== null && scope.functions.has(head.text)) {
    argv[0] = { text: null, raw: head.raw, glob: false, why: `a function this line defines (\`${head.text}\`): what a call of it runs is not followed` };
  }
  const cmd: SimpleCommand = { argv, redirects, cwd: scope.cwd, env, text: n.text };
  push(out, cmd);
  effects(cmd, scope);
}

/** What a command changes in the shell for the commands after it. */
function effects(cmd: SimpleCommand, scope: Scope): void {
  const argv = cmd.argv;
  // `builtin cd`, `command read`: the builtin itself.
  let i = 0;
  while (argv[i]?.text === "builtin" || argv[i]?.text === "command") i++;
  const name = argv[i]?.text;
  if (name === "cd") cd(cmd, argv.slice(i + 1), scope);
  else if (name === "pushd" || name === "popd") moved(scope, null);
  else if (name === "shopt" || name === "set") {
    scope.vars.set(GLOBS, null);
    if (name === "set" && physicalSet(argv.slice(i + 1))) scope.vars.set(PHYSICAL, null);
  }
  else if (name === "eval" || name === "source" || name === ".") {
    // Runs code in this shell: anything may have changed.
    forget(scope);
    moved(scope, null);
    scope.vars.set(GLOBS, null);
  } else if (SETTERS.has(name) && (name !== "printf" || argv.some((w) => w.text === null || w.text.startsWith("-v")))) forget(scope);
  // `builtin unset X`, `\unset "X"`, `command export X=…`: the builtin run as a command (not the keyword
  // tree-sitter reads `unset` and `export` as): what it removes or sets is not followed, so every
  // variable known so far becomes unknown.
  else if (name === "unset" || DECLARERS.has(name)) forget(scope);
}

const literalWord = (text: string): Word => ({ text, raw: text, glob: false, why: null });

/** The variables `unset WORD…` removes (null: a name not known at check time), none under `-f` (functions
 * only). Options come before the first name or `--`; an unknown word there may be a name. */
function unsetNames(words: readonly Word[]): (string | null)[] {
  const names: (string | null)[] = [];
  let options = true;
  let functions = false;
  for (const w of words) {
    if (options && w.text === "--") options = false;
    else if (options && w.text !== null && w.text.startsWith("-") && w.text.length > 1) functions ||= w.text.includes("f");
    else {
      options = false;
      names.push(w.text);
    }
  }
  return functions ? [] : names;
}

/** Every variable known so far becomes unknown. */
function forget(scope: Scope): void {
  for (const k of scope.vars.keys()) scope.vars.set(k, null);
}

function moved(scope: Scope, to: string | null): void {
  scope.cwd = to;
  scope.vars.set("PWD", to);
}

/** May `set WORD…` turn on physical `cd` (`-P`, a bundle holding it, `-o physical`), or is a word not known? */
function physicalSet(args: readonly Word[]): boolean {
  return args.some((w, k) => w.text === null || /^[-+][A-Za-z]*P/.test(w.text) || (/^[-+]o$/.test(w.text) && args[k + 1]?.text === "physical"));
}

/** `cd [-L|-P|-e|-@]… [--] [DIR]`: the directory after it, when known. */
function cd(cmd: SimpleCommand, args: Word[], scope: Scope): void {
  let i = 0;
  let physical = false;
  while (args[i]?.text !== "-" && args[i]?.text !== "--" && args[i]?.text?.startsWith("-") === true) {
    // (the last of -L and -P counts)
    const t = args[i]!.text!;
    if (t.lastIndexOf("P") > t.lastIndexOf("L")) physical = true;
    else if (t.includes("L")) physical = false;
    i++;
  }
  if (args[i]?.text === "--") i++;
  const dest = args[i];
  // No operand: $HOME. `cd -` goes to $OLDPWD, not followed here.
  const to = dest === undefined ? scope.vars.get("HOME") ?? null : dest.glob || dest.text === "-" ? null : dest.text;
  // `cd -P far/..` goes to the parent of where far leads, not to where the text says; after `cd -P` or
  // `set -P` every `..` of a cd may be resolved so (bash's $PWD is then the physical path): not followed.
  const upward = to !== null && to.split("/").includes("..");
  const phys = physical || scope.vars.has(PHYSICAL);
  if (physical) scope.vars.set(PHYSICAL, null);
  // A relative directory is searched in $CDPATH first (unless it starts with `.`).
  if (to === null || (phys && upward) || (!to.startsWith("/") && (scope.cwd === null || (scope.vars.has("CDPATH") && !/^\.\.?(\/|$)/.test(to))))) moved(scope, null);
  else {
    cmd.chdir = joinPath(scope.cwd ?? "/", to);
    moved(scope, cmd.chdir);
  }
}

/** Absolute path of `p` from `base` (no filesystem access; `..` resolved textually). */
export function joinPath(base: string, p: string): string {
  const abs = p.startsWith("/") ? p : `${base}/${p}`;
  const parts: string[] = [];
  for (const seg of abs.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join("/")}`;
}

const unknown = (raw: string, why: string): Word => ({ text: null, raw, glob: false, why });

/** Resolves one word-like node. Substitutions inside it are walked as commands. */
function word(n: Node, scope: Scope, out: SimpleCommand[]): Word {
  const raw = n.text;
  const parts = wordParts(n, scope, out, false);
  if (parts.why !== null) return unknown(raw, parts.why);
  if (parts.glob && (scope.vars.has(GLOBS) || scope.vars.has("GLOBIGNORE"))) return unknown(raw, "a glob after shopt, set or GLOBIGNORE may have changed what it matches");
  // The text has lost its quotes and escapes, so a quoted `*`, `?` or `[` beside a live one would be
  // expanded as a pattern character (`rm \[a\]*` removes `[a]x`, not `ax`).
  if (parts.glob && parts.quotedGlob) return unknown(raw, "a glob beside quoted or escaped glob characters");
  if (parts.quotedStart || !parts.text.startsWith("~")) return { text: parts.text, raw, glob: parts.glob, why: null };
  if (parts.text !== "~" && !parts.text.startsWith("~/")) return unknown(raw, "another user's home (~user)");
  // `~` is $HOME, as the line may have set it.
  const home = scope.vars.get("HOME");
  return typeof home === "string" ? { text: home + parts.text.slice(1), raw, glob: parts.glob, why: null } : unknown(raw, "~ with $HOME not known");
}

interface Parts {
  text: string;
  glob: boolean;
  why: string | null;
  /** The word does not start with a literal unquoted part, so a `~` there is not the home directory
   * (`"~"/x`, `\~/x`, `$H/x`). */
  quotedStart: boolean;
  /** A quoted or escaped `*`, `?`, `[` or `]`: a literal character of the word, not of a pattern. */
  quotedGlob: boolean;
}

const literal = (text: string, quotedStart = false): Parts => ({ text, glob: false, why: null, quotedStart, quotedGlob: /[*?[\]]/.test(text) });
const unresolved = (why: string): Parts => ({ text: "", glob: false, why, quotedStart: false, quotedGlob: false });

/** Unquoted brace expansion ({a,b}, {1..3}) makes several words. */
const BRACES = /\{[^{}]*(,|\.\.)[^{}]*\}/;

/** `quoted`: inside double quotes (an expansion there is not split or globbed). */
function wordParts(n: Node, scope: Scope, out: SimpleCommand[], quoted: boolean): Parts {
  switch (n.type) {
    case "word":
    case "number":
      // (`\~` is a quoted start too: not the home directory.)
      return { text: unescape(n.text), glob: /(^|[^\\])[*?[]/.test(n.text), why: null, quotedStart: n.text.startsWith("\\"), quotedGlob: /\\[*?[\]]/.test(n.text) };
    case "raw_string":
      return literal(n.text.slice(1, -1), true);
    case "string":
    case "translated_string": {
      // Every part is read before an unknown one ends the word: a substitution after it runs too.
      const parts = named(n).map((c) => (c.type === "string_content" ? literal(c.text.replace(/\\([$`"\\\n])/g, (_, e: string) => (e === "\n" ? "" : e))) : wordParts(c, scope, out, true)));
      return { ...joined(parts), quotedStart: true };
    }
    case "concatenation": {
      // Braces are expanded when they are unquoted, whatever else is quoted (`{a,"b"}`).
      if (BRACES.test(tokens(n).map((c) => (c.type === "word" ? c.text : "_")).join(""))) return unresolved("brace expansion");
      const parts = tokens(n).map((c) => wordParts(c, scope, out, false));
      return { ...joined(parts), quotedStart: parts[0]!.quotedStart };
    }
    case "simple_expansion":
    case "expansion": {
      const name = named(n).find((c) => c.type === "variable_name" || c.type === "special_variable_name");
      // Only a plain ${NAME} or $NAME is resolved; ${X:-y}, ${#X}, ${X/a/b} are not (and may run
      // substitutions or assign: walked).
      if (name === undefined || (n.type === "expansion" && n.text !== `\${${name.text}}`)) {
        walk(n, scope, out, []);
        return unresolved(`parameter expansion ${n.text}`);
      }
      const v = scope.vars.get(name.text);
      if (typeof v !== "string") return unresolved(`unset or unknown variable $${name.text}`);
      // An unquoted expansion is split and globbed by bash (an empty one is no word at all): only a
      // value with no blanks or glob characters, under the usual IFS, is one word.
      if (!quoted && (/^$|[\s*?[]/.test(v) || scope.vars.has("IFS"))) return unresolved(`unquoted $${name.text} would be split or globbed`);
      // (A value is never tilde-expanded: `H='~'; rm $H/x` removes `./~/x`.)
      return literal(v, true);
    }
    case "ansi_c_string":
      return unresolved("ANSI-C quoting ($'…')");
    case "command_substitution":
    case "process_substitution":
      walk(n, scope, out, []);
      return unresolved(`command substitution ${n.text.slice(0, 40)}`);
    case "arithmetic_expansion":
      walk(n, scope, out, []);
      return unresolved("arithmetic expansion");
    default:
      // An anonymous `$` in a word: bash's `$` (`a$`), or the `$"…"` prefix of the string after it (`x$"y"` is `xy`).
      if (!n.isNamed) return literal(n.nextSibling?.type === "string" ? "" : n.text);
      walk(n, scope, out, []);
      return unresolved(`${n.type} ${n.text.slice(0, 40)}`);
  }
}

/** The parts of one word put together: unknown when one of them is. */
function joined(parts: Parts[]): Parts {
  let text = "";
  for (const p of parts) {
    if (p.why !== null) return p;
    text += p.text;
  }
  return { text, glob: parts.some((p) => p.glob), why: null, quotedStart: false, quotedGlob: parts.some((p) => p.quotedGlob) };
}

function unescape(t: string): string {
  // (A word never holds a backslash-newline: tree-sitter reads it as a line continuation between words.)
  return t.replace(/\\(.)/gs, "$1");
}
