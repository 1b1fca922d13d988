// The `recent-messages` consent mode (docs/guard.md, "Consent"): which of the user's messages the consent
// detector reads for one call. Pure: the guard calls it with the conversation and the words that name the
// call; the consent tables' tests call it the same way.
import { CONSENT_WINDOW, type ConsentContext, type ConsentDetector } from "../policies/consent.js";

export interface ConsentTurn {
  role: string;
  content: string;
}

/** A letter, digit or `_`. Built on first use (src/policies/consent.ts, CONTROL). */
let WORD_CHAR: RegExp | null = null;

/** `text` names `word` as a whole token (letters, digits and `_` continue a token). */
export function namesToken(text: string, word: string): boolean {
  if (word.length === 0) return false;
  const isWord = (ch: string | undefined) => ch !== undefined && (WORD_CHAR ??= new RegExp("[\\p{L}\\p{N}_]", "u")).test(ch);
  let at = text.indexOf(word);
  while (at >= 0) {
    if (!isWord(text[at - 1]) && !isWord(text[at + word.length])) return true;
    at = text.indexOf(word, at + 1);
  }
  return false;
}

const CHANGE = [
  "update", "updating", "updated", "change", "changing", "changes", "modify", "modifying", "modification", "upgrade", "upgrading",
  "downgrade", "downgrading", "add", "adding", "remove", "removing", "switch", "swap", "replace",
];
/** The words an assistant uses for a tool's action, by the tool name's first word. */
const VERB_FORMS: Readonly<Record<string, readonly string[]>> = {
  book: ["book", "books", "booked", "booking"],
  cancel: ["cancel", "cancels", "cancelled", "canceled", "cancelling", "canceling", "cancellation"],
  update: CHANGE,
  modify: CHANGE,
  exchange: ["exchange", "exchanging", "exchanged", "swap", "switch", "replace"],
  return: ["return", "returning", "returned", "refund"],
  send: ["send", "sending", "issue", "issuing"],
  refuel: ["refuel", "refueling", "refuelling", "add", "adding"],
  resume: ["resume", "resuming", "reactivate", "restore"],
  suspend: ["suspend", "suspending"],
  enable: ["enable", "enabling", "turn on"],
  disable: ["disable", "disabling", "turn off"],
  toggle: ["toggle", "turn on", "turn off"],
};

/** Argument values that can name a call in a sentence: strings of 4 characters or more, integers of 3
 * digits or more (ids, flight numbers, item ids), at most 64. */
function argumentValues(value: unknown, out: string[], depth = 0): void {
  if (out.length >= 64 || depth > 4) return;
  if (typeof value === "string") {
    if (value.trim().length >= 4) out.push(value.trim().toLowerCase());
  } else if (typeof value === "number") {
    if (Number.isInteger(value) && Math.abs(value) >= 100) out.push(String(value));
  } else if (value !== null && typeof value === "object") {
    // An array's values are its items.
    for (const v of Object.values(value)) argumentValues(v, out, depth + 1);
  }
}

/** What names a call in an assistant message (lower case): the tool name, with spaces, the words for its
 * action (its first word's forms: `cancel_reservation` → cancel, cancellation…), the id it acts on, and its
 * arguments' ids and values. */
export function consentNames(name: string, args: unknown, key?: string | number | null): string[] {
  const lower = name.toLowerCase();
  const first = lower.split("_")[0];
  // Own entries only: a tool named `constructor_…` is not Object's constructor.
  const names = [lower, lower.replaceAll("_", " "), ...(Object.hasOwn(VERB_FORMS, first) ? VERB_FORMS[first] : [first])];
  if ((typeof key === "string" && key.trim() !== "") || typeof key === "number") names.push(String(key).toLowerCase());
  argumentValues(args, names);
  return [...new Set(names)];
}

/**
 * The user messages the detector reads for a call named by `names` (lower case: the tool name, with
 * spaces, the id it acts on). The answer to the latest question decides: when the latest user message
 * answers an assistant message that names this call and says yes or no, it alone is read (an earlier
 * message neither vetoes nor stands in for it). Otherwise the last CONSENT_WINDOW user messages, where a
 * yes counts only when it answers an assistant message that names this call. `context` is what the
 * latest message answers, for the detector (null when the latest message does not decide alone).
 */
export function recentConsentMessages(
  conversation: readonly ConsentTurn[],
  names: readonly string[],
  detector: ConsentDetector,
): { messages: string[]; context: ConsentContext | null } {
  const picked: { text: string; answers: string }[] = [];
  let assistant = "";
  for (const m of conversation) {
    if (m.role === "assistant") assistant = m.content;
    else if (m.role === "user" && m.content.trim() !== "") picked.push({ text: m.content, answers: assistant });
  }
  const says = (text: string, context: ConsentContext | null = null): "yes" | "no" | "none" => {
    try {
      const r = detector.detect([text], context);
      return r.consent === true ? "yes" : r.message === 0 ? "no" : "none";
    } catch {
      return "no"; // a detector that throws on it: do not let this message count as a yes
    }
  };
  const named = (p: { answers: string }) => {
    const asked = p.answers.toLowerCase();
    return names.some((n) => namesToken(asked, n));
  };
  const latest = picked.at(-1);
  if (latest !== undefined && named(latest)) {
    const context: ConsentContext = { question: latest.answers, names: [...names] };
    if (says(latest.text, context) !== "none") return { messages: [latest.text], context };
  }
  const out: string[] = [];
  for (const p of picked.slice(-CONSENT_WINDOW)) if (named(p) || says(p.text) !== "yes") out.push(p.text);
  return { messages: out, context: null };
}
