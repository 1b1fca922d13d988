// The conformance corpus on both backends: each case's verdict must match the hand-derived expectation,
// and the WebAssembly core and the reference must write identical output bytes.
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { createVerifier, JsonState } from "../../src/core/verifier.js";
import type { Verdict } from "../../src/core/types.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { loadCore } from "../differential/backends.js";
import { loadCases, ontologySource, type ConformanceCase } from "./corpus.js";

const cases = loadCases();
const core = loadCore();
const compiled = new Map<string, { tables: OntologyTables; blob: Uint8Array }>();

function compileCase(c: ConformanceCase): { tables: OntologyTables; blob: Uint8Array } {
  const { name, source } = ontologySource(c);
  let hit = compiled.get(source);
  if (hit === undefined) {
    const r = compile(source, { name });
    if (!r.ok) throw new Error(`${name} does not compile: ${r.diagnostics.map((d) => `${d.code} ${d.message}`).join("; ")}`);
    hit = { tables: r.tables, blob: r.blob };
    compiled.set(source, hit);
  }
  return hit;
}

function observed(v: Verdict) {
  return {
    reason: v.reason,
    complete: v.complete,
    phi: v.phi,
    loss: v.loss,
    steps: v.steps.map((s) => ({ call: s.call, tool: s.tool, tier: s.tier, annotation: s.annotation, arguments: s.arguments })),
    bottleneck: { call: v.bottleneck.call, tool: v.bottleneck.tool, reason: v.bottleneck.reason, annotation: v.bottleneck.annotation },
  };
}

describe("conformance corpus", () => {
  it("holds at least 45 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(45);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const { tables, blob } = compileCase(c);
    const state = new JsonState(c.state);
    const reference = createVerifier(tables, createReferenceBackend(tables)).verdict(c.forward, state, c.options);
    const wasm = createVerifier(tables, core.load(blob)).verdict(c.forward, state, c.options);
    const { nodes, ...expected } = c.expected;
    expect(observed(reference), c.description).toEqual(expected);
    if (nodes !== undefined) expect(reference.nodes, "nodes").toBe(nodes);
    expect(Buffer.from(wasm.bytes).toString("hex"), "wasm and reference output bytes").toBe(Buffer.from(reference.bytes).toString("hex"));
    expect(observed(wasm)).toEqual(observed(reference));
  });
});
