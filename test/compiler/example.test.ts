// ontologies/example/library.polar is the language's tour: it must compile cleanly and use every
// construct, option, lifecycle state, argument source, slot type and bound feature.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ArgSource, Identity, Lifecycle, OperandKind, SlotType, Tier } from "../../src/abi.js";
import type { Expr, Statement } from "../../src/compiler/ast.js";
import { DiagnosticList } from "../../src/compiler/diagnostics.js";
import { compile } from "../../src/compiler/index.js";
import { lex } from "../../src/compiler/lexer.js";
import { parse } from "../../src/compiler/parser.js";
import { CONSTRUCT_NAMES } from "../../src/compiler/signatures.js";
import { SourceText } from "../../src/compiler/source.js";
import { REPO } from "./helpers.js";

const SOURCE = readFileSync(join(REPO, "ontologies", "example", "library.polar"), "utf8");
const result = compile(SOURCE, { name: "library.polar" });
if (!result.ok) throw new Error("the example must compile");
const tables = result.tables;
const src = new SourceText(SOURCE);
const statements: Statement[] = parse(lex(src, new DiagnosticList(10)), src, new DiagnosticList(10), { maxDepth: 64, constructs: CONSTRUCT_NAMES });

function walk(e: Expr, visit: (e: Expr) => void): void {
  visit(e);
  if (e.kind === "binary") { walk(e.left, visit); walk(e.right, visit); }
  if (e.kind === "not") walk(e.operand, visit);
  if (e.kind === "in") { walk(e.subject, visit); e.items.forEach((x) => walk(x, visit)); }
  if (e.kind === "apply" || e.kind === "list") (e.kind === "apply" ? e.args : e.items).forEach((x) => walk(x, visit));
}

describe("the example ontology", () => {
  it("compiles with no diagnostic at all", () => {
    expect(result.diagnostics).toEqual([]);
  });

  it("uses every construct", () => {
    expect(new Set(statements.map((s) => s.name))).toEqual(CONSTRUCT_NAMES);
  });

  it("uses every tier, lifecycle state and identity", () => {
    expect(new Set(tables.edges.map((e) => e.tier))).toEqual(new Set([Tier.T1, Tier.T2, Tier.T3, Tier.T4, Tier.T5]));
    expect(new Set(tables.edges.map((e) => e.lifecycle))).toEqual(
      new Set([Lifecycle.Live, Lifecycle.Provisional, Lifecycle.Revoked, Lifecycle.Disputed]));
    expect(new Set(tables.edges.map((e) => e.identity))).toEqual(new Set([Identity.Same, Identity.New]));
  });

  it("uses every option, both ways of giving an id, and explicit and derived ids", () => {
    const named = new Set(statements.flatMap((s) => s.args.map((a) => a.name)).filter((n) => n !== null));
    for (const o of ["id", "status", "identity", "args", "acts_on", "key", "creates", "new_key", "weight", "external"]) {
      expect(named, o).toContain(o);
    }
    expect(statements.some((s) => s.attributes.some((a) => a.name === "id"))).toBe(true);
    expect(tables.edges.some((e) => e.id.startsWith("T"))).toBe(true);
    expect(tables.edges.some((e) => !e.id.startsWith("T"))).toBe(true);
  });

  it("declares tools in every shape, including the defaults", () => {
    const shapes = tables.tools.map((t) => [t.readOnly, t.actsOn >= 0, t.creates >= 0]);
    expect(shapes).toContainEqual([true, false, false]); // read-only
    expect(shapes).toContainEqual([false, false, false]); // acts on nothing
    expect(shapes).toContainEqual([false, true, false]); // acts on an entity
    expect(shapes).toContainEqual([false, true, true]); // creates one
    expect(tables.tools.find((t) => t.name === "update_member_email")!.keyArg).toBe("member_id");
    expect(tables.tools.find((t) => t.name === "place_order")!.newKey).toBe("id");
  });

  it("uses every slot type, every argument source and both kinds of sink", () => {
    expect(new Set(tables.slots.map((s) => s.type))).toEqual(new Set([
      SlotType.String, SlotType.Number, SlotType.Bool, SlotType.Datetime, SlotType.Date, SlotType.List, SlotType.Object]));
    const sources = new Set(tables.edges.flatMap((e) => (e.argMap ?? []).map((a) => a.source)));
    expect(sources).toEqual(new Set([ArgSource.CallArg, ArgSource.PreSlot, ArgSource.Literal, ArgSource.NewId, ArgSource.Result]));
    const literals = tables.edges.flatMap((e) => (e.argMap ?? []).filter((a) => a.source === ArgSource.Literal).map((a) => a.ref[0]));
    expect(new Set(literals)).toEqual(new Set(['"', "f", "1", "[", "{"]));
    expect(new Set(tables.sinks.map((s) => s.external))).toEqual(new Set([true, false]));
  });

  it("uses every bound feature and every operand kind", () => {
    const seen = new Set<string>();
    for (const s of statements.filter((x) => x.name === "bounded_reversibility")) {
      walk(s.args[1].value, (e) => {
        if (e.kind === "binary") seen.add(e.op);
        else if (e.kind === "in") seen.add(e.negated ? "not in" : "in");
        else if (e.kind === "apply") seen.add(`${e.name}()`);
        else if (e.kind === "path") seen.add(e.parts[0] === "call" ? "call arg" : "slot");
        else seen.add(e.kind);
      });
    }
    for (const f of ["==", "!=", "<", "<=", ">", ">=", "and", "or", "not", "in", "not in", "+", "-", "size()", "minutes()",
      "hours()", "days()", "date()", "datetime()", "now", "string", "number", "bool", "null", "call arg", "slot"]) {
      expect(seen, f).toContain(f);
    }
    const kinds = new Set(tables.tools.flatMap((t) => t.operands.map((o) => o.kind)));
    expect(kinds).toEqual(new Set([OperandKind.SlotValue, OperandKind.SlotSize, OperandKind.ArgValue, OperandKind.ArgSize, OperandKind.SlotPresent]));
  });

  it("explains every annotation with a comment just above it", () => {
    const lines = SOURCE.split("\n");
    for (const e of tables.edges) {
      let i = e.span.line - 2;
      while (i >= 0 && lines[i].startsWith("@")) i--;
      expect(lines[i], e.id).toMatch(/^%/);
    }
  });
});
