// The MCP gateway's protocol side: a client-facing MCP server per client connection, in front of one
// upstream MCP server reached through an SDK Client. tools/list is forwarded as the server answers it;
// a read-only tool (per the ontology) is forwarded straight away; a mutating tools/call is judged
// first: Layer B is read from the upstream server itself (projection `reads`), the guard decides, and
// only an admitted (or consented) call reaches the server. No Node API here: transports are wired in
// src/mcp/node.ts, so another runtime can host the same code.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  McpError,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  type CallToolResult,
  type Implementation,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Guard } from "../guard/guard.js";
import type { Decision } from "../guard/decision.js";
import { checkApproval, encodeApproval, issueApproval } from "../guard/approval.js";
import { LayerB } from "../projection/layer-b.js";
import type { ProjectionRules } from "../projection/rules.js";
import { applyReadResult, applyReadsFinally, judgedCall, parseReadRules, readArguments, type ReadRule, type ReadRules } from "../projection/reads.js";
import type { ToolCall } from "../core/types.js";
import { consentMessage, consentRefusalText, refusalText } from "./messages.js";
import { outcomeRecord, type CallOutcome, type OutcomeRecord } from "../audit/outcome.js";
import { dispatchArgument, parseToolList } from "./draft.js";
import { DISPATCH_RECORD_FORMAT, type DispatchRecord } from "../audit/dispatch-record.js";

/** Where each tool result carries the guard's decision (route, reason, score, inverse sequence). */
export const DECISION_META_KEY = "polar-guard/decision";
/** The one user message a consent given through elicitation is recorded as (the library's consent
 * detector reads it, so the audit log re-derives the ConsentApproved decision). */
export const ELICITED_CONSENT = "yes";

export interface GatewayOptions {
  /** A connected SDK client of the upstream MCP server. */
  upstream: Client;
  /** Projection rules for the upstream server; their `reads` say how to read Layer B from it. */
  rules: ProjectionRules;
  /** The rules' read table (default: `parseReadRules(rules)`). */
  reads?: ReadRules;
  /** A fresh guard per client session over the given Layer B (policy, backend, audit sink, scope,
   * projection rules: the caller's choice). */
  createGuard: (state: LayerB) => Guard;
  /** How the gateway introduces itself; default `polar-guard-mcp`. */
  serverInfo?: Implementation;
  /** Key for the approval tokens' MAC (default: unkeyed SHA-256; tokens never leave the gateway). */
  approvalKey?: Uint8Array;
  /** Per-request timeout towards the upstream server, ms (default 60 000). */
  timeoutMs?: number;
  /** What finally happened to each approved call (ran, failed, unknown, refused), for the audit log's
   * outcome records (src/audit/outcome.ts); `guard` is the session's. */
  recordOutcome?: (guard: Guard, record: OutcomeRecord) => void;
  /** Dispatcher tools by name: their calls are judged on their string argument (see DispatcherTool). */
  dispatchers?: ReadonlyMap<string, DispatcherTool>;
  /** Each dispatcher tool call's verdict, the core decisions behind it and its outcome, for the audit
   * log's chain (src/audit/dispatch-record.ts); `guard` is the session's. A throw is said in the result. */
  recordDispatch?: (guard: Guard, record: DispatchRecord) => void;
}

/**
 * A dispatcher tool (docs/sql.md, "Through the MCP gateway"): a tool whose one string argument (an SQL
 * statement, a shell command) says what it does. Each call's string is judged by the tool's judge (the
 * SQL guard), never by the tool's name or the ontology; a judge that cannot be made, throws, or answers
 * in a wrong shape refuses the call.
 */
export interface DispatcherTool {
  /** What the string is (`sql`, `shell`): said in refusals and in the result's `_meta`. */
  kind: string;
  /** The argument holding the string. */
  argument: string;
  /** The judge for one client session, made on its first call to the tool (a failure refuses the call,
   * and the next call tries again). `guard` is the session's. */
  create(session: { guard: Guard }): DispatchJudge | Promise<DispatchJudge>;
  /** Called once when the gateway shuts down (closes what `create` shares, e.g. a database connection). */
  close?(): void | Promise<void>;
}

export interface DispatchJudge {
  judge(call: ToolCall, text: string): DispatchVerdict | Promise<DispatchVerdict>;
  /** An allowed call ran (`ran`), or was sent and its outcome is not known (`unknown`): journal it. */
  observe?(verdict: DispatchVerdict, outcome: "ran" | "unknown"): void | Promise<void>;
}

export interface DispatchVerdict {
  action: "allow" | "ask" | "deny";
  reason: string;
  /** One line for the agent and the user; a refusal names what would be lost. */
  message: string;
  /** Shown in the result's `_meta` (tier, restore point, execution, typed calls). */
  meta?: Record<string, unknown>;
  /** For the audit log: the core decisions behind the verdict, and a read-only approval's evidence. */
  audit?: { decisions: unknown[]; readOnly?: Record<string, unknown> };
}

/** The `_meta` of a dispatcher tool's result. */
export interface DispatchMeta {
  dispatcher: string;
  action: DispatchVerdict["action"];
  reason: string;
  message: string;
  consented?: boolean;
  [k: string]: unknown;
}

export interface DecisionMeta {
  seq: number | null;
  route: Decision["route"];
  reason: Decision["reason"];
  phi: number | null;
  tau: number;
  stateDigest: string | null;
  ontologyHash: string;
  /** The inverse sequence π with concrete arguments (most recent call first). */
  inverse: Array<{ tool: string | null; arguments: Record<string, unknown> | null; tier: string; annotation: string }>;
  /** The approval token the call ran under (consent). */
  approval?: string;
}

export interface Gateway {
  /** A client-facing MCP server for one client connection (its own guard and Layer B). */
  session(): Server;
  /** The wiring reports that the upstream server is gone; every later request is an error saying so. */
  upstreamClosed(reason: string): void;
  readonly closedReason: string | null;
}

const LooseCallTool = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() }).passthrough();

function meta(d: Decision, approval?: string): DecisionMeta {
  const out: DecisionMeta = {
    seq: d.seq,
    route: d.route,
    reason: d.reason,
    phi: d.verdict?.phi ?? null,
    tau: d.tau,
    stateDigest: d.stateDigest,
    ontologyHash: d.ontologyHash,
    inverse: (d.verdict?.steps ?? []).map((s) => ({ tool: s.tool, arguments: s.arguments, tier: s.tier, annotation: s.annotation })),
  };
  if (approval !== undefined) out.approval = approval;
  return out;
}

function withMeta(result: CallToolResult, m: DecisionMeta | null): CallToolResult {
  if (m === null) return result;
  return { ...result, _meta: { ...(result._meta ?? {}), [DECISION_META_KEY]: m } };
}

function refusal(text: string, m: DecisionMeta | null): CallToolResult {
  return withMeta({ content: [{ type: "text", text }], isError: true }, m);
}

function isDecision(v: CallToolResult | Decision): v is Decision {
  return (v as Decision).format !== undefined && (v as Decision).route !== undefined;
}

/** The upstream server answered the request with a JSON-RPC error (so it did not run it); anything
 * else that ends a sent request (a cancel, a timeout, a dropped connection) leaves its outcome unknown. */
function answeredError(e: unknown, signal: AbortSignal): boolean {
  if (signal.aborted || !(e instanceof McpError)) return false;
  return e.code !== ErrorCode.RequestTimeout && e.code !== ErrorCode.ConnectionClosed;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Read steps that name a tool the ontology does not declare read-only (the gateway refuses to call
 * them: every call depending on them fails closed). */
export function unsafeReadSteps(reads: ReadRules, tables: { tools: ReadonlyArray<{ name: string; readOnly: boolean }> }): string[] {
  const readOnly = new Set(tables.tools.filter((t) => t.readOnly).map((t) => t.name));
  const out: string[] = [];
  for (const [tool, rule] of reads) for (const st of rule.steps) if (!readOnly.has(st.tool)) out.push(`${tool} → ${st.tool}`);
  return out;
}

export function createGateway(options: GatewayOptions): Gateway {
  const { upstream, rules } = options;
  const reads = options.reads ?? parseReadRules(rules);
  const timeout = options.timeoutMs ?? 60_000;
  let closedReason: string | null = null;
  const sessions = new Set<Server>();

  // Every tools/call to the upstream server runs under this lock, read → judge → run, whichever client
  // session sent it: a call is judged on the state it will run on, never on a state another session's
  // call is about to change (docs/security.md, "Concurrent sessions"). Waiting for the user's consent
  // happens outside it (the approval is re-checked under it on a fresh read).
  let queue: Promise<unknown> = Promise.resolve();
  function serially<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const guarded = (): Promise<T> => {
      // Cancelled while waiting: nothing was read or run.
      if (signal.aborted) return Promise.reject(new McpError(ErrorCode.RequestTimeout, "the request was cancelled before it ran"));
      return fn();
    };
    const next = queue.then(guarded, guarded);
    queue = next.catch(() => {});
    return next;
  }

  const upstreamCaps: ServerCapabilities = upstream.getServerCapabilities() ?? {};
  const capabilities: ServerCapabilities = { tools: upstreamCaps.tools?.listChanged ? { listChanged: true } : {} };
  if (upstreamCaps.resources) capabilities.resources = {};
  if (upstreamCaps.prompts) capabilities.prompts = {};

  // Notifications the upstream server sends (list changes, resource updates, logs) go to every client.
  upstream.fallbackNotificationHandler = async (n) => {
    for (const s of sessions) await s.notification(n as never).catch(() => {});
  };

  function down(): McpError {
    return new McpError(ErrorCode.InternalError, `the upstream MCP server is not available: ${closedReason}`);
  }

  /** A request to the upstream server; its failures become JSON-RPC errors that say where they came from. */
  async function forward<T>(fn: () => Promise<T>): Promise<T> {
    if (closedReason !== null) throw down();
    try {
      return await fn();
    } catch (e) {
      if (closedReason !== null) throw down();
      if (e instanceof McpError) throw e;
      throw new McpError(ErrorCode.InternalError, `the upstream MCP server failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  function session(): Server {
    const server = new Server(options.serverInfo ?? { name: "polar-guard-mcp", version: "0.1.0" }, {
      capabilities,
      instructions: "Tool calls that change state are judged by the POLAR reversibility guard before they run; a refused call returns an error result that says why and what would make it safe.",
    });
    const state = new LayerB();
    const guard = options.createGuard(state);
    const tools = new Map(guard.tables.tools.map((t) => [t.name, t]));
    const entityName = (i: number): string | null => (i >= 0 ? guard.tables.entities[i].name : null);

    server.setRequestHandler(ListToolsRequestSchema, (req, extra) =>
      forward(() => upstream.request({ method: "tools/list", params: req.params }, ListToolsResultSchema, { signal: extra.signal, timeout })));
    if (capabilities.resources) {
      server.setRequestHandler(ListResourcesRequestSchema, (req, extra) =>
        forward(() => upstream.request({ method: "resources/list", params: req.params }, ListResourcesResultSchema, { signal: extra.signal, timeout })));
      server.setRequestHandler(ListResourceTemplatesRequestSchema, (req, extra) =>
        forward(() => upstream.request({ method: "resources/templates/list", params: req.params }, ListResourceTemplatesResultSchema, { signal: extra.signal, timeout })));
      server.setRequestHandler(ReadResourceRequestSchema, (req, extra) =>
        forward(() => upstream.request({ method: "resources/read", params: req.params }, ReadResourceResultSchema, { signal: extra.signal, timeout })));
    }
    if (capabilities.prompts) {
      server.setRequestHandler(ListPromptsRequestSchema, (req, extra) =>
        forward(() => upstream.request({ method: "prompts/list", params: req.params }, ListPromptsResultSchema, { signal: extra.signal, timeout })));
      server.setRequestHandler(GetPromptRequestSchema, (req, extra) =>
        forward(() => upstream.request({ method: "prompts/get", params: req.params }, GetPromptResultSchema, { signal: extra.signal, timeout })));
    }

    const callUpstream = (call: ToolCall, signal: AbortSignal): Promise<CallToolResult> =>
      forward(() => upstream.request({ method: "tools/call", params: { name: call.name, arguments: call.arguments } }, CallToolResultSchema, { signal, timeout })) as Promise<CallToolResult>;

    /** Reads the state `judged` touches from the server into Layer B. The acts_on entity is retracted
     * first, so only this call's reads can ground it. A read that fails leaves it retracted. */
    async function readState(rule: ReadRule | undefined, judged: ToolCall, signal: AbortSignal): Promise<string | null> {
      if (rule === undefined || (rule.steps.length === 0 && rule.finally.length === 0)) return null;
      const info = tools.get(judged.name);
      const actsOn = info ? entityName(info.actsOn) : null;
      const key = info?.keyArg ? judged.arguments[info.keyArg] : undefined;
      const retract = (): void => {
        if (actsOn !== null && (typeof key === "string" || typeof key === "number")) state.deleteEntity(actsOn, String(key));
      };
      retract();
      try {
        for (const step of rule.steps) {
          // A read must never change anything: only tools the ontology declares read-only are called.
          if (tools.get(step.tool)?.readOnly !== true) throw new Error(`the read step's tool \`${step.tool}\` is not read-only in the ontology`);
          const args = readArguments(step, judged, state);
          if (args === null) continue;
          const result = await callUpstream({ name: step.tool, arguments: args }, signal);
          applyReadResult(rules, state, step, judged, result);
        }
        applyReadsFinally(rules, state, rule, judged);
        // Turn scope judges each call alone: a fresh read of what it acts on is all it depends on, so
        // an unknown mark on it (an earlier call's lost answer) is lifted. Session scope keeps it: the
        // forward sequence still holds the call whose outcome is not known.
        if (guard.scope === "turn" && actsOn !== null && (typeof key === "string" || typeof key === "number")) guard.markKnown(actsOn, String(key));
        return null;
      } catch (e) {
        retract();
        if (e instanceof McpError && closedReason !== null) throw e;
        return e instanceof Error ? e.message : String(e);
      }
    }

    /** Says what finally happened to an approved decision (the audit log's outcome record). */
    function settle(d: Decision, outcome: CallOutcome, detail: string | null = null): void {
      if (d.execution === null || options.recordOutcome === undefined) return;
      options.recordOutcome(guard, outcomeRecord(d.seq, d.execution, outcome, detail));
    }

    /** An approved call that will not run: released, and the log says so. */
    function withdraw(d: Decision, why: string): void {
      if (d.execution) guard.release(d.execution);
      settle(d, "refused", why);
    }

    /** Runs an approved call on the server and observes it as the execution its decision created. */
    async function run(judged: ToolCall, sent: ToolCall, d: Decision, signal: AbortSignal, m: DecisionMeta): Promise<CallToolResult> {
      const execution = d.execution ?? undefined;
      if (closedReason !== null) {
        withdraw(d, "the upstream server is not available");
        throw down();
      }
      let result: CallToolResult;
      try {
        result = await upstream.request({ method: "tools/call", params: { name: sent.name, arguments: sent.arguments } }, CallToolResultSchema, { signal, timeout }) as CallToolResult;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        if (answeredError(e, signal)) {
          // The server answered with a JSON-RPC error: it refused the request, nothing ran.
          guard.observe(judged, undefined, { failed: true, execution });
          settle(d, "failed", message);
        } else {
          // Cancelled, timed out, or the connection dropped after the request was sent: the server may
          // have run it. What it acts on is unknown until read again (never "nothing happened").
          guard.observe(judged, undefined, { outcome: "unknown", execution });
          settle(d, "unknown", message);
        }
        if (closedReason !== null) throw down();
        if (e instanceof McpError) throw e;
        throw new McpError(ErrorCode.InternalError, `the upstream MCP server failed: ${message}`);
      }
      guard.observe(judged, result, { failed: result.isError === true, execution });
      settle(d, result.isError === true ? "failed" : "ran", result.isError === true ? "the tool answered with an error" : null);
      return withMeta(result, m);
    }

    // Registered under a loose schema: the SDK then validates tools/call itself and answers a bad one
    // with InvalidParams (under the strict schema a malformed request would be an InternalError).
    server.setRequestHandler(LooseCallTool, async (raw, extra) => {
      if (closedReason !== null) throw down();
      const parsed = CallToolRequestSchema.safeParse(raw);
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `invalid tools/call request: ${parsed.error.issues.map((i) => `\`${i.path.join(".")}\` ${i.message}`).join("; ")}`);
      const req = parsed.data;
      const name = req.params.name;
      const args = req.params.arguments ?? {};
      if (!isPlainObject(args)) throw new McpError(ErrorCode.InvalidParams, "`arguments` must be an object");
      const sent: ToolCall = { name, arguments: args };
      const dispatcher = options.dispatchers?.get(name);
      if (dispatcher !== undefined) return dispatched(dispatcher, sent, extra.signal);
      const info = tools.get(name);
      if (info?.readOnly) {
        // A tool that takes an SQL statement or a shell command does what its string says: declared
        // read-only or not, it is not forwarded unjudged (configure it as a dispatcher tool).
        const takes = (await upstreamTools(extra.signal)).get(name) ?? null;
        if (takes !== null) {
          return refusal(`Not run: \`${name}\` was stopped by the POLAR guard before it reached the server, so nothing was changed. Why: it takes ${takes.kind === "sql" ? "an SQL statement" : "a shell command"} in \`${takes.argument}\`, so what it does depends on that string, not on its name; the ontology's \`read_only(${name})\` cannot be trusted for it. What would make it safe: the operator configures \`${name}\` as a dispatcher tool (\`polar mcp --dispatch ${name}=${takes.kind}:${takes.argument}\`), so each statement is judged.`, null);
        }
        return serially(extra.signal, async () => {
          const result = await callUpstream(sent, extra.signal);
          // A read's answer is state the server gave: it updates Layer B like any tool result.
          if (result.isError !== true) guard.observe(sent, result);
          return result;
        });
      }
      return judgeAndRun(name, args, sent, extra.signal);
    });

    async function judgeAndRun(name: string, args: Record<string, unknown>, sent: ToolCall, signal: AbortSignal): Promise<CallToolResult> {
      const rule = reads.get(name);
      const derived = judgedCall(rule, sent);
      if (!derived.ok) {
        const d = guard.check({ name, arguments: { ...args, $polar_reserved: { $nonjson: derived.problem } } });
        return refusal(refusalText(name, d, undefined, guard.policy), meta(d));
      }
      const judged = derived.call;
      const first = await serially(signal, async (): Promise<CallToolResult | Decision> => {
        const readProblem = await readState(rule, judged, signal);
        const d = guard.check(judged);
        const ungrounded = readProblem !== null ? `The server's state could not be read (${readProblem}); try again.` : rule?.ungrounded;
        if (d.route === "ConsentEscalated") return d;
        if (!d.approved) return refusal(refusalText(name, d, ungrounded, guard.policy), meta(d));
        if (d.admissible) {
          let gap: string | null;
          try {
            gap = await inverseGap(d, signal);
          } catch (e) {
            withdraw(d, `the server's tool list could not be read: ${e instanceof Error ? e.message : String(e)}`);
            throw e;
          }
          if (gap !== null) {
            withdraw(d, `the way to undo it cannot be run: ${gap}`); // approved, but it will not run
            return refusal(`Not run: \`${name}\` was stopped by the POLAR guard before it reached the server, so nothing was changed. Why: the way to undo it cannot be run as the ontology gives it (${gap}). What would make it safe: the operator has to fix the ontology or the projection rules; until then ask the user.`, { ...meta(d), route: "Vetoed" });
          }
        }
        return run(judged, sent, d, signal, meta(d));
      });
      if (!isDecision(first)) return first;
      return escalate(judged, sent, first, rule, signal);
    }

    /** The upstream tools that take an SQL or shell string (src/mcp/draft.ts, dispatchArgument), from
     * one tools/list per session. */
    let stringTools: Map<string, { kind: string; argument: string }> | null = null;
    async function upstreamTools(signal: AbortSignal): Promise<Map<string, { kind: string; argument: string }>> {
      if (stringTools !== null) return stringTools;
      const list = await forward(() => upstream.request({ method: "tools/list", params: {} }, ListToolsResultSchema, { signal, timeout }));
      const out = new Map<string, { kind: string; argument: string }>();
      // Each tool alone: one malformed entry must not hide another's SQL argument.
      for (const t of list.tools) {
        let info: ReturnType<typeof parseToolList>[number];
        try {
          [info] = parseToolList([t]);
        } catch {
          continue; // a name the ontology cannot declare: never read-only there either
        }
        const d = dispatchArgument(info);
        if (d !== null) out.set(t.name, d);
      }
      stringTools = out;
      return out;
    }

    // ---- dispatcher tools: the string argument is judged (DispatcherTool)
    const judges = new Map<string, DispatchJudge>();
    function dmeta(tool: DispatcherTool, v: DispatchVerdict | null, fallback?: { reason: string; message: string }): DispatchMeta {
      return { ...(v?.meta ?? {}), dispatcher: tool.kind, action: v?.action ?? "deny", reason: v?.reason ?? fallback!.reason, message: v?.message ?? fallback!.message };
    }
    function withDispatchMeta(result: CallToolResult, m: DispatchMeta): CallToolResult {
      return { ...result, _meta: { ...(result._meta ?? {}), [DECISION_META_KEY]: m } };
    }
    /** A dispatched call's audit record (src/audit/dispatch-record.ts). */
    function dispatchRecord(name: string, tool: DispatcherTool, sent: ToolCall, v: DispatchVerdict | null, fallback: { reason: string }, outcome: DispatchRecord["outcome"], detail: string | null, consented: boolean): DispatchRecord {
      const text = sent.arguments[tool.argument];
      return {
        format: DISPATCH_RECORD_FORMAT,
        tool: name,
        dispatcher: tool.kind,
        text: typeof text === "string" ? text : "",
        action: v?.action ?? "deny",
        reason: v?.reason ?? fallback.reason,
        decisions: v?.audit?.decisions ?? [],
        ...(v?.audit?.readOnly ? { readOnly: v.audit.readOnly } : {}),
        ...(consented ? { consented: true } : {}),
        outcome,
        detail,
      };
    }
    /** The audit record of a dispatched call (never silently lost: a failed write is said in `_meta`). */
    function audited(result: CallToolResult, name: string, tool: DispatcherTool, sent: ToolCall, v: DispatchVerdict | null, fallback: { reason: string }, outcome: DispatchRecord["outcome"], detail: string | null, consented = false): CallToolResult {
      if (options.recordDispatch === undefined) return result;
      try {
        options.recordDispatch(guard, dispatchRecord(name, tool, sent, v, fallback, outcome, detail, consented));
      } catch (e) {
        const m = result._meta?.[DECISION_META_KEY];
        if (isPlainObject(m)) (m as Record<string, unknown>).audit = `not recorded: ${e instanceof Error ? e.message : String(e)}`;
      }
      return result;
    }
    function refuseDispatched(name: string, tool: DispatcherTool, reason: string, message: string, v: DispatchVerdict | null = null, sent?: ToolCall): CallToolResult {
      const m = dmeta(tool, v, { reason, message });
      const result = withDispatchMeta({ content: [{ type: "text", text: `Not run: \`${name}\` was stopped by the POLAR guard before it reached the server, so nothing was changed. Why: ${message}` }], isError: true }, m);
      return sent === undefined ? result : audited(result, name, tool, sent, v, { reason }, "refused", message);
    }
    /** The judge's verdict, checked: a throw or a wrong shape is a refusal (fail closed). */
    async function judgeString(name: string, tool: DispatcherTool, call: ToolCall): Promise<{ ok: true; v: DispatchVerdict; judge: DispatchJudge } | { ok: false; result: CallToolResult }> {
      const text = call.arguments[tool.argument];
      if (typeof text !== "string") return { ok: false, result: refuseDispatched(name, tool, "malformed_call", `the ${tool.kind} string argument \`${tool.argument}\` is ${text === undefined ? "missing" : "not a string"}`, null, call) };
      let judge = judges.get(name);
      try {
        if (judge === undefined) {
          judge = await tool.create({ guard });
          judges.set(name, judge);
        }
      } catch (e) {
        return { ok: false, result: refuseDispatched(name, tool, "internal_error", `the ${tool.kind} guard is not available (${e instanceof Error ? e.message : String(e)})`, null, call) };
      }
      let v: DispatchVerdict;
      try {
        v = await judge.judge(call, text);
      } catch (e) {
        return { ok: false, result: refuseDispatched(name, tool, "internal_error", `the ${tool.kind} guard failed (${e instanceof Error ? e.message : String(e)})`, null, call) };
      }
      if (!isPlainObject(v) || !["allow", "ask", "deny"].includes(v.action as string) || typeof v.message !== "string" || typeof v.reason !== "string") {
        return { ok: false, result: refuseDispatched(name, tool, "internal_error", `the ${tool.kind} guard answered in a wrong shape`, null, call) };
      }
      return { ok: true, v, judge };
    }
    async function runDispatched(name: string, tool: DispatcherTool, judge: DispatchJudge, sent: ToolCall, v: DispatchVerdict, signal: AbortSignal, consented: boolean): Promise<CallToolResult> {
      const m: DispatchMeta = { ...dmeta(tool, v), ...(consented ? { consented: true } : {}) };
      // Fail closed: the decision is in the audit log before the call is sent (`pending`; the outcome's
      // record follows), so a gateway that stops between the run and that record still leaves it. A
      // decision that cannot be written is not run.
      if (options.recordDispatch !== undefined) {
        try {
          options.recordDispatch(guard, dispatchRecord(name, tool, sent, v, v, "pending", null, consented));
        } catch (e) {
          const why = e instanceof Error ? e.message : String(e);
          const message = `its decision could not be written to the audit log (${why}), and a call whose decision is not in the log is not run`;
          return withDispatchMeta({ content: [{ type: "text", text: `Not run: \`${name}\` was stopped by the POLAR guard before it reached the server, so nothing was changed. Why: ${message}` }], isError: true }, { ...dmeta(tool, null, { reason: "internal_error", message }), audit: `not recorded: ${why}` });
        }
      }
      let result: CallToolResult;
      try {
        result = await forward(() => upstream.request({ method: "tools/call", params: { name: sent.name, arguments: sent.arguments } }, CallToolResultSchema, { signal, timeout })) as CallToolResult;
      } catch (e) {
        // Sent and not answered: it may have run; the judge journals it as unknown (undo checks the state).
        const answered = answeredError(e, signal);
        if (!answered) await Promise.resolve(judge.observe?.(v, "unknown")).catch(() => {});
        audited({ content: [], _meta: {} }, name, tool, sent, v, v, answered ? "failed" : "unknown", e instanceof Error ? e.message : String(e), consented);
        throw e;
      }
      if (result.isError !== true && judge.observe !== undefined) {
        try {
          await judge.observe(v, "ran");
        } catch (e) {
          // It ran; only its undo journal entry is missing: said in the result, never silently.
          m.journal = `not journalled: ${e instanceof Error ? e.message : String(e)} (polar undo will not list it)`;
        }
      }
      return audited(withDispatchMeta(result, m), name, tool, sent, v, v, result.isError === true ? "failed" : "ran", null, consented);
    }
    async function dispatched(tool: DispatcherTool, sent: ToolCall, signal: AbortSignal): Promise<CallToolResult> {
      const name = sent.name;
      const judged = await serially(signal, async (): Promise<{ done: CallToolResult } | { asked: DispatchVerdict }> => {
        const j = await judgeString(name, tool, sent);
        if (!j.ok) return { done: j.result };
        if (j.v.action === "allow") return { done: await runDispatched(name, tool, j.judge, sent, j.v, signal, false) };
        if (j.v.action === "deny") return { done: refuseDispatched(name, tool, j.v.reason, j.v.message, j.v, sent) };
        return { asked: j.v };
      });
      if ("done" in judged) return judged.done;
      const first = judged.asked;
      // Asked: put to the user (elicitation) when the gateway's policy asks; else refused with the question.
      const m = dmeta(tool, first);
      const text = (outcome: Parameters<typeof consentRefusalText>[2], detail?: string): CallToolResult =>
        audited(withDispatchMeta({ content: [{ type: "text", text: consentRefusalText(name, first.message, outcome, detail) }], isError: true }, m), name, tool, sent, first, first, "refused", `${outcome}${detail ? `: ${detail}` : ""}`);
      const elicitation = server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined;
      const form = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
      if (guard.policy !== "escalate" || !form) return text("unsupported");
      const asked = consentMessage(name, sent.arguments, first.message, null);
      if (!asked.ok) return text("unshowable", asked.why);
      let answer;
      try {
        answer = await server.elicitInput({
          mode: "form",
          message: asked.message,
          requestedSchema: { type: "object", properties: { approve: { type: "boolean", title: `Run ${name}`, description: "Yes runs exactly this statement, once." } }, required: ["approve"] },
        }, { signal, timeout: 10 * 60_000 });
      } catch (e) {
        return text("failed", e instanceof Error ? e.message : String(e));
      }
      if (answer.action === "decline" || (answer.action === "accept" && answer.content?.approve !== true)) return text("declined");
      if (answer.action !== "accept") return text("cancelled");
      // The consent covers this statement on the state the user was shown: judged again under the lock,
      // it must give the same question (or be allowed outright).
      return serially(signal, async () => {
        const j = await judgeString(name, tool, sent);
        if (!j.ok) return j.result;
        if (j.v.action === "allow" || (j.v.action === "ask" && j.v.reason === first.reason && j.v.message === first.message)) {
          return runDispatched(name, tool, j.judge, sent, j.v, signal, j.v.action === "ask");
        }
        return text("stale", j.v.action === "deny" ? `the guard now refuses it (${j.v.message})` : `the guard now asks something else (${j.v.message})`);
      });
    }

    /** Defence in depth for an admitted call: every step of π must be a tool the server lists, with
     * every parameter its input schema requires (values known only after the call, `{ $pending }`,
     * count as present). The search does not know the server's schemas; the gateway does. */
    let schemas: Map<string, string[]> | null = null;
    async function inverseGap(d: Decision, signal: AbortSignal): Promise<string | null> {
      const steps = d.verdict?.steps ?? [];
      if (steps.every((st) => st.tool === null)) return null;
      if (schemas === null) {
        const list = await forward(() => upstream.request({ method: "tools/list", params: {} }, ListToolsResultSchema, { signal, timeout }));
        schemas = new Map(list.tools.map((t) => [t.name, Array.isArray(t.inputSchema.required) ? t.inputSchema.required.filter((r): r is string => typeof r === "string") : []]));
      }
      for (const st of steps) {
        if (st.tool === null) continue;
        const required = schemas.get(st.tool);
        if (required === undefined) return `the server has no tool \`${st.tool}\``;
        const missing = required.filter((r) => !Object.prototype.hasOwnProperty.call(st.arguments ?? {}, r));
        if (missing.length > 0) return `\`${st.tool}\` would lack ${missing.map((m) => `\`${m}\``).join(", ")}`;
      }
      return null;
    }

    async function escalate(judged: ToolCall, sent: ToolCall, d: Decision, rule: ReadRule | undefined, signal: AbortSignal): Promise<CallToolResult> {
      const question = d.question ?? d.message ?? `Run \`${sent.name}\`?`;
      const elicitation = server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined;
      // An empty `elicitation` capability means form mode (the spec's default); url-only clients cannot answer a form.
      const form = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
      if (!form) return refusal(consentRefusalText(sent.name, question, "unsupported"), meta(d));
      const info = tools.get(sent.name);
      const actsOn = info ? entityName(info.actsOn) : null;
      const target = actsOn !== null && info?.keyArg ? { entity: actsOn, keyArg: info.keyArg, key: judged.arguments[info.keyArg] } : null;
      const asked = consentMessage(sent.name, sent.arguments, question, target, d.reads);
      // What cannot be shown whole is not asked: the user would approve what they did not see.
      if (!asked.ok) return refusal(consentRefusalText(sent.name, question, "unshowable", asked.why), meta(d));
      const token = issueApproval(d, { by: "user:elicitation", key: options.approvalKey });
      let answer;
      try {
        answer = await server.elicitInput({
          mode: "form",
          message: asked.message,
          requestedSchema: {
            type: "object",
            properties: { approve: { type: "boolean", title: `Run ${sent.name}`, description: "Yes runs exactly this call, once." } },
            required: ["approve"],
          },
        }, { signal, timeout: 10 * 60_000 });
      } catch (e) {
        return refusal(consentRefusalText(sent.name, question, "failed", e instanceof Error ? e.message : String(e)), meta(d));
      }
      if (answer.action === "decline" || (answer.action === "accept" && answer.content?.approve !== true)) {
        return refusal(consentRefusalText(sent.name, question, "declined"), meta(d));
      }
      if (answer.action !== "accept") return refusal(consentRefusalText(sent.name, question, "cancelled"), meta(d));
      // Consent is for this call on the state the user was shown: read the state again and judge again
      // (under the upstream lock, so nothing changes between this read and the run); the approval must
      // still cover the call (same arguments, same state read, same ontology).
      return serially(signal, async () => {
        const readProblem = await readState(rule, judged, signal);
        const again = guard.check(judged, { userMessages: [ELICITED_CONSENT] });
        const covered = checkApproval(token, again, { key: options.approvalKey });
        if (readProblem !== null || !covered.ok || again.route !== "ConsentApproved") {
          const why = readProblem !== null ? `the state could not be read again (${readProblem})` : !covered.ok ? covered.message : `the guard now answers \`${again.reason}\``;
          if (again.approved) withdraw(again, `the consent no longer covers it: ${why}`);
          return refusal(consentRefusalText(sent.name, question, "stale", why), meta(again));
        }
        return run(judged, sent, again, signal, meta(again, encodeApproval(token)));
      });
    }

    sessions.add(server);
    const prevClose = server.onclose;
    server.onclose = () => {
      sessions.delete(server);
      prevClose?.();
    };
    return server;
  }

  return {
    session,
    upstreamClosed(reason: string): void {
      closedReason ??= reason;
    },
    get closedReason() {
      return closedReason;
    },
  };
}
