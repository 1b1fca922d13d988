// Diagnostics: every problem the compiler finds, as data. Codes are stable kebab-case identifiers
// (docs/ontology-language.md lists them); messages are one line, lower-case, no final period, with user
// input in backticks; the longer explanation goes in `help`.
import type { Span } from "../ontology/tables.js";
import { SourceText, decodeUtf8 } from "./source.js";

export type Severity = "error" | "warning";

export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  span: Span;
  help?: string;
}

/** Every code the compiler emits, with its default help text. */
export const DIAGNOSTIC_CODES = {
  "syntax-error": "statements look like `name(arg, ..., option = value).`; see docs/ontology-language.md",
  "unterminated-string": "close the string with `\"` on the same line",
  "invalid-escape": "the escapes are `\\\"`, `\\\\`, `\\n`, `\\t` and `\\uXXXX` (surrogates only in pairs)",
  "invalid-utf8": "save the ontology as UTF-8",
  "empty-source": "an ontology needs at least one statement, e.g. `tool(name).`",
  "source-too-large": "split the ontology or raise the `sourceBytes` compile limit",
  "unknown-construct": "the constructs are slot_definition, loss_class_definition, sink_definition, tool, read_only, inverse_of, bounded_reversibility, compensates, irreversibly_consumes and external_side_effect",
  "wrong-arity": "check the construct's arguments in docs/ontology-language.md",
  "unknown-option": "check the construct's options in docs/ontology-language.md",
  "duplicate-option": "give each argument once, either by position or by name",
  "invalid-option": "this option does not apply here; see docs/ontology-language.md",
  "invalid-argument": "check the construct's arguments in docs/ontology-language.md",
  "unknown-slot-type": "slot types are string, number, bool, datetime, date, list and object",
  "unknown-slot": "declare it with `slot_definition(entity, slot, type).`",
  "unknown-entity": "an entity is declared by its slots: `slot_definition(entity, slot, type).`",
  "unknown-loss-class": "declare it with `loss_class_definition(name, weight = w).` or use `none`",
  "unknown-sink": "declare it with `sink_definition(name, external = true).`",
  "unknown-tool": "declare it with `tool(name, ...).`",
  "weight-out-of-range": "an annotation weight w is the curator's confidence, 0 < w <= 1",
  "loss-weight-out-of-range": "a loss class weight is in [0, 1): a residue that costs everything is not an undo",
  "too-many-decimals": "weights and bound numbers are fixed point with 6 decimals (1.0 = 1000000)",
  "number-out-of-range": "bound numbers are 64-bit fixed point with 6 decimals",
  "duplicate-annotation": "each (construct, tools, slot) and each annotation id appears once; give a second annotation of the same shape an explicit distinct `id`",
  "duplicate-declaration": "declare each name once",
  "reserved-name": "`call`, `new`, `result`, `now` and the keywords cannot name an entity or a slot",
  "bad-bound-expression": "a bound compares slots of the tool's acts_on entity, call arguments, literals and `now`; see docs/ontology-language.md",
  "bound-type-mismatch": "compare values of one kind: numbers and times with numbers and times, strings with strings",
  "bound-entity-mismatch": "a bound or inverse argument may read only slots of the tool's `acts_on` entity",
  "contradictory-edges": "a tool cannot both be undone on a slot and consume that slot beyond recovery; revoke or remove one",
  "invalid-lifecycle": "the lifecycle states are `live`, `provisional`, `revoked` and `disputed`",
  "invalid-identity": "`identity` is `same` or `new`, and `new` needs a positive annotation on a tool with an entity",
  "bad-arg-source": "inverse arguments come from `call.x`, `entity.slot` (before the call), `new.id`, `result.x` or a literal",
  "missing-inverse-argument": "give every required parameter of the inverse tool a source in `args = { ... }`, or declare it in `optional_params`",
  "unknown-inverse-parameter": "`args` may set only the inverse tool's declared `params` and `optional_params`",
  "annotated-read-only-tool": "read-only tools need no undo; remove the annotation or the read_only declaration",
  "limit-exceeded": "raise the compile limit or split the ontology",
  "internal-error": "this is a bug in the compiler; please report it with the ontology source",
  "tool-without-annotation": "a mutating tool with no annotation has no undo: every call to it is refused with `no_candidate`",
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

const WARNING_CODES: ReadonlySet<string> = new Set(["tool-without-annotation"]);

export function makeDiagnostic(code: DiagnosticCode, message: string, span: Span, help?: string): Diagnostic {
  return {
    code,
    severity: WARNING_CODES.has(code) ? "warning" : "error",
    message,
    span,
    help: help ?? DIAGNOSTIC_CODES[code],
  };
}

/** User input quoted for a message: backticks, and only the first line of something long. */
export function q(text: string): string {
  const one = text.replace(/[\r\n\t]+/g, " ");
  return "`" + (one.length > 60 ? one.slice(0, 57) + "..." : one) + "`";
}

/** Position order (line, column), then code, so the report reads top to bottom and is deterministic. */
export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return list
    .map((d, i) => ({ d, i }))
    .sort((a, b) =>
      a.d.span.line - b.d.span.line ||
      a.d.span.col - b.d.span.col ||
      (a.d.code < b.d.code ? -1 : a.d.code > b.d.code ? 1 : 0) ||
      a.i - b.i)
    .map((x) => x.d);
}

/** Collected diagnostics. Past `cap` they are counted but not kept, so a source made of garbage costs
 * bounded memory; `count` still tells a pass whether it reported anything. */
export class DiagnosticList {
  readonly items: Diagnostic[] = [];
  count = 0;
  dropped = 0;

  constructor(private readonly cap: number) {}

  /** True once further diagnostics are only counted: callers may skip building them. */
  get full(): boolean {
    return this.items.length >= this.cap;
  }

  /** Counts a diagnostic that would not be kept anyway. */
  drop(): void {
    this.count++;
    this.dropped++;
  }

  push(d: Diagnostic): void {
    this.count++;
    if (this.items.length < this.cap) this.items.push(d);
    else this.dropped++;
  }
}

export function hasErrors(list: readonly Diagnostic[]): boolean {
  return list.some((d) => d.severity === "error");
}

/**
 * A rustc-like rendering:
 *
 *     error[unknown-slot]: unknown slot `order.colour`
 *      --> shop.polar:12:18
 *        |
 *     12 | inverse_of(a, b, order.colour, 1).
 *        |                  ^^^^^^^^^^^^
 *        = help: declare it with `slot_definition(entity, slot, type).`
 */
export function formatDiagnostic(d: Diagnostic, source: string | Uint8Array, fileName: string): string {
  const text = typeof source === "string" ? source : decodeUtf8(source).text;
  const lines = new SourceText(text);
  const lineText = lineAt(lines.text, d.span.line);
  const gutter = String(d.span.line).length;
  const pad = " ".repeat(gutter);
  const out = [
    `${d.severity}[${d.code}]: ${d.message}`,
    `${pad}--> ${fileName}:${d.span.line}:${d.span.col}`,
  ];
  if (lineText !== null) {
    out.push(`${pad} |`);
    out.push(`${d.span.line} | ${lineText}`);
    out.push(`${pad} | ${underline(lineText, d.span)}`);
  }
  if (d.help) out.push(`${pad} = help: ${d.help}`);
  return out.join("\n");
}

function lineAt(text: string, line: number): string | null {
  let start = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) return null;
    start = nl + 1;
  }
  const nl = text.indexOf("\n", start);
  const raw = text.slice(start, nl < 0 ? text.length : nl);
  return raw.endsWith("\r") ? raw.slice(0, -1) : raw;
}

/** Carets under the span's part of its first line; tabs before it are copied so the carets line up. */
function underline(lineText: string, span: Span): string {
  const from = Math.max(0, Math.min(span.col - 1, lineText.length));
  const to = span.endLine === span.line ? Math.min(span.endCol - 1, lineText.length) : lineText.length;
  const lead = lineText.slice(0, from).replace(/[^\t]/g, " ");
  return lead + "^".repeat(Math.max(1, to - from));
}
