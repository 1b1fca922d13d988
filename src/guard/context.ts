// A check's context (the caller's conversation and earlier calls) read once into plain data of the
// guard's own: only the tails the guard reads (consent, the conversation, turn calls), through indexes
// (no iterator, no species of the caller's arrays). A context that throws or has a wrong shape is
// data too: `error`, and the decision fails closed on it.
import { MAX_CALLS } from "../abi.js";
import { CONSENT_WINDOW } from "../policies/consent.js";
import { describeError } from "./errors.js";
import type { ConversationMessage } from "./types.js";

/** A caller's array read without calling anything of it but indexes (no species, no iterator): the
 * last `max` entries, or an error for a value that is not an array. */
function tail(value: unknown, max: number, what: string): { items: unknown[]; start: number; length: number } {
  if (!Array.isArray(value)) throw new Error(`\`context.${what}\` is not an array`);
  const length = (value as unknown[]).length;
  const start = Math.max(0, length - max);
  const items: unknown[] = [];
  for (let i = start; i < length; i++) items.push((value as unknown[])[i]);
  return { items, start, length };
}

/** How far back consent and conversation reads go: a hostile million-entry array costs no more. */
const MAX_SCAN = 1000;

/** The context as plain data, read once; a context that throws or has a wrong shape is an error
 * (the decision fails closed). */
export interface ContextData {
  /** The last CONSENT_WINDOW string user messages, oldest first, and their index among all. */
  users: string[];
  userIndex: number[];
  /** The number of user messages in the conversation. */
  userCount: number;
  /** The tail of `context.messages` (role, content), oldest first; null when not given. */
  conversation: ConversationMessage[] | null;
  turnCalls: unknown[] | null;
  error: string | null;
}

export const NO_CONTEXT: ContextData = Object.freeze({ users: [], userIndex: [], userCount: 0, conversation: null, turnCalls: null, error: null }) as ContextData;

export function readContext(context: unknown): ContextData {
  if (context === undefined || context === null) return NO_CONTEXT;
  const out: ContextData = { users: [], userIndex: [], userCount: 0, conversation: null, turnCalls: null, error: null };
  try {
    if (typeof context !== "object") throw new Error("the context is not an object");
    const c = context as Record<string, unknown>;
    const userMessages = c.userMessages;
    const messages = c.messages;
    const turnCalls = c.turnCalls;
    if (userMessages !== undefined) {
      const t = tail(userMessages, MAX_SCAN, "userMessages");
      out.userCount = t.length;
      for (let i = t.items.length - 1; i >= 0 && out.users.length < CONSENT_WINDOW; i--) {
        const m = t.items[i];
        if (typeof m === "string") {
          out.users.unshift(m);
          out.userIndex.unshift(t.start + i);
        }
      }
    }
    if (messages !== undefined) {
      const t = tail(messages, MAX_SCAN, "messages");
      const conv: ConversationMessage[] = [];
      for (const m of t.items) {
        if (typeof m !== "object" || m === null) throw new Error("an entry of `context.messages` is not an object");
        const role = (m as Record<string, unknown>).role;
        const content = (m as Record<string, unknown>).content;
        if (typeof role !== "string") throw new Error("an entry of `context.messages` has no string `role`");
        conv.push({ role, content: typeof content === "string" ? content : "" });
      }
      out.conversation = conv;
    }
    if (turnCalls !== undefined) out.turnCalls = tail(turnCalls, MAX_CALLS + 1, "turnCalls").items;
  } catch (e) {
    return { ...NO_CONTEXT, error: `context: ${describeError(e)}` };
  }
  return out;
}
