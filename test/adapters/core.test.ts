// The seam every adapter goes through (src/adapters/core.ts), without a framework: how a framework
// call becomes the call the guard judges, what the guard is told about the conversation and the turn,
// what a framework approval counts as, and what reaches observe / release after the tool ran or not.
import { describe, expect, test } from "vitest";
import { changedNothing, createSession, declinedMessage, FRAMEWORK_APPROVAL, FRAMEWORK_DECLINE, OpenDecisions, refusalMessage, judgedArguments, judgedCall, ownEntry, sameCall, textMessages } from "../../src/adapters/core.js";
import { NothingChangedError, type CheckContext, type Decision, type Guard } from "../../src/index.js";
import type { LayerB } from "../../src/projection/layer-b.js";
import { calls, fixture } from "./fixtures.js";

const read = { name: "get_reservation_details", arguments: { reservation_id: "R1" } };

/** The guard, with every check's context recorded (what the adapter told it). */
function spied(g: Guard): { guard: Guard; contexts: CheckContext[]; given: (CheckContext | undefined)[] } {
  const contexts: CheckContext[] = [];
  const given: (CheckContext | undefined)[] = [];
  const guard = {
    ...g,
    check: (call: unknown, ctx?: CheckContext) => {
      contexts.push(structuredClone(ctx) as CheckContext);
      given.push(ctx);
      return g.check(call, ctx);
    },
  } as Guard;
  return { guard, contexts, given };
}

describe("judgedCall", () => {
  test("arguments that are not text are judged as given, with no `raw`", () => {
    const args = { reservation_id: "R1" };
    const c = judgedCall("t", args);
    expect(c).toEqual({ name: "t", arguments: args });
    expect(c.arguments).toBe(args);
    expect("raw" in c).toBe(false);
  });

  test("JSON text is parsed once and kept as `raw`", () => {
    expect(judgedCall("t", '{"a": [1, {"b": null}]}')).toEqual({ name: "t", arguments: { a: [1, { b: null }] }, raw: '{"a": [1, {"b": null}]}' });
  });

  test("text that is not JSON stays the text (the guard refuses it), never an empty default", () => {
    expect(judgedCall("t", "{not json")).toEqual({ name: "t", arguments: "{not json", raw: "{not json" });
    expect(judgedCall("t", "")).toEqual({ name: "t", arguments: "", raw: "" });
  });

  test("a call whose text is not JSON is vetoed as malformed_call", () => {
    const f = fixture();
    const d = createSession(f.guard).decide(judgedCall("update_reservation_flights", "{not json"));
    expect(d).toMatchObject({ route: "Vetoed", approved: false, reason: "malformed_call" });
  });
});

describe("judgedArguments", () => {
  test("a fresh, mutable copy of the arguments the guard judged: what the tool does with it changes no record", () => {
    const f = fixture();
    const d = createSession(f.guard).decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    const args = judgedArguments(d);
    expect(args).toEqual(calls.editFlights.arguments);
    expect(args).not.toBe((d.call as { arguments: unknown }).arguments);
    (args.flights as unknown[]).push("mutated");
    args.reservation_id = "R2";
    expect((d.call as { arguments: unknown }).arguments).toEqual(calls.editFlights.arguments);
  });
});

describe("sameCall", () => {
  test("the same tool and the same arguments as JSON values (key order aside, JSON text parsed)", () => {
    expect(sameCall({ name: "t", arguments: { a: 1, b: [2] } }, { name: "t", arguments: { b: [2], a: 1 } })).toBe(true);
    expect(sameCall(judgedCall("t", '{"a":1}'), { name: "t", arguments: { a: 1 } })).toBe(true);
    expect(sameCall({ name: "t", arguments: { a: 1 } }, { name: "u", arguments: { a: 1 } })).toBe(false);
    expect(sameCall({ name: "t", arguments: { a: 1 } }, { name: "t", arguments: { a: 2 } })).toBe(false);
    expect(sameCall({ name: "t", arguments: { a: { x: [1, { y: null, z: "s" }] } } }, { name: "t", arguments: { a: { x: [1, { z: "s", y: null }] } } })).toBe(true);
    expect(sameCall({ name: "t", arguments: { a: [1, 2] } }, { name: "t", arguments: { a: [2, 1] } })).toBe(false);
    expect(sameCall({ name: "t", arguments: { a: "1" } }, { name: "t", arguments: { a: 1 } })).toBe(false);
    expect(sameCall({ name: "t", arguments: Object.assign(Object.create(null), { a: true }) }, { name: "t", arguments: { a: true } })).toBe(true);
    const same = (a: unknown, b: unknown) => sameCall({ name: "t", arguments: a }, { name: "t", arguments: b });
    expect(same({ a: 1 }, { b: 1 })).toBe(false);
    expect(same({ a: 1 }, { a: 1, b: 1 })).toBe(false);
    expect(same({ a: 1, b: 1 }, { a: 1 })).toBe(false);
    expect(same([1], { 0: 1 })).toBe(false);
    expect(same({ 0: 1 }, [1])).toBe(false);
    expect(same([1, 2], [1, 2, 3])).toBe(false);
    expect(same([1, 23], [12, 3])).toBe(false);
    expect(same([1, 2], [1, 2])).toBe(true);
    expect(same(null, null)).toBe(true);
    expect(same(null, {})).toBe(false);
    expect(same({}, null)).toBe(false);
    expect(same(undefined, {})).toBe(false);
    expect(same({}, undefined)).toBe(false);
    expect(same(new Date(0), {})).toBe(false);
    expect(same({}, new Date(0))).toBe(false);
    expect(sameCall({ name: "t", arguments: {} }, null)).toBe(false);
    expect(same("x", "x")).toBe(true);
    expect(same(false, 0)).toBe(false);
    expect(same(1, "1")).toBe(false);
    // Depth: 64 levels of arrays compare, 65 match nothing (a cycle is the same refusal).
    const nest = (n: number): unknown => (n === 0 ? 1 : [nest(n - 1)]);
    expect(same(nest(64), nest(64))).toBe(true);
    expect(same(nest(65), nest(65))).toBe(false);
  });

  test("a call without a string name, a non-call, or arguments that are not JSON match nothing, not even themselves", () => {
    expect(sameCall({ name: 1, arguments: {} }, { name: 1, arguments: {} })).toBe(false);
    expect(sameCall(null, null)).toBe(false);
    expect(sameCall(undefined, { name: "t", arguments: {} })).toBe(false);
    const notJson = { name: "t", arguments: { f: () => 1 } };
    expect(sameCall(notJson, notJson)).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(sameCall({ name: "t", arguments: cyclic }, { name: "t", arguments: cyclic })).toBe(false);
    for (const odd of [{ d: new Date(0) }, { n: Number.NaN }, { i: Infinity }, { s: [1, , 3] }, { u: undefined }, 5n as unknown, [new Map()]]) {
      expect(sameCall({ name: "t", arguments: odd }, { name: "t", arguments: odd })).toBe(false);
    }
    // A hole matches nothing, on either side.
    expect(sameCall({ name: "t", arguments: [1, undefined] }, { name: "t", arguments: [1, , ] })).toBe(false);
    expect(sameCall({ name: "t", arguments: [1, , ] }, { name: "t", arguments: [1, undefined] })).toBe(false);
    // A value seen twice but not inside itself is JSON.
    const shared = { x: 1 };
    expect(sameCall({ name: "t", arguments: { a: shared, b: shared } }, { name: "t", arguments: { a: { x: 1 }, b: { x: 1 } } })).toBe(true);
  });
});

describe("ownEntry and textMessages", () => {
  test("ownEntry reads own properties only: `constructor` and `__proto__` are names like any other", () => {
    const map: Record<string, number> = { a: 1 };
    expect(ownEntry(map, "a")).toBe(1);
    expect(ownEntry(map, "constructor")).toBeUndefined();
    expect(ownEntry(map, "__proto__")).toBeUndefined();
    expect(ownEntry(map, "toString")).toBeUndefined();
    const own = JSON.parse('{"constructor": 2, "__proto__": 3}') as Record<string, number>;
    expect(ownEntry(own, "constructor")).toBe(2);
    expect(ownEntry(own, "__proto__")).toBe(3);
  });

  test("textMessages keeps the strings, in order, and drops everything else", () => {
    expect(textMessages(["a", 1, null, { content: "x" }, "b", undefined, ""])).toEqual(["a", "b", ""]);
  });
});

describe("createSession: what the guard is told", () => {
  test("decide: one check, with a copy of the user messages and no earlier calls outside a turn", () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const seen: Decision[] = [];
    const s = createSession(guard, { onDecision: (d) => seen.push(d) });
    const userMessages = ["change my flight"];
    const d = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments), { userMessages });
    expect(d.route).toBe("Approved");
    expect(contexts).toEqual([{ userMessages: ["change my flight"], turnCalls: [] }]);
    expect(seen).toEqual([d]);
    expect(f.log).toHaveLength(1);
    expect(s.guard).toBe(guard);
    // No context at all: no messages, no calls.
    s.decide(judgedCall(read.name, read.arguments));
    expect(contexts[1]).toEqual({ userMessages: [], turnCalls: [] });
  });

  test("the calls of one turn the guard let run are the next call's turnCalls; reads, vetoes and other turns are not", () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const s = createSession(guard);
    const turn = {};
    const other = {};
    const approved = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments), { turn });
    expect(approved.approved).toBe(true);
    s.decide(judgedCall(read.name, read.arguments), { turn }); // read_only: not part of the forward sequence
    s.decide(judgedCall(calls.cancelMissing.name, calls.cancelMissing.arguments), { turn }); // vetoed
    s.decide(judgedCall(calls.certificate.name, calls.certificate.arguments), { turn: other });
    const next = s.decide(judgedCall(calls.cancelR1.name, calls.cancelR1.arguments), { turn });
    expect(contexts.map((c) => c.turnCalls!.length)).toEqual([0, 1, 1, 0, 1]);
    expect(contexts[4].turnCalls).toEqual([approved.call]);
    expect(next.reason).toBe("overlap_conflict");
    // A call outside any turn neither sees nor joins one.
    s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    s.decide(judgedCall(calls.cancelR1.name, calls.cancelR1.arguments), { turn: other });
    expect(contexts[6].turnCalls).toEqual([]);
  });

  test("turnCalls is a copy each time: the guard holding it changes no later context", () => {
    const f = fixture();
    const { guard, contexts, given } = spied(f.guard);
    const s = createSession(guard);
    const turn = {};
    const userMessages = ["hi"];
    s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments), { turn, userMessages });
    const d = s.decide(judgedCall(read.name, read.arguments), { turn, userMessages });
    (given[1]!.turnCalls as unknown[]).push("x");
    (given[1]!.userMessages as string[]).push("yes");
    expect(userMessages).toEqual(["hi"]);
    s.decide(judgedCall(read.name, read.arguments), { turn });
    expect(contexts[2].turnCalls).toHaveLength(1);
    expect(d.approved).toBe(true);
  });
});

describe("createSession: a framework approval", () => {
  test("answers the guard's own question: the conversation as it was when asked, then the approval", () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const seen: Decision[] = [];
    const s = createSession(guard, { onDecision: (d) => seen.push(d) });
    const asked = s.decide(judgedCall(calls.certificate.name, calls.certificate.arguments), { userMessages: ["send my certificate"] });
    expect(asked.route).toBe("ConsentEscalated");
    // The framework passes a later conversation: the answer is read after the one the guard asked in.
    const yes = s.consent(asked, { userMessages: ["send my certificate", "something else", "and more"] });
    expect(yes).toMatchObject({ route: "ConsentApproved", approved: true });
    expect(contexts[1]).toEqual({ userMessages: ["send my certificate", FRAMEWORK_APPROVAL], turnCalls: [] });
    expect(seen).toEqual([asked, yes]);
  });

  test("the approval's check sees the turn's calls as they are now", () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const s = createSession(guard);
    const turn = {};
    const asked = s.decide(judgedCall(calls.certificate.name, calls.certificate.arguments), { turn });
    const edit = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments), { turn });
    s.consent(asked, { turn });
    expect(contexts[2].turnCalls).toEqual([edit.call]);
  });

  test("never overrides any other decision: a veto, an approval or an answered question is returned as it was, with no check", () => {
    const f = fixture();
    const seen: Decision[] = [];
    const s = createSession(f.guard, { onDecision: (d) => seen.push(d) });
    const veto = s.decide(judgedCall(calls.cancelMissing.name, calls.cancelMissing.arguments));
    const ok = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    const asked = s.decide(judgedCall(calls.certificate.name, calls.certificate.arguments));
    const yes = s.consent(asked);
    for (const d of [veto, ok, yes]) expect(s.consent(d)).toBe(d);
    expect(f.log).toHaveLength(4);
    expect(seen).toHaveLength(4);
  });

  test("a question this session did not see asked is answered in the context given now", () => {
    const f = fixture();
    const asked = createSession(f.guard).decide(judgedCall(calls.certificate.name, calls.certificate.arguments), { userMessages: ["hi"] });
    const { guard, contexts } = spied(f.guard);
    const yes = createSession(guard).consent(asked, { userMessages: ["hi"] });
    expect(contexts[0]).toEqual({ userMessages: ["hi", FRAMEWORK_APPROVAL], turnCalls: [] });
    expect(yes.route).toBe("ConsentApproved");
  });

  test("the approval is consent under the guard's default detector", () => {
    const f = fixture();
    const s = createSession(f.guard);
    const asked = s.decide(judgedCall(calls.certificate.name, calls.certificate.arguments));
    expect(s.consent(asked).consent).toMatchObject({ consent: true });
  });
});

describe("createSession: after the tool", () => {
  test("ran: the result is observed for exactly that execution (session scope: in the forward sequence)", () => {
    const f = fixture("escalate", "session");
    const s = createSession(f.guard);
    const a = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    const b = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    expect(f.guard.pending().map((p) => p.execution)).toEqual([a.execution, b.execution]);
    s.ran(b, { ...(f.guard.state as LayerB).entity("reservation", "R1"), flights: calls.editFlights.arguments.flights });
    // b, not the older a with the same call text.
    expect(f.guard.pending().map((p) => p.execution)).toEqual([a.execution]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
  });

  test("failed with an error that says nothing changed: that execution is released, nothing is observed", () => {
    const f = fixture("escalate", "session");
    const s = createSession(f.guard);
    const a = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    const b = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    s.failed(b, new NothingChangedError("refused by the booking system"));
    expect(f.guard.pending().map((p) => p.execution)).toEqual([a.execution]);
    expect(f.guard.sequence()).toEqual([]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).not.toEqual(calls.editFlights.arguments.flights);
  });

  test("failed with any other error (or none): the outcome is unknown, what it acts on is unknown (issue 21 item 8)", () => {
    for (const error of [new Error("timed out"), undefined, { changedNothing: "true" }]) {
      const f = fixture("escalate", "session");
      const s = createSession(f.guard);
      const b = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
      s.failed(b, error);
      expect(f.guard.pending()).toEqual([]);
      expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
      expect(s.decide(judgedCall(calls.cancelR1.name, calls.cancelR1.arguments))).toMatchObject({ approved: false, reason: "unknown_state" });
    }
  });

  test("release: an approved call that will not run leaves the forward sequence; a decision without an execution is a no-op", () => {
    const f = fixture("escalate", "session");
    const s = createSession(f.guard);
    const a = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    expect(s.decide(judgedCall(calls.cancelR1.name, calls.cancelR1.arguments)).reason).toBe("overlap_conflict");
    const veto = s.decide(judgedCall(calls.cancelMissing.name, calls.cancelMissing.arguments));
    expect(veto.execution).toBeNull();
    s.release(veto);
    expect(f.guard.pending()).toHaveLength(1);
    s.release(a);
    expect(f.guard.pending()).toEqual([]);
    expect(s.decide(judgedCall(calls.cancelR1.name, calls.cancelR1.arguments)).reason).toBe("ok");
  });
});

describe("the user's no (issue 21 item 13)", () => {
  test("declined: recorded as a check with the no said last, and binding: a later decide of the same call is refused", () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const s = createSession(guard);
    const cert = judgedCall(calls.certificate.name, calls.certificate.arguments);
    const asked = s.decide(cert, { userMessages: ["send it"] });
    expect(asked.route).toBe("ConsentEscalated");
    const no = s.declined(cert, undefined, asked);
    expect(contexts[1].userMessages).toEqual(["send it", FRAMEWORK_DECLINE]);
    expect(no).toMatchObject({ route: "ConsentEscalated", consent: { consent: false } });
    expect(s.isDeclined(no) && !s.mayRun(no)).toBe(true);
    expect(s.refusal(no)).toBe(declinedMessage(calls.certificate));
    // A consent to the old question no longer counts.
    expect(s.consent(no)).toBe(no);
    const retry = s.decide(judgedCall(calls.certificate.name, { ...calls.certificate.arguments }), { userMessages: ["send it", "please"] });
    expect(s.isDeclined(retry) && !s.mayRun(retry)).toBe(true);
    expect(f.log).toHaveLength(3);
    // Another call is not bound.
    expect(s.isDeclined(s.decide(judgedCall(calls.certificate.name, { user_id: "mia", amount: 5 })))).toBe(false);
  });

  test("an approved identical call held from before the no is released and refused when it comes to run", () => {
    const f = fixture();
    const s = createSession(f.guard);
    const cancel = judgedCall(calls.cancelR1.name, calls.cancelR1.arguments);
    const first = s.decide(cancel);
    expect(first.approved).toBe(true);
    s.declined(cancel);
    expect(s.mayRun(first)).toBe(false);
    expect(f.guard.pending()).toEqual([]);
    expect(s.refusal(first)).toBe(declinedMessage(calls.cancelR1));
  });
});

describe("OpenDecisions (issue 21 item 1)", () => {
  test("an id holds one decision per call; find takes the one for exactly this call; the bounds drop and report the oldest", () => {
    const f = fixture();
    const s = createSession(f.guard);
    const dropped: Decision[] = [];
    const open = new OpenDecisions((d) => dropped.push(d), 2, 2);
    const a = s.decide(judgedCall(calls.cancelR1.name, calls.cancelR1.arguments));
    const b = s.decide(judgedCall(read.name, { reservation_id: "R2" }));
    open.put("call_0", a);
    open.put("call_0", b);
    expect(open.find("call_0", judgedCall(calls.cancelR1.name, '{"reservation_id":"R1"}'))).toBe(a);
    expect(open.find("call_0", judgedCall(calls.cancelR1.name, { reservation_id: "R2" }))).toBeUndefined();
    expect(open.find("call_0", judgedCall(read.name, { reservation_id: "R2" }))).toBe(b);
    expect(open.latest("call_0")).toBe(b);
    const c = s.decide(judgedCall(read.name, read.arguments));
    open.put("call_0", c);
    expect(dropped).toEqual([a]);
    open.put("x", a);
    open.put("y", a);
    expect(dropped).toEqual([a, b, c]);
    open.delete("y", a);
    expect(open.all("y")).toEqual([]);
  });
});

describe("one refusal text per case (issue 21 item 20)", () => {
  test("declinedMessage names the call; long arguments are cut; arguments that are not JSON are left out", () => {
    expect(declinedMessage(calls.certificate)).toBe('The user declined `send_certificate` with {"user_id":"mia"}: it was not run and will not be run in this session.');
    const long = declinedMessage({ name: "t", arguments: { a: "x".repeat(500) } });
    expect(long).toContain(`with {"a":"${"x".repeat(193)}…:`);
    expect(long.length).toBeLessThan(300);
    const at200 = { a: "x".repeat(192) }; // JSON text of exactly 200 characters: kept whole
    expect(JSON.stringify(at200)).toHaveLength(200);
    expect(declinedMessage({ name: "t", arguments: at200 })).toContain(`${JSON.stringify(at200)}:`);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(declinedMessage({ name: "t", arguments: cyclic })).toBe("The user declined `t`: it was not run and will not be run in this session.");
    expect(declinedMessage({ name: "t" })).toBe("The user declined `t`: it was not run and will not be run in this session.");
    expect(declinedMessage(null)).toBe("The user declined `(malformed call)`: it was not run and will not be run in this session.");
  });

  test("refusal: the question for an escalation, the guard's message for a veto, a code-named fallback without one", () => {
    const f = fixture();
    const s = createSession(f.guard);
    const veto = s.decide(judgedCall(calls.cancelMissing.name, calls.cancelMissing.arguments));
    expect(s.refusal(veto)).toBe(veto.message);
    const asked = s.decide(judgedCall(calls.certificate.name, calls.certificate.arguments));
    expect(s.refusal(asked)).toBe(asked.question);
    expect(s.mayRun(asked)).toBe(false);
    expect(s.isDeclined(asked)).toBe(false);
    expect(refusalMessage({ ...veto, message: null } as Decision)).toBe("polar-guard: `missing_entity`");
    expect(s.refusal({ ...asked, question: null, message: null } as Decision)).toBe("polar-guard: `external_side_effect`");
  });

  test("changedNothing reads an own `changedNothing: true` only", () => {
    expect(changedNothing(new NothingChangedError("x"))).toBe(true);
    expect(changedNothing({ changedNothing: true })).toBe(true);
    for (const e of [undefined, null, "changedNothing", new Error("x"), { changedNothing: 1 }]) expect(changedNothing(e)).toBe(false);
  });

  test("OpenDecisions: unknown ids hold nothing; deleting one of two keeps the other; put replaces the decision it answers", () => {
    const f = fixture();
    const s = createSession(f.guard);
    const open = new OpenDecisions();
    expect(open.find("nope", calls.cancelR1)).toBeUndefined();
    expect(open.latest("nope")).toBeUndefined();
    expect(open.all("nope")).toEqual([]);
    open.delete("nope", s.decide(judgedCall(read.name, read.arguments)));
    const a = s.decide(judgedCall(calls.certificate.name, calls.certificate.arguments));
    const b = s.decide(judgedCall(read.name, read.arguments));
    open.put("i", a);
    open.put("i", b);
    open.delete("i", a);
    expect(open.all("i")).toEqual([b]);
    const c = s.decide(judgedCall(read.name, read.arguments));
    open.put("i", c, b);
    expect(open.all("i")).toEqual([c]);
    open.put("i", c);
    expect(open.all("i")).toEqual([c]);
    expect([...open.entries()]).toEqual([["i", c]]);
  });
});

describe("createSession: what a no and a failure leave behind (mutation coverage)", () => {
  test("the framework's no is a plain no the consent step reads", () => {
    expect(FRAMEWORK_DECLINE).toMatch(/^No, declined/);
  });

  test("a declined call the guard would let run now is released and refused, never pending", () => {
    const f = fixture("escalate", "session");
    const s = createSession(f.guard);
    const d = s.declined(judgedCall(calls.cancelR1.name, calls.cancelR1.arguments));
    expect(d.route).toBe("Approved");
    expect(f.guard.pending()).toEqual([]);
    expect(s.mayRun(d)).toBe(false);
  });

  test("a released call leaves its turn: the next call of the turn is not judged with it; forgetting twice changes nothing", () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const s = createSession(guard);
    const turn = {};
    const a = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments), { turn });
    const b = s.decide(judgedCall(calls.editFlights.name, { ...calls.editFlights.arguments, reservation_id: "R2" }), { turn });
    expect(contexts[1].turnCalls).toHaveLength(1);
    s.release(a);
    s.release(a);
    s.decide(judgedCall(read.name, read.arguments), { turn });
    expect(contexts[2].turnCalls).toEqual(b.approved ? [b.call] : []);
    s.release(b);
    s.decide(judgedCall(read.name, read.arguments), { turn });
    expect(contexts[3].turnCalls).toEqual([]);
  });

  test("the declined check is judged in the turn the framework names now", () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const s = createSession(guard);
    const turn = {};
    s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments), { turn });
    s.declined(judgedCall(calls.certificate.name, calls.certificate.arguments), { turn });
    expect(contexts[1].turnCalls).toEqual([calls.editFlights]);
  });

  test("the declined check after a question is judged in the turn as it is now, when the framework names it", () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const s = createSession(guard);
    const turn = {};
    const cert = judgedCall(calls.certificate.name, calls.certificate.arguments);
    const asked = s.decide(cert, { turn });
    s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments), { turn });
    s.declined(cert, { turn }, asked);
    expect(contexts[0].turnCalls).toEqual([]);
    expect(contexts[2].turnCalls).toEqual([calls.editFlights]);
    // Without a turn now, as it was asked.
    s.declined(cert, undefined, asked);
    expect(contexts[3].turnCalls).toEqual([]);
  });

  test("the session keeps the last 1024 declined calls", () => {
    const f = fixture();
    const s = createSession(f.guard);
    const call = (i: number) => judgedCall(calls.certificate.name, { user_id: "mia", amount: i });
    for (let i = 0; i < 1025; i++) s.declined(call(i));
    expect(s.isDeclined(s.decide(call(0)))).toBe(false);
    for (const i of [1, 1023, 1024]) expect(s.isDeclined(s.decide(call(i)))).toBe(true);
  });

  test("a failure of unknown outcome is observed as the failing execution, not the oldest of the same call", () => {
    const f = fixture("escalate", "session");
    const s = createSession(f.guard);
    const a = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    const b = s.decide(judgedCall(calls.editFlights.name, calls.editFlights.arguments));
    s.failed(b, new Error("timed out"));
    expect(f.guard.pending().map((p) => p.execution)).toEqual([a.execution]);
  });

  test("OpenDecisions.all is a copy", () => {
    const f = fixture();
    const s = createSession(f.guard);
    const open = new OpenDecisions();
    const a = s.decide(judgedCall(read.name, read.arguments));
    open.put("i", a);
    open.all("i").pop();
    expect(open.all("i")).toEqual([a]);
  });
});
