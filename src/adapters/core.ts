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

/**
 * The decisions an adapter holds for calls not yet run or answered, by tool call id, each bound to
 * its call (tool and arguments as JSON values). Models and OpenAI-compatible servers reuse ids: two
 * calls of one step may share `call_0`, so an id holds a list and a hook finds the decision made for
 * exactly the call it is about to run (`find`), never another call's. Bounded: the oldest ids are
 * dropped beyond `maxIds`, the oldest calls of one id beyond `maxPerId`.
 */
export class OpenDecisions {
  private readonly byId = new Map<string, Decision[]>();
  /** `dropped` sees each decision forgotten for the bound (an approved one is released there). */
  constructor(
    private readonly dropped: (d: Decision) => void = () => {},
    private readonly maxIds = 1024,
    private readonly maxPerId = 16,
  ) {}
  /** Keeps `d` under `id`, after the decisions already there (two identical calls under one id are
   * two entries: each run takes its own). `replaces`: the decision `d` answers (a consent), forgotten. */
  put(id: string, d: Decision, replaces?: Decision): Decision {
    const list = (this.byId.get(id) ?? []).filter((x) => x !== replaces && x !== d);
    if (list.length >= this.maxPerId) this.dropped(list.shift()!);
    list.push(d);
    this.byId.delete(id);
    if (this.byId.size >= this.maxIds) {
      const oldest = this.byId.keys().next().value as string;
      for (const x of this.byId.get(oldest) ?? []) this.dropped(x);
      this.byId.delete(oldest);
    }
    this.byId.set(id, list);
    return d;
  }
  /** The oldest decision under `id` made for exactly this call. */
  find(id: string, call: unknown): Decision | undefined {
    return this.byId.get(id)?.find((x) => sameCall(x.call, call));
  }
  /** Decisions under `id` (latest last), a copy. */
  all(id: string): Decision[] {
    return (this.byId.get(id) ?? []).slice();
  }
  /** The latest decision under `id`. */
  latest(id: string): Decision | undefined {
    const list = this.byId.get(id);
    return list === undefined ? undefined : list[list.length - 1];
  }
  /** Forgets `d` (it ran, was answered or released). */
  delete(id: string, d: Decision): void {
    const list = this.byId.get(id);
    if (list === undefined) return;
    const rest = list.filter((x) => x !== d);
    if (rest.length === 0) this.byId.delete(id);
    else this.byId.set(id, rest);
  }
  /** Every decision held, with its id. */
  *entries(): IterableIterator<[string, Decision]> {
    for (const [id, list] of this.byId) for (const d of list) yield [id, d];
  }
}

/** Whether a tool's error says the tool changed nothing (polar-guard's NothingChangedError, or any
 * error with an own `changedNothing: true`); read here by shape, as the adapters import no package code. */
export function changedNothing(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { changedNothing?: unknown }).changedNothing === true;
}

/** The words the model sees for a call that did not run: one text for every adapter. */
export function refusalMessage(d: Decision): string {
  return d.message ?? `polar-guard: \`${d.reason}\``;
}

/** What the model sees for a call the user declined (now or earlier in the session): one text for
 * every adapter, naming the call, so the model does not retry it. */
export function declinedMessage(call: unknown): string {
  const c = call as { name?: unknown; arguments?: unknown } | null;
  const name = typeof c?.name === "string" ? c.name : "(malformed call)";
  const given = c?.arguments;
  let args: string;
  try {
    args = JSON.stringify(given) ?? "";
  } catch {
    args = ""; // not JSON (a cycle, a BigInt): the call is named without its arguments
  }
  if (args.length > 200) args = `${args.slice(0, 199)}…`;
  return `The user declined \`${name}\`${args === "" ? "" : ` with ${args}`}: it was not run and will not be run in this session.`;
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
  /** The tool threw (`error`), or its framework reported an error: released only when the error says
   * the tool changed nothing; any other failure may have written, so what it acts on becomes unknown. */
  failed(decision: Decision, error?: unknown): void;
  /**
   * The user said no to the guard's question about this call (the framework's rejection): the "no" is
   * recorded (a check with the answer as the user's last message, as for an approval) and binds the
   * same call for the rest of the session: a later `decide` of it is refused (`declined(d)` true).
   */
  declined(call: JudgedCall, context?: CallContext, asked?: Decision): Decision;
  /** Whether this decision is refused because the user declined its call earlier in the session. */
  isDeclined(decision: Decision): boolean;
  /** The decision allows the tool to run: approved by the guard and not declined by the user. */
  mayRun(decision: Decision): boolean;
  /** The text the model sees for a decision that may not run (the user's no, the refusal, the question). */
  refusal(decision: Decision): string;
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

/** The user's "no" as the consent step reads it: said after the question, it is a negation. */
export const FRAMEWORK_DECLINE = "No, declined (through the agent framework's approval request for this call).";

/** Calls the user declined, kept for the session; the oldest are dropped beyond this. */
const MAX_DECLINED = 1024;

/** Calls of one turn the guard let run, in order: the forward sequence of the next call of that turn. */
class TurnLedger {
  private readonly turns = new WeakMap<object, Decision[]>();
  private readonly turnOf = new WeakMap<Decision, object>();
  turnCalls(turn: object | undefined): ToolCall[] {
    // A WeakMap answers undefined for a key that is not an object.
    return (this.turns.get(turn as object) ?? []).map(executedCall);
  }
  record(turn: object | undefined, decision: Decision): void {
    if (turn === undefined || !decision.approved || decision.reason === "read_only") return;
    const list = this.turns.get(turn) ?? [];
    list.push(decision);
    this.turns.set(turn, list);
    this.turnOf.set(decision, turn);
  }
  /** The call will not run after all (released): it is no earlier call of its turn. */
  forget(decision: Decision): void {
    const list = this.turns.get(this.turnOf.get(decision) as object);
    if (list === undefined) return;
    const i = list.indexOf(decision);
    if (i >= 0) list.splice(i, 1);
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
  /** Calls the user declined (JudgedCall), and the decisions refused for that reason. */
  const declinedCalls: unknown[] = [];
  const refusedAsDeclined = new WeakSet<Decision>();
  const isBound = (call: unknown): boolean => declinedCalls.some((c) => sameCall(c, call));
  /** A check with the user's "no" said last: recorded as the guard's answer to a declined call. */
  const checkDeclined = (call: unknown, context: CallContext | undefined, before: CheckContext): Decision => {
    // Judged as it was asked (the turn's calls then), unless the framework says which turn it is now.
    const turnCalls = context?.turn !== undefined ? ledger.turnCalls(context.turn) : before.turnCalls;
    const ctx: CheckContext = { ...before, turnCalls, userMessages: [...(before.userMessages ?? []), FRAMEWORK_DECLINE] };
    const d = guard.check(call, ctx);
    refusedAsDeclined.add(d);
    // The guard would let it run now (the state changed since): the user's no still binds it.
    if (d.execution !== null) guard.release(d.execution);
    askedIn.set(d, ctx);
    options.onDecision?.(d);
    return d;
  };
  /** An approved decision whose call the user has declined since (an identical call of the same step
   * asked about after it) does not run either: it is released here, and refused as declined. */
  const mayRun = (d: Decision): boolean => {
    if (!d.approved || refusedAsDeclined.has(d)) return false;
    if (!isBound(d.call)) return true;
    refusedAsDeclined.add(d);
    ledger.forget(d);
    if (d.execution !== null) guard.release(d.execution);
    return false;
  };
  return {
    guard,
    decide(call, context) {
      const ctx = checkContext(ledger, context);
      if (isBound(call)) return checkDeclined(call, context, ctx);
      return seen(guard.check(call, ctx), context, ctx);
    },
    declined(call, context, asked) {
      if (!isBound(call)) {
        if (declinedCalls.length >= MAX_DECLINED) declinedCalls.shift();
        declinedCalls.push(call);
      }
      const before = askedIn.get(asked as Decision) ?? checkContext(ledger, context);
      return checkDeclined(call, context, before);
    },
    isDeclined: (d) => refusedAsDeclined.has(d),
    mayRun,
    refusal(d) {
      // An escalation's message is its question (the guard's own record says so).
      return refusedAsDeclined.has(d) ? declinedMessage(d.call) : refusalMessage(d);
    },
    consent(asked, context) {
      if (asked.route !== "ConsentEscalated" || refusedAsDeclined.has(asked)) return asked;
      const before = askedIn.get(asked) ?? checkContext(ledger, context);
      const ctx: CheckContext = { ...before, turnCalls: ledger.turnCalls(context?.turn), userMessages: [...(before.userMessages ?? []), FRAMEWORK_APPROVAL] };
      return seen(guard.check(asked.call, ctx), context, ctx);
    },
    ran(decision, result) {
      guard.observe(executedCall(decision), result, { execution: execution(decision) });
    },
    failed(decision, error) {
      const x = execution(decision);
      guard.observe(executedCall(decision), undefined, changedNothing(error) ? { failed: true, execution: x } : { outcome: "unknown", execution: x });
    },
    release(decision) {
      ledger.forget(decision);
      const x = execution(decision);
      if (x !== undefined) guard.release(x);
    },
  };
}
