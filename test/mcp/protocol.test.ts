// The gateway's client-facing side against the SDK's own client (the conformance suite,
// @modelcontextprotocol/conformance, is not installed here): initialization and capabilities, ping,
// tools/list forwarded with the server's own annotations and schemas, resources forwarded (the memory
// server has one), methods the server lacks are MethodNotFound, a cancelled request stops waiting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CallToolResultSchema, ErrorCode, ListToolsResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { MEMORY_ONTOLOGY, MEMORY_RULES, MEMORY_SERVER, ROOT, gateway, tempDir, type Connected } from "./helpers.js";

let g: Connected;
let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  tmp = tempDir("proto");
  g = await gateway({ ontology: MEMORY_ONTOLOGY, rules: MEMORY_RULES, server: [process.execPath, MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(tmp.dir, "m.jsonl") } });
}, 60_000);
afterAll(async () => {
  await g?.close();
  tmp?.cleanup();
});

describe("client-facing MCP, checked with the SDK client", () => {
  it("initializes with a protocol version, server info, instructions, and the upstream's capabilities", () => {
    expect(g.client.getServerVersion()?.name).toBe("polar-guard-mcp");
    const caps = g.client.getServerCapabilities();
    expect(caps?.tools).toBeDefined();
    expect(caps?.resources).toBeDefined(); // server-memory has the knowledge-graph resource
    expect(caps?.prompts).toBeUndefined(); // and no prompts
    expect(g.client.getInstructions()).toMatch(/POLAR reversibility guard/);
  });

  it("answers ping", async () => {
    await expect(g.client.ping()).resolves.toBeDefined();
  });

  it("forwards tools/list exactly as the server answers it", async () => {
    const viaGateway = await g.client.request({ method: "tools/list", params: {} }, ListToolsResultSchema);
    const direct = JSON.parse(readFileSync(join(ROOT, "test/mcp/fixtures/memory-tools.json"), "utf8"));
    expect(viaGateway).toEqual(direct);
  });

  it("forwards resources (read-only) from the server", async () => {
    const list = await g.client.listResources();
    expect(list.resources.map((r) => r.uri)).toContain("memory://knowledge-graph");
    const read = await g.client.readResource({ uri: "memory://knowledge-graph" });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ entities: [], relations: [] });
  });

  it("a method the server lacks is MethodNotFound", async () => {
    const e = await g.client.listPrompts().then(() => null, (x: McpError) => x);
    expect(e?.code).toBe(ErrorCode.MethodNotFound);
  });

  it("an unknown tool is judged (unknown_tool) and refused, never forwarded", async () => {
    const r = await g.client.request({ method: "tools/call", params: { name: "drop_everything", arguments: {} } }, CallToolResultSchema);
    expect(r.isError).toBe(true);
    expect((r._meta as Record<string, { reason: string }>)["polar-guard/decision"].reason).toBe("unknown_tool");
  });

  it("a request aborted by the client stops waiting and the gateway keeps serving", async () => {
    const ac = new AbortController();
    const p = g.client.request({ method: "tools/call", params: { name: "read_graph", arguments: {} } }, CallToolResultSchema, { signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toThrow();
    const r = await g.client.request({ method: "tools/call", params: { name: "read_graph", arguments: {} } }, CallToolResultSchema);
    expect(r.isError).not.toBe(true);
  });
});
