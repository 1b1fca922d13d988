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
import { createSession, judgedArguments, judgedCall, textMessages, type AdapterOptions, type CallContext } from "./core.js";

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
}

/** Decisions kept for calls not yet run; the oldest are dropped beyond this. */
const MAX_OPEN = 1024;
const GUARDRAIL = "polar-guard";

type Ctx = { context?: unknown; usage?: { requests?: number }; isToolApproved?(a: { toolName: string; callId: string }): boolean | undefined };

export function createAgentsGuard(guard: Guard, options: AgentsGuardOptions = {}): AgentsGuard {
  const session = createSession(guard, options);
  const open = new Map<string, Decision>();
  const keep = (id: string | undefined, d: Decision): Decision => {
    if (id === undefined) return d;
    open.delete(id);
    if (open.size >= MAX_OPEN) open.delete(open.keys().next().value as string);
    open.set(id, d);
    return d;
  };

  // The calls of one model response are one turn: the run counts model requests, so a turn is the
  // run context at one request count.
  const turns = new WeakMap<object, { requests: number; turn: object }>();
  function turnOf(ctx: Ctx | undefined): object | undefined {
    if (typeof ctx !== "object" || ctx === null) return undefined;
    const requests = typeof ctx.usage?.requests === "number" ? ctx.usage.requests : 0;
    let t = turns.get(ctx);
    if (t === undefined || t.requests !== requests) {
      t = { requests, turn: {} };
      turns.set(ctx, t);
    }
    return t.turn;
  }

  function contextOf(ctx: Ctx | undefined): CallContext {
    const inner = ctx?.context;
    const given = options.userMessages?.(inner) ?? (inner as { userMessages?: unknown } | undefined)?.userMessages;
    return { userMessages: Array.isArray(given) ? textMessages(given) : [], turn: turnOf(ctx) };
  }

  /** An approved call that will not run after all: its execution leaves the forward sequence. */
  function release(callId: string): void {
    const d = open.get(callId);
    if (d === undefined) return;
    open.delete(callId);
    session.release(d);
  }

  /**
   * The application's own input guardrail, run before the guard's: when it rejects the call or throws
   * (the runner then stops at it, so neither the guard's guardrail nor `execute` runs), the call the
   * guard approved in `needsApproval` never runs, so it is released instead of staying pending in
   * every later check's forward sequence. (The runner always passes the tool call, and a guardrail's
   * output is an object whose `behavior` may be absent: allow.)
   */
  function releasingOnReject(given: unknown): unknown {
    type Args = { toolCall: { callId: string } };
    const g = given as { run: (args: Args) => unknown };
    return {
      ...g,
      run: async (args: Args) => {
        let out: unknown;
        try {
          out = await g.run(args);
        } catch (e) {
          release(args.toolCall.callId);
          throw e;
        }
        const behavior = (out as { behavior?: { type?: unknown } }).behavior?.type;
        if (behavior === "rejectContent" || behavior === "throwException") release(args.toolCall.callId);
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
      const d = keep(callId, session.decide(judgedCall(name, input), contextOf(ctx)));
      return d.route === "ConsentEscalated";
    };

    const guardrail = {
      name: GUARDRAIL,
      run: async ({ context, toolCall }: { context: Ctx; toolCall: { callId: string; name: string; arguments: string } }) => {
        const asked = open.get(toolCall.callId);
        let d: Decision;
        if (asked === undefined) {
          // needsApproval did not run for this call (an approval recorded for the whole tool short-cuts
          // it): decide now, from the call exactly as the model sent it. A blanket approval is not
          // consent to this call.
          d = session.decide(judgedCall(name, toolCall.arguments), contextOf(context));
        } else if (asked.route === "ConsentEscalated" && context.isToolApproved?.({ toolName: toolCall.name, callId: toolCall.callId }) === true) {
          // The run was resumed after the user approved the interruption the guard asked for.
          d = session.consent(asked, contextOf(context));
        } else {
          d = asked;
        }
        keep(toolCall.callId, d);
        if (d.approved) return { behavior: { type: "allow" as const }, outputInfo: { route: d.route, seq: d.seq } };
        return { behavior: { type: "rejectContent" as const, message: d.message ?? `polar-guard: \`${d.reason}\`` }, outputInfo: { route: d.route, reason: d.reason, seq: d.seq } };
      },
    };

    const guardedExecute = async (input: unknown, context?: Ctx, details?: { toolCall?: { callId?: string; arguments?: string } }) => {
      const callId = details?.toolCall?.callId;
      let d = callId === undefined ? undefined : open.get(callId);
      if (d === undefined) d = session.decide(judgedCall(name, details?.toolCall?.arguments ?? input), contextOf(context));
      if (!d.approved) throw new Error(d.message ?? `polar-guard: \`${d.reason}\``);
      if (callId !== undefined) open.delete(callId);
      let result: unknown;
      try {
        result = await execute(judgedArguments(d), context, details);
      } catch (e) {
        session.failed(d);
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
      const callId = (item.rawItem as { callId?: unknown }).callId;
      const d = typeof callId === "string" ? open.get(callId) : undefined;
      return d?.route === "ConsentEscalated" ? (d.question ?? d.message) : null;
    },
    decision: (id) => open.get(id),
  };
}
