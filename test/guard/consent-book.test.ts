// src/guard/consent-book.ts on its own: which user messages a check's policy may read as consent. In
// question mode only messages after the guard's question about this exact call; the book keeps its
// questions (bounded, oldest forgotten first), closes one on an answer, and exports/restores them.
import { describe, expect, it } from "vitest";
import { ConsentBook, LazyCall, NO_CONSENT_INPUT } from "../../src/guard/consent-book.js";
import { readContext } from "../../src/guard/context.js";
import { Engine } from "../../src/guard/engine.js";
import { callKey } from "../../src/guard/call.js";
import { MAX_QUESTIONS } from "../../src/guard/types.js";
import { defaultConsentDetector } from "../../src/policies/consent.js";
import { sha256Hex } from "../../src/util/sha256.js";
import { airline } from "./helpers.js";

const engine = new Engine(airline.tables, airline.blob, undefined);
const cancel = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };
const book = (mode: "question" | "recent-messages" = "question") => new ConsentBook(mode, defaultConsentDetector, engine);
const users = (...m: string[]) => readContext({ userMessages: m });

describe("LazyCall", () => {
  it("shapes the call once and hashes its canonical JSON", () => {
    const lazy = new LazyCall({ arguments: { reservation_id: "R1" }, name: "cancel_reservation" });
    expect(lazy.shape()).toEqual(cancel);
    expect(lazy.shape()).toBe(lazy.shape());
    expect(lazy.hash()).toBe(sha256Hex(callKey(cancel)));
    expect(new LazyCall({ name: "" }).shape()).toBeNull();
  });
});

describe("question mode", () => {
  it("reads nothing while no question is open, or for a call of another shape", () => {
    const b = book();
    expect(b.messages(users("yes"), new LazyCall(cancel))).toBe(NO_CONSENT_INPUT);
    b.ask(new LazyCall(cancel).hash(), 0);
    expect(b.messages(users("yes"), new LazyCall({ name: 3 }))).toBe(NO_CONSENT_INPUT);
    expect(b.messages(users("yes"), new LazyCall({ ...cancel, arguments: { reservation_id: "R2" } }))).toBe(NO_CONSENT_INPUT);
  });

  it("reads only the user messages after the question about this exact call", () => {
    const b = book();
    const lazy = new LazyCall(cancel);
    b.ask(lazy.hash(), 2);
    expect(b.messages(users("cancel it", "hmm", "yes", "go ahead"), lazy)).toEqual({ messages: ["yes", "go ahead"], context: null });
    expect(b.messages(users("cancel it", "hmm"), lazy)).toEqual({ messages: [], context: null });
  });

  it("an answer closes the question; asking again moves it to the newest and keeps the later count", () => {
    const b = book();
    const h1 = new LazyCall(cancel).hash();
    const h2 = new LazyCall({ ...cancel, arguments: { reservation_id: "R2" } }).hash();
    b.ask(h1, 1);
    b.ask(h2, 2);
    b.ask(h1, 5);
    expect(b.list()).toEqual([{ hash: h2, asked: 2 }, { hash: h1, asked: 5 }]);
    b.answered(h2);
    expect(b.list()).toEqual([{ hash: h1, asked: 5 }]);
    b.answered("unknown");
    expect(b.list()).toHaveLength(1);
  });

  it(`keeps at most ${MAX_QUESTIONS} questions, forgetting the oldest`, () => {
    const b = book();
    for (let i = 0; i <= MAX_QUESTIONS; i++) b.ask(i.toString(16).padStart(64, "0"), i);
    const list = b.list();
    expect(list).toHaveLength(MAX_QUESTIONS);
    expect(list[0].asked).toBe(1);
    expect(list.at(-1)!.asked).toBe(MAX_QUESTIONS);
  });

  it("restore takes a snapshot's questions in their order; list is a copy", () => {
    const b = book();
    b.restore([{ hash: "b".repeat(64), asked: 3 }, { hash: "a".repeat(64), asked: 1 }]);
    const list = b.list();
    expect(list).toEqual([{ hash: "b".repeat(64), asked: 3 }, { hash: "a".repeat(64), asked: 1 }]);
    list.pop();
    expect(b.list()).toHaveLength(2);
  });
});

describe("recent-messages mode", () => {
  it("reads the conversation: the answer to a question naming the call decides alone, with its context", () => {
    const b = book("recent-messages");
    const ctx = readContext({ messages: [
      { role: "user", content: "no thanks" },
      { role: "assistant", content: "Shall I cancel reservation R1?" },
      { role: "user", content: "yes" },
    ] });
    const out = b.messages(ctx, new LazyCall(cancel));
    expect(out.messages).toEqual(["yes"]);
    expect(out.context?.question).toBe("Shall I cancel reservation R1?");
    expect(out.context?.names).toContain("r1");
    expect(b.list()).toEqual([]);
  });

  it("without a conversation the user messages stand in; a call without a shape reads nothing", () => {
    const b = book("recent-messages");
    expect(b.messages(users("no"), new LazyCall(cancel)).messages).toEqual(["no"]);
    expect(b.messages(users("yes"), new LazyCall(null))).toBe(NO_CONSENT_INPUT);
  });
});
