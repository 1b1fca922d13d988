// src/guard/context.ts on its own: a check's context read once into the guard's own data. Only tails are
// read, through indexes; a wrong shape or a context that throws is `error` (the decision fails closed).
import { describe, expect, it } from "vitest";
import { NO_CONTEXT, readContext } from "../../src/guard/context.js";
import { CONSENT_WINDOW } from "../../src/policies/consent.js";
import { MAX_CALLS } from "../../src/abi.js";

describe("readContext", () => {
  it("no context is the empty context", () => {
    expect(readContext(undefined)).toBe(NO_CONTEXT);
    expect(readContext(null)).toBe(NO_CONTEXT);
    expect(readContext({})).toEqual(NO_CONTEXT);
  });

  it(`keeps the last ${CONSENT_WINDOW} string user messages with their index, and counts all`, () => {
    const c = readContext({ userMessages: ["a", "b", 7, "c", "d", "e"] });
    expect(c.users).toEqual(["c", "d", "e"].slice(-CONSENT_WINDOW));
    expect(c.userIndex).toEqual([3, 4, 5].slice(-CONSENT_WINDOW));
    expect(c.userCount).toBe(6);
    expect(c.error).toBeNull();
  });

  it("copies the conversation's roles and contents (a missing content is empty)", () => {
    const messages = [{ role: "assistant", content: "ok?" }, { role: "user" }];
    const c = readContext({ messages });
    expect(c.conversation).toEqual([{ role: "assistant", content: "ok?" }, { role: "user", content: "" }]);
    expect(c.conversation![0]).not.toBe(messages[0]);
  });

  it(`reads at most the last ${MAX_CALLS + 1} turn calls`, () => {
    const calls = Array.from({ length: MAX_CALLS + 10 }, (_, i) => ({ name: `t${i}`, arguments: {} }));
    const c = readContext({ turnCalls: calls });
    expect(c.turnCalls).toHaveLength(MAX_CALLS + 1);
    expect(c.turnCalls![0]).toBe(calls[9]);
  });

  it.each<[string, unknown, RegExp]>([
    ["a context that is not an object", "hello", /not an object/],
    ["userMessages not an array", { userMessages: "yes" }, /`context.userMessages` is not an array/],
    ["a message that is not an object", { messages: ["hi"] }, /not an object/],
    ["a message without a role", { messages: [{ content: "hi" }] }, /no string `role`/],
    ["turnCalls not an array", { turnCalls: {} }, /`context.turnCalls` is not an array/],
    ["a getter that throws", { get userMessages() { throw new Error("boom"); } }, /boom/],
  ])("%s is an error, with nothing else read", (_what, context, message) => {
    const c = readContext(context);
    expect(c.error).toMatch(/^context: /);
    expect(c.error).toMatch(message);
    expect(c.users).toEqual([]);
    expect(c.turnCalls).toBeNull();
  });

  it("reads a hostile long array by index only, the tail of it", () => {
    const long = new Proxy(new Array(1_000_000).fill("x"), {});
    const c = readContext({ userMessages: long });
    expect(c.userCount).toBe(1_000_000);
    expect(c.userIndex.at(-1)).toBe(999_999);
  });
});
