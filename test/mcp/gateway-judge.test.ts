// The gateway's judging side, in this process (createGateway in front of ./fake-upstream.ts): the state
// is read from the server before a mutating call, the decision travels with the result, only an
// admitted call reaches the server, π is checked against the server's own tool schemas, and the log
// says what finally happened to each approved call (ran, failed, unknown, refused). The real servers'
// version of these is in memory.test.ts and filesystem.test.ts (the gateway as a child process).
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { fake, type Fake } from "./fake-upstream.js";
import { decisionOf, textOf } from "./helpers.js";
import { DECISION_META_KEY } from "../../src/mcp/gateway.js";

let f: Fake | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const alice = { name: "alice", entityType: "person", observations: ["likes tea"] };
const create = (name: string) => ({ entities: [{ name, entityType: "t", observations: [`${name} obs`] }] });

async function rejection(p: Promise<unknown>): Promise<McpError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(McpError);
    return e as McpError;
  }
  throw new Error("the request did not fail");
}

describe("an admitted call", () => {
  it("is judged on the state read just before, runs once, and carries its decision and π", async () => {
    f = await fake();
    f.graph.entities.push({ ...alice });
    const s = await f.session();
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError, textOf(r)).not.toBe(true);
    expect(textOf(r)).toBe("deleted");
    expect(f.requests).toEqual(["tools/call:read_graph", "tools/list", "tools/call:delete_entities"]);
    const d = s.decisions()[0];
    expect(r._meta).toEqual({
      [DECISION_META_KEY]: {
        seq: 1,
        route: "Approved",
        reason: d.reason,
        phi: d.verdict!.phi,
        tau: d.tau,
        stateDigest: d.stateDigest,
        ontologyHash: d.ontologyHash,
        inverse: [{ tool: "create_entities", arguments: { entities: [alice] }, tier: "T3", annotation: "memory.delete_entities.recreate" }],
      },
    });
    expect(d.stateDigest).toMatch(/^[0-9a-f]{64}$/);
    // No approval: the key is absent, not present as undefined.
    expect(Object.keys(r._meta![DECISION_META_KEY] as object)).not.toContain("approval");
    expect(d.route).toBe("Approved");
    expect(s.outcomes()).toEqual([{ format: "polar-outcome/1", seq: 1, execution: "x1", outcome: "ran", detail: null }]);
    expect(s.guard.pending()).toEqual([]);
    // π run through the gateway puts alice back.
    const back = await s.call("create_entities", { entities: [alice] });
    expect(back.isError, textOf(back)).not.toBe(true);
    expect(f.graph.entities).toEqual([alice]);
  });

  it("keeps the server's own _meta next to the decision", async () => {
    f = await fake();
    const s = await f.session();
    f.overrides.set("create_entities", { kind: "answer", after: true, fn: () => ({ content: [], _meta: { "server/own": 1 } }) });
    const r = await s.call("create_entities", create("a"));
    expect(r._meta?.["server/own"]).toBe(1);
    expect(decisionOf(r).route).toBe("Approved");
  });

  it("the server's tool list is read once, for the first admitted call whose π names a tool", async () => {
    f = await fake();
    const s = await f.session();
    for (const n of ["a", "b", "c"]) expect((await s.call("create_entities", create(n))).isError).not.toBe(true);
    expect(f.requests.filter((r) => r === "tools/list")).toHaveLength(1);
  });

  it("session scope: a call that ran is in the forward sequence; one the tool answers with an error is not", async () => {
    f = await fake({ scope: "session" });
    const s = await f.session();
    expect(decisionOf(await s.call("create_entities", create("a"))).route).toBe("Approved");
    expect(s.guard.sequence().map((c) => c.name)).toEqual(["create_entities"]);
    f.overrides.set("create_entities", { kind: "answer", fn: () => ({ content: [{ type: "text", text: "disk full" }], isError: true }) });
    await s.call("create_entities", create("b"));
    expect(s.guard.sequence().map((c) => c.name)).toEqual(["create_entities"]);
    expect(s.guard.pending()).toEqual([]);
  });

  it("a call the tool answers with an error result: observed as failed (nothing changed), released, the log says failed", async () => {
    f = await fake({ scope: "session" });
    const s = await f.session();
    f.overrides.set("create_entities", { kind: "answer", fn: () => ({ content: [{ type: "text", text: "disk full" }], isError: true }) });
    const r = await s.call("create_entities", create("a"));
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("disk full");
    expect(decisionOf(r).route).toBe("Approved");
    expect(s.outcomes()).toEqual([{ format: "polar-outcome/1", seq: 1, execution: "x1", outcome: "failed", detail: "the tool answered with an error" }]);
    expect(s.guard.pending()).toEqual([]);
    expect(s.guard.sequence()).toEqual([]);
  });

  it("a call the server answers with a JSON-RPC error: it did not run; the error reaches the client as it is, the log says failed", async () => {
    f = await fake({ scope: "session" });
    const s = await f.session();
    f.overrides.set("create_entities", { kind: "answer", fn: () => { throw new McpError(ErrorCode.InvalidParams, "bad entity"); } });
    const e = await rejection(s.call("create_entities", create("a")));
    expect(e.code).toBe(ErrorCode.InvalidParams);
    expect(e.message).toContain("bad entity");
    expect(s.outcomes()).toMatchObject([{ format: "polar-outcome/1", seq: 1, execution: "x1", outcome: "failed" }]);
    expect(s.outcomes()[0].detail).toMatch(/^(MCP error -32602: )+bad entity$/);
    // Nothing is in the session's forward sequence, and nothing is marked unknown: the next call is judged normally.
    expect(s.guard.sequence()).toEqual([]);
    f.overrides.delete("create_entities");
    const r = await s.call("create_entities", create("a"));
    expect(decisionOf(r).route).toBe("Approved");
  });

  it("a call whose answer times out may have run: the log says unknown, and in session scope what it acts on is unknown", async () => {
    f = await fake({ scope: "session", gateway: { timeoutMs: 200 } });
    const s = await f.session();
    // The server never answers (and here did not run it): the gateway cannot know which.
    f.overrides.set("create_entities", { kind: "hang" });
    const e = await rejection(s.call("create_entities", create("a")));
    expect(e.code).toBe(ErrorCode.RequestTimeout);
    expect(s.outcomes()).toMatchObject([{ seq: 1, execution: "x1", outcome: "unknown" }]);
    expect(s.outcomes()[0].detail).toMatch(/timed out/i);
    expect(s.guard.sequence().map((c) => c.name)).toEqual(["create_entities"]);
    f.overrides.delete("create_entities");
    const again = await s.call("create_entities", create("a"));
    expect(again.isError).toBe(true);
    expect(decisionOf(again).reason).toBe("unknown_state");
  });

  it("turn scope: after a lost answer, the next call's fresh read is all it depends on (the unknown mark is lifted)", async () => {
    f = await fake({ scope: "turn", gateway: { timeoutMs: 200 } });
    const s = await f.session();
    f.overrides.set("create_entities", { kind: "hang" });
    await rejection(s.call("create_entities", create("a")));
    expect(s.outcomes()).toMatchObject([{ seq: 1, outcome: "unknown" }]);
    f.overrides.delete("create_entities");
    // The server did not run it (a is free, read just now): creating it is admitted on that read.
    const again = await s.call("create_entities", create("a"));
    expect(decisionOf(again).route).toBe("Approved");
    expect(f.graph.entities.map((e) => e.name)).toEqual(["a"]);
    // And once it exists, creating it again is refused on the fresh read.
    expect(decisionOf(await s.call("create_entities", create("a"))).reason).toBe("missing_entity");
  });

  it("the connection to the server closes while a call is in flight: outcome unknown, the client gets the error", async () => {
    f = await fake({ scope: "session" });
    const s = await f.session();
    f.overrides.set("create_entities", { kind: "answer", after: true, fn: () => { setTimeout(() => void f!.upstream.close(), 0); return new Promise(() => {}); } });
    const e = await rejection(s.call("create_entities", create("a")));
    expect(e.code).toBe(ErrorCode.ConnectionClosed);
    expect(s.outcomes()).toMatchObject([{ seq: 1, execution: "x1", outcome: "unknown" }]);
    expect(s.guard.sequence().map((c) => c.name)).toEqual(["create_entities"]);
  });

  it("the server goes away while a call is in flight (the wiring says so): outcome unknown, the error says it is gone", async () => {
    f = await fake();
    const s = await f.session();
    f.overrides.set("create_entities", { kind: "answer", after: true, fn: () => { f!.gateway.upstreamClosed("the server exited"); throw new McpError(ErrorCode.InternalError, "pipe closed"); } });
    const e = await rejection(s.call("create_entities", create("a")));
    expect(e.code).toBe(ErrorCode.InternalError);
    expect(e.message).toContain("the upstream MCP server is not available: the server exited");
    // The server answered with an error, so it did not run it: failed, not unknown.
    expect(s.outcomes()).toMatchObject([{ seq: 1, outcome: "failed" }]);
  });

  it("a call the client cancels after it was sent: outcome unknown (never 'nothing happened')", async () => {
    f = await fake();
    const s = await f.session();
    f.overrides.set("create_entities", { kind: "hang", after: true });
    const ac = new AbortController();
    const p = s.call("create_entities", create("a"), ac.signal).catch((e) => e);
    for (let i = 0; i < 50 && !f.requests.includes("tools/call:create_entities"); i++) await new Promise((r) => setTimeout(r, 10));
    ac.abort("the user stopped it");
    await p;
    for (let i = 0; i < 50 && s.outcomes().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(s.outcomes()).toMatchObject([{ seq: 1, outcome: "unknown" }]);
  });

  it("a failure that is not an MCP error: outcome unknown, InternalError naming the server", async () => {
    f = await fake();
    const s = await f.session();
    // The state read and the tool list pass; the call itself fails inside the client.
    const real = f.upstream.request.bind(f.upstream);
    f.upstream.request = ((req: { method: string; params?: { name?: string } }, ...rest: unknown[]) => {
      if (req.method === "tools/call" && req.params?.name === "create_entities") return Promise.reject(new Error("EPIPE"));
      return (real as (...a: unknown[]) => unknown)(req, ...rest);
    }) as never;
    const e = await rejection(s.call("create_entities", create("a")));
    expect(e.code).toBe(ErrorCode.InternalError);
    expect(e.message).toContain("the upstream MCP server failed: EPIPE");
    expect(s.outcomes()).toEqual([{ format: "polar-outcome/1", seq: 1, execution: "x1", outcome: "unknown", detail: "EPIPE" }]);
  });

  it("without recordOutcome the gateway runs the same (nothing to record)", async () => {
    f = await fake({ noOutcomes: true });
    const s = await f.session();
    expect(decisionOf(await s.call("create_entities", create("a"))).route).toBe("Approved");
    expect(f.graph.entities.map((x) => x.name)).toEqual(["a"]);
  });
});

describe("a refused call never reaches the server", () => {
  it("a call the state does not ground: refused with the rules' own advice, and the decision", async () => {
    f = await fake();
    f.graph.entities.push({ ...alice });
    const s = await f.session();
    const r = await s.call("create_entities", { entities: [{ name: "alice", entityType: "robot", observations: [] }] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^Not run: `create_entities` was stopped by the POLAR guard/);
    expect(textOf(r)).toContain("What would make it safe: Create only entities whose names are new");
    const m = decisionOf(r);
    expect(m).toMatchObject({ seq: 1, route: "Vetoed", reason: "missing_entity", phi: null, inverse: [] });
    expect(f.requests).toEqual(["tools/call:read_graph"]);
    expect(s.outcomes()).toEqual([]);
  });

  it("an unknown tool: refused (unknown_tool) without a read", async () => {
    f = await fake();
    const s = await f.session();
    const r = await s.call("drop_database", { really: true });
    expect(r.isError).toBe(true);
    expect(decisionOf(r).reason).toBe("unknown_tool");
    expect(f.requests).toEqual([]);
  });

  it("an argument named like a derived one: malformed, judged without a read, never run", async () => {
    f = await fake();
    f.graph.entities.push({ ...alice });
    const s = await f.session();
    const r = await s.call("delete_entities", { entityNames: ["alice"], entity_name: "bob" });
    expect(r.isError).toBe(true);
    const m = decisionOf(r);
    expect(m).toMatchObject({ seq: 1, route: "Vetoed", reason: "malformed_call" });
    expect(textOf(r)).toMatch(/^Not run: `delete_entities` was stopped .* Why: the call is malformed \(.*reserved/);
    expect(s.decisions()[0].call).toMatchObject({ name: "delete_entities", arguments: { entityNames: ["alice"], entity_name: "bob" } });
    expect(f.requests).toEqual([]);
    expect(f.graph.entities).toEqual([alice]);
  });

  it("a state read that fails: refused, saying the state could not be read; what it acts on is forgotten", async () => {
    f = await fake();
    f.graph.entities.push({ ...alice });
    const s = await f.session();
    // A first read grounds alice as deletable.
    await s.call("read_graph", {});
    f.overrides.set("read_graph", { kind: "answer", fn: () => { throw new McpError(ErrorCode.InternalError, "graph locked"); } });
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/What would make it safe: The server's state could not be read \((MCP error -32603: )+graph locked\); try again\.$/);
    expect(decisionOf(r).reason).toBe("missing_entity");
    expect(s.guard.state.hasEntity("deletable_node", "alice")).toBe(false);
    expect(f.graph.entities).toEqual([alice]);
  });

  it("a state read that fails after an earlier read grounded the entity: the old grounding does not count", async () => {
    f = await fake();
    f.graph.entities.push({ ...alice });
    const s = await f.session();
    // A delete judged and refused by the guard's bound (relations) still grounds nothing; first ground alice by a read…
    let n = 0;
    f.overrides.set("read_graph", {
      kind: "answer",
      fn: () => {
        n++;
        if (n === 1) return { content: [], structuredContent: { entities: [alice], relations: [] } };
        throw new Error("not an MCP error");
      },
    });
    // The first delete's read succeeds, but the tool answers with an error (nothing deleted).
    f.overrides.set("delete_entities", { kind: "answer", fn: () => ({ content: [{ type: "text", text: "busy" }], isError: true }) });
    expect(decisionOf(await s.call("delete_entities", { entityNames: ["alice"] })).route).toBe("Approved");
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(decisionOf(r).route).toBe("Vetoed");
    expect(textOf(r)).toContain("The server's state could not be read (");
  });

  it("a state read that finds the server gone: an error saying so, not a refusal that says try again", async () => {
    f = await fake();
    const s = await f.session();
    f.overrides.set("read_graph", { kind: "answer", fn: () => { f!.gateway.upstreamClosed("the server exited"); throw new McpError(ErrorCode.InternalError, "pipe closed"); } });
    const e = await rejection(s.call("create_entities", create("a")));
    expect(e.message).toContain("the upstream MCP server is not available: the server exited");
    expect(s.decisions()).toEqual([]);
  });

  it("a numeric key: a failed read forgets what an earlier read grounded for it", async () => {
    f = await fake();
    f.graph.entities.push({ name: 5 as never, entityType: "t", observations: [] });
    const s = await f.session();
    // The first delete is read and admitted, but the tool fails (nothing deleted): 5 stays grounded in Layer B.
    f.overrides.set("delete_entities", { kind: "answer", fn: () => ({ content: [{ type: "text", text: "busy" }], isError: true }) });
    expect(decisionOf(await s.call("delete_entities", { entityNames: [5] })).route).toBe("Approved");
    f.overrides.set("read_graph", { kind: "answer", fn: () => { throw new Error("graph locked"); } });
    const r = await s.call("delete_entities", { entityNames: [5] });
    expect(decisionOf(r).route).toBe("Vetoed");
    expect(f.requests.filter((q) => q === "tools/call:delete_entities")).toHaveLength(1);
  });

  it("turn scope, a numeric key: the fresh read lifts the unknown mark of a lost answer", async () => {
    f = await fake({ scope: "turn", gateway: { timeoutMs: 200 } });
    const s = await f.session();
    const five = { entities: [{ name: 5, entityType: "t", observations: [] }] };
    f.overrides.set("create_entities", { kind: "hang" });
    await rejection(s.call("create_entities", five));
    f.overrides.delete("create_entities");
    expect(decisionOf(await s.call("create_entities", five)).route).toBe("Approved");
  });

  it("a read step naming a tool the ontology does not know is refused as not read-only", async () => {
    const { parseReadRules } = await import("../../src/projection/reads.js");
    const { parseProjectionRules } = await import("../../src/projection/rules.js");
    const { readFileSync } = await import("node:fs");
    const { MEMORY_RULES } = await import("./helpers.js");
    const json = JSON.parse(readFileSync(MEMORY_RULES, "utf8"));
    json.reads.create_entities.steps.unshift({ tool: "peek", arguments: {}, effects: [] });
    f = await fake({ gateway: { reads: parseReadRules(parseProjectionRules(json)) } as never });
    const s = await f.session();
    const r = await s.call("create_entities", create("a"));
    expect(textOf(r)).toContain("The server's state could not be read (the read step's tool `peek` is not read-only in the ontology)");
    expect(f.requests).toEqual([]);
  });

  it("a read step whose tool is not read-only in the ontology is never called: the call is refused", async () => {
    const { parseReadRules } = await import("../../src/projection/reads.js");
    const { parseProjectionRules } = await import("../../src/projection/rules.js");
    const { readFileSync } = await import("node:fs");
    const { MEMORY_RULES } = await import("./helpers.js");
    const json = JSON.parse(readFileSync(MEMORY_RULES, "utf8"));
    json.reads.create_entities.steps.unshift({ tool: "delete_relations", arguments: {}, effects: [] });
    const reads = parseReadRules(parseProjectionRules(json));
    f = await fake({ gateway: { reads } as never });
    const s = await f.session();
    const r = await s.call("create_entities", create("a"));
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("The server's state could not be read (the read step's tool `delete_relations` is not read-only in the ontology)");
    expect(f.requests).toEqual([]);
  });
});

describe("tools without read rules", () => {
  it("a mutating tool the read table does not cover is judged on what Layer B holds (nothing read): refused", async () => {
    f = await fake({ gateway: { reads: new Map() } as never });
    const s = await f.session();
    // Nothing derives the key argument either: the call names it itself.
    const r = await s.call("create_entities", { ...create("a"), entity_name: "a" });
    expect(decisionOf(r).reason).toBe("missing_entity");
    expect(textOf(r)).toContain("What would make it safe: Check that the arguments name something that exists on the server");
    expect(f.requests).toEqual([]);
  });

  it("a read rule with no steps reads nothing either", async () => {
    f = await fake({ gateway: { reads: new Map([["create_entities", { steps: [], finally: [], derive: [] }]]) } as never });
    const s = await f.session();
    expect(decisionOf(await s.call("create_entities", { ...create("a"), entity_name: "a" })).reason).toBe("missing_entity");
    expect(f.requests).toEqual([]);
  });
});

describe("defence in depth: π must be runnable on this server", () => {
  it("advisory: a call passed through without being admissible runs as it is (its π is no promise, so it is not checked)", async () => {
    f = await fake({ policy: "advisory", tau: 0.995, tools: [
      { name: "read_graph", inputSchema: { type: "object", properties: {} } },
      { name: "delete_entities", inputSchema: { type: "object", properties: {}, required: ["entityNames"] } },
    ] as never });
    f.graph.entities.push({ ...alice });
    const s = await f.session();
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError, textOf(r)).not.toBe(true);
    expect(decisionOf(r).route).toBe("AdvisoryPassthrough");
    expect(f.requests).not.toContain("tools/list");
    expect(f.graph.entities).toEqual([]);
  });

  it("a server that lacks π's tool: the admitted call is not run; Vetoed, the log says refused", async () => {
    f = await fake({ tools: [
      { name: "read_graph", inputSchema: { type: "object", properties: {} } },
      { name: "create_entities", inputSchema: { type: "object", properties: {}, required: ["entities"] } },
    ] as never });
    f.graph.entities.push({ ...alice });
    const s = await f.session();
    const r = await s.call("create_entities", create("a"));
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("Not run: `create_entities` was stopped by the POLAR guard before it reached the server, so nothing was changed. Why: the way to undo it cannot be run as the ontology gives it (the server has no tool `delete_entities`). What would make it safe: the operator has to fix the ontology or the projection rules; until then ask the user.");
    const m = decisionOf(r);
    expect(m.route).toBe("Vetoed");
    expect(m.reason).toBe(s.decisions()[0].reason);
    expect(s.decisions()[0].route).toBe("Approved");
    expect(f.requests).not.toContain("tools/call:create_entities");
    expect(s.guard.pending()).toEqual([]);
    expect(s.outcomes()).toEqual([{ format: "polar-outcome/1", seq: 1, execution: "x1", outcome: "refused", detail: "the way to undo it cannot be run: the server has no tool `delete_entities`" }]);
    // A call whose π needs a tool the server has still runs.
    expect(decisionOf(await s.call("delete_entities", { entityNames: ["alice"] })).route).toBe("Approved");
    expect(f.graph.entities).toEqual([]);
  });

  it("π's step lacking a parameter the server's schema requires is refused, naming them", async () => {
    f = await fake({ required: { delete_entities: ["entityNames", "confirm", "force"] } });
    const s = await f.session();
    const r = await s.call("create_entities", create("a"));
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("(`delete_entities` would lack `confirm`, `force`)");
    expect(f.graph.entities).toEqual([]);
  });
});

describe("π's tools without required parameters", () => {
  it("a π tool whose schema lists no required parameters: π is runnable", async () => {
    f = await fake({ tools: [
      { name: "read_graph", inputSchema: { type: "object", properties: {} } },
      { name: "create_entities", inputSchema: { type: "object", properties: {} } },
      { name: "delete_entities", inputSchema: { type: "object", properties: {} } },
    ] as never });
    const s = await f.session();
    const r = await s.call("create_entities", create("a"));
    expect(r.isError, textOf(r)).not.toBe(true);
    expect(f.graph.entities.map((e) => e.name)).toEqual(["a"]);
  });
});

describe("sessions share one upstream", () => {
  it("calls of two sessions are judged and run one at a time (read, judge, run), each on the state the other left", async () => {
    f = await fake();
    f.graph.entities.push({ ...alice });
    const a = await f.session();
    const b = await f.session();
    // Both create bob at once: the first runs, the second is judged on the graph that has him.
    const [ra, rb] = await Promise.all([a.call("create_entities", create("bob")), b.call("create_entities", create("bob"))]);
    const routes = [decisionOf(ra).route, decisionOf(rb).route].sort();
    expect(routes).toEqual(["Approved", "Vetoed"]);
    expect(f.requests.filter((r) => r.startsWith("tools/call:"))).toEqual(["tools/call:read_graph", "tools/call:create_entities", "tools/call:read_graph"]);
    expect(f.graph.entities.map((e) => e.name)).toEqual(["alice", "bob"]);
  });
});
