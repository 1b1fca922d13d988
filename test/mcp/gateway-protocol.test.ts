// The gateway's protocol side, in this process (createGateway in front of ./fake-upstream.ts): what it
// forwards as the server answers it, the capabilities it offers, notifications, a server that is gone,
// requests that are malformed, and read-only calls. The same behaviour against the real servers (as a
// child process) is in protocol.test.ts and lifecycle.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode, McpError, ToolListChangedNotificationSchema, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { fake, type Fake } from "./fake-upstream.js";
import { decisionOf, textOf } from "./helpers.js";
import { unsafeReadSteps } from "../../src/mcp/gateway.js";

let f: Fake | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

async function rejection(p: Promise<unknown>): Promise<McpError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(McpError);
    return e as McpError;
  }
  throw new Error("the request did not fail");
}

describe("what the gateway offers a client", () => {
  it("introduces itself, says calls are judged, and offers tools only when the server has nothing else", async () => {
    f = await fake();
    const s = await f.session();
    expect(s.client.getServerVersion()).toEqual({ name: "polar-guard-mcp", version: "0.1.0" });
    expect(s.client.getInstructions()).toMatch(/judged by the POLAR reversibility guard/);
    expect(s.client.getServerCapabilities()).toEqual({ tools: {} });
    await expect(rejection(s.client.listResources())).resolves.toMatchObject({ code: ErrorCode.MethodNotFound });
    await expect(rejection(s.client.listResourceTemplates())).resolves.toMatchObject({ code: ErrorCode.MethodNotFound });
    await expect(rejection(s.client.readResource({ uri: "mem://graph" }))).resolves.toMatchObject({ code: ErrorCode.MethodNotFound });
    await expect(rejection(s.client.listPrompts())).resolves.toMatchObject({ code: ErrorCode.MethodNotFound });
    await expect(rejection(s.client.getPrompt({ name: "summarise" }))).resolves.toMatchObject({ code: ErrorCode.MethodNotFound });
    expect(f.requests).toEqual([]);
  });

  it("a server without tools: the gateway still offers tools (the server answers tools/list itself)", async () => {
    f = await fake({ noTools: true, capabilities: { prompts: {} } });
    const s = await f.session();
    expect(s.client.getServerCapabilities()).toEqual({ tools: {}, prompts: {} });
    await expect(rejection(s.client.listTools())).resolves.toMatchObject({ code: ErrorCode.MethodNotFound });
  });

  it("every forwarded request carries the client's cancel signal and the gateway's timeout", async () => {
    f = await fake({ capabilities: { resources: {}, prompts: {} }, gateway: { timeoutMs: 4321 } });
    const s = await f.session();
    const seen: Array<[string, unknown, boolean]> = [];
    const real = f.upstream.request.bind(f.upstream);
    f.upstream.request = ((req: { method: string }, schema: unknown, options?: { signal?: AbortSignal; timeout?: number }) => {
      seen.push([req.method, options?.timeout, options?.signal instanceof AbortSignal]);
      return (real as (...a: unknown[]) => unknown)(req, schema, options);
    }) as never;
    await s.client.listTools();
    await s.client.listResources();
    await s.client.listResourceTemplates();
    await s.client.readResource({ uri: "mem://graph" });
    await s.client.listPrompts();
    await s.client.getPrompt({ name: "summarise" });
    await s.call("read_graph", {});
    await s.call("create_entities", { entities: [{ name: "a", entityType: "t", observations: [] }] });
    expect(new Set(seen.map(([m]) => m))).toEqual(new Set(["tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get", "tools/call"]));
    expect(seen.filter(([m]) => m === "tools/call")).toHaveLength(3);
    for (const [, timeout, signal] of seen) expect([timeout, signal]).toEqual([4321, true]);
  });

  it("a given serverInfo is the one a client sees", async () => {
    f = await fake({ gateway: { serverInfo: { name: "my-gateway", version: "9.9.9" } } });
    const s = await f.session();
    expect(s.client.getServerVersion()).toEqual({ name: "my-gateway", version: "9.9.9" });
  });

  it("mirrors the server's resources, prompts and tool list changes, and forwards them as answered", async () => {
    f = await fake({ capabilities: { resources: {}, prompts: {}, tools: { listChanged: true } } });
    const s = await f.session();
    expect(s.client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, resources: {}, prompts: {} });
    expect((await s.client.listResources()).resources).toEqual([{ uri: "mem://graph", name: "graph" }]);
    expect((await s.client.listResourceTemplates()).resourceTemplates).toEqual([{ uriTemplate: "mem://entity/{name}", name: "entity" }]);
    expect((await s.client.readResource({ uri: "mem://graph" })).contents).toEqual([{ uri: "mem://graph", text: JSON.stringify({ entities: [], relations: [] }) }]);
    expect((await s.client.listPrompts()).prompts).toEqual([{ name: "summarise" }]);
    expect((await s.client.getPrompt({ name: "summarise" })).messages).toEqual([{ role: "user", content: { type: "text", text: "summarise summarise" } }]);
    expect(f.requests).toEqual(["resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get"]);
  });

  it("a server with listChanged false is offered as tools without list changes", async () => {
    f = await fake({ capabilities: { tools: { listChanged: false } } });
    const s = await f.session();
    expect(s.client.getServerCapabilities()).toEqual({ tools: {} });
  });

  it("forwards tools/list exactly as the server answers it", async () => {
    f = await fake();
    const s = await f.session();
    const direct = await f.upstream.listTools();
    expect(await s.client.listTools()).toEqual(direct);
  });

  it("a notification of the server reaches every open session, and no closed one", async () => {
    f = await fake({ capabilities: { tools: { listChanged: true } } });
    const seen: string[] = [];
    const a = await f.session();
    const b = await f.session();
    const c = await f.session();
    a.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.push("a"));
    b.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.push("b"));
    c.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.push("c"));
    await c.close();
    await f.server.sendToolListChanged();
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.sort()).toEqual(["a", "b"]);
  });
});

describe("a server that is gone", () => {
  it("every later request is an error naming the first reason given; nothing reaches the server", async () => {
    f = await fake({ capabilities: { resources: {}, prompts: {} } });
    const s = await f.session();
    expect(f.gateway.closedReason).toBeNull();
    f.gateway.upstreamClosed("the server exited with code 3");
    f.gateway.upstreamClosed("a later reason");
    expect(f.gateway.closedReason).toBe("the server exited with code 3");
    for (const p of [
      s.client.listTools(),
      s.client.listResources(),
      s.client.listPrompts(),
      s.call("read_graph", {}),
      s.call("create_entities", { entities: [{ name: "a", entityType: "t", observations: [] }] }),
      s.call("drop_database", {}),
      s.call("delete_entities", { entityNames: ["a"], entity_name: "b" }),
    ]) {
      const e = await rejection(p);
      expect(e.code).toBe(ErrorCode.InternalError);
      expect(e.message).toContain("the upstream MCP server is not available: the server exited with code 3");
    }
    expect(f.requests).toEqual([]);
    expect(s.decisions()).toEqual([]);
  });

  it("a server that fails while it is gone: the error says it is gone, not what failed", async () => {
    f = await fake();
    const s = await f.session();
    f.overrides.set("read_graph", {
      kind: "answer",
      fn: () => {
        f!.gateway.upstreamClosed("the server crashed");
        throw new McpError(ErrorCode.InternalError, "broken pipe");
      },
    });
    const e = await rejection(s.call("read_graph", {}));
    expect(e.message).toContain("the upstream MCP server is not available: the server crashed");
    // A mutating call whose state read finds the server gone is an error too (not a refusal that says "try again").
    const e2 = await rejection(s.call("create_entities", { entities: [{ name: "a", entityType: "t", observations: [] }] }));
    expect(e2.message).toContain("not available: the server crashed");
    expect(f.graph.entities).toEqual([]);
  });

  it("the server gone between the judgment and the run: the approved call is withdrawn, the log says refused", async () => {
    f = await fake();
    const s = await f.session();
    // One admitted call first: the server's tool list (for checking π) is read once and kept.
    expect((await s.call("create_entities", { entities: [{ name: "a", entityType: "t", observations: [] }] })).isError).not.toBe(true);
    const real = s.guard.check.bind(s.guard);
    s.guard.check = ((call: unknown, ctx?: unknown) => {
      const d = real(call, ctx as never);
      f!.gateway.upstreamClosed("gone while judging");
      return d;
    }) as typeof s.guard.check;
    const e = await rejection(s.call("create_entities", { entities: [{ name: "b", entityType: "t", observations: [] }] }));
    expect(e.code).toBe(ErrorCode.InternalError);
    expect(e.message).toContain("not available: gone while judging");
    expect(f.requests.filter((r) => r === "tools/call:create_entities")).toHaveLength(1);
    expect(s.guard.pending()).toEqual([]);
    expect(s.outcomes()).toMatchObject([{ seq: 1, outcome: "ran" }, { seq: 2, execution: "x2", outcome: "refused", detail: "the upstream server is not available" }]);
  });

  it("the server's tool list unreadable when π is checked: the approved call is withdrawn, the client gets the error", async () => {
    f = await fake();
    const s = await f.session();
    const real = s.guard.check.bind(s.guard);
    s.guard.check = ((call: unknown, ctx?: unknown) => {
      const d = real(call, ctx as never);
      f!.gateway.upstreamClosed("gone while judging");
      return d;
    }) as typeof s.guard.check;
    const e = await rejection(s.call("create_entities", { entities: [{ name: "a", entityType: "t", observations: [] }] }));
    expect(e.message).toContain("not available: gone while judging");
    expect(f.requests).toEqual(["tools/call:read_graph"]);
    expect(s.guard.pending()).toEqual([]);
    expect(s.outcomes()).toEqual([
      { format: "polar-outcome/1", seq: 1, execution: "x1", outcome: "refused", detail: "the server's tool list could not be read: MCP error -32603: the upstream MCP server is not available: gone while judging" },
    ]);
  });
});

describe("bad requests are JSON-RPC errors, forwarded failures say where they came from", () => {
  it("a tools/call without a name, or with arguments that are not an object, is InvalidParams", async () => {
    f = await fake();
    const s = await f.session();
    const noName = await rejection(s.client.request({ method: "tools/call", params: { arguments: {} } } as never, CallToolResultSchema));
    expect(noName.code).toBe(ErrorCode.InvalidParams);
    expect(noName.message).toMatch(/tools\/call request/i);
    const list = await rejection(s.client.request({ method: "tools/call", params: { name: "create_entities", arguments: [1] } } as never, CallToolResultSchema));
    expect(list.code).toBe(ErrorCode.InvalidParams);
    expect(list.message).toMatch(/arguments/);
    expect(f.requests).toEqual([]);
    expect(s.decisions()).toEqual([]);
  });

  it("a call without arguments is judged with none (and refused: the server's batch is missing), never run", async () => {
    f = await fake();
    const s = await f.session();
    const r = await s.client.request({ method: "tools/call", params: { name: "delete_entities" } }, CallToolResultSchema);
    expect(r.isError).toBe(true);
    expect(decisionOf(r as never).reason).toBe("malformed_call");
    expect(s.decisions()[0].call).toEqual({ name: "delete_entities", arguments: {} });
    expect(f.requests.filter((x) => x !== "tools/call:read_graph")).toEqual([]);
  });

  it("an MCP error of the server reaches the client as it is; any other failure is InternalError naming the server", async () => {
    f = await fake();
    const s = await f.session();
    f.overrides.set("read_graph", { kind: "answer", fn: () => { throw new McpError(ErrorCode.InvalidRequest, "no graph today"); } });
    const e = await rejection(s.call("read_graph", {}));
    expect(e.code).toBe(ErrorCode.InvalidRequest);
    expect(e.message).toContain("no graph today");
    const real = f.upstream.request.bind(f.upstream);
    f.upstream.request = (() => Promise.reject(new TypeError("socket hang up"))) as never;
    const e2 = await rejection(s.client.listTools());
    expect(e2.code).toBe(ErrorCode.InternalError);
    expect(e2.message).toContain("the upstream MCP server failed: socket hang up");
    f.upstream.request = (() => Promise.reject("a bare string")) as never;
    const e3 = await rejection(s.call("read_graph", {}));
    expect(e3.message).toContain("the upstream MCP server failed: a bare string");
    f.upstream.request = real;
  });
});

describe("read-only calls", () => {
  it("pass straight through (no decision, no state read first), and their answer is observed as state", async () => {
    f = await fake();
    f.graph.entities.push({ name: "alice", entityType: "person", observations: [] });
    const s = await f.session();
    const r = await s.call("read_graph", {});
    expect(r.isError).not.toBe(true);
    expect(r._meta).toBeUndefined();
    expect(r.structuredContent).toEqual({ entities: [{ name: "alice", entityType: "person", observations: [] }], relations: [] });
    // (The gateway reads the server's tool list once per session, to refuse a read-only tool that takes an SQL or shell string.)
    expect(f.requests.filter((q) => q !== "tools/list")).toEqual(["tools/call:read_graph"]);
    expect(s.decisions()).toEqual([]);
    // The read's answer updated Layer B (the rules project read_graph's entities).
    expect(s.guard.state.hasEntity("kg_entity", "alice")).toBe(true);
  });

  it("a read-only call that answers with an error is passed on and not observed", async () => {
    f = await fake();
    f.graph.entities.push({ name: "alice", entityType: "person", observations: [] });
    const s = await f.session();
    f.overrides.set("read_graph", { kind: "answer", fn: () => ({ content: [{ type: "text", text: "oops" }], isError: true, structuredContent: { entities: [{ name: "alice", entityType: "person", observations: [] }], relations: [] } }) });
    const r = await s.call("read_graph", {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("oops");
    expect(s.guard.state.hasEntity("kg_entity", "alice")).toBe(false);
  });

  it("a mutating call cancelled while it waits for the upstream lock is neither read for nor judged", async () => {
    f = await fake();
    const s = await f.session();
    f.overrides.set("read_graph", { kind: "hang" });
    const ac = new AbortController();
    const first = s.call("read_graph", {}, ac.signal).catch((e) => e);
    await new Promise((r) => setTimeout(r, 20));
    const ac2 = new AbortController();
    const second = s.call("create_entities", { entities: [{ name: "a", entityType: "t", observations: [] }] }, ac2.signal).catch((e) => e);
    await new Promise((r) => setTimeout(r, 20));
    ac2.abort("changed my mind");
    ac.abort("stop");
    await first;
    await second;
    await new Promise((r) => setTimeout(r, 20));
    expect(f.requests.filter((q) => q !== "tools/list")).toEqual(["tools/call:read_graph"]);
    expect(s.decisions()).toEqual([]);
  });

  it("a call cancelled while it waits for the upstream lock is never sent", async () => {
    f = await fake();
    const s = await f.session();
    f.overrides.set("read_graph", { kind: "hang" });
    const ac = new AbortController();
    const first = s.call("read_graph", {}, ac.signal).catch((e) => e);
    await new Promise((r) => setTimeout(r, 20));
    const ac2 = new AbortController();
    const second = s.call("search_nodes", { query: "a" }, ac2.signal).catch((e) => e);
    await new Promise((r) => setTimeout(r, 20));
    ac2.abort("changed my mind");
    ac.abort("stop");
    await first;
    await second;
    await new Promise((r) => setTimeout(r, 20));
    expect(f.requests.filter((q) => q !== "tools/list")).toEqual(["tools/call:read_graph"]);
    f.overrides.delete("read_graph");
    // The gateway keeps serving.
    expect((await s.call("search_nodes", { query: "a" })).isError).not.toBe(true);
  });
});

describe("unsafeReadSteps", () => {
  it("lists each read step whose tool the ontology does not declare read-only", () => {
    const reads = new Map([
      ["create_entities", { steps: [{ tool: "read_graph" }, { tool: "delete_entities" }], finally: [] }],
      ["delete_entities", { steps: [{ tool: "open_nodes" }], finally: [] }],
    ]) as never;
    const tables = { tools: [{ name: "read_graph", readOnly: true }, { name: "open_nodes", readOnly: true }, { name: "delete_entities", readOnly: false }] };
    expect(unsafeReadSteps(reads, tables)).toEqual(["create_entities → delete_entities"]);
    expect(unsafeReadSteps(reads, { tools: tables.tools.map((t) => ({ ...t, readOnly: true })) })).toEqual([]);
  });
});
