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
}

/** What the guard is told about the conversation for a first check. */
function checkContext(session: TurnLedger, context: CallContext | undefined): CheckContext {
  // The conversation's own messages are not consent evidence by default (a "yes" said before the
  // guard asked would otherwise approve an irreversible call): consent comes only through consent().
  return { userMessages: [], turnCalls: session.turnCalls(context?.turn) };
}

/** The affirmative the guard's consent step reads when the framework approved its question. */
const FRAMEWORK_APPROVAL = "yes";

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
  const seen = (d: Decision, context: CallContext | undefined): Decision => {
    ledger.record(context?.turn, d);
    options.onDecision?.(d);
    return d;
  };
  return {
    guard,
    decide(call, context) {
      return seen(guard.check(call, checkContext(ledger, context)), context);
    },
    consent(asked, context) {
      if (asked.route !== "ConsentEscalated") return asked;
      const ctx = checkContext(ledger, context);
      return seen(guard.check(asked.call, { ...ctx, userMessages: [FRAMEWORK_APPROVAL] }), context);
    },
    ran(decision, result) {
      guard.observe(executedCall(decision), result);
    },
    failed(decision) {
      guard.observe(executedCall(decision), undefined, { failed: true });
    },
  };
}
