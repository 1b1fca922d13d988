// The gateway in-process (createGateway) in front of a real MCP server (a stdio child), with SDK
// clients connected over in-memory transports. The upstream client is wrapped so a test can decide
// what happens to a call's answer *after the real server ran it*: delivered, lost to a client cancel,
// or lost to a timeout — the interleavings a stdio test cannot produce on purpose. Every session gets
// its own memory audit sink (decisions and outcome records, one chain per session).
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, ElicitRequestSchema, ErrorCode, McpError, type CallToolResult, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { createGuard, type Guard } from "../../src/guard/index.js";
import type { Decision } from "../../src/guard/decision.js";
import { createMemorySink, verifyAuditLog } from "../../src/audit/index.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { parseProjectionRules } from "../../src/projection/rules.js";
import { createGateway, type Gateway } from "../../src/mcp/gateway.js";
import type { LayerB } from "../../src/projection/layer-b.js";
import { FS_ONTOLOGY, FS_RULES, FS_SERVER, MEMORY_ONTOLOGY, MEMORY_RULES, MEMORY_SERVER } from "./helpers.js";

export type Fate = "cancel" | "timeout";

/** One tools/call the upstream server received: its arguments and, for a filesystem write, what the
 * file held when the call was sent (null: absent). */
export interface Sent {
  name: string;
  arguments: Record<string, unknown>;
  before?: string | null;
}

type MemorySink = ReturnType<typeof createMemorySink>;

export interface Session {
  client: Client;
  guard: Guard;
  sink: MemorySink;
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult>;
  /** Runs the call; the real server runs it, then its answer is lost (`fate`). Resolves with the
   * client's error. */
  lose(name: string, args: Record<string, unknown>, fate: Fate): Promise<unknown>;
  decisions(): Decision[];
  close(): Promise<void>;
}

export interface Harness {
  gateway: Gateway;
  session(opts?: { elicit?: (message: string) => ElicitResult | Promise<ElicitResult> }): Promise<Session>;
  /** Holds the answers of `tool` until `n` are held at once or `ms` passed (what an unserialized
   * gateway would interleave, it interleaves for sure). */
  barrier(tool: string, n: number, ms: number): void;
  /** Tools the upstream server was sent (tools/call), in order, with the arguments. */
  sent: Sent[];
  /** The scope of the guards of sessions made from now on. */
  scope: "turn" | "session";
  /** Drops every held plan and barrier (between fuzz cases). */
  reset(): void;
  verifyLogs(): void;
  /** The ontology blob the guards run. */
  readonly blob: Uint8Array;
  /** The real server's process id. */
  readonly pid: number | null;
  close(): Promise<void>;
}

export async function harness(opts: { server: "filesystem" | "memory"; root?: string; env?: Record<string, string>; policy?: "veto" | "escalate" | "advisory"; scope?: "turn" | "session"; tau?: number }): Promise<Harness> {
  const fs = opts.server === "filesystem";
  const blob = new Uint8Array(readFileSync(fs ? FS_ONTOLOGY : MEMORY_ONTOLOGY));
  const rules = parseProjectionRules(JSON.parse(readFileSync(fs ? FS_RULES : MEMORY_RULES, "utf8")));
  const upstream = new Client({ name: "polar-test-upstream", version: "1.0.0" });
  const child = new StdioClientTransport({ command: process.execPath, args: fs ? [FS_SERVER, opts.root!] : [MEMORY_SERVER], env: { ...getDefaultEnvironment(), ...(opts.env ?? {}) }, stderr: "ignore" });
  await upstream.connect(child);

  const plans: Array<{ tool: string; args: string; fate: Fate; abort: AbortController }> = [];
  const barriers = new Map<string, { n: number; ms: number; held: Array<() => void> }>();
  const sent: Sent[] = [];
  const real = upstream.request.bind(upstream);
  upstream.request = (async (req: { method: string; params?: { name?: string; arguments?: Record<string, unknown> } }, schema: unknown, options?: { signal?: AbortSignal }) => {
    const name = req.method === "tools/call" ? req.params?.name : undefined;
    const args = JSON.stringify(req.params?.arguments ?? {});
    const i = name === undefined ? -1 : plans.findIndex((p) => p.tool === name && p.args === args);
    const plan = i >= 0 ? plans.splice(i, 1)[0] : undefined;
    if (name !== undefined) {
      const entry: Sent = { name, arguments: req.params?.arguments ?? {} };
      if (fs && name === "write_file" && typeof entry.arguments.path === "string") {
        try {
          entry.before = readFileSync(entry.arguments.path, "utf8");
        } catch {
          entry.before = null;
        }
      }
      sent.push(entry);
    }
    // The real server always answers (a cancel does not reach it): it ran the call.
    const answer = await real(req as never, schema as never, plan ? {} : (options as never));
    const b = name === undefined ? undefined : barriers.get(name);
    if (b !== undefined) {
      await new Promise<void>((resolve) => {
        b.held.push(resolve);
        if (b.held.length >= b.n) for (const r of b.held.splice(0)) r();
        else setTimeout(resolve, b.ms);
      });
    }
    if (plan?.fate === "timeout") throw new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: 60_000 });
    if (plan?.fate === "cancel") {
      const signal = options?.signal;
      plan.abort.abort("the client cancelled");
      if (signal !== undefined && !signal.aborted) await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      throw signal?.reason ?? new Error("cancelled");
    }
    return answer;
  }) as typeof upstream.request;

  const sinks = new Map<Guard, MemorySink>();
  const gateway = createGateway({
    upstream,
    rules,
    createGuard: (state: LayerB) => {
      const sink = createMemorySink();
      const guard = createGuard({ ontology: blob, backend: (t) => createReferenceBackend(t), state, policy: opts.policy ?? "veto", scope: self.scope, config: { projection: rules, log: sink, tau: opts.tau } });
      sinks.set(guard, sink);
      return guard;
    },
    recordOutcome: (guard, record) => sinks.get(guard)!.outcome(record),
  });
  const clients: Client[] = [];

  async function session(sopts: { elicit?: (message: string) => ElicitResult | Promise<ElicitResult> } = {}): Promise<Session> {
    const before = new Set(sinks.keys());
    const server = gateway.session();
    const guard = [...sinks.keys()].find((g) => !before.has(g))!;
    const sink = sinks.get(guard)!;
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: "polar-test-client", version: "1.0.0" }, sopts.elicit ? { capabilities: { elicitation: { form: {} } } } : {});
    if (sopts.elicit) {
      const elicit = sopts.elicit;
      client.setRequestHandler(ElicitRequestSchema, (req) => elicit((req.params as { message: string }).message));
    }
    await client.connect(a);
    clients.push(client);
    const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> =>
      client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, { signal }) as Promise<CallToolResult>;
    return {
      client,
      guard,
      sink,
      call,
      async lose(name, args, fate) {
        const abort = new AbortController();
        plans.push({ tool: name, args: JSON.stringify(args), fate, abort });
        try {
          return await call(name, args, abort.signal);
        } catch (e) {
          return e;
        }
      },
      decisions: () => sink.records.slice(),
      close: () => client.close(),
    };
  }

  const self: Harness = {
    gateway,
    session,
    sent,
    scope: opts.scope ?? "session",
    pid: child.pid,
    blob,
    reset() {
      plans.length = 0;
      barriers.clear();
      sent.length = 0;
    },
    barrier(tool, n, ms) {
      barriers.set(tool, { n, ms, held: [] });
    },
    verifyLogs() {
      for (const sink of sinks.values()) {
        if (sink.records.length === 0) continue;
        const report = verifyAuditLog(sink.lines(), { ontologies: [blob] });
        if (!report.ok) throw new Error(`a session's audit log does not verify: ${JSON.stringify(report.mismatches.slice(0, 3))}`);
      }
    },
    async close() {
      for (const c of clients.splice(0)) await c.close().catch(() => {});
      await upstream.close().catch(() => {});
    },
  };
  return self;
}

/** The outcome records of a session's log. */
export function outcomesOf(s: Session): Array<{ seq: number; outcome: string; detail: string | null }> {
  return s.sink.lines().map((l) => JSON.parse(l)).filter((r) => r.format === "polar-outcome/1");
}
