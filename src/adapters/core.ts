// The one seam every framework adapter goes through. An adapter translates its framework's hook into
// these few calls and back; the decision itself is always the guard's (guard.check), and what the
// adapter records is exactly the guard's record. Nothing here decides anything on its own.
import type { CheckContext, Decision, Guard, ToolCall } from "../index.js";

export interface AdapterOptions {
  /** Sees every decision the adapter asked for (logging, metrics, UI). */
  onDecision?: (decision: Decision) => void;
}

/** The conversation a call arrives in, as the adapter found it in its framework. */
export interface CallContext {
  /** The conversation's user messages, oldest first. */
  userMessages?: readonly string[];
  /** The assistant message (or step) the call belongs to: calls sharing it are one turn. */
  turn?: object;
}

/** A call as the guard judges it: the parsed arguments and, when they came as JSON text, that text. */
export interface JudgedCall {
  name: string;
  arguments: unknown;
  /** The arguments exactly as the model sent them (OpenAI's wire format), kept in the record. */
  raw?: string;
}

/**
 * A framework call as the guard sees it. Arguments given as JSON text are parsed once, here; text that
 * is not a JSON object stays a string, which the guard refuses as `malformed_call` (never a default).
 */
export function judgedCall(name: string, args: unknown): JudgedCall {
  if (typeof args !== "string") return { name, arguments: args };
  let parsed: unknown = args;
  try {
    parsed = JSON.parse(args);
  } catch {
    // Not JSON: the guard sees the text itself as the arguments and vetoes the call.
  }
  return { name, arguments: parsed, raw: args };
}

/** A call's tool and arguments as canonical JSON (keys sorted); null when they are not JSON (such a
 * call matches nothing). Written here: an adapter uses only the types of the package, not its code. */
function callText(call: unknown): string | null {
  const c = call as { name?: unknown; arguments?: unknown } | null;
  if (typeof c?.name !== "string") return null;
  const args = canonical(c.arguments, new Set());
  return args === null ? null : `${JSON.stringify(c.name)}:${args}`;
}

function canonical(v: unknown, stack: Set<object>): string | null {
  if (v === null || typeof v === "boolean" || typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return Number.isFinite(v) ? JSON.stringify(v) : null;
  if (typeof v !== "object" || stack.has(v)) return null;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return null;
  stack.add(v);
  const parts: string[] = [];
  const keys = Array.isArray(v) ? null : Object.keys(v).sort();
  for (const k of keys ?? (v as unknown[]).keys()) {
    const item = canonical((v as Record<string | number, unknown>)[k], stack);
    if (item === null) return null;
    parts.push(keys === null ? item : `${JSON.stringify(k)}:${item}`);
  }
  stack.delete(v);
  return keys === null ? `[${parts.join(",")}]` : `{${parts.join(",")}}`;
}

/**
 * Whether two calls are the same call: the same tool and the same arguments (a decision's `call`, a
 * JudgedCall). An adapter reuses a decision, a question or an approval only for the call it was made
 * for: models and providers reuse tool call ids (`call_0`) for other calls.
 */
export function sameCall(a: unknown, b: unknown): boolean {
  const t = callText(a);
  return t !== null && t === callText(b);
}

/** The arguments the tool runs with: a copy of what the guard judged, never the model's object. */
export function judgedArguments(decision: Decision): Record<string, unknown> {
  const call = decision.call as { arguments?: unknown };
  return structuredClone(call.arguments) as Record<string, unknown>;
}

/** The executed call observe() is given: name and arguments as judged (so it matches the check). */
function executedCall(decision: Decision): ToolCall {
  return decision.call as ToolCall;
}

/** Own-property lookup: a tool named `constructor` or `__proto__` is a name, not a prototype member. */
export function ownEntry<T>(map: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

/** User messages as plain strings (anything else dropped). */
export function textMessages(messages: readonly unknown[]): string[] {
  return messages.filter((m): m is string => typeof m === "string");
}

export interface GuardSession {
  readonly guard: Guard;
  /** One decision for a proposed call (one guard.check, one record). */
  decide(call: JudgedCall, context?: CallContext): Decision;
  /**
   * The user answered the guard's own question about this exact call through the framework's approval
   * (approve / resume). Counts only when `asked` is that question (route ConsentEscalated); any other
   * earlier decision is returned as it was: a framework approval never overrides a veto.
   */
  consent(asked: Decision, context?: CallContext): Decision;
  /** The tool ran: feed its real result back (Layer B, the session's forward sequence). */
  ran(decision: Decision, result: unknown): void;
  /** The tool threw: nothing is assumed to have changed. */
  failed(decision: Decision): void;
  /** An approved call that will not run after all: it leaves the forward sequence. */
  release(decision: Decision): void;
}

/** What the guard is told about the conversation for a first check: the user messages as evidence
 * (in the guard's default `question` consent mode none of them can approve a call the guard has not
 * asked about yet) and the calls of the same message it let run. */
function checkContext(ledger: TurnLedger, context: CallContext | undefined): CheckContext {
  return { userMessages: [...(context?.userMessages ?? [])], turnCalls: ledger.turnCalls(context?.turn) };
}

/**
 * The user's answer as the guard's consent step reads it: the framework's approval of the approval
 * request for this call, said as a user message after the question. It is the only message that can
 * answer it (the conversation is passed as it was when the guard asked).
 */
export const FRAMEWORK_APPROVAL = "Yes, approved (through the agent framework's approval request for this call).";

/** Calls of one turn the guard let run, in order: the forward sequence of the next call of that turn. */
class TurnLedger {
  private readonly turns = new WeakMap<object, ToolCall[]>();
  turnCalls(turn: object | undefined): ToolCall[] {
    return turn === undefined ? [] : (this.turns.get(turn) ?? []).slice();
  }
  record(turn: object | undefined, decision: Decision): void {
    if (turn === undefined || !decision.approved || decision.reason === "read_only") return;
    const list = this.turns.get(turn) ?? [];
    list.push(executedCall(decision));
    this.turns.set(turn, list);
  }
}

export function createSession(guard: Guard, options: AdapterOptions = {}): GuardSession {
  const ledger = new TurnLedger();
  /** The conversation each escalated decision was asked in, so its answer is read after exactly it. */
  const askedIn = new WeakMap<Decision, CheckContext>();
  const seen = (d: Decision, context: CallContext | undefined, ctx: CheckContext): Decision => {
    ledger.record(context?.turn, d);
    if (d.route === "ConsentEscalated") askedIn.set(d, ctx);
    options.onDecision?.(d);
    return d;
  };
  const execution = (d: Decision): string | undefined => d.execution ?? undefined;
  return {
    guard,
    decide(call, context) {
      const ctx = checkContext(ledger, context);
      return seen(guard.check(call, ctx), context, ctx);
    },
    consent(asked, context) {
      if (asked.route !== "ConsentEscalated") return asked;
      const before = askedIn.get(asked) ?? checkContext(ledger, context);
      const ctx: CheckContext = { ...before, turnCalls: ledger.turnCalls(context?.turn), userMessages: [...(before.userMessages ?? []), FRAMEWORK_APPROVAL] };
      return seen(guard.check(asked.call, ctx), context, ctx);
    },
    ran(decision, result) {
      guard.observe(executedCall(decision), result, { execution: execution(decision) });
    },
    failed(decision) {
      guard.observe(executedCall(decision), undefined, { failed: true, execution: execution(decision) });
    },
    release(decision) {
      const x = execution(decision);
      if (x !== undefined) guard.release(x);
    },
  };
}
