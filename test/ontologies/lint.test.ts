// `polar lint`: manifest shapes, every finding on small excerpts, the real τ²-bench manifests, and the
// command's exit codes.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { lintOntology, ManifestError, parseManifest } from "../../src/lint/index.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { DOMAINS, ROOT, TAU2_DIR, describeTau2, manifestOf, ontologyPath, tablesOf } from "./helpers.js";

const SMALL = `
slot_definition(order, status, string).
sink_definition(email, external = true).
tool(cancel_order, acts_on = order, key = order_id).
tool(send_note).
tool(get_order_status).
tool(archive_order, acts_on = order, key = order_id).
read_only(get_order, list_orders).
external_side_effect(send_note, email, 1.0).
bounded_reversibility(cancel_order, order.status == "pending", none, 0.99, args = { order_id: call.order_id }).
external_side_effect(get_order_status, email, 1.0).
`;

function small(): OntologyTables {
  const r = compile(SMALL, { name: "small.polar" });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
  return r.tables;
}

const codes = (tables: OntologyTables, manifest: unknown, side?: "agent" | "user") =>
  lintOntology(tables, parseManifest(manifest), { side }).findings.map((f) => `${f.code} ${f.tool}`);

describe("manifest shapes", () => {
  it("reads a τ²-bench tools JSON with kinds and sides", () => {
    const m = parseManifest([
      { name: "a", kind: "write" },
      { name: "b", kind: "read", side: "user" },
      { name: "c", mutates_state: true },
      { name: "d" },
    ]);
    expect(m.format).toBe("tools-json");
    expect(m.tools).toEqual([
      { name: "a", kind: "write", side: "agent", params: null },
      { name: "b", kind: "read", side: "user", params: null },
      { name: "c", kind: "write", side: "agent", params: null },
      { name: "d", kind: "unknown", side: "agent", params: null },
    ]);
  });

  it("reads parameters: a tools JSON's `name: type` (a default makes one optional), or a JSON schema", () => {
    const m = parseManifest([
      { name: "a", kind: "read", params: { customer_id: "str", limit: "int = 12", id: "str (prefix L=Line, D=Device)" } },
      { name: "b", kind: "write", params: { x: "Optional[str]", y: "str | None" } },
    ]);
    expect(m.tools.map((t) => t.params)).toEqual([
      [{ name: "customer_id", required: true }, { name: "limit", required: false }, { name: "id", required: true }],
      [{ name: "x", required: false }, { name: "y", required: false }],
    ]);
    const schema = parseManifest([{ type: "function", function: { name: "f", parameters: { type: "object", properties: { a: {}, b: {} }, required: ["b"] } } }]);
    expect(schema.tools[0].params).toEqual([{ name: "a", required: false }, { name: "b", required: true }]);
  });

  it("reads a tool_defs block (τ²-bench EnvironmentInfo: name → {name, doc, params, returns})", () => {
    const defs = { get_order: { name: "get_order", doc: "Get an order.", params: { type: "object" }, returns: null } };
    expect(parseManifest(defs)).toEqual({ format: "tool-defs", tools: [{ name: "get_order", kind: "unknown", side: "agent", params: [] }] });
    expect(parseManifest({ tool_defs: defs, user_tool_defs: { toggle: { name: "toggle", doc: "" } } }).tools).toEqual([
      { name: "get_order", kind: "unknown", side: "agent", params: [] },
      { name: "toggle", kind: "unknown", side: "user", params: null },
    ]);
  });

  it("reads the tool_defs of a results file, and refuses one that recorded none", () => {
    const results = { info: { environment_info: { domain_name: "x", policy: "", tool_defs: { a: { name: "a", doc: "" } } } } };
    expect(parseManifest(results).format).toBe("results");
    const none = { info: { environment_info: { domain_name: "x", policy: "", tool_defs: null } } };
    expect(() => parseManifest(none)).toThrow(ManifestError);
    try {
      parseManifest(none);
    } catch (e) {
      expect((e as ManifestError).code).toBe("no-tool-definitions");
    }
  });

  it("reads an OpenAI tools list", () => {
    const m = parseManifest([{ type: "function", function: { name: "a", parameters: {} } }]);
    expect(m).toEqual({ format: "openai-tools", tools: [{ name: "a", kind: "unknown", side: "agent", params: [] }] });
  });

  it("refuses JSON that is no manifest, with a code", () => {
    for (const bad of [42, "x", [1], [{ kind: "read" }], { something: 1 }]) {
      expect(() => parseManifest(bad)).toThrow(ManifestError);
    }
  });
});

describe("findings on a small ontology", () => {
  it("is clean when the manifest and the ontology agree", () => {
    const manifest = [
      { name: "cancel_order", kind: "write" },
      { name: "send_note", kind: "transfer" },
      { name: "get_order", kind: "read" },
      { name: "list_orders", kind: "pure" },
      { name: "get_order_status", kind: "unknown" },
      { name: "archive_order", kind: "unknown" },
    ];
    expect(codes(small(), manifest)).toEqual([]);
  });

  it("reports missing and extra tools", () => {
    const manifest = [
      { name: "cancel_order", kind: "write" },
      { name: "refund_order", kind: "write" },
      { name: "get_order", kind: "read" },
    ];
    expect(codes(small(), manifest)).toEqual([
      "missing-tool refund_order",
      "extra-tool send_note",
      "extra-tool get_order_status",
      "extra-tool archive_order",
      "extra-tool list_orders",
    ]);
  });

  it("flags write tools declared read_only, read tools annotated or declared mutating, write tools with no annotation", () => {
    const manifest = [
      { name: "cancel_order", kind: "write" },
      { name: "send_note", kind: "transfer" },
      { name: "get_order", kind: "write" },
      { name: "list_orders", kind: "read" },
      { name: "get_order_status", kind: "read" },
      { name: "archive_order", kind: "write" },
    ];
    const report = lintOntology(small(), parseManifest(manifest));
    expect(report.findings.map((f) => `${f.severity} ${f.code} ${f.tool}`)).toEqual([
      "error write-declared-read-only get_order",
      "error read-tool-annotated get_order_status",
      "warning write-tool-unannotated archive_order",
    ]);
    expect(report.errors).toBe(2);
    expect(report.warnings).toBe(1);
    expect(codes(small(), [{ name: "archive_order", kind: "read" }])).toContain("read-tool-not-read-only archive_order");
  });

  it("checks one side only when asked, without calling the other side's tools extras", () => {
    const manifest = [
      { name: "cancel_order", kind: "write", side: "agent" },
      { name: "send_note", kind: "write", side: "agent" },
      { name: "get_order", kind: "read", side: "agent" },
      { name: "list_orders", kind: "read", side: "agent" },
      { name: "archive_order", kind: "write", side: "user" },
      { name: "get_order_status", kind: "write", side: "user" },
      { name: "reboot", kind: "write", side: "user" },
    ];
    expect(codes(small(), manifest, "agent")).toEqual([]);
    expect(codes(small(), manifest, "user")).toEqual(["write-tool-unannotated archive_order", "missing-tool reboot"]);
  });
});

describeTau2("the τ²-bench ontologies against the real manifests", () => {
  // No gaps left: telecom's device inverses read the setting to restore through the constant device
  // key (issue 10 §3), so every inverse covers its tool's required parameters.
  const KNOWN_INVERSE_GAPS: Record<string, string[]> = { airline: [], retail: [], telecom: [] };
  it.each(DOMAINS)("%s: every inverse covers its tool's required parameters", (d) => {
    const report = lintOntology(tablesOf(d), parseManifest(manifestOf(d)));
    const gaps = report.findings.filter((f) => f.code === "inverse-missing-arguments").map((f) => f.annotation);
    expect(gaps).toEqual(KNOWN_INVERSE_GAPS[d]);
    expect(report.errors).toBe(gaps.length);
    expect(report.checked).toBe(manifestOf(d).length);
    // Every mutating tool is annotated (reseat_sim_card too, since issue 12: a no-op T2 and a T4).
    expect(report.findings.filter((f) => f.severity === "warning").map((f) => f.tool)).toEqual([]);
  });

  it("a domain's ontology against another domain's manifest is not clean", () => {
    const report = lintOntology(tablesOf("airline"), parseManifest(manifestOf("retail")));
    expect(report.findings.some((f) => f.code === "missing-tool" && f.tool === "return_delivered_order_items")).toBe(true);
    expect(report.findings.some((f) => f.code === "extra-tool" && f.tool === "book_reservation")).toBe(true);
  });
});

describeTau2("polar lint (command)", () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "lint", ...args], { cwd: ROOT, encoding: "utf8" });

  it("exits 0 on a clean pair, 1 when tools are missing or the manifest is unusable, 2 on bad usage", () => {
    const ok = run("--ontology", ontologyPath("airline"), "--tools", join(TAU2_DIR, "tools", "airline.json"));
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/14 tools checked, 0 errors, 0 warnings \(clean\)/);

    // A compiled blob lints like its source; telecom's agent side alone is clean too.
    const blob = run("--ontology", join(ROOT, "ontologies", "telecom", "telecom.blob"), "--tools", join(TAU2_DIR, "tools", "telecom.json"), "--side", "agent");
    expect(blob.status, blob.stderr).toBe(0);
    expect(blob.stdout).toMatch(/13 tools checked, 0 errors, 0 warnings \(clean\)/);

    const dir = mkdtempSync(join(tmpdir(), "polar-lint-"));
    const excerpt = join(dir, "excerpt.json");
    writeFileSync(excerpt, JSON.stringify([{ name: "book_reservation", kind: "write" }, { name: "new_tool", kind: "write" }]));
    const missing = run("--ontology", ontologyPath("airline"), "--tools", excerpt, "--json");
    expect(missing.status).toBe(1);
    const report = JSON.parse(missing.stdout);
    expect(report.format).toBe("tools-json");
    expect(report.findings[0]).toEqual({
      code: "missing-tool",
      severity: "error",
      tool: "new_tool",
      message: "tool `new_tool` (write) is in the manifest but not in the ontology",
    });

    const noDefs = join(dir, "results.json");
    writeFileSync(noDefs, JSON.stringify({ info: { environment_info: { tool_defs: null } }, simulations: [] }));
    const bad = run("--ontology", ontologyPath("airline"), "--tools", noDefs);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^error\[no-tool-definitions\]: /);
    expect(run("--ontology", ontologyPath("airline")).status).toBe(2);
    expect(run("--ontology", ontologyPath("airline"), "--tools", excerpt, "--side", "both").status).toBe(2);
  });
});
