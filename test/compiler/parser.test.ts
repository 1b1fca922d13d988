// Lexer and parser units: tokens, qualified names versus the statement-ending dot, expression shapes,
// precedence, and recovery that reports every statement's syntax error.
import { describe, expect, it } from "vitest";
import type { Expr, Statement } from "../../src/compiler/ast.js";
import { DiagnosticList } from "../../src/compiler/diagnostics.js";
import { lex } from "../../src/compiler/lexer.js";
import { parse } from "../../src/compiler/parser.js";
import { CONSTRUCT_NAMES } from "../../src/compiler/signatures.js";
import { SourceText } from "../../src/compiler/source.js";

function tokens(text: string) {
  const diags = new DiagnosticList(100);
  return { tokens: lex(new SourceText(text), diags), diags: diags.items };
}

function statements(text: string): { stmts: Statement[]; codes: string[] } {
  const src = new SourceText(text);
  const diags = new DiagnosticList(100);
  const stmts = parse(lex(src, diags), src, diags, { maxDepth: 64, constructs: CONSTRUCT_NAMES });
  return { stmts, codes: diags.items.map((d) => `${d.code}@${d.span.line}:${d.span.col}`) };
}

/** An expression as compact text: operators parenthesised, so precedence is visible. */
function show(e: Expr): string {
  switch (e.kind) {
    case "ident": return e.name;
    case "path": return e.parts.join(".");
    case "number": return (e.negative ? "-" : "") + e.text;
    case "string": return JSON.stringify(e.value);
    case "bool": return String(e.value);
    case "null": return "null";
    case "now": return "now";
    case "apply": return `${e.name}(${e.args.map(show).join(", ")})`;
    case "binary": return `(${show(e.left)} ${e.op} ${show(e.right)})`;
    case "not": return `(not ${show(e.operand)})`;
    case "in": return `(${show(e.subject)} ${e.negated ? "not in" : "in"} [${e.items.map(show).join(", ")}])`;
    case "list": return `[${e.items.map(show).join(", ")}]`;
    case "object": return `{${e.entries.map((x) => `${x.key}: ${show(x.value)}`).join(", ")}}`;
  }
}

function bound(expr: string): string {
  const { stmts, codes } = statements(`bounded_reversibility(t, ${expr}, none, 1).`);
  expect(codes).toEqual([]);
  return show(stmts[0].args[1].value);
}

describe("lexer", () => {
  it("reads a qualified name as one token and the final dot as punctuation", () => {
    const { tokens: t } = tokens("a(order.status, call.x.y).");
    expect(t.map((x) => `${x.kind}:${x.text}`)).toEqual([
      "ident:a", "punct:(", "path:order.status", "punct:,", "path:call.x.y", "punct:)", "punct:.", "eof:",
    ]);
    expect(t[2].parts).toEqual(["order", "status"]);
  });

  it("keeps a name followed by the statement's dot apart from it", () => {
    const { tokens: t } = tokens("x.\ny");
    expect(t.map((x) => x.text)).toEqual(["x", ".", "y", ""]);
    expect(t[2].lineStart).toBe(true);
  });

  it("reads numbers, two-character operators and both comment styles", () => {
    const { tokens: t } = tokens("0.95 12 <= >= == != < > // c\n% d\n-");
    expect(t.map((x) => x.text)).toEqual(["0.95", "12", "<=", ">=", "==", "!=", "<", ">", "-", ""]);
  });

  it("decodes string escapes, including a surrogate pair", () => {
    const { tokens: t, diags } = tokens(String.raw`"a\"b\\c\nd\te\u00e9\ud83d\ude00"`);
    expect(diags).toEqual([]);
    expect(t[0].text).toBe('a"b\\c\nd\te\u00e9\u{1f600}');
  });

  it("reports a bad escape and an unterminated string without stopping", () => {
    const { tokens: t, diags } = tokens('"a\\x" "open\nnext');
    expect(diags.map((d) => d.code)).toEqual(["invalid-escape", "unterminated-string"]);
    expect(t.map((x) => x.kind)).toEqual(["string", "string", "ident", "eof"]);
    expect(t[1].bad).toBe(true);
  });

  it("reports a run of unexpected characters once", () => {
    const { diags } = tokens("a ### b ~ c");
    expect(diags.map((d) => d.message)).toEqual(["unexpected characters `###`", "unexpected character `~`"]);
  });
});

describe("parser", () => {
  it("parses positional and named arguments and the @id attribute", () => {
    const { stmts, codes } = statements('@id("x.y") tool(a, acts_on = order, key = order_id).');
    expect(codes).toEqual([]);
    expect(stmts[0].name).toBe("tool");
    expect(stmts[0].attributes.map((a) => a.name)).toEqual(["id"]);
    expect(stmts[0].args.map((a) => a.name)).toEqual([null, "acts_on", "key"]);
  });

  it("gives `or` < `and` < `not` < comparison < `+`/`-` precedence", () => {
    expect(bound("a.b == 1 or a.c == 2 and not a.d")).toBe("((a.b == 1) or ((a.c == 2) and (not a.d)))");
    expect(bound("now - a.t < hours(24) + 1")).toBe("((now - a.t) < (hours(24) + 1))");
    expect(bound("(a.b or a.c) and a.d")).toBe("((a.b or a.c) and a.d)");
  });

  it("parses `in`, `not in`, negative numbers, size() and literals", () => {
    expect(bound('a.s in ["x", "y"]')).toBe('(a.s in ["x", "y"])');
    expect(bound("a.n not in [-1, 2.5, null, true]")).toBe("(a.n not in [-1, 2.5, null, true])");
    expect(bound("size(a.items) >= 0")).toBe("(size(a.items) >= 0)");
  });

  it("parses object and list literals with trailing commas", () => {
    const { stmts, codes } = statements('x(args = { a: call.x, "b c": [1, 2,], d: { e: null }, }).');
    expect(codes).toEqual([]);
    expect(show(stmts[0].args[0].value)).toBe("{a: call.x, b c: [1, 2], d: {e: null}}");
  });

  it("reports one error per broken statement and keeps parsing the rest", () => {
    const { stmts, codes } = statements("a(.\nb(x).\nc(x y).\nd(x).\n");
    expect(codes).toEqual(["syntax-error@1:3", "syntax-error@3:5"]);
    expect(stmts.map((s) => s.name)).toEqual(["b", "d"]);
  });

  it("keeps a statement whose final dot is missing when the next line starts a statement", () => {
    const { stmts, codes } = statements("tool(a)\ntool(b).");
    expect(codes).toEqual(["syntax-error@1:8"]);
    expect(stmts.map((s) => s.args.length)).toEqual([1, 1]);
  });

  it("resynchronises on a construct at the start of a line after a missing `)`", () => {
    const { stmts, codes } = statements("tool(a,\ntool(b).");
    expect(codes).toEqual(["syntax-error@1:8"]);
    expect(stmts.map((s) => show(s.args[0].value))).toEqual(["b"]);
  });

  it("refuses nesting deeper than the limit with a diagnostic, not a stack overflow", () => {
    const deep = "(".repeat(100_000) + "true" + ")".repeat(100_000);
    const { codes } = statements(`x(${deep}).`);
    expect(codes).toEqual(["limit-exceeded@1:67"]);
  });

  it("builds long operator chains without recursion", () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => `a.b == ${i}`).join(" or ");
    const { stmts, codes } = statements(`x(${chain}).`);
    expect(codes).toEqual([]);
    expect(stmts[0].args[0].value.kind).toBe("binary");
  });
});
