// An upstream MCP server in this process, for the gateway's tests that need to decide what the server
// does: a knowledge graph with the tools of @modelcontextprotocol/server-memory that the memory
// ontology and projection rules know (read_graph, create/delete entities and relations), over an SDK
// Server on an in-memory transport. A test can make a tool answer a JSON-RPC error, an error result,
// throw something that is not an MCP error, or never answer; give the server resources, prompts and
// list-changed notifications; and see every request it was sent. The gateway in front of it is the
// real createGateway with the real guard (memory ontology, reference backend).
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ElicitRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ElicitResult,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { createGuard, type Guard } from "../../src/guard/index.js";
import type { Decision } from "../../src/guard/decision.js";
import { createMemorySink } from "../../src/audit/index.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { parseProjectionRules } from "../../src/projection/rules.js";
import { createGateway, type Gateway, type GatewayOptions } from "../../src/mcp/gateway.js";
import type { OutcomeRecord } from "../../src/audit/outcome.js";
import { MEMORY_ONTOLOGY, MEMORY_RULES } from "./helpers.js";

export interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}
export interface Relation {
  from: string;
  to: string;
  relationType: string;
}

/** What a tool does instead of its work: `answer` replaces the server's reply (it may throw, e.g. an
 * McpError the SDK sends as a JSON-RPC error), `hang` never replies. `after: true` does the work first. */
export type Override =
  | { kind: "answer"; fn: (args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>; after?: boolean }
  | { kind: "hang"; after?: boolean };

const TOOLS = [
  { name: "read_graph", inputSchema: { type: "object" as const, properties: {} } },
  { name: "search_nodes", inputSchema: { type: "object" as const, properties: { query: { type: "string" } }, required: ["query"] } },
  { name: "create_entities", inputSchema: { type: "object" as const, properties: { entities: { type: "array" } }, required: ["entities"] } },
  { name: "delete_entities", inputSchema: { type: "object" as const, properties: { entityNames: { type: "array" } }, required: ["entityNames"] } },
  { name: "create_relations", inputSchema: { type: "object" as const, properties: { relations: { type: "array" } }, required: ["relations"] } },
  { name: "delete_relations", inputSchema: { type: "object" as const, properties: { relations: { type: "array" } }, required: ["relations"] } },
];

export interface FakeOptions {
  capabilities?: ServerCapabilities;
  policy?: "veto" | "escalate" | "advisory";
  scope?: "turn" | "session";
  tau?: number;
  /** Tools the server lists (default: all six; π is checked against this list). */
  tools?: Array<{ name: string; inputSchema: { type: "object"; properties: Record<string, object>; required?: string[] } }>;
  /** `required` the server's schema lists for a tool, replacing the default. */
  required?: Record<string, string[]>;
  gateway?: Partial<Pick<GatewayOptions, "timeoutMs" | "approvalKey" | "serverInfo" | "dispatchers" | "recordDispatch">>;
  /** No recordOutcome callback. */
  noOutcomes?: boolean;
  /** A server that offers no tools at all (no `tools` capability). */
  noTools?: boolean;
}

export interface FakeSession {
  client: Client;
  guard: Guard;
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult>;
  decisions(): Decision[];
  outcomes(): OutcomeRecord[];
  close(): Promise<void>;
}

export interface Fake {
  gateway: Gateway;
  graph: { entities: Entity[]; relations: Relation[] };
  /** Every request the server received, method and tool name (`tools/call:create_entities`). */
  requests: string[];
  overrides: Map<string, Override>;
  /** The server side (to send notifications from). */
  server: Server;
  upstream: Client;
  session(opts?: { elicit?: (message: string, params: Record<string, unknown>) => ElicitResult | Promise<ElicitResult>; capabilities?: Record<string, unknown> }): Promise<FakeSession>;
  close(): Promise<void>;
}

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });

export async function fake(opts: FakeOptions = {}): Promise<Fake> {
  const graph: Fake["graph"] = { entities: [], relations: [] };
  const requests: string[] = [];
  const overrides = new Map<string, Override>();
  const tools = (opts.tools ?? TOOLS).map((t) => (opts.required?.[t.name] ? { ...t, inputSchema: { ...t.inputSchema, required: opts.required[t.name] } } : t));
  const server = new Server({ name: "fake-memory", version: "1.0.0" }, { capabilities: opts.noTools ? { ...(opts.capabilities ?? {}) } : { tools: {}, ...(opts.capabilities ?? {}) } });
  if (!opts.noTools) server.setRequestHandler(ListToolsRequestSchema, () => {
    requests.push("tools/list");
    return { tools };
  });
  const work = (name: string, a: Record<string, unknown>): CallToolResult => {
    switch (name) {
      case "read_graph":
        return { content: [{ type: "text", text: JSON.stringify(graph) }], structuredContent: JSON.parse(JSON.stringify(graph)) };
      case "search_nodes":
        return text(JSON.stringify(graph.entities.filter((e) => e.name.includes(String(a.query)))));
      case "create_entities":
        for (const e of a.entities as Entity[]) if (!graph.entities.some((x) => x.name === e.name)) graph.entities.push({ name: e.name, entityType: e.entityType, observations: [...e.observations] });
        return text("created");
      case "delete_entities": {
        const names = a.entityNames as string[];
        graph.entities = graph.entities.filter((e) => !names.includes(e.name));
        graph.relations = graph.relations.filter((r) => !names.includes(r.from) && !names.includes(r.to));
        return text("deleted");
      }
      case "create_relations":
        for (const r of a.relations as Relation[]) if (!graph.relations.some((x) => x.from === r.from && x.to === r.to && x.relationType === r.relationType)) graph.relations.push({ ...r });
        return text("created");
      case "delete_relations": {
        const gone = a.relations as Relation[];
        graph.relations = graph.relations.filter((r) => !gone.some((x) => x.from === r.from && x.to === r.to && x.relationType === r.relationType));
        return text("deleted");
      }
      default:
        return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
    }
  };
  if (!opts.noTools) server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const name = req.params.name;
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    requests.push(`tools/call:${name}`);
    const o = overrides.get(name);
    if (o === undefined) return work(name, args);
    if (o.after === true) work(name, args);
    if (o.kind === "hang") return new Promise<CallToolResult>(() => {});
    return o.fn(args);
  });
  if (opts.capabilities?.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, () => {
      requests.push("resources/list");
      return { resources: [{ uri: "mem://graph", name: "graph" }] };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => {
      requests.push("resources/templates/list");
      return { resourceTemplates: [{ uriTemplate: "mem://entity/{name}", name: "entity" }] };
    });
    server.setRequestHandler(ReadResourceRequestSchema, (req) => {
      requests.push("resources/read");
      return { contents: [{ uri: req.params.uri, text: JSON.stringify(graph) }] };
    });
  }
  if (opts.capabilities?.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, () => {
      requests.push("prompts/list");
      return { prompts: [{ name: "summarise" }] };
    });
    server.setRequestHandler(GetPromptRequestSchema, (req) => {
      requests.push("prompts/get");
      return { messages: [{ role: "user", content: { type: "text", text: `summarise ${req.params.name}` } }] };
    });
  }
  const upstream = new Client({ name: "polar-test-upstream", version: "1.0.0" });
  const [ua, ub] = InMemoryTransport.createLinkedPair();
  await server.connect(ub);
  await upstream.connect(ua);

  const blob = new Uint8Array(readFileSync(MEMORY_ONTOLOGY));
  const rules = parseProjectionRules(JSON.parse(readFileSync(MEMORY_RULES, "utf8")));
  const sinks = new Map<Guard, ReturnType<typeof createMemorySink>>();
  const outcomes = new Map<Guard, OutcomeRecord[]>();
  const gateway = createGateway({
    upstream,
    rules,
    createGuard: (state) => {
      const sink = createMemorySink();
      const guard = createGuard({ ontology: blob, backend: (t) => createReferenceBackend(t), state, policy: opts.policy ?? "veto", scope: opts.scope ?? "turn", config: { projection: rules, log: sink, tau: opts.tau } });
      sinks.set(guard, sink);
      outcomes.set(guard, []);
      return guard;
    },
    ...(opts.noOutcomes ? {} : { recordOutcome: (guard: Guard, record: OutcomeRecord) => outcomes.get(guard)!.push(record) }),
    ...(opts.gateway ?? {}),
  });
  const clients: Client[] = [];

  async function session(sopts: { elicit?: (message: string, params: Record<string, unknown>) => ElicitResult | Promise<ElicitResult>; capabilities?: Record<string, unknown> } = {}): Promise<FakeSession> {
    const before = new Set(sinks.keys());
    const server = gateway.session();
    const guard = [...sinks.keys()].find((g) => !before.has(g))!;
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const caps = sopts.capabilities ?? (sopts.elicit ? { elicitation: { form: {} } } : {});
    const client = new Client({ name: "polar-test-client", version: "1.0.0" }, { capabilities: caps });
    if (sopts.elicit) {
      const elicit = sopts.elicit;
      client.setRequestHandler(ElicitRequestSchema, (req) => elicit((req.params as { message: string }).message, req.params as Record<string, unknown>));
    }
    await client.connect(a);
    clients.push(client);
    return {
      client,
      guard,
      call: (name, args, signal) => client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, { signal }) as Promise<CallToolResult>,
      decisions: () => sinks.get(guard)!.records.slice(),
      outcomes: () => outcomes.get(guard)!.slice(),
      close: () => client.close(),
    };
  }

  return {
    gateway,
    graph,
    requests,
    overrides,
    server,
    upstream,
    session,
    async close() {
      for (const c of clients.splice(0)) await c.close().catch(() => {});
      await upstream.close().catch(() => {});
    },
  };
}
