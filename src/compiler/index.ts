// The Layer A compiler: ontology source in, checked tables and the versioned blob out, or every
// diagnostic at once. Pure and synchronous, no runtime-specific API, so it runs wherever the host does.
//
//   source → decode (strict UTF-8) → lex → parse → declarations (pass 1) → annotations (pass 2)
//          → relations → layout (OntologyTables) → encodeBlob
import { encodeBlob } from "../blob/index.js";
import type { OntologyTables } from "../ontology/tables.js";
import { sha256 } from "../util/sha256.js";
import { VERSION } from "../version.js";
import { Annotations } from "./annotations.js";
import { ConstantPool } from "./bounds.js";
import { layout } from "./codegen.js";
import { Context } from "./context.js";
import { Declarations } from "./declarations.js";
import { DiagnosticList, hasErrors, makeDiagnostic, q, sortDiagnostics, type Diagnostic } from "./diagnostics.js";
import { lex } from "./lexer.js";
import { resolveLimits, type CompileLimits } from "./limits.js";
import { Model, type ResidueItem, type ToolParam } from "./model.js";
import { parse } from "./parser.js";
import { checkRelations } from "./relations.js";
import { CONSTRUCT_NAMES, SIGNATURES, bindArgs, type BoundArgs } from "./signatures.js";
import type { Statement } from "./ast.js";
import { SourceText, decodeUtf8, stripBom } from "./source.js";
import type { Tier } from "../abi.js";

export { formatDiagnostic, DIAGNOSTIC_CODES, type Diagnostic, type DiagnosticCode, type Severity } from "./diagnostics.js";
export { DEFAULT_LIMITS, type CompileLimits } from "./limits.js";
export type { ResidueItem, ToolParam } from "./model.js";

export interface CompileOptions {
  /** Recorded in the blob as the source name; default `ontology.polar`. */
  name?: string;
  limits?: Partial<CompileLimits>;
}

/** What the source declares beyond the blob, for hosts that execute inverses (docs/ontology-language.md):
 * each loss class's declared residue and each tool's declared parameters, in table order. */
export interface CompiledModel {
  lossClasses: { name: string; weight: number; residue: ResidueItem[] }[];
  tools: { name: string; params: ToolParam[] | null }[];
}

export type CompileResult =
  | { ok: true; tables: OntologyTables; blob: Uint8Array; model: CompiledModel; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

export const DEFAULT_SOURCE_NAME = "ontology.polar";

export function compile(source: string | Uint8Array, options: CompileOptions = {}): CompileResult {
  const limits = resolveLimits(options.limits);
  const diags = new DiagnosticList(limits.diagnostics);
  const input = readSource(source, limits, diags);
  if (input === null) return finish(diags, null);
  const checked = check(input.text, input.sha256, options.name ?? DEFAULT_SOURCE_NAME, limits, diags);
  return finish(diags, checked);
}

/** The pipeline after decoding: tables when nothing is wrong, null otherwise. */
function check(text: string, sourceSha256: Uint8Array, name: string, limits: CompileLimits, diags: DiagnosticList):
  { tables: OntologyTables; model: CompiledModel } | null {
  const src = new SourceText(text);
  const ctx = new Context(src, diags, limits);
  ctx.pool.intern(VERSION);
  ctx.pool.intern(name);
  const tokens = lex(src, diags);
  if (tokens.length === 1 && diags.count === 0) {
    diags.push(makeDiagnostic("empty-source", "the ontology has no statements", src.span(0, 0)));
    return null;
  }
  const statements = parse(tokens, src, diags, { maxDepth: limits.expressionDepth, constructs: CONSTRUCT_NAMES });
  const model = new Model();
  const constants = new ConstantPool();
  const annotations = declareAll(ctx, model, statements);
  internDeclarations(ctx, model);
  const annotator = new Annotations(ctx, model, constants);
  for (const a of annotations) annotator.annotate(a.stmt, a.bound, a.tier);
  checkRelations(ctx, model);
  if (hasErrors(diags.items) || diags.dropped > 0) return null;
  const tables = layout(ctx, model, constants, { sourceName: name, sourceSha256, compilerVersion: VERSION });
  if (tables.strings.length > limits.strings) {
    diags.push(makeDiagnostic("limit-exceeded", `the string pool holds ${tables.strings.length} strings, more than ${limits.strings}`, src.span(0, 0)));
    return null;
  }
  return { tables, model: compiledModel(model) };
}

function compiledModel(model: Model): CompiledModel {
  return {
    lossClasses: model.lossList().map((l) => ({ name: l.name, weight: l.weight, residue: l.residue.map((r) => ({ ...r })) })),
    tools: model.toolList().map((t) => ({ name: t.name, params: t.params === null ? null : t.params.map((p) => ({ name: p.name, required: p.required })) })),
  };
}

interface PendingAnnotation { stmt: Statement; bound: BoundArgs; tier: Tier }

/** Pass 1 over all statements: declarations are recorded, annotations kept for pass 2. */
function declareAll(ctx: Context, model: Model, statements: Statement[]): PendingAnnotation[] {
  const decls = new Declarations(ctx, model);
  const pending: PendingAnnotation[] = [];
  for (const stmt of statements) {
    const sig = SIGNATURES.get(stmt.name);
    if (sig === undefined) {
      ctx.report("unknown-construct", `unknown construct ${q(stmt.name)}`, { start: stmt.nameStart, end: stmt.nameEnd },
        suggestConstruct(stmt.name));
      continue;
    }
    const bound = bindArgs(ctx, stmt, sig);
    if (sig.tier !== undefined) pending.push({ stmt, bound, tier: sig.tier });
    else decls.declare(stmt, bound);
  }
  decls.finish();
  return pending;
}

function suggestConstruct(name: string): string | undefined {
  const close = [...CONSTRUCT_NAMES].find((c) => c.startsWith(name.slice(0, 4)) || name.startsWith(c.slice(0, 6)));
  return close === undefined ? undefined : `did you mean \`${close}\`?`;
}

/** Declaration names enter the pool before any bound literal, in table order. */
function internDeclarations(ctx: Context, model: Model): void {
  for (const e of model.entityList()) ctx.pool.intern(e.name);
  for (const s of model.slotList()) ctx.pool.intern(s.name);
  for (const l of model.lossList()) ctx.pool.intern(l.name);
  for (const s of model.sinkList()) ctx.pool.intern(s.name);
  for (const t of model.toolList()) ctx.pool.intern(t.name);
}

function finish(diags: DiagnosticList, checked: { tables: OntologyTables; model: CompiledModel } | null): CompileResult {
  const tables = checked?.tables ?? null;
  if (diags.dropped > 0) {
    diags.items.push(makeDiagnostic("limit-exceeded", `${diags.dropped} more diagnostics not shown`,
      { line: 1, col: 1, endLine: 1, endCol: 1 }, "fix the errors above first"));
  }
  const diagnostics = sortDiagnostics(diags.items);
  if (tables === null || hasErrors(diagnostics)) return { ok: false, diagnostics };
  let blob: Uint8Array;
  try {
    blob = encodeBlob(tables);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    diagnostics.push(makeDiagnostic("internal-error", `the blob encoder refused the compiled tables: ${message}`,
      { line: 1, col: 1, endLine: 1, endCol: 1 }));
    return { ok: false, diagnostics };
  }
  return { ok: true, tables, blob, model: checked!.model, diagnostics };
}

// ---- source ---------------------------------------------------------------------------------------

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Size check, strict decoding and the source hash; null after a diagnostic. */
function readSource(source: string | Uint8Array, limits: CompileLimits, diags: DiagnosticList): { text: string; sha256: Uint8Array } | null {
  const origin = { line: 1, col: 1, endLine: 1, endCol: 1 };
  // A UTF-16 code unit is at least one UTF-8 byte: a string longer than the limit is too large unseen.
  if (source.length > limits.sourceBytes) {
    diags.push(makeDiagnostic("source-too-large", `the source is larger than ${limits.sourceBytes} bytes`, origin));
    return null;
  }
  if (typeof source === "string") return readString(source, limits, diags);
  const decoded = decodeUtf8(source);
  if (!decoded.ok) {
    const at = new SourceText(decoded.text).position(decoded.text.length);
    diags.push(makeDiagnostic("invalid-utf8", `the source is not UTF-8: invalid byte 0x${source[decoded.byteOffset].toString(16).padStart(2, "0")} at offset ${decoded.byteOffset}`,
      { line: at.line, col: at.col, endLine: at.line, endCol: at.col + 1 }));
    return null;
  }
  return { text: decoded.text, sha256: sha256(source) };
}

function readString(source: string, limits: CompileLimits, diags: DiagnosticList): { text: string; sha256: Uint8Array } | null {
  const lone = LONE_SURROGATE.exec(source);
  if (lone !== null) {
    const at = new SourceText(source).position(lone.index);
    diags.push(makeDiagnostic("invalid-utf8", "the source has a lone UTF-16 surrogate, which UTF-8 cannot encode",
      { line: at.line, col: at.col, endLine: at.line, endCol: at.col + 1 }));
    return null;
  }
  const bytes = new TextEncoder().encode(source);
  if (bytes.length > limits.sourceBytes) {
    diags.push(makeDiagnostic("source-too-large", `the source is ${bytes.length} bytes, more than ${limits.sourceBytes}`,
      { line: 1, col: 1, endLine: 1, endCol: 1 }));
    return null;
  }
  return { text: stripBom(source), sha256: sha256(bytes) };
}
