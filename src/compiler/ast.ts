// The syntax tree. Every node keeps its source offsets (end exclusive) for diagnostics; the parser does
// not know which construct expects what, so every argument is parsed as a general expression and the
// checker interprets it.

export interface Node {
  start: number;
  end: number;
}

export type BinaryOp = "==" | "!=" | "<" | "<=" | ">" | ">=" | "and" | "or" | "+" | "-" | "*";

export type Expr =
  | (Node & { kind: "ident"; name: string })
  | (Node & { kind: "path"; parts: string[] })
  | (Node & { kind: "number"; text: string; negative: boolean })
  | (Node & { kind: "string"; value: string })
  | (Node & { kind: "bool"; value: boolean })
  | (Node & { kind: "null" })
  | (Node & { kind: "now" })
  | (Node & { kind: "apply"; name: string; args: Expr[] })
  | (Node & { kind: "binary"; op: BinaryOp; left: Expr; right: Expr })
  | (Node & { kind: "not"; operand: Expr })
  | (Node & { kind: "in"; negated: boolean; subject: Expr; items: Expr[] })
  | (Node & { kind: "list"; items: Expr[] })
  | (Node & { kind: "object"; entries: ObjectEntry[] });

export interface ObjectEntry extends Node {
  key: string;
  value: Expr;
}

export interface Arg extends Node {
  name: string | null; // null: positional
  nameStart: number;
  nameEnd: number;
  value: Expr;
}

/** `@id("x")` before a statement. */
export interface Attribute extends Node {
  name: string;
  value: Expr | null;
}

export interface Statement extends Node {
  name: string;
  nameStart: number;
  nameEnd: number;
  args: Arg[];
  attributes: Attribute[];
}

/** Describes an expression for a message: "a number", "`reservation.status`", ... */
export function describe(e: Expr): string {
  switch (e.kind) {
    case "ident": return `\`${e.name}\``;
    case "path": return `\`${e.parts.join(".")}\``;
    case "number": return "a number";
    case "string": return "a string";
    case "bool": return `\`${e.value}\``;
    case "null": return "`null`";
    case "now": return "`now`";
    case "apply": return `\`${e.name}(...)\``;
    case "binary": return `a \`${e.op}\` expression`;
    case "not": return "a `not` expression";
    case "in": return "an `in` expression";
    case "list": return "a list";
    case "object": return "an object";
  }
}
