// The ontology parser and compiler on bad input: random token soups, random bytes, random text and
// mutated real sources. The only acceptable answers are a compiled result or diagnostics: never an
// exception, never a slow case, never an `internal-error`, and every span inside the source.
import fc from "fast-check";
import { decodeBlob } from "../../../src/blob/index.js";
import { compile, DIAGNOSTIC_CODES, type CompileLimits, type Diagnostic } from "../../../src/compiler/index.js";
import { caseBudgetMs, corpusSources, fail, ontologySources, withinTime, type FuzzTarget } from "../support.js";

const TOKENS = [
  // constructs and options
  "slot_definition", "loss_class_definition", "sink_definition", "tool", "read_only", "inverse_of",
  "bounded_reversibility", "compensates", "irreversibly_consumes", "external_side_effect",
  "acts_on", "key", "creates", "new_key", "weight", "external", "id", "args", "identity", "lifecycle", "same", "new",
  "live", "provisional", "revoked", "disputed", "none", "true", "false", "string", "number", "bool", "datetime",
  "date", "list", "object",
  // names and paths
  "order", "user", "status", "total", "cancel", "place", "call.x", "new.id", "result.id", "order.status", "now", "a.b.c.d",
  // punctuation and operators
  "(", ")", ",", ".", "=", "{", "}", "[", "]", ":", "and", "or", "not", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*",
  // literals, good and bad
  "0", "1", "0.5", "0.9999999", "-3", "1e999", "99999999999999999999", "0.1234567", "\"x\"", "\"\"", "\"\\u0041\"",
  "\"\\uD800\"", "\"\\q\"", "\"unterminated", "\"a\\\"b\"",
  // comments, whitespace, oddities
  "% comment", "\n", "\r\n", "\t", " ", "\u00a0", "\u200b", "\ufeff", "é", "예약", "𝒳", "\u0000",
];

const tokenSoup: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom("", " ", "", "\n")), { maxLength: 200 })
  .map((parts) => parts.map(([t, sep]) => t + sep).join(""));

/** Strings of any UTF-16 code unit, lone surrogates included. */
const anyUnits: fc.Arbitrary<string> = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 400 });
const printable: fc.Arbitrary<string> = fc.string({ unit: "grapheme", maxLength: 400 });
const randomBytes: fc.Arbitrary<Uint8Array> = fc.uint8Array({ maxLength: 1500 });

type Mutation =
  | { op: "delete"; at: number; len: number }
  | { op: "insert"; at: number; text: string }
  | { op: "dupLine"; line: number }
  | { op: "dropLine"; line: number }
  | { op: "swapLines"; a: number; b: number }
  | { op: "token"; at: number; token: string }
  | { op: "byte"; at: number; value: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("delete" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), text: fc.oneof(fc.constantFrom(...TOKENS), printable.map((s) => s.slice(0, 12))) }),
  fc.record({ op: fc.constant("dupLine" as const), line: fc.nat() }),
  fc.record({ op: fc.constant("dropLine" as const), line: fc.nat() }),
  fc.record({ op: fc.constant("swapLines" as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ op: fc.constant("token" as const), at: fc.nat(), token: fc.constantFrom(...TOKENS) }),
  fc.record({ op: fc.constant("byte" as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
);

/** Applies text mutations; a `byte` mutation turns the source into UTF-8 bytes (maybe invalid). */
export function mutate(source: string, muts: readonly Mutation[]): string | Uint8Array {
  let text = source;
  let bytes: Uint8Array | null = null;
  for (const m of muts) {
    if (bytes !== null || m.op === "byte") {
      bytes ??= new TextEncoder().encode(text);
      if (m.op === "byte" && bytes.length > 0) bytes[m.at % bytes.length] = m.value;
      continue;
    }
    const lines = text.split("\n");
    switch (m.op) {
      case "delete": {
        const at = m.at % (text.length + 1);
        text = text.slice(0, at) + text.slice(at + m.len);
        break;
      }
      case "insert": {
        const at = m.at % (text.length + 1);
        text = text.slice(0, at) + m.text + text.slice(at);
        break;
      }
      case "dupLine": {
        const i = m.line % lines.length;
        lines.splice(i, 0, lines[i]);
        text = lines.join("\n");
        break;
      }
      case "dropLine":
        lines.splice(m.line % lines.length, 1);
        text = lines.join("\n");
        break;
      case "swapLines": {
        const a = m.a % lines.length;
        const b = m.b % lines.length;
        [lines[a], lines[b]] = [lines[b], lines[a]];
        text = lines.join("\n");
        break;
      }
      case "token": {
        // Replace the word (or single punctuation) at the position with another token.
        const at = m.at % (text.length + 1);
        const word = /^[A-Za-z_0-9.]+|^./s.exec(text.slice(at));
        text = text.slice(0, at) + m.token + text.slice(at + (word?.[0].length ?? 0));
        break;
      }
    }
  }
  return bytes ?? text;
}

/** The text spans are measured against: what the compiler sees after decoding (BOM dropped). */
function sourceLines(source: string | Uint8Array): string[] {
  const text = typeof source === "string" ? source : new TextDecoder().decode(source);
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split("\n");
}

/** The claim of the target, for one source. Exported for the corpus regression test. */
export function checkCompile(source: string | Uint8Array, limits?: Partial<CompileLimits>): void {
  const r = withinTime(caseBudgetMs(2000), "compile", () => compile(source, { limits }));
  if (r === null || typeof r !== "object" || !Array.isArray(r.diagnostics)) fail("compile returned no diagnostics list");
  if (r.ok) {
    // What it accepts must be a blob the loader accepts.
    decodeBlob(r.blob);
    return;
  }
  if (!r.diagnostics.some((d) => d.severity === "error")) fail("a failed compile has no error diagnostic");
  const lines = sourceLines(source);
  for (const d of r.diagnostics) checkDiagnostic(d, lines);
}

function checkDiagnostic(d: Diagnostic, lines: string[]): void {
  const where = `${d.code} ${JSON.stringify(d.span)}: ${d.message}`;
  if (!(d.code in DIAGNOSTIC_CODES)) fail(`unknown diagnostic code: ${where}`);
  if (d.code === "internal-error") fail(`internal error: ${where}`);
  if (typeof d.message !== "string" || d.message === "" || /\n/.test(d.message)) fail(`bad message: ${where}`);
  const { line, col, endLine, endCol } = d.span;
  for (const v of [line, col, endLine, endCol]) if (!Number.isSafeInteger(v) || v < 1) fail(`span field not a positive integer: ${where}`);
  if (line > lines.length || endLine > lines.length) fail(`span past the last line (${lines.length}): ${where}`);
  if (col > lines[line - 1].length + 1) fail(`column past the end of line ${line} (${lines[line - 1].length}): ${where}`);
  // A point span may reach one past the end of its line ("something is missing here").
  if (endCol > lines[endLine - 1].length + 2) fail(`end column past the end of line ${endLine}: ${where}`);
  if (endLine < line || (endLine === line && endCol < col)) fail(`span ends before it starts: ${where}`);
}

function seeds(): string[] {
  return [...ontologySources(), ...corpusSources()].map((s) => s.text);
}

export const compilerTarget: FuzzTarget = {
  name: "compiler",
  claim: "token soups, random bytes/text and mutated real sources, under default or tight limits, compile or give diagnostics with a code and a span inside the source",
  ciRuns: 2000,
  property() {
    const pool = seeds();
    const mutated = fc
      .tuple(fc.constantFrom(...pool), fc.array(mutation, { minLength: 1, maxLength: 6 }))
      .map(([s, muts]) => mutate(s, muts));
    const input: fc.Arbitrary<string | Uint8Array> = fc.oneof(
      { arbitrary: mutated, weight: 5 },
      { arbitrary: tokenSoup, weight: 3 },
      { arbitrary: randomBytes, weight: 1 },
      { arbitrary: anyUnits, weight: 1 },
      { arbitrary: printable, weight: 1 },
    );
    // Now and then tight limits, so the refusal paths (`limit-exceeded`, `source-too-large`) are fuzzed too.
    const limits: fc.Arbitrary<Partial<CompileLimits> | undefined> = fc.option(
      fc.record(
        {
          sourceBytes: fc.integer({ min: 0, max: 4000 }),
          tools: fc.integer({ min: 0, max: 12 }),
          edges: fc.integer({ min: 0, max: 12 }),
          programInstructions: fc.integer({ min: 0, max: 40 }),
          strings: fc.integer({ min: 0, max: 60 }),
          expressionDepth: fc.integer({ min: 0, max: 8 }),
          operandsPerTool: fc.integer({ min: 0, max: 4 }),
          diagnostics: fc.integer({ min: 0, max: 5 }),
        },
        { requiredKeys: [] },
      ),
      { freq: 4 },
    );
    return fc.property(input, limits, (src, lim) => checkCompile(src, lim ?? undefined));
  },
};
