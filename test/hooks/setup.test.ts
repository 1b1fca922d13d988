// src/hooks/setup.ts: the engine as `polar serve` builds it. `<home>/config.json` read strictly (a
// configuration that cannot be read is an error at start, never a daemon running half-configured), each
// configured MCP server's ontology loaded (a .blob as it is, a .polar compiled) with its projection rules
// and policy, one core guard per session.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { blobDigestHex } from "../../src/blob/index.js";
import { compile } from "../../src/compiler/index.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { createHookEngine, HookConfigError, mcpGuards, readHookConfig } from "../../src/hooks/setup.js";
import { payload } from "./helpers.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const memory = join(root, "ontologies/mcp-memory");

function homeWith(config: unknown, files: Record<string, string> = {}): string {
  const home = mkdtempSync(join(tmpdir(), "polar-setup-"));
  if (config !== undefined) writeFileSync(join(home, "config.json"), typeof config === "string" ? config : JSON.stringify(config));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(home, name), text);
  return home;
}

function configError(home: string): HookConfigError {
  try {
    readHookConfig(home);
  } catch (e) {
    expect(e).toBeInstanceOf(HookConfigError);
    return e as HookConfigError;
  }
  throw new Error("no error");
}

describe("readHookConfig", () => {
  test("no config.json: no MCP server", () => {
    expect(readHookConfig(homeWith(undefined))).toEqual({ mcp: {} });
    expect(readHookConfig(homeWith({}))).toEqual({ mcp: {} });
  });

  test("each server's ontology and rules, relative to the home or absolute, and its policy", () => {
    const home = homeWith({ mcp: { memory: { ontology: "m.blob", rules: "sub/p.json", policy: "escalate" }, fs: { ontology: "/abs/fs.polar", policy: "veto" }, bare: { ontology: "b.blob" } } });
    expect(readHookConfig(home)).toStrictEqual({
      mcp: {
        memory: { ontology: join(home, "m.blob"), rules: join(home, "sub/p.json"), policy: "escalate" },
        fs: { ontology: "/abs/fs.polar", policy: "veto" },
        bare: { ontology: join(home, "b.blob") },
      },
    });
  });

  test("every shape it cannot read is an error naming the file and what is wrong (bad-hook-config)", () => {
    const cases: Array<[unknown, RegExp]> = [
      ["{", /config\.json` is not JSON: /u],
      ["[]", /config\.json` is not a JSON object$/u],
      ["null", /config\.json` is not a JSON object$/u],
      ['"x"', /config\.json` is not a JSON object$/u],
      [{ mcp: {}, servers: {} }, /config\.json`: unknown key `servers`$/u],
      [{ mcp: [] }, /config\.json`: `mcp` is not an object$/u],
      [{ mcp: null }, /config\.json`: `mcp` is not an object$/u],
      [{ mcp: "memory" }, /config\.json`: `mcp` is not an object$/u],
      [{ mcp: { memory: null } }, /config\.json`: mcp\.memory needs an `ontology` file$/u],
      [{ mcp: { memory: "m.blob" } }, /config\.json`: mcp\.memory needs an `ontology` file$/u],
      [{ mcp: { memory: 1 } }, /config\.json`: mcp\.memory needs an `ontology` file$/u],
      [{ mcp: { memory: ["m.blob"] } }, /config\.json`: mcp\.memory needs an `ontology` file$/u],
      [{ mcp: { memory: {} } }, /config\.json`: mcp\.memory needs an `ontology` file$/u],
      [{ mcp: { memory: { ontology: 1 } } }, /config\.json`: mcp\.memory needs an `ontology` file$/u],
      [{ mcp: { memory: { ontology: "m.blob", rule: "p.json" } } }, /config\.json`: mcp\.memory: unknown key `rule`$/u],
      [{ mcp: { memory: { ontology: "m.blob", rules: 1 } } }, /config\.json`: mcp\.memory\.rules is not a file name$/u],
      [{ mcp: { memory: { ontology: "m.blob", rules: null } } }, /config\.json`: mcp\.memory\.rules is not a file name$/u],
      [{ mcp: { memory: { ontology: "m.blob", policy: "ask" } } }, /config\.json`: mcp\.memory\.policy is veto or escalate$/u],
      [{ mcp: { memory: { ontology: "m.blob", policy: null } } }, /config\.json`: mcp\.memory\.policy is veto or escalate$/u],
    ];
    for (const [config, message] of cases) {
      const e = configError(homeWith(config));
      expect([e.name, e.code]).toEqual(["HookConfigError", "bad-hook-config"]);
      expect(e.message).toMatch(message);
      expect(e.message.startsWith("`")).toBe(true);
    }
  });
});

describe("mcpGuards", () => {
  const tools = "tool(wipe).\n";

  test("a .polar ontology is compiled; the policy decides what an irreversible call answers (veto: deny, escalate: ask)", () => {
    const veto = mcpGuards(readHookConfig(homeWith({ mcp: { t: { ontology: "t.polar" } } }, { "t.polar": tools }))).t();
    expect(veto.check({ name: "wipe", arguments: {} })).toMatchObject({ action: "deny", code: "no_candidate" });
    const vetoed = mcpGuards(readHookConfig(homeWith({ mcp: { t: { ontology: "t.polar", policy: "veto" } } }, { "t.polar": tools }))).t();
    expect(vetoed.check({ name: "wipe", arguments: {} })).toMatchObject({ action: "deny", code: "no_candidate" });
    const escalate = mcpGuards(readHookConfig(homeWith({ mcp: { t: { ontology: "t.polar", policy: "escalate" } } }, { "t.polar": tools }))).t();
    expect(escalate.check({ name: "wipe", arguments: {} })).toMatchObject({ action: "ask", code: "no_candidate" });
    expect(escalate.check({ name: "other", arguments: {} })).toMatchObject({ action: "deny", code: "unknown_tool" });
  });

  test("a .polar is compiled as `polar compile` and `polar audit verify` compile it (named by its file name): the records' ontology hash is the one the audit computes", () => {
    const home = homeWith({ mcp: { t: { ontology: "sub/t.polar" } } });
    mkdirSync(join(home, "sub"));
    writeFileSync(join(home, "sub/t.polar"), tools);
    const d = mcpGuards(readHookConfig(home)).t().check({ name: "wipe", arguments: {} });
    const compiled = compile(new TextEncoder().encode(tools), { name: "t.polar" });
    if (!compiled.ok) throw new Error("the test ontology has errors");
    expect((d.decisions[0] as { ontologyHash: string }).ontologyHash).toBe(blobDigestHex(compiled.blob));
    // A .blob: the file's own hash.
    const blobHome = homeWith({ mcp: { m: { ontology: join(memory, "memory.blob") } } });
    const b = mcpGuards(readHookConfig(blobHome)).m().check({ name: "read_graph", arguments: {} });
    expect((b.decisions[0] as { ontologyHash: string }).ontologyHash).toBe(blobDigestHex(new Uint8Array(readFileSync(join(memory, "memory.blob")))));
  });

  test("a .blob is loaded as it is; projection rules are read from their file", () => {
    const home = homeWith({ mcp: { memory: { ontology: join(memory, "memory.blob"), rules: join(memory, "projection.json") } } });
    const g = mcpGuards(readHookConfig(home)).memory();
    expect(g.check({ name: "read_graph", arguments: {} })).toMatchObject({ action: "allow" });
  });

  test("an ontology with errors, rules that are not rules, a file that is not there: an error at start", () => {
    expect(() => mcpGuards(readHookConfig(homeWith({ mcp: { t: { ontology: "t.polar" } } }, { "t.polar": "tool(" })))).toThrow(/the ontology `.*t\.polar` has errors \(run `polar check .*t\.polar`\)/u);
    expect(() => mcpGuards(readHookConfig(homeWith({ mcp: { t: { ontology: "t.polar" } } }, { "t.polar": "tool(" })))).toThrow(HookConfigError);
    expect(() => mcpGuards(readHookConfig(homeWith({ mcp: { t: { ontology: "t.polar", rules: "r.json" } } }, { "t.polar": tools, "r.json": "{" })))).toThrow();
    expect(() => mcpGuards(readHookConfig(homeWith({ mcp: { t: { ontology: "t.polar", rules: "r.json" } } }, { "t.polar": tools, "r.json": '{"format":"nope"}' })))).toThrow();
    expect(() => mcpGuards(readHookConfig(homeWith({ mcp: { t: { ontology: "none.blob" } } })))).toThrow(/ENOENT/u);
  });

  test("a guard that cannot be built (a .blob that is not one, or cut short): an error at start naming the server and the file", () => {
    const blob = readFileSync(join(memory, "memory.blob"));
    const cases: Array<[Record<string, string>, Record<string, string | Buffer>, RegExp]> = [
      [{ ontology: "bad.blob" }, { "bad.blob": "garbage" }, /^mcp\.m: the guard cannot be built from `.*bad\.blob` \(.*bad-magic.*\)$/u],
      [{ ontology: "cut.blob" }, { "cut.blob": blob.subarray(0, blob.length - 7) }, /^mcp\.m: the guard cannot be built from `.*cut\.blob` \(.+\)$/u],
    ];
    for (const [server, files, message] of cases) {
      const home = mkdtempSync(join(tmpdir(), "polar-setup-"));
      writeFileSync(join(home, "config.json"), JSON.stringify({ mcp: { m: server } }));
      for (const [name, data] of Object.entries(files)) writeFileSync(join(home, name), data);
      let error: unknown = null;
      try {
        mcpGuards(readHookConfig(home));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(HookConfigError);
      expect((error as Error).message).toMatch(message);
      expect(() => createHookEngine(home, null)).toThrow(HookConfigError);
    }
  });

  test("one guard per session: each call of the factory is a new guard", () => {
    const make = mcpGuards(readHookConfig(homeWith({ mcp: { t: { ontology: "t.polar" } } }, { "t.polar": tools }))).t;
    expect(make()).not.toBe(make());
  });
});

test("createHookEngine: the home's MCP servers behind the engine; a configuration that cannot be read stops it", async () => {
  const home = homeWith({ mcp: { t: { ontology: "t.polar", policy: "escalate" } } }, { "t.polar": "tool(wipe).\n" });
  const engine = createHookEngine(home, null);
  const out = await engine.handle("claude-code", payload("claude-code", "mcp__t__wipe", {}));
  expect(JSON.parse(out.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: "ask" });
  const shell = await engine.handle("claude-code", payload("claude-code", "Bash", { command: "ls" }));
  expect(JSON.parse(shell.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/shell guard not available/u);
  engine.close();
  expect(() => createHookEngine(homeWith("{"), null)).toThrow(HookConfigError);
});
