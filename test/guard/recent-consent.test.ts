// The `recent-messages` consent mode (src/guard/recent-consent.ts): which words name a call in an
// assistant's message, and which of the user's messages the consent detector reads. With a scripted
// detector, so what is stated is the choice of messages, not a detector's reading of them. Through the
// guard: test/guard/consent-book.test.ts, consent-context.test.ts, guard.test.ts; on the runs table:
// test/policies/consent-runs.test.ts.
import { describe, expect, it } from "vitest";
import { CONSENT_WINDOW, type ConsentContext, type ConsentDetector } from "../../src/policies/consent.js";
import { consentNames, namesToken, recentConsentMessages, type ConsentTurn } from "../../src/guard/recent-consent.js";

describe("a word named in a text", () => {
  it("is a whole token: letters, digits and `_` (any script) continue a token; anything else ends it", () => {
    expect(namesToken("shall i cancel it?", "cancel")).toBe(true);
    expect(namesToken("cancel it?", "cancel")).toBe(true);
    expect(namesToken("shall i cancel", "cancel")).toBe(true);
    expect(namesToken("cancel", "cancel")).toBe(true);
    expect(namesToken("(cancel)", "cancel")).toBe(true);
    for (const text of ["a cancellation", "precancel", "cancel_x", "cancel2", "2cancel", "écancel", "cancelé", "cancel٣"]) expect(namesToken(text, "cancel")).toBe(false);
  });

  it("any occurrence counts, not only the first", () => {
    expect(namesToken("the cancellation fee: cancel anyway?", "cancel")).toBe(true);
    expect(namesToken("cancelled, precancel, cancel", "cancel")).toBe(true);
    expect(namesToken("cancelled, precancel", "cancel")).toBe(false);
  });

  it("a word of several tokens is named as a whole; an empty word is never named", () => {
    expect(namesToken("shall i turn on roaming?", "turn on")).toBe(true);
    expect(namesToken("return one?", "turn on")).toBe(false);
    for (const text of ["", "shall i?", "yes."]) expect(namesToken(text, "")).toBe(false);
  });
});

describe("the words that name a call", () => {
  const CHANGE = ["update", "updating", "updated", "change", "changing", "changes", "modify", "modifying", "modification", "upgrade", "upgrading", "downgrade", "downgrading", "add", "adding", "remove", "removing", "switch", "swap", "replace"];

  it.each([
    ["book_reservation", ["book", "books", "booked", "booking"]],
    ["cancel_reservation", ["cancel", "cancels", "cancelled", "canceled", "cancelling", "canceling", "cancellation"]],
    ["update_reservation_flights", CHANGE],
    ["modify_pending_order_items", CHANGE],
    ["exchange_delivered_order_items", ["exchange", "exchanging", "exchanged", "swap", "switch", "replace"]],
    ["return_delivered_order_items", ["return", "returning", "returned", "refund"]],
    ["send_certificate", ["send", "sending", "issue", "issuing"]],
    ["refuel_data", ["refuel", "refueling", "refuelling", "add", "adding"]],
    ["resume_line", ["resume", "resuming", "reactivate", "restore"]],
    ["suspend_line", ["suspend", "suspending"]],
    ["enable_roaming", ["enable", "enabling", "turn on"]],
    ["disable_roaming", ["disable", "disabling", "turn off"]],
    ["toggle_airplane_mode", ["toggle", "turn on", "turn off"]],
  ])("%s: its name, with spaces, and the words for its action", (name, words) => {
    expect(consentNames(name, {})).toEqual([name, name.replaceAll("_", " "), ...words]);
  });

  it("a tool whose first word has no forms: that word; the name in lower case", () => {
    expect(consentNames("Transfer_To_Human", {})).toEqual(["transfer_to_human", "transfer to human", "transfer"]);
    expect(consentNames("think", {})).toEqual(["think"]);
  });

  it("a first word that is a property of every object is a word like any other (not Object's own)", () => {
    expect(consentNames("constructor_site", {})).toEqual(["constructor_site", "constructor site", "constructor"]);
    expect(consentNames("toString_x", {})).toEqual(["tostring_x", "tostring x", "tostring"]);
  });

  it("the id the call acts on (a non-blank string or a number), in lower case", () => {
    expect(consentNames("think", {}, "ABC12")).toEqual(["think", "abc12"]);
    expect(consentNames("think", {}, 7)).toEqual(["think", "7"]);
    for (const key of ["", "   ", null, undefined]) expect(consentNames("think", {}, key)).toEqual(["think"]);
  });

  it("argument values that can name a call: strings of 4 characters or more (trimmed, lower case), integers of 3 digits or more", () => {
    const args = { id: "  ZQ5X9 ", short: " abc ", padded: "  ab  ", flight: 100, small: 99, neg: -250, frac: 150.5, yes: true, none: null, gone: undefined };
    expect(consentNames("think", args)).toEqual(["think", "zq5x9", "100", "-250"]);
  });

  it("inside arrays and objects, four levels deep; each once", () => {
    const args = { flights: [{ flight_number: "HAT170", date: "2024-05-01" }, { flight_number: "HAT170" }], a: { b: { c: { deep: "four", d: { e: "five" } } } } };
    expect(consentNames("think", args)).toEqual(["think", "hat170", "2024-05-01", "four"]);
  });

  it("at most 64 names in all", () => {
    const values = Array.from({ length: 100 }, (_, i) => `value-${i}`);
    const names = consentNames("do_it", { values });
    expect(names).toHaveLength(64);
    expect(names.slice(0, 4)).toEqual(["do_it", "do it", "do", "value-0"]);
    expect(names.at(-1)).toBe("value-60");
  });
});

/** Yes when the message starts with "yes", a no with "no", a throw with "boom", else nothing. */
function scripted(): ConsentDetector & { seen: { messages: readonly string[]; context: ConsentContext | null | undefined }[] } {
  const seen: { messages: readonly string[]; context: ConsentContext | null | undefined }[] = [];
  return {
    id: "scripted",
    seen,
    detect(messages, context) {
      seen.push({ messages, context });
      const m = messages[0] ?? "";
      if (m.startsWith("boom")) throw new Error("the detector failed");
      if (m.startsWith("yes")) return { consent: true, message: 0, evidence: "yes" };
      if (m.startsWith("no")) return { consent: false, message: 0, evidence: "no" };
      return { consent: false, message: -1, evidence: null };
    },
  };
}

const NAMES = consentNames("cancel_reservation", { reservation_id: "ZQ5X9" });
const ASK = "Shall I CANCEL reservation ZQ5X9?";
const turn = (role: string, content: string): ConsentTurn => ({ role, content });

describe("the user messages the detector reads", () => {
  it("the latest answers a question naming the call and says yes or no: it alone, with what it answers", () => {
    for (const answer of ["yes please", "no, wait", "boom"]) {
      const d = scripted();
      const r = recentConsentMessages([turn("user", "yes, cancel my trip"), turn("assistant", ASK), turn("user", answer)], NAMES, d);
      expect(r).toEqual({ messages: [answer], context: { question: ASK, names: NAMES } });
      expect(d.seen[0]).toEqual({ messages: [answer], context: { question: ASK, names: NAMES } });
    }
  });

  it("the latest answers a question naming the call but says neither: the last messages, a yes only where it answers such a question", () => {
    const d = scripted();
    const conversation = [
      turn("assistant", "Anything else?"),
      turn("user", "yes, one more thing"),
      turn("assistant", ASK),
      turn("user", "yes do it"),
      turn("user", "hmm, and the refund?"),
    ];
    expect(recentConsentMessages(conversation, NAMES, d)).toEqual({ messages: ["yes do it", "hmm, and the refund?"], context: null });
  });

  it("the latest answers nothing naming the call: a yes to another question does not count, a no or anything else is read", () => {
    const conversation = [
      turn("assistant", ASK),
      turn("user", "no, not yet"),
      turn("assistant", "Would you like a receipt?"),
      turn("user", "yes"),
      turn("user", "boom"),
      turn("user", "and my seat?"),
    ];
    expect(recentConsentMessages(conversation, NAMES, scripted())).toEqual({ messages: ["boom", "and my seat?"], context: null });
    expect(recentConsentMessages(conversation.slice(0, 4), NAMES, scripted())).toEqual({ messages: ["no, not yet"], context: null });
  });

  it(`only the last ${CONSENT_WINDOW} user messages; blank ones and other roles are not messages`, () => {
    const conversation = [
      turn("assistant", ASK),
      turn("user", "first"),
      turn("user", "second"),
      turn("system", "third?"),
      turn("tool", "yes (a tool result)"),
      turn("user", "third"),
      turn("user", "   "),
      turn("user", "fourth"),
      turn("user", ""),
    ];
    expect(CONSENT_WINDOW).toBe(3);
    expect(recentConsentMessages(conversation, NAMES, scripted())).toEqual({ messages: ["second", "third", "fourth"], context: null });
  });

  it("what a user message answers is the assistant message before it (the latest one), none before the first", () => {
    const conversation = [turn("user", "yes"), turn("assistant", ASK), turn("assistant", "Your booking is ZQ5X9 — anything else?"), turn("user", "yes")];
    const d = scripted();
    expect(recentConsentMessages(conversation, NAMES, d)).toEqual({ messages: ["yes"], context: { question: "Your booking is ZQ5X9 — anything else?", names: NAMES } });
    expect(recentConsentMessages(conversation.slice(0, 1), NAMES, scripted())).toEqual({ messages: [], context: null });
  });

  it("a question names the call by any one of its names, in any case, as a whole token", () => {
    for (const [question, named] of [["CANCELLATION of zq5x9?", true], ["Shall I proceed?", false], ["Cancellations are free. OK?", false], ["proceed with the cancellation?", true]] as const) {
      const r = recentConsentMessages([turn("assistant", question), turn("user", "yes")], NAMES, scripted());
      expect(r).toEqual(named ? { messages: ["yes"], context: { question, names: NAMES } } : { messages: [], context: null });
    }
  });

  it("no user message: nothing to read", () => {
    expect(recentConsentMessages([], NAMES, scripted())).toEqual({ messages: [], context: null });
    expect(recentConsentMessages([turn("assistant", ASK)], NAMES, scripted())).toEqual({ messages: [], context: null });
  });
});
