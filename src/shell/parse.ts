// The bash front end: tree-sitter-bash (through web-tree-sitter) parses a command line; this file walks
// the syntax tree into the simple commands it runs, with each word resolved where its value is known
// (literals, assignments earlier on the line, the cwd, `~`) and marked unresolved where it is not.
// Lists, pipelines, subshells, groups, control flow, command and process substitutions, redirections
// and heredocs are followed. Globs are expanded later, against the real filesystem (./glob.ts).
// Why tree-sitter-bash: docs/shell.md, "Parser".
import { createRequire } from "node:module";
import { Language, Parser, type Node } from "web-tree-sitter";

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
  cwd: string | null;
  vars: Map<string, string | null>;
  home: string;
}

class Unparsed extends Error {}

/** Parses a command line into its simple commands. Never throws for any input string. */
export function parseCommandLine(source: string, cwd: string, home: string, depth = 0): ParseResult {
  if (typeof source !== "string") return { ok: false, reason: "unparsed", detail: "the command is not a string" };
  if (Buffer.byteLength(source, "utf8") > MAX_COMMAND_BYTES) return { ok: false, reason: "unparsed", detail: `the command is over ${MAX_COMMAND_BYTES} bytes` };
  if (source.includes("\u0000")) return { ok: false, reason: "unparsed", detail: "the command holds a NUL byte" };
  if (depth > MAX_NESTING) return { ok: false, reason: "unparsed", detail: "sh -c nested too deep" };
  const parser = bashParser();
  const tree = parser.parse(source);
  if (tree === null) return { ok: false, reason: "unparsed", detail: "the parser gave no tree" };
  try {
    const root = tree.rootNode;
    if (root.hasError) return { ok: false, reason: "unparsed", detail: `syntax error near \`${firstError(root)}\`` };
    const out: SimpleCommand[] = [];
    const scope: Scope = { cwd, vars: new Map([["HOME", home], ["PWD", cwd]]), home };
    walk(root, scope, out, []);
    return { ok: true, commands: out };
  } catch (e) {
    if (e instanceof Unparsed) return { ok: false, reason: "unparsed", detail: e.message };
    return { ok: false, reason: "unparsed", detail: `parser walk failed: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    tree.delete();
  }
}

function firstError(n: Node): string {
  if (n.type === "ERROR" || n.isMissing) return n.text.slice(0, 40);
  for (const c of n.children) if (c !== null && (c.hasError || c.isMissing)) return firstError(c);
  return n.text.slice(0, 40);
}

function push(out: SimpleCommand[], c: SimpleCommand): void {
  if (out.length >= MAX_COMMANDS) throw new Unparsed(`more than ${MAX_COMMANDS} simple commands`);
  out.push(c);
}

/** Walks a statement; `redirects` are those of enclosing redirected statements (they apply to every
 * command inside). */
function walk(n: Node, scope: Scope, out: SimpleCommand[], redirects: Redirect[]): void {
  switch (n.type) {
    case "program":
    case "list":
    case "pipeline":
    case "compound_statement":
    case "do_group":
    case "else_clause":
    case "elif_clause":
    case "negated_command":
      for (const c of n.namedChildren) if (c !== null) walk(c, scope, out, redirects);
      return;
    case "comment":
    case "heredoc_body":
    case "heredoc_start":
    case "heredoc_end":
      return;
    case "subshell": {
      const inner: Scope = { cwd: scope.cwd, vars: new Map(scope.vars), home: scope.home };
      for (const c of n.namedChildren) if (c !== null) walk(c, inner, out, redirects);
      return;
    }
    case "redirected_statement": {
      const own = [...redirects];
      const body = n.childForFieldName("body");
      for (const c of n.namedChildren) {
        if (c === null || c === body) continue;
        collectRedirects(c, scope, out, own);
      }
      if (body !== null) walk(body, scope, out, own);
      else if (own.length > redirects.length) push(out, { argv: [], redirects: own, cwd: scope.cwd, env: {}, text: n.text });
      return;
    }
    case "variable_assignment": {
      assign(n, scope, out);
      return;
    }
    case "variable_assignments": {
      for (const c of n.namedChildren) if (c !== null && c.type === "variable_assignment") assign(c, scope, out);
      return;
    }
    case "declaration_command":
    case "unset_command": {
      for (const c of n.namedChildren) {
        if (c === null) continue;
        if (c.type === "variable_assignment") assign(c, scope, out);
        else if (c.type === "variable_name" || c.type === "word") scope.vars.set(c.text, n.type === "unset_command" ? null : scope.vars.get(c.text) ?? null);
      }
      return;
    }
    case "command":
      command(n, scope, out, redirects);
      return;
    case "if_statement":
    case "while_statement":
    case "until_statement":
    case "for_statement":
    case "c_style_for_statement":
    case "case_statement":
    case "case_item":
    case "function_definition":
    case "test_command":
    case "arithmetic_expansion": {
      // Every branch may run: walk conditions and bodies alike. A loop variable is unknown.
      if (n.type === "for_statement") {
        const v = n.childForFieldName("variable");
        if (v !== null) scope.vars.set(v.text, null);
        for (const c of n.childrenForFieldName("value")) if (c !== null) word(c, scope, out);
      }
      for (const c of n.namedChildren) {
        if (c === null) continue;
        if (STATEMENTS.has(c.type)) walk(c, scope, out, redirects);
        else if (c.type === "file_redirect" || c.type === "heredoc_redirect" || c.type === "herestring_redirect") collectRedirects(c, scope, out, redirects);
        else expansionsIn(c, scope, out);
      }
      return;
    }
    default:
      if (STATEMENTS.has(n.type)) {
        for (const c of n.namedChildren) if (c !== null) walk(c, scope, out, redirects);
        return;
      }
      // Anything else at statement level (a bare word, an expansion): walk its substitutions.
      expansionsIn(n, scope, out);
  }
}

const STATEMENTS = new Set([
  "program", "list", "pipeline", "compound_statement", "do_group", "else_clause", "elif_clause", "negated_command",
  "subshell", "redirected_statement", "variable_assignment", "variable_assignments", "declaration_command",
  "unset_command", "command", "if_statement", "while_statement", "until_statement", "for_statement",
  "c_style_for_statement", "case_statement", "case_item", "function_definition", "test_command", "comment",
]);

function assign(n: Node, scope: Scope, out: SimpleCommand[]): void {
  const name = n.childForFieldName("name");
  const value = n.childForFieldName("value");
  if (name === null) return;
  const w = value === null ? { text: "", raw: "", glob: false, why: null } : word(value, scope, out);
  scope.vars.set(name.text, w.glob ? null : w.text);
}

function collectRedirects(n: Node, scope: Scope, out: SimpleCommand[], into: Redirect[]): void {
  if (n.type === "file_redirect") {
    let op = "";
    for (const c of n.children) if (c !== null && !c.isNamed) op += c.text;
    const dest = n.childForFieldName("destination");
    into.push({ op: op || ">", target: dest === null ? null : word(dest, scope, out) });
    return;
  }
  if (n.type === "heredoc_redirect") {
    into.push({ op: "<<", target: null });
    // `cat <<EOF > f`: tree-sitter files the output redirection under the heredoc.
    for (const c of n.namedChildren) {
      if (c === null) continue;
      if (c.type === "file_redirect") collectRedirects(c, scope, out, into);
      else if (c.type === "heredoc_body") expansionsIn(c, scope, out);
      else if (STATEMENTS.has(c.type)) walk(c, scope, out, []);
    }
    return;
  }
  if (n.type === "herestring_redirect") {
    into.push({ op: "<<<", target: null });
    expansionsIn(n, scope, out);
    return;
  }
  expansionsIn(n, scope, out);
}

function command(n: Node, scope: Scope, out: SimpleCommand[], outer: Redirect[]): void {
  const argv: Word[] = [];
  const env: Record<string, Word> = {};
  const redirects = [...outer];
  let prev: Node | null = null;
  for (const c of n.children) {
    if (c === null) continue;
    // `a\<newline>b` is one word to bash (the pair is removed), two to tree-sitter: not judged. Inside
    // a command a line break only comes from such a continuation, so a two-byte gap that ends at the
    // start of the next line is exactly `\<newline>`.
    if (prev !== null && c.startIndex - prev.endIndex === 2 && c.startPosition.row === prev.endPosition.row + 1 && c.startPosition.column === 0) {
      throw new Unparsed("a line continuation inside a word");
    }
    prev = c;
    // A lone `$` argument (`rm $`) is an anonymous node: bash passes it as the word `$`; one right
    // before a string is the `$"…"` prefix of that string.
    if (!c.isNamed) {
      const next = c.nextSibling;
      if (c.type === "$" && (next === null || next.startIndex !== c.endIndex)) argv.push({ text: "$", raw: "$", glob: false, why: null });
      continue;
    }
    if (c.type === "variable_assignment") {
      const name = c.childForFieldName("name");
      const value = c.childForFieldName("value");
      if (name !== null) env[name.text] = value === null ? { text: "", raw: "", glob: false, why: null } : word(value, scope, out);
    } else if (c.type === "command_name") {
      const inner = c.namedChild(0);
      argv.push(inner === null ? { text: c.text, raw: c.text, glob: false, why: null } : word(inner, scope, out));
    } else if (c.type === "file_redirect" || c.type === "heredoc_redirect" || c.type === "herestring_redirect") {
      collectRedirects(c, scope, out, redirects);
    } else if (c.type === "comment") {
      continue;
    } else {
      argv.push(word(c, scope, out));
    }
  }
  const cmd: SimpleCommand = { argv, redirects, cwd: scope.cwd, env, text: n.text };
  push(out, cmd);
  // `cd` changes the directory of the commands after it in the same shell.
  if (argv.length > 0 && argv[0]!.text === "cd") {
    // `cd -` goes to the previous directory (not known here); other `-…` words are options.
    const dest = argv.find((w, i) => i > 0 && (w.text === "-" || !(w.text ?? "").startsWith("-")));
    if (dest === undefined) scope.cwd = scope.home;
    else if (dest.text === null || dest.glob || scope.cwd === null) scope.cwd = null;
    else if (dest.text === "-") scope.cwd = null;
    else scope.cwd = joinPath(scope.cwd, dest.text);
    scope.vars.set("PWD", scope.cwd);
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

/** Walks the command and process substitutions inside a node (they run too). */
function expansionsIn(n: Node, scope: Scope, out: SimpleCommand[]): void {
  if (n.type === "command_substitution" || n.type === "process_substitution") {
    const inner: Scope = { cwd: scope.cwd, vars: new Map(scope.vars), home: scope.home };
    for (const c of n.namedChildren) if (c !== null) walk(c, inner, out, []);
    return;
  }
  for (const c of n.namedChildren) if (c !== null) expansionsIn(c, scope, out);
}

/** Resolves one word-like node. Substitutions inside it are walked as commands. */
export function word(n: Node, scope: Scope, out: SimpleCommand[]): Word {
  const raw = n.text;
  const parts = wordParts(n, scope, out, false);
  if (parts.why !== null) return unknown(raw, parts.why);
  let text = parts.text;
  if (!parts.quotedStart && (text === "~" || text.startsWith("~/"))) text = scope.home + text.slice(1);
  else if (!parts.quotedStart && text.startsWith("~")) return unknown(raw, "another user's home (~user)");
  return { text, raw, glob: parts.glob, why: null };
}

interface Parts {
  text: string;
  glob: boolean;
  why: string | null;
  quotedStart: boolean;
}

function wordParts(n: Node, scope: Scope, out: SimpleCommand[], quoted: boolean): Parts {
  switch (n.type) {
    case "word":
    case "command_name":
    case "number":
    case "file_descriptor": {
      const t = n.text;
      if (!quoted && /[{][^{}]*[,][^{}]*[}]|[{][^{}]*\.\.[^{}]*[}]/.test(t)) return { text: "", glob: false, why: "brace expansion", quotedStart: false };
      const glob = !quoted && /(^|[^\\])[*?[]/.test(t);
      return { text: unescape(t), glob, why: null, quotedStart: false };
    }
    case "raw_string":
      return { text: n.text.slice(1, -1), glob: false, why: null, quotedStart: true };
    case "ansi_c_string":
      return { text: "", glob: false, why: "ANSI-C quoting ($'…')", quotedStart: true };
    case "translated_string":
    case "string": {
      let text = "";
      for (const c of n.namedChildren) {
        if (c === null) continue;
        if (c.type === "string_content") text += c.text.replace(/\\([$`"\\\n])/g, "$1");
        else {
          const p = wordParts(c, scope, out, true);
          if (p.why !== null) return { ...p, quotedStart: true };
          text += p.text;
        }
      }
      return { text, glob: false, why: null, quotedStart: true };
    }
    case "concatenation": {
      // Unquoted brace expansion ({a,b}, {1..3}) makes several words: not resolved.
      if (!quoted && n.children.some((c) => c !== null && (c.type === "word" || !c.isNamed) && /[{}]/.test(c.text)) && /\{[^{}]*(,|\.\.)[^{}]*\}/.test(n.text)) {
        return { text: "", glob: false, why: "brace expansion", quotedStart: false };
      }
      let text = "";
      let glob = false;
      let first = true;
      let quotedStart = false;
      for (const c of n.children) {
        if (c === null) continue;
        const p = wordParts(c, scope, out, quoted);
        if (p.why !== null) return p;
        if (first) quotedStart = p.quotedStart;
        first = false;
        text += p.text;
        glob ||= p.glob;
      }
      return { text, glob, why: null, quotedStart };
    }
    case "simple_expansion":
    case "expansion": {
      const nameNode = n.namedChildren.find((c) => c !== null && (c.type === "variable_name" || c.type === "special_variable_name"));
      // Only a plain ${NAME} or $NAME is resolved; ${X:-y}, ${#X}, ${X/a/b} are not.
      const plain = n.type === "simple_expansion" || n.text === `\${${nameNode?.text ?? ""}}`;
      if (nameNode === undefined || nameNode === null || !plain) return { text: "", glob: false, why: `parameter expansion ${n.text}`, quotedStart: false };
      const v = scope.vars.get(nameNode.text);
      if (v === undefined || v === null) return { text: "", glob: false, why: `unset or unknown variable $${nameNode.text}`, quotedStart: false };
      // An unquoted expansion is split and globbed by bash: only a value with no blanks or glob chars is safe.
      if (!quoted && /[\s*?[]/.test(v)) return { text: "", glob: false, why: `unquoted $${nameNode.text} would be split or globbed`, quotedStart: false };
      return { text: v, glob: false, why: null, quotedStart: quoted };
    }
    case "command_substitution":
    case "process_substitution":
      expansionsIn(n, scope, out);
      return { text: "", glob: false, why: `command substitution ${n.text.slice(0, 40)}`, quotedStart: false };
    case "arithmetic_expansion":
      return { text: "", glob: false, why: "arithmetic expansion", quotedStart: false };
    case "$":
      // A lone `$` before a quote ($"…") or at the end of a word: literal.
      return { text: "$", glob: false, why: null, quotedStart: false };
    default:
      if (!n.isNamed) return { text: n.text, glob: false, why: null, quotedStart: false };
      expansionsIn(n, scope, out);
      return { text: "", glob: false, why: `${n.type} ${n.text.slice(0, 40)}`, quotedStart: false };
  }
}

function unescape(t: string): string {
  return t.replace(/\\(.)/gs, (_, c: string) => (c === "\n" ? "" : c));
}
