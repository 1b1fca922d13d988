// `polar draft` / `polar promote` / `polar lint` on provisional guesses (src/mcp/draft.ts), on the real
// servers' tools/list output (fixtures captured from server-memory and server-filesystem 2026.8.31)
// and on an OpenAI tools list: every guess is provisional and takes no part in a verdict until promoted.
import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { Lifecycle } from "../../src/abi.js";
import { compile } from "../../src/compiler/index.js";
import { createGuard } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/index.js";
import { draftOntology, parseToolList, promote, provisionalItems, DraftError } from "../../src/mcp/draft.js";
import { ROOT, tempDir } from "./helpers.js";

const fixture = (n: string): unknown => JSON.parse(readFileSync(join(ROOT, "test/mcp/fixtures", n), "utf8"));

function draftOf(json: unknown): { text: string; tables: ReturnType<typeof compileOk>["tables"]; blob: Uint8Array } {
  const text = draftOntology(parseToolList(json), "test");
  return { text, ...compileOk(text) };
}

function compileOk(text: string) {
  const r = compile(text, { name: "draft.polar" });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return r;
}

describe("polar draft", () => {
  for (const f of ["memory-tools.json", "filesystem-tools.json"]) {
    it(`drafts a compiling ontology from the real ${f} with every guess provisional and commented`, () => {
      const { text, tables } = draftOf(fixture(f));
      expect(tables.edges.length).toBeGreaterThan(0);
      for (const e of tables.edges) expect(e.lifecycle, e.id).toBe(Lifecycle.Provisional);
      // No live read_only: read-only guesses are commented out until promoted.
      expect(tables.tools.filter((t) => t.readOnly)).toEqual([]);
      // Each guess has a comment line saying what it was guessed from, right before it.
      const lines = text.split("\n");
      lines.forEach((l, i) => {
        if (/^@id\("draft\./.test(l) || /^%provisional\(/.test(l)) expect(lines[i - 1], l).toMatch(/^% guessed /);
      });
    });
  }

  it("guesses from hints and names: readOnlyHint → read_only, a create/delete pair → inverse + compensation, destructiveHint → fail-closed", () => {
    const { text } = draftOf(fixture("memory-tools.json"));
    expect(text).toContain("%provisional(draft.read_graph.read_only) read_only(read_graph).");
    expect(text).toMatch(/@id\("draft\.create_entities\.inverse"\) inverse_of\(delete_entities, create_entities, .*status = provisional\)/);
    expect(text).toMatch(/@id\("draft\.delete_entities\.compensation"\) compensates\(create_entities, delete_entities, /);
    const fs = draftOf(fixture("filesystem-tools.json")).text;
    expect(fs).toMatch(/% guessed fail-closed from destructiveHint true\n@id\("draft\.write_file\.fail_closed"\) irreversibly_consumes\(write_file, path\.state/);
  });

  it("reads an OpenAI tools list (Chat Completions and Responses shapes)", () => {
    const tools = parseToolList([
      { type: "function", function: { name: "get_order", description: "Get an order", parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] } } },
      { type: "function", name: "cancel_order", description: "Cancel", parameters: { type: "object", properties: { order_id: {} }, required: ["order_id"] } },
      { type: "function", name: "place_order", parameters: { properties: { user_id: {} }, required: ["user_id"] } },
    ]);
    expect(tools.map((t) => t.name)).toEqual(["get_order", "cancel_order", "place_order"]);
    const { text, tables } = draftOf({ tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: { properties: Object.fromEntries(t.params.map((p) => [p, {}])), required: t.required } })) });
    expect(text).toContain("% guessed read-only from the name (a reading verb) with no readOnlyHint");
    expect(text).toContain("tool(cancel_order, acts_on = order, key = order_id).");
    expect(tables.edges.map((e) => e.id)).toEqual(expect.arrayContaining(["draft.place_order.inverse", "draft.cancel_order.compensation"]));
  });

  it("refuses a tool list it cannot read", () => {
    for (const bad of [{}, 3, [1], [{ name: "has space" }], [{ name: "a" }, { name: "a" }]]) expect(() => parseToolList(bad)).toThrow(DraftError);
  });

  it("no guess takes part in a verdict until promoted; promoting one makes exactly it live", () => {
    const { text, tables, blob } = draftOf(fixture("memory-tools.json"));
    const guard = (b: Uint8Array) => createGuard({ ontology: b, state: new LayerB() });
    const g0 = guard(blob);
    expect(g0.check({ name: "read_graph", arguments: {} }).reason).toBe("unknown_tool");
    expect(g0.check({ name: "create_entities", arguments: { entities: [] } }).reason).toBe("no_candidate");
    const p1 = promote(text, "draft.read_graph.read_only", tables);
    const p2 = promote(p1, "draft.create_entities.inverse", compileOk(p1).tables);
    const r2 = compileOk(p2);
    const g2 = guard(r2.blob);
    expect(g2.check({ name: "read_graph", arguments: {} }).reason).toBe("read_only");
    expect(g2.check({ name: "create_entities", arguments: { entities: [] } }).reason).toBe("ok");
    expect(provisionalItems(r2.tables, p2).map((x) => x.id)).not.toContain("draft.create_entities.inverse");
    expect(provisionalItems(r2.tables, p2)).toHaveLength(provisionalItems(tables, text).length - 2);
    expect(() => promote(p2, "draft.create_entities.inverse", r2.tables)).toThrow(/not provisional/);
    expect(() => promote(p2, "no.such.id", r2.tables)).toThrow(/no annotation/);
  });

  it("the CLI: draft, lint lists what is provisional, promote, lint again", () => {
    const t = tempDir("draft");
    try {
      const out = join(t.dir, "draft.polar");
      const run = (...a: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), ...a], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
      const d = run("draft", "--tools", join(ROOT, "test/mcp/fixtures/memory-tools.json"), "-o", out);
      expect(d.status, d.stderr).toBe(0);
      const l1 = run("lint", "--ontology", out, "--provisional");
      expect(l1.stdout).toMatch(/warning\[provisional\]: declaration `draft\.read_graph\.read_only`/);
      expect(l1.stdout).toMatch(/9 provisional items in draft\.polar/);
      const p = run("promote", out, "--id", "draft.delete_entities.compensation");
      expect(p.status, p.stderr).toBe(0);
      expect(run("lint", "--ontology", out, "--provisional").stdout).toMatch(/8 provisional items/);
      // Bad input is exit 1 in the CLI's one error style; a missing option is usage (2).
      const again = run("promote", out, "--id", "draft.delete_entities.compensation");
      expect(again.status).toBe(1);
      expect(again.stderr).toMatch(/^error\[[a-z-]+\]: /);
      writeFileSync(join(t.dir, "bad.json"), "{");
      expect(run("draft", "--tools", join(t.dir, "bad.json")).status).toBe(1);
      expect(run("draft").status).toBe(2);
    } finally {
      t.cleanup();
    }
  });
});
