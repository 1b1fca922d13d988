// polar-guard/langchain: the guard as LangChain.js agent middleware (langchain 1, createAgent). Its
// `wrapToolCall` sees every tool call before the tool node runs it: the guard decides once; a veto
// comes back to the model as an error ToolMessage with the guard's refusal; an escalation pauses the
// graph with LangGraph's `interrupt()` carrying the guard's question, and the value the graph is
// resumed with (`new Command({ resume: true })`) is the user's answer to that question, for this call
// only. A call that may run goes to the tool on the arguments the guard judged, and its real result
// is observed.
import type { AgentMiddleware, ToolCallHandler, ToolCallRequest } from "langchain";
import type { Decision, Guard } from "../index.js";
import { createSession, judgedArguments, judgedCall, OpenDecisions, type AdapterOptions, type CallContext } from "./core.js";

/** The value `interrupt()` raises for a consent question (what `result.__interrupt__[i].value` holds). */
export interface ConsentInterrupt {
  type: "polar-consent";
  question: string;
  toolCall: { id: string | undefined; name: string; args: unknown };
  /** The decision that asked (its `seq` in the audit log). */
  seq: number;
}

export interface LangChainGuardOptions extends AdapterOptions {
  /** The middleware's name in the agent (default `polar-guard`). */
  name?: string;
}

/** Decisions kept for calls waiting for an answer; the oldest are dropped beyond this. */
const MAX_OPEN = 1024;

/** A resume value that answers yes: `true` or `{ approved: true }`; anything else is a no. */
export function isApproval(value: unknown): boolean {
  return value === true || (typeof value === "object" && value !== null && (value as { approved?: unknown }).approved === true);
}

type Msg = { type?: unknown; id?: unknown; content?: unknown; tool_calls?: { id?: string }[]; getType?: () => string; status?: unknown };

const kind = (m: Msg): unknown => (typeof m.getType === "function" ? m.getType() : m.type);

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : (p as { type?: unknown; text?: unknown })?.type === "text" ? String((p as { text: unknown }).text) : "")).join("");
  return "";
}

export function polarMiddleware(guard: Guard, options: LangChainGuardOptions = {}): AgentMiddleware {
  const session = createSession(guard, options);
  /** Questions waiting for an answer, by tool call id and call (ids are reused across calls). */
  const open = new OpenDecisions();
  const turns = new Map<string, object>();
  const bounded = <V>(map: Map<string, V>, key: string, value: V): V => {
    map.delete(key);
    if (map.size >= MAX_OPEN) map.delete(map.keys().next().value as string);
    map.set(key, value);
    return value;
  };

  function contextOf(messages: readonly Msg[], toolCallId: string | undefined): CallContext {
    const userMessages = messages.filter((m) => kind(m) === "human").map((m) => text(m.content));
    // The assistant message this call belongs to: its parallel siblings are one turn.
    let turn: object | undefined;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (kind(m) !== "ai" || !Array.isArray(m.tool_calls) || !m.tool_calls.some((c) => c.id === toolCallId)) continue;
      const key = [typeof m.id === "string" ? m.id : "", ...m.tool_calls.map((c) => c.id)].join("\u0000");
      turn = turns.get(key) ?? bounded(turns, key, {});
      break;
    }
    return { userMessages, turn };
  }

  /** The refusal as the tool node's own error ToolMessage: the handler builds it from a stand-in tool
   * that answers with the refusal, so no second copy of @langchain/core is imported here. */
  async function refuse(request: ToolCallRequest, handler: ToolCallHandler, message: string) {
    const standIn = { name: request.toolCall.name, invoke: async () => message };
    const out = await handler({ ...request, tool: standIn as unknown as ToolCallRequest["tool"] });
    if (kind(out as Msg) === "tool") (out as Msg).status = "error";
    return out;
  }

  const wrapToolCall = async (request: ToolCallRequest, handler: ToolCallHandler) => {
    const { toolCall } = request;
    const id = toolCall.id;
    const messages = (Array.isArray(request.state?.messages) ? request.state.messages : []) as Msg[];
    const context = contextOf(messages, id);
    const judged = judgedCall(toolCall.name, toolCall.args);
    // After an interrupt the graph runs this node again: the question already asked about this very
    // call is reused. A model or provider that reuses a tool call id for another call gets a new check.
    const asked = id !== undefined ? open.find(id, judged) : undefined;
    let d = asked ?? session.decide(judged, context);
    if (d.route === "ConsentEscalated" && !session.isDeclined(d)) {
      const ask: ConsentInterrupt = { type: "polar-consent", question: d.question ?? d.message ?? "", toolCall: { id, name: toolCall.name, args: toolCall.args }, seq: d.seq };
      // Throws to pause the graph the first time; returns the resume value when it is resumed.
      const interrupt = request.runtime?.interrupt;
      // Without a LangGraph runtime (no checkpointer) nobody can answer: the question is the refusal,
      // and nothing stays open for the id.
      if (typeof interrupt !== "function") {
        if (id !== undefined) open.delete(id, d);
        return refuse(request, handler, session.refusal(d));
      }
      if (id !== undefined) open.put(id, d, d);
      const answer = interrupt(ask);
      if (id !== undefined) open.delete(id, d);
      if (!isApproval(answer)) {
        // The user's no: recorded, and it binds this call for the session (a retry is refused).
        return refuse(request, handler, session.refusal(session.declined(judged, context, d)));
      }
      d = session.consent(d, context);
    }
    if (!session.mayRun(d)) return refuse(request, handler, session.refusal(d));
    const decision = d;
    let out: Awaited<ReturnType<ToolCallHandler>>;
    try {
      out = await handler({ ...request, toolCall: { ...toolCall, args: judgedArguments(decision) } });
    } catch (e) {
      session.failed(decision, e);
      throw e;
    }
    const msg = out as Msg;
    // The tool node's own error message: the tool threw and the node caught it; what it did is unknown.
    if (kind(msg) === "tool" && msg.status === "error") session.failed(decision, undefined);
    else session.ran(decision, kind(msg) === "tool" ? msg.content : out);
    return out;
  };

  // The shape createMiddleware() returns, built here so the adapter imports LangChain's types only.
  return {
    [Symbol.for("AgentMiddleware")]: true,
    name: options.name ?? "polar-guard",
    wrapToolCall,
  } as unknown as AgentMiddleware;
}
