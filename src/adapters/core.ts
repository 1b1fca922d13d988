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

/** How deep two calls' arguments are compared; deeper (or cyclic) arguments match nothing. */
const MAX_DEPTH = 64;

/**
 * Whether two calls are the same call: the same tool and the same arguments as JSON values (object
 * key order aside; a decision's `call`, a JudgedCall). An adapter reuses a decision, a question or an
 * approval only for the call it was made for: models and providers reuse tool call ids (`call_0`) for
 * other calls. Arguments that are not plain JSON (non-finite numbers, holes, class instances, cycles)
 * match nothing, not even themselves. Written here: an adapter uses the package's types, not its code.
 */
export function sameCall(a: unknown, b: unknown): boolean {
  const x = a as { name?: unknown; arguments?: unknown } | null;
  const y = b as { name?: unknown; arguments?: unknown } | null;
  return typeof x?.name === "string" && x.name === y?.name && sameJson(x.arguments, y.arguments, 0);
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function sameJson(a: unknown, b: unknown, depth: number): boolean {
  if (typeof a === "number") return Number.isFinite(a) && a === b;
  if (a === null || typeof a === "boolean" || typeof a === "string") return a === b;
  if (typeof a !== "object" || typeof b !== "object" || b === null || depth >= MAX_DEPTH) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    // A hole reads as undefined, which is not JSON.
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  // An array is not a plain object.
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
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
