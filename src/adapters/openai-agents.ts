// polar-guard/openai-agents: the guard in front of OpenAI Agents SDK function tools (@openai/agents 0.14).
// The runner asks a tool's `needsApproval` first, then its input guardrails right before it invokes
// the tool (on the first pass, and again after a resumed approval). The guard decides once, in
// `needsApproval`: an escalation becomes the SDK's interruption (RunState approve / reject / resume);
// the input guardrail then rejects a vetoed call with the guard's refusal (`rejectContent`), and a
// call whose question the user approved through that interruption gets the guard's consent decision.
// `execute` runs the tool on the arguments the guard judged and observes its real result.
//
// Use: `tool(polar.tool({ name, description, parameters, execute }))` — the options are returned with
// `needsApproval`, one more input guardrail and `execute` wrapped, so no SDK value is imported here.
import type { RunToolApprovalItem, ToolInputParameters, ToolOptions, ToolOutputSchema } from "@openai/agents";
import type { Decision, Guard } from "../index.js";
import { createSession, declinedMessage, judgedArguments, judgedCall, OpenDecisions, sameCall, textMessages, type AdapterOptions, type CallContext } from "./core.js";

export interface AgentsGuardOptions extends AdapterOptions {
  /** The conversation's user messages from the run context (the SDK does not pass them to tools);
   * default: `context.userMessages` when it is an array of strings. */
  userMessages?: (context: unknown) => readonly string[];
}

export interface AgentsGuard {
  /** The tool options with the guard in them; pass the result to the SDK's `tool()`. */
  tool<TParameters extends ToolInputParameters = undefined, Context = unknown, TOutputSchema extends ToolOutputSchema | undefined = undefined>(
    options: ToolOptions<TParameters, Context, TOutputSchema>,
  ): ToolOptions<TParameters, Context, TOutputSchema>;
  /** The guard's question behind an interruption (null if the guard did not ask it). */
  question(item: RunToolApprovalItem): string | null;
  /** The guard's latest decision for a call id (until its tool has run). */
  decision(callId: string): Decision | undefined;
  /**
   * For the runner's `toolErrorFormatter` option (`run(agent, input, { toolErrorFormatter:
   * polar.toolErrorFormatter })`): when the user rejects the guard's question (RunState `reject`), the
   * "no" is recorded and binds the call for the session at once, and the model is told what the other
   * adapters tell it. Without it the rejection is recorded when the run next reaches a guarded tool.
   */
  toolErrorFormatter(args: { kind: string; toolName: string; callId: string; defaultMessage?: string }): string | undefined;
}

/** Calls whose turn is remembered (for the guardrail and execute after needsApproval); the oldest
 * are dropped beyond this. */
const MAX_OPEN = 1024;
const GUARDRAIL = "polar-guard";

type Ctx = { context?: unknown; usage?: { requests?: number }; isToolApproved?(a: { toolName: string; callId: string }): boolean | undefined };

export function createAgentsGuard(guard: Guard, options: AgentsGuardOptions = {}): AgentsGuard {
  const session = createSession(guard, options);
  /** Decisions by call id and call: a hook takes the one made for exactly its call. */
  const open = new OpenDecisions((d) => session.release(d));
  const keep = (id: string | undefined, d: Decision, replaces?: Decision): Decision => (id === undefined ? d : open.put(id, d, replaces));

  // The calls of one model response are one turn. The runner starts every function call of a response
  // at once (their `needsApproval` run in one synchronous stretch), so a turn is the run context's
  // calls until the next microtask; a call keeps the turn it was first seen in (the guardrail and
  // `execute`, also after a resumed interruption). Neither the usage counter (0 with a model that
  // reports none) nor timing decides it.
  const batches = new WeakMap<object, object>();
  const turnOfCall = new Map<string, object>();
  function turnOf(ctx: Ctx | undefined, callId: string | undefined): object | undefined {
    if (typeof ctx !== "object" || ctx === null) return undefined;
    const known = callId === undefined ? undefined : turnOfCall.get(callId);
    if (known !== undefined) return known;
    let turn = batches.get(ctx);
    if (turn === undefined) {
      const fresh = {};
      turn = fresh;
      batches.set(ctx, fresh);
      queueMicrotask(() => {
        if (batches.get(ctx) === fresh) batches.delete(ctx);
      });
    }
    if (callId !== undefined) {
      if (turnOfCall.size >= MAX_OPEN) turnOfCall.delete(turnOfCall.keys().next().value as string);
      turnOfCall.set(callId, turn);
    }
    return turn;
  }

  function contextOf(ctx: Ctx | undefined, callId: string | undefined): CallContext {
    const inner = ctx?.context;
    const given = options.userMessages?.(inner) ?? (inner as { userMessages?: unknown } | undefined)?.userMessages;
    return { userMessages: Array.isArray(given) ? textMessages(given) : [], turn: turnOf(ctx, callId) };
  }

  /** The user rejected the guard's question(s) under this call id (RunState `reject`): recorded and
   * bound. The SDK's approval is per tool and call id, so it answers every question held there. */
  function declineAll(callId: string, toolName: string, ctx: Ctx | undefined): Decision[] {
    const out: Decision[] = [];
    for (const d of open.all(callId)) {
      if (d.route !== "ConsentEscalated" || session.isDeclined(d) || (d.call as { name?: unknown }).name !== toolName) continue;
      out.push(keep(callId, session.declined(d.call as { name: string; arguments: unknown }, ctx === undefined ? undefined : contextOf(ctx, callId), d), d));
    }
    return out;
  }

  /** Questions the run's context now says were rejected (the runner answers those itself, without
   * asking the tool again): their "no" is recorded and bound before any later call is decided. */
  function sweepRejections(ctx: Ctx | undefined): void {
    if (typeof ctx?.isToolApproved !== "function") return;
    for (const [id, d] of [...open.entries()]) {
      if (d.route !== "ConsentEscalated" || session.isDeclined(d)) continue;
      const name = (d.call as { name: string }).name;
      if (ctx.isToolApproved({ toolName: name, callId: id }) === false) declineAll(id, name, ctx);
    }
  }

  /** An approved call that will not run after all: its execution leaves the forward sequence. */
  function release(callId: string, toolCall?: { name?: unknown; arguments?: unknown }): void {
    const call = typeof toolCall?.name === "string" ? judgedCall(toolCall.name, toolCall.arguments) : undefined;
    for (const d of open.all(callId)) {
      if (call !== undefined && !sameCall(d.call, call)) continue;
      open.delete(callId, d);
      session.release(d);
    }
  }

  /**
   * The application's own input guardrail, run before the guard's: when it rejects the call or throws
   * (the runner then stops at it, so neither the guard's guardrail nor `execute` runs), the call the
   * guard approved in `needsApproval` never runs, so it is released instead of staying pending in
   * every later check's forward sequence. (The runner always passes the tool call, and a guardrail's
   * output is an object whose `behavior` may be absent: allow.)
   */
  function releasingOnReject(given: unknown): unknown {
    type Args = { toolCall: { callId: string; name?: unknown; arguments?: unknown } };
    const g = given as { run: (args: Args) => unknown };
    return {
      ...g,
      run: async (args: Args) => {
        let out: unknown;
        try {
          out = await g.run(args);
        } catch (e) {
          release(args.toolCall.callId, args.toolCall);
          throw e;
        }
        const behavior = (out as { behavior?: { type?: unknown } }).behavior?.type;
        if (behavior === "rejectContent" || behavior === "throwException") release(args.toolCall.callId, args.toolCall);
        return out;
      },
    };
  }

  /** The fields of the SDK's tool options the adapter reads or replaces. */
  type Guardable = { name?: string; execute: unknown; inputGuardrails?: unknown[] };

  function wrap<T>(given: T): T {
    const opts = given as unknown as Guardable;
    const name = opts.name;
    if (typeof name !== "string" || name === "") throw new TypeError("polar-guard: a guarded tool needs a `name`");
    const execute = opts.execute as (input: unknown, context?: unknown, details?: { toolCall?: { callId?: string } }) => unknown;

    const needsApproval = async (ctx: Ctx, input: unknown, callId?: string): Promise<boolean> => {
      const context = contextOf(ctx, callId);
      sweepRejections(ctx);
      const d = keep(callId, session.decide(judgedCall(name, input), context));
      // A call the user declined earlier is not asked again: the guardrail refuses it.
      return d.route === "ConsentEscalated" && !session.isDeclined(d);
    };

    const guardrail = {
      name: GUARDRAIL,
      run: async ({ context, toolCall }: { context: Ctx; toolCall: { callId: string; name: string; arguments: string } }) => {
        const call = judgedCall(name, toolCall.arguments);
        const asked = open.find(toolCall.callId, call);
        let d: Decision;
        if (asked === undefined) {
          // needsApproval did not run for this call (an approval recorded for the whole tool short-cuts
          // it), or it ran for another call under this id: decide now, from the call exactly as the
          // model sent it. A blanket approval is not consent to this call.
          d = session.decide(call, contextOf(context, toolCall.callId));
        } else if (asked.route === "ConsentEscalated" && !session.isDeclined(asked) && context.isToolApproved?.({ toolName: toolCall.name, callId: toolCall.callId }) === true) {
          // The run was resumed after the user approved the interruption the guard asked for.
          d = session.consent(asked, contextOf(context, toolCall.callId));
        } else {
          d = asked;
        }
        keep(toolCall.callId, d, asked);
        if (session.mayRun(d)) return { behavior: { type: "allow" as const }, outputInfo: { route: d.route, seq: d.seq } };
        return { behavior: { type: "rejectContent" as const, message: session.refusal(d) }, outputInfo: { route: d.route, reason: d.reason, seq: d.seq } };
      },
    };

    const guardedExecute = async (input: unknown, context?: Ctx, details?: { toolCall?: { callId?: string; arguments?: string } }) => {
      const callId = details?.toolCall?.callId;
      const call = judgedCall(name, details?.toolCall?.arguments ?? input);
      // Only the decision made for this tool with these arguments lets it run (ids are reused).
      let d = callId === undefined ? undefined : open.find(callId, call);
      if (d === undefined && callId !== undefined && open.all(callId).length > 0) {
        throw new Error(`polar-guard: \`${name}\` was not run: no decision was made for this call; its id \`${callId}\` belongs to another call`);
      }
      if (d === undefined) d = session.decide(call, contextOf(context, callId));
      if (!session.mayRun(d)) throw new Error(session.refusal(d));
      if (callId !== undefined) open.delete(callId, d);
      let result: unknown;
      try {
        result = await execute(judgedArguments(d), context, details);
      } catch (e) {
        session.failed(d, e);
        throw e;
      }
      session.ran(d, result);
      return result;
    };

    return {
      ...opts,
      needsApproval,
      inputGuardrails: [...(opts.inputGuardrails ?? []).map(releasingOnReject), guardrail],
      execute: guardedExecute,
    } as unknown as T;
  }

  return {
    tool: wrap,
    question(item) {
      const raw = item.rawItem as { callId?: unknown; name?: unknown; arguments?: unknown };
      if (typeof raw.callId !== "string") return null;
      const d = typeof raw.name === "string" ? open.find(raw.callId, judgedCall(raw.name, raw.arguments)) : open.latest(raw.callId);
      return d?.route === "ConsentEscalated" && !session.isDeclined(d) ? (d.question ?? d.message) : null;
    },
    decision: (id) => open.latest(id),
    toolErrorFormatter(args) {
      if (args?.kind !== "approval_rejected" || typeof args.callId !== "string" || typeof args.toolName !== "string") return undefined;
      const declined = declineAll(args.callId, args.toolName, undefined);
      if (declined.length === 0) {
        // Already recorded (swept), or not the guard's question: the same text when it was the guard's.
        const held = open.all(args.callId).find((d) => session.isDeclined(d) && (d.call as { name?: unknown }).name === args.toolName);
        return held === undefined ? undefined : declinedMessage(held.call);
      }
      return declinedMessage(declined[0].call);
    },
  };
}
