// Recursive-descent parser. A syntax error abandons the statement and resynchronises at the next `.`
// (or at the next line that starts with a construct name), so one run reports every statement's error.
import type { Arg, Attribute, BinaryOp, Expr, ObjectEntry, Statement } from "./ast.js";
import { makeDiagnostic, q, type DiagnosticList } from "./diagnostics.js";
import type { Token } from "./lexer.js";
import type { Span } from "../ontology/tables.js";
import type { SourceText } from "./source.js";

/** Thrown to abandon a statement. Not an Error: capturing a stack trace per syntax error would make a
 * file full of errors slow to reject. */
const ABORT = Object.freeze({ abort: true });

const CMP_OPS = new Set(["==", "!=", "<", "<=", ">", ">="]);

export interface ParseOptions {
  /** Deepest nesting of brackets, `not`s and function calls in one expression. */
  maxDepth: number;
  /** Names that start a statement: recovery resynchronises on them at the start of a line. */
  constructs: ReadonlySet<string>;
}

export function parse(tokens: Token[], src: SourceText, diags: DiagnosticList, options: ParseOptions): Statement[] {
  return new Parser(tokens, src, diags, options).statements();
}

class Parser {
  private pos = 0;
  private depth = 0;
  private stmtBegin = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly src: SourceText,
    private readonly diags: DiagnosticList,
    private readonly options: ParseOptions,
  ) {}

  statements(): Statement[] {
    const out: Statement[] = [];
    while (this.peek().kind !== "eof") {
      const begin = this.pos;
      this.stmtBegin = begin;
      try {
        out.push(this.statement());
      } catch (e) {
        if (e !== ABORT) throw e;
        this.recover(begin);
      }
    }
    return out;
  }

  // ---- statements ---------------------------------------------------------------------------------

  private statement(): Statement {
    const attributes: Attribute[] = [];
    while (this.isPunct("@")) attributes.push(this.attribute());
    const name = this.expectKind("ident", "a construct name such as `tool` or `inverse_of`");
    this.expectPunct("(");
    const args = this.isPunct(")") ? [] : this.args();
    this.expectPunct(")");
    const dot = this.statementEnd();
    return {
      name: name.text,
      nameStart: name.start,
      nameEnd: name.end,
      args,
      attributes,
      start: attributes.length > 0 ? attributes[0].start : name.start,
      end: dot.end,
    };
  }

  /** The closing `.`. When it is missing and the next line starts a statement (or the file ends), the
   * statement is kept: one error, and nothing it declares goes missing for later statements. */
  private statementEnd(): Token {
    const t = this.peek();
    if (t.kind === "punct" && t.text === ".") return this.next();
    if (t.kind === "eof" || (t.lineStart && this.startsStatement(t))) {
      const prev = this.tokens[this.pos - 1];
      if (!this.statementHasLexError()) {
        this.diags.push(makeDiagnostic("syntax-error", `expected \`.\` at the end of the statement, found ${this.found(t)}`,
          this.src.point(prev.end)));
      }
      return { ...prev, start: prev.end, end: prev.end };
    }
    return this.expectPunct(".", "`.` at the end of the statement");
  }

  private attribute(): Attribute {
    const at = this.next();
    const name = this.expectKind("ident", "an attribute name such as `id`");
    let value: Expr | null = null;
    let end = name.end;
    if (this.isPunct("(")) {
      this.next();
      value = this.expr();
      end = this.expectPunct(")").end;
    }
    return { name: name.text, value, start: at.start, end };
  }

  private args(): Arg[] {
    const args: Arg[] = [];
    let named = false;
    for (;;) {
      const arg = this.arg();
      if (arg.name !== null) named = true;
      else if (named) this.fail(arg.start, arg.end, "a positional argument cannot follow a named one");
      args.push(arg);
      if (!this.isPunct(",")) return args;
      this.next();
    }
  }

  private arg(): Arg {
    const t = this.peek();
    // A construct at the start of a line is almost surely the next statement: the `)` was forgotten.
    if (t.lineStart && this.startsStatement(t)) this.fail(t.start, t.end, `expected \`)\`, found ${this.found(t)} starting a new statement`);
    if (t.kind === "ident" && this.peekAt(1).kind === "punct" && this.peekAt(1).text === "=") {
      this.next();
      this.next();
      const value = this.expr();
      return { name: t.text, nameStart: t.start, nameEnd: t.end, value, start: t.start, end: value.end };
    }
    const value = this.expr();
    return { name: null, nameStart: value.start, nameEnd: value.start, value, start: value.start, end: value.end };
  }

  // ---- expressions --------------------------------------------------------------------------------

  expr(): Expr {
    return this.binaryChain(["or"], () => this.binaryChain(["and"], () => this.notExpr()));
  }

  /** Left-associative chain, built iteratively so a long `a and b and ...` cannot overflow the stack. */
  private binaryChain(ops: string[], operand: () => Expr): Expr {
    let left = operand();
    for (;;) {
      const t = this.peek();
      if (!((t.kind === "ident" || t.kind === "punct") && ops.includes(t.text))) return left;
      this.next();
      const right = operand();
      left = { kind: "binary", op: t.text as BinaryOp, left, right, start: left.start, end: right.end };
    }
  }

  private notExpr(): Expr {
    const t = this.peek();
    if (t.kind === "ident" && t.text === "not") {
      this.next();
      const operand = this.nested(() => this.notExpr());
      return { kind: "not", operand, start: t.start, end: operand.end };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.binaryChain(["+", "-"], () => this.binaryChain(["*"], () => this.unary()));
    const t = this.peek();
    if (t.kind === "punct" && CMP_OPS.has(t.text)) {
      this.next();
      const right = this.binaryChain(["+", "-"], () => this.binaryChain(["*"], () => this.unary()));
      return { kind: "binary", op: t.text as BinaryOp, left, right, start: left.start, end: right.end };
    }
    const negated = this.isIdent("not") && this.peekAt(1).kind === "ident" && this.peekAt(1).text === "in";
    if (negated) this.next();
    if (this.isIdent("in")) {
      this.next();
      const list = this.nested(() => this.list());
      if (list.kind !== "list" || list.items.length === 0) {
        this.fail(list.start, list.end, "`in` needs a non-empty list such as `[\"a\", \"b\"]`");
      }
      const items = list.kind === "list" ? list.items : [];
      return { kind: "in", negated, subject: left, items, start: left.start, end: list.end };
    }
    return left;
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === "punct" && t.text === "-") {
      this.next();
      const n = this.peek();
      if (n.kind !== "number") this.fail(t.start, n.end, "a unary `-` must be followed by a number");
      this.next();
      return { kind: "number", text: n.text, negative: true, start: t.start, end: n.end };
    }
    return this.atom();
  }

  private atom(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case "number":
        this.next();
        return { kind: "number", text: t.text, negative: false, start: t.start, end: t.end };
      case "string":
        this.next();
        return { kind: "string", value: t.text, start: t.start, end: t.end };
      case "path":
        this.next();
        return { kind: "path", parts: t.parts, start: t.start, end: t.end };
      case "ident":
        return this.identAtom();
      case "punct":
        if (t.text === "(") return this.nested(() => this.parenthesised());
        if (t.text === "[") return this.nested(() => this.list());
        if (t.text === "{") return this.nested(() => this.object());
        break;
      default:
        break;
    }
    return this.fail(t.start, t.end, `expected a value, found ${this.found(t)}`);
  }

  private identAtom(): Expr {
    const t = this.next();
    const { start, end } = t;
    switch (t.text) {
      case "true": return { kind: "bool", value: true, start, end };
      case "false": return { kind: "bool", value: false, start, end };
      case "null": return { kind: "null", start, end };
      case "now": return { kind: "now", start, end };
      case "and": case "or": case "not": case "in":
        return this.fail(start, end, `expected a value, found ${q(t.text)}`);
      default: break;
    }
    if (!this.isPunct("(")) return { kind: "ident", name: t.text, start, end };
    return this.nested(() => {
      this.next();
      const args: Expr[] = [];
      if (!this.isPunct(")")) {
        args.push(this.expr());
        while (this.isPunct(",")) { this.next(); args.push(this.expr()); }
      }
      const close = this.expectPunct(")");
      return { kind: "apply", name: t.text, args, start, end: close.end };
    });
  }

  private parenthesised(): Expr {
    this.next();
    const inner = this.expr();
    this.expectPunct(")");
    return inner;
  }

  private list(): Expr {
    const open = this.expectPunct("[");
    const items: Expr[] = [];
    while (!this.isPunct("]")) {
      items.push(this.expr());
      if (!this.isPunct(",")) break;
      this.next();
    }
    const close = this.expectPunct("]");
    return { kind: "list", items, start: open.start, end: close.end };
  }

  private object(): Expr {
    const open = this.next();
    const entries: ObjectEntry[] = [];
    while (!this.isPunct("}")) {
      const k = this.peek();
      if (k.kind !== "ident" && k.kind !== "string") this.fail(k.start, k.end, `expected a parameter name, found ${this.found(k)}`);
      this.next();
      this.expectPunct(":");
      const value = this.expr();
      entries.push({ key: k.text, value, start: k.start, end: value.end });
      if (!this.isPunct(",")) break;
      this.next();
    }
    const close = this.expectPunct("}");
    return { kind: "object", entries, start: open.start, end: close.end };
  }

  private nested<T>(inner: () => T): T {
    if (this.depth >= this.options.maxDepth) {
      const t = this.peek();
      this.diags.push(makeDiagnostic("limit-exceeded",
        `expression nested deeper than ${this.options.maxDepth} levels`, this.src.span(t.start, t.end)));
      throw ABORT;
    }
    this.depth++;
    try {
      return inner();
    } finally {
      this.depth--;
    }
  }

  // ---- tokens and recovery ------------------------------------------------------------------------

  private peek(): Token {
    return this.tokens[this.pos];
  }

  private peekAt(k: number): Token {
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)];
  }

  private next(): Token {
    const t = this.tokens[this.pos];
    if (t.kind !== "eof") this.pos++;
    return t;
  }

  private isPunct(p: string): boolean {
    const t = this.peek();
    return t.kind === "punct" && t.text === p;
  }

  private isIdent(word: string): boolean {
    const t = this.peek();
    return t.kind === "ident" && t.text === word;
  }

  private expectPunct(p: string, what = `\`${p}\``): Token {
    const t = this.peek();
    if (t.kind !== "punct" || t.text !== p) this.fail(t.start, t.end, `expected ${what}, found ${this.found(t)}`);
    return this.next();
  }

  private expectKind(kind: Token["kind"], what: string): Token {
    const t = this.peek();
    if (t.kind !== kind) this.fail(t.start, t.end, `expected ${what}, found ${this.found(t)}`);
    return this.next();
  }

  private found(t: Token): string {
    switch (t.kind) {
      case "eof": return "the end of the file";
      case "string": return "a string";
      case "number": return `number ${q(t.text)}`;
      default: return q(t.text);
    }
  }

  /** Reports a syntax error (unless a lexical error already explains this statement) and aborts it. */
  private fail(start: number, end: number, message: string): never {
    if (this.diags.full) this.diags.drop();
    else if (!this.statementHasLexError()) {
      this.diags.push(makeDiagnostic("syntax-error", message, this.errorSpan(start, end)));
    }
    throw ABORT;
  }

  /** Where to point: at the offending token, or, when that token opens the next line, just after the
   * last token of this statement, where the missing piece belongs. */
  private errorSpan(start: number, end: number): Span {
    const t = this.peek();
    const prev = this.tokens[this.pos - 1];
    if (t.start === start && t.lineStart && prev !== undefined && this.pos > this.stmtBegin) {
      return this.src.point(prev.end);
    }
    return this.src.span(start, Math.max(end, start + 1));
  }

  private statementHasLexError(): boolean {
    for (let i = this.stmtBegin; i <= this.pos; i++) {
      if (this.tokens[i].bad) return true;
    }
    return false;
  }

  /** Skips past the failed statement: to just after the next `.`, or to the start of a line that begins
   * a new statement (a construct name followed by `(`, or `@`). Always makes progress. */
  private recover(begin: number): void {
    if (this.pos === begin) {
      const first = this.next();
      if (first.kind === "punct" && first.text === ".") return;
    }
    for (;;) {
      const t = this.peek();
      if (t.kind === "eof") return;
      if (t.kind === "punct" && t.text === ".") { this.next(); return; }
      if (t.lineStart && this.startsStatement(t)) return;
      this.next();
    }
  }

  private startsStatement(t: Token): boolean {
    if (t.kind === "punct" && t.text === "@") return true;
    const after = this.peekAt(1);
    return t.kind === "ident" && this.options.constructs.has(t.text) && after.kind === "punct" && after.text === "(";
  }
}
