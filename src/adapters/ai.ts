// polar-guard/ai: the guard in front of Vercel AI SDK tools (ai@6; the v7 `toolApproval` shape too).
// The SDK asks each tool's `needsApproval` before it runs a call: that is where the guard decides. A
// call the guard lets run needs no approval; any other call becomes the SDK's own approval request,
// which this adapter answers for the application: a veto is denied with the guard's refusal (the model
// sees `execution-denied` with that reason), an escalation is put to the user as the guard's question.
// An approval the user gives to that question is the consent, for this call only. `execute` then runs
// the tool on the arguments the guard judged and observes its real result.
import type { ModelMessage, Tool, ToolApprovalResponse, ToolExecutionOptions, ToolModelMessage, ToolSet } from "ai";
import type { Decision, Guard } from "../index.js";
import { createSession, declinedMessage, judgedArguments, judgedCall, OpenDecisions, ownEntry, refusalMessage, sameCall, type AdapterOptions, type CallContext } from "./core.js";

/** What the guard's decision means for one AI SDK tool call. */
export type ApprovalStatus =
  | { type: "run"; decision: Decision }
  | { type: "denied"; reason: string; decision: Decision }
  | { type: "ask"; question: string; decision: Decision };

/** The AI SDK 7 `ToolApprovalStatus` this adapter answers with (the published shape of `ai@7`). */
export type ToolApprovalStatusV7 =
  | { type: "approved"; reason?: string }
  | { type: "denied"; reason?: string }
  | { type: "user-approval"; reason?: string };

/** The argument of AI SDK 7's generic `toolApproval` function (the fields this adapter reads). */
export interface ToolApprovalRequestV7 {
  toolCall: { toolCallId: string; toolName: string; input: unknown };
  messages: ModelMessage[];
}

/** A consent question for the user: answer it to get the SDK's tool-approval-response. */
export interface ConsentQuestion {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  question: string;
  answer(approved: boolean): ToolApprovalResponse;
}

/** The approval requests of a step, sorted: the guard's vetoes (answered) and its questions. */
export interface PendingApprovals {
  /** Already answered: `approved: false` with the guard's refusal as the reason. */
  denied: ToolApprovalResponse[];
  questions: ConsentQuestion[];
}

export interface AiSdkGuard {
  /** The same tools, each with `needsApproval` driven by the guard and `execute` observed. */
  tools<T extends ToolSet>(tools: T): T;
  /** For AI SDK 7: `generateText({ tools: polar.tools(tools), toolApproval: polar.toolApproval })`. */
  toolApproval(request: ToolApprovalRequestV7): Promise<ToolApprovalStatusV7>;
  /** Sorts the approval requests in `result.content` or `result.response.messages`. */
  approvals(parts: readonly unknown[]): PendingApprovals;
  /** The tool message that answers every request: vetoes denied, each question put to `ask`. */
  respond(parts: readonly unknown[], ask: (question: ConsentQuestion) => boolean | Promise<boolean>): Promise<ToolModelMessage | null>;
  /** The guard's latest decision for a tool call id (until its tool has run). */
  decision(toolCallId: string): Decision | undefined;
}

/** Calls of the application's own tools kept until their result is seen; the oldest beyond this. */
const MAX_OPEN = 1024;

type Part = { type?: unknown; [k: string]: unknown };

function parts(messages: readonly unknown[]): Part[] {
  const out: Part[] = [];
  for (const m of messages) {
    const content = (m as { content?: unknown } | null)?.content;
    if (Array.isArray(content)) for (const p of content) if (typeof p === "object" && p !== null) out.push(p as Part);
  }
  return out;
}

/** The user's messages, oldest first (text parts joined). */
function userMessages(messages: readonly ModelMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== "user") continue;
    if (typeof m.content === "string") out.push(m.content);
    else out.push(m.content.map((p) => (p.type === "text" ? p.text : "")).join(""));
  }
  return out;
}

/** The application's answer to an approval request, with the call that request was raised for. */
interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  /** The tool call the request asked about (the latest `tool-call` part with its id before it). */
  call: { toolName: unknown; input: unknown } | null;
}

/** The latest answer, in the messages, to an approval request about this tool call id, if any. */
function approvalAnswer(messages: readonly ModelMessage[], toolCallId: string): ApprovalAnswer | undefined {
  const all = parts(messages);
  const requests = new Map<string, ApprovalAnswer["call"]>();
  let call: ApprovalAnswer["call"] = null;
  let answer: ApprovalAnswer | undefined;
  for (const p of all) {
    if (p.type === "tool-call" && p.toolCallId === toolCallId) call = { toolName: p.toolName, input: p.input };
    else if (p.type === "tool-approval-request" && p.toolCallId === toolCallId && typeof p.approvalId === "string") requests.set(p.approvalId, call);
    else if (p.type === "tool-approval-response" && typeof p.approvalId === "string" && requests.has(p.approvalId)) {
      answer = { approvalId: p.approvalId, approved: p.approved === true, call: requests.get(p.approvalId) ?? null };
    }
  }
  return answer;
}

/** Whether a tool call part is exactly this call: the same tool and the same arguments. */
function isCall(call: { toolName: unknown; input: unknown } | null, toolName: string, input: unknown): boolean {
  return call !== null && typeof call.toolName === "string" && sameCall(judgedCall(call.toolName, call.input), judgedCall(toolName, input));
}

/** An approval request part as `result.content` (with `toolCall`) or a message (flat) has it; `call`
 * is the tool call it asks about (its own `toolCall`, else the latest `tool-call` part with its id
 * before it), null when neither names a tool. */
function requestOf(p: Part, calls: ReadonlyMap<string, { toolName: unknown; input: unknown }>): { approvalId: string; toolCallId: string; toolName: string; call: { toolName: unknown; input: unknown } | null } | null {
  if (p.type !== "tool-approval-request" || typeof p.approvalId !== "string") return null;
  const own = p.toolCall as { toolCallId?: unknown; toolName?: unknown; input?: unknown } | undefined;
  const toolCallId = own?.toolCallId ?? p.toolCallId;
  if (typeof toolCallId !== "string") return null;
  const call = own !== undefined && typeof own.toolName === "string" && "input" in own ? { toolName: own.toolName, input: own.input } : (calls.get(toolCallId) ?? null);
  const toolName = typeof own?.toolName === "string" ? own.toolName : typeof p.toolName === "string" ? p.toolName : typeof call?.toolName === "string" ? call.toolName : "";
  return { approvalId: p.approvalId, toolCallId, toolName, call };
}

/** The call a part names as the guard judges it (null without a tool name). */
function judgedOf(call: { toolName: unknown; input: unknown } | null) {
  return call !== null && typeof call.toolName === "string" ? judgedCall(call.toolName, call.input) : null;
}

function isAsyncIterable(x: unknown): x is AsyncIterable<unknown> {
  return typeof x === "object" && x !== null && typeof (x as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function";
}

/** The refusal the model sees when `execute` is reached for a call the guard did not let run. */
export class GuardRefusalError extends Error {
  readonly decision: Decision;
  constructor(decision: Decision, message: string = refusalMessage(decision)) {
    super(message);
    this.name = "GuardRefusalError";
    this.decision = decision;
  }
}

/** `execute` was reached for a call no decision was made for, under an id other calls hold: refused. */
export class GuardBindingError extends Error {
  readonly toolCallId: string;
  constructor(toolName: string, toolCallId: string) {
    super(`polar-guard: \`${toolName}\` was not run: no decision was made for this call; its id \`${toolCallId}\` belongs to another call`);
    this.name = "GuardBindingError";
    this.toolCallId = toolCallId;
  }
}

export function createAiSdkGuard(guard: Guard, options: AdapterOptions = {}): AiSdkGuard {
  const session = createSession(guard, options);
  /** Keeps `value` under `key`, forgetting the oldest entry beyond MAX_OPEN. */
  const bounded = <V>(map: Map<string, V>, key: string, value: V): V => {
    map.delete(key);
    if (map.size >= MAX_OPEN) map.delete(map.keys().next().value as string);
    map.set(key, value);
    return value;
  };
  /** Decisions by tool call id and call: a hook takes the one made for exactly its call. */
  const open = new OpenDecisions((d) => session.release(d));

  /** The approval a consent decision came from. */
  const approvalOf = new WeakMap<Decision, string>();
  /** Approvals whose call has run (or failed): spent, they answer nothing again. Never forgotten: a
   * bound would make an old approval, still in the messages, count again (one id per answer a user
   * gave is small). */
  const spent = new Set<string>();

  /**
   * The approval that answers the guard's question about this very call, if the messages hold one: an
   * approval given to the request raised for this tool call id with this tool and input, not yet spent.
   * A provider or model that reuses a tool call id (`call_0`) for a later call, or repeats the same call
   * under the same id, does not inherit the earlier call's approval.
   */
  function validApproval(toolName: string, input: unknown, toolCallId: string, messages: readonly ModelMessage[]): ApprovalAnswer | undefined {
    const answer = approvalAnswer(messages, toolCallId);
    if (answer === undefined || !answer.approved || spent.has(answer.approvalId)) return undefined;
    return isCall(answer.call, toolName, input) ? answer : undefined;
  }

  /** The call ran (or failed): the approval that let it run, if any, is spent. */
  function spend(d: Decision): void {
    const approvalId = approvalOf.get(d);
    if (approvalId !== undefined) spent.add(approvalId);
  }

  /** Tools without `execute` (the application runs them itself) and their approved calls not yet seen
   * to run, by tool call id. */
  const clientTools = new Set<string>();
  const clientCalls = new Map<string, Decision[]>();

  /**
   * The results the application gave for approved calls of its own tools, as `tool-result` parts of
   * the messages the SDK passes on: each is observed once (a result), observed as failed (an error
   * output) or released (denied), so the call does not stay pending in every later forward sequence.
   */
  function settle(messages: readonly ModelMessage[]): void {
    if (clientCalls.size === 0) return;
    for (const p of parts(messages)) {
      if (p.type !== "tool-result" || typeof p.toolCallId !== "string") continue;
      const list = clientCalls.get(p.toolCallId);
      if (list === undefined) continue;
      // The result's own call when it carries its input; otherwise the one call of that tool under the
      // id. Two different calls under one id with a result that does not say which: neither is known
      // to be what ran, so both are of unknown outcome (fail closed).
      const named = "input" in p ? judgedCall(String(p.toolName), p.input) : null;
      const mine = list.filter((d) => (named !== null ? sameCall(d.call, named) : (d.call as { name?: unknown }).name === p.toolName));
      if (mine.length === 0) continue;
      // One result settles one call: the oldest of those it can be. When they are different calls
      // (the result does not say which ran), none is known to be the one: all are of unknown outcome.
      const ambiguous = !mine.every((d) => sameCall(d.call, mine[0].call));
      const settled = ambiguous ? mine : [mine[0]];
      const rest = list.filter((d) => !settled.includes(d));
      if (rest.length === 0) clientCalls.delete(p.toolCallId);
      else clientCalls.set(p.toolCallId, rest);
      const output = (p.output ?? {}) as { type?: unknown; value?: unknown };
      for (const d of settled) {
        spend(d);
        if (ambiguous) session.failed(d, undefined);
        else if (output.type === "execution-denied") session.release(d);
        else if (output.type === "error-text" || output.type === "error-json") session.failed(d, undefined);
        else session.ran(d, output.value);
      }
    }
  }

  /** Approval requests the user answered no, each recorded once (never forgotten, as `spent`). */
  const answeredNo = new Set<string>();

  /** The user's "no" to one of the guard's questions: recorded, and it binds the call (core). */
  function declineOf(toolCallId: string, call: ReturnType<typeof judgedOf>, approvalId: string, context?: CallContext): void {
    if (call === null || answeredNo.has(approvalId)) return;
    const asked = open.find(toolCallId, call);
    // Only an answer to the guard's own question is the user's no (a veto the adapter denied is not).
    if (asked === undefined || asked.route !== "ConsentEscalated" || session.isDeclined(asked)) return;
    answeredNo.add(approvalId);
    open.put(toolCallId, session.declined(call, context, asked), asked);
  }

  /** The denials in the messages of approval requests the guard raised as questions. */
  function declines(messages: readonly ModelMessage[], context: CallContext): void {
    const calls = new Map<string, { toolName: unknown; input: unknown }>();
    const requests = new Map<string, { toolCallId: string; call: ReturnType<typeof judgedOf> }>();
    /** The last answer to each request (as for an approval, the last answer counts). */
    const last = new Map<string, boolean>();
    for (const p of parts(messages)) {
      if (p.type === "tool-call" && typeof p.toolCallId === "string") calls.set(p.toolCallId, { toolName: p.toolName, input: p.input });
      const req = requestOf(p, calls);
      if (req !== null) requests.set(req.approvalId, { toolCallId: req.toolCallId, call: judgedOf(req.call) });
      if (p.type === "tool-approval-response" && typeof p.approvalId === "string" && requests.has(p.approvalId)) last.set(p.approvalId, p.approved === true);
    }
    for (const [approvalId, approved] of last) {
      const r = requests.get(approvalId)!;
      if (!approved) declineOf(r.toolCallId, r.call, approvalId, context);
    }
  }

  /** The one place a call is decided: a first check, or the consent the application's approval gives. */
  function status(toolName: string, input: unknown, toolCallId: string, messages: ModelMessage[]): ApprovalStatus {
    settle(messages);
    const context: CallContext = { userMessages: userMessages(messages), turn: messages };
    declines(messages, context);
    const answer = validApproval(toolName, input, toolCallId, messages);
    const call = judgedCall(toolName, input);
    let d: Decision;
    if (answer !== undefined) {
      // The SDK re-asks after an approval: the approval answers the guard's question about this call
      // (asked again, the same approval gives the same decision until the call has run).
      const asked = open.find(toolCallId, call) ?? session.decide(call, context);
      d = open.put(toolCallId, session.consent(asked, context), asked);
      if (d.route === "ConsentApproved") approvalOf.set(d, answer.approvalId);
    } else {
      d = open.put(toolCallId, session.decide(call, context));
    }
    if (session.mayRun(d) && clientTools.has(toolName) && d.execution !== null) bounded(clientCalls, toolCallId, [...(clientCalls.get(toolCallId) ?? []), d]);
    if (session.mayRun(d)) return { type: "run", decision: d };
    if (d.route === "ConsentEscalated" && !session.isDeclined(d)) return { type: "ask", question: session.refusal(d), decision: d };
    return { type: "denied", reason: session.refusal(d), decision: d };
  }

  function guardTool(name: string, original: Tool): Tool {
    const execute = original.execute;
    const wrapped: Tool = {
      ...original,
      needsApproval: (input: unknown, o: { toolCallId: string; messages: ModelMessage[] }) => {
        const s = status(name, input, o.toolCallId, o.messages);
        // After an approval the request must stay approved for `execute` to be reached; execute then
        // runs the tool only if the guard's consent decision approved it.
        return s.type !== "run" || validApproval(name, input, o.toolCallId, o.messages) !== undefined;
      },
    };
    if (typeof execute !== "function") clientTools.add(name);
    else {
      // Not async: the SDK reads a streaming tool's AsyncIterable from what execute returns at once (a
      // promise of one would be taken as the final output). A refusal is a rejected promise.
      wrapped.execute = ((input: unknown, o: ToolExecutionOptions): unknown => {
        const call = judgedCall(name, input);
        // Only the decision made for this tool with these arguments lets it run: another call of the
        // step may carry the same id (an approved cancel of A and a read of B both `call_0`).
        let d = open.find(o.toolCallId, call);
        if (d === undefined && open.all(o.toolCallId).length > 0) {
          // The id holds decisions for other calls only: which call this is cannot be told. Refused.
          return Promise.reject(new GuardBindingError(name, o.toolCallId));
        }
        // A call that reached execute without needsApproval (never expected): decide it now.
        if (d === undefined) d = status(name, input, o.toolCallId, o.messages).decision;
        if (!session.mayRun(d)) return Promise.reject(new GuardRefusalError(d, session.refusal(d)));
        open.delete(o.toolCallId, d);
        spend(d);
        const decision = d;
        let result: unknown;
        try {
          result = execute(judgedArguments(decision), o);
        } catch (e) {
          session.failed(decision, e);
          return Promise.reject(e);
        }
        if (isAsyncIterable(result)) return observeStream(result, decision);
        return (async () => {
          let value: unknown;
          try {
            value = await result;
          } catch (e) {
            session.failed(decision, e);
            throw e;
          }
          session.ran(decision, value);
          return value;
        })();
      }) as Tool["execute"];
    }
    return wrapped;
  }

  /** A streaming tool: its last yielded value is its result (as the SDK takes it). */
  async function* observeStream(stream: AsyncIterable<unknown>, decision: Decision): AsyncIterable<unknown> {
    let last: unknown;
    try {
      for await (const v of stream) {
        last = v;
        yield v;
      }
    } catch (e) {
      session.failed(decision, e);
      throw e;
    }
    session.ran(decision, last);
  }

  function approvals(list: readonly unknown[]): PendingApprovals {
    const flat: Part[] = [];
    for (const x of list) {
      if (typeof x !== "object" || x === null) continue;
      if ((x as Part).type === "tool-approval-request") flat.push(x as Part);
      else flat.push(...parts([x]));
    }
    const out: PendingApprovals = { denied: [], questions: [] };
    const calls = new Map<string, { toolName: unknown; input: unknown }>();
    for (const p of flat) {
      if (p.type === "tool-call" && typeof p.toolCallId === "string") calls.set(p.toolCallId, { toolName: p.toolName, input: p.input });
      const req = requestOf(p, calls);
      if (req === null) continue;
      const held = open.all(req.toolCallId);
      if (held.length === 0) continue; // not a call this adapter decided: the application's own request
      const call = judgedOf(req.call);
      // The request's call when the parts name it; else the id's only decision. An id shared by other
      // calls with a request that does not say which: denied (fail closed).
      const d = call !== null ? open.find(req.toolCallId, call) : held.length === 1 ? held[0] : undefined;
      const { call: _asked, ...named } = req;
      if (d === undefined) {
        out.denied.push({ type: "tool-approval-response", approvalId: req.approvalId, approved: false, reason: `polar-guard: \`${req.toolName}\` was not run: no decision was made for this call; its id \`${req.toolCallId}\` belongs to another call` });
      } else if (d.route === "ConsentEscalated" && !session.isDeclined(d)) {
        const asked = d;
        out.questions.push({
          ...named,
          question: session.refusal(d),
          answer: (approved) => {
            if (!approved) declineOf(req.toolCallId, asked.call as ReturnType<typeof judgedOf>, req.approvalId);
            return { type: "tool-approval-response", approvalId: req.approvalId, approved, ...(approved ? {} : { reason: declinedMessage(asked.call) }) };
          },
        });
      } else if (!session.mayRun(d)) {
        open.delete(req.toolCallId, d);
        out.denied.push({ type: "tool-approval-response", approvalId: req.approvalId, approved: false, reason: session.refusal(d) });
      }
    }
    return out;
  }

  return {
    tools<T extends ToolSet>(tools: T): T {
      const out: Record<string, Tool> = {};
      for (const name of Object.keys(tools)) {
        const t = ownEntry(tools as Record<string, Tool>, name);
        if (t !== undefined) Object.defineProperty(out, name, { value: guardTool(name, t), enumerable: true, writable: true, configurable: true });
      }
      return out as T;
    },
    async toolApproval(request) {
      const s = status(request.toolCall.toolName, request.toolCall.input, request.toolCall.toolCallId, request.messages);
      if (s.type === "run") return { type: "approved" };
      if (s.type === "ask") return { type: "user-approval", reason: s.question };
      return { type: "denied", reason: s.reason };
    },
    approvals,
    async respond(list, ask) {
      const pending = approvals(list);
      const content: ToolApprovalResponse[] = [...pending.denied];
      for (const q of pending.questions) content.push(q.answer((await ask(q)) === true));
      return content.length === 0 ? null : { role: "tool", content };
    },
    decision: (id) => open.latest(id),
  };
}
