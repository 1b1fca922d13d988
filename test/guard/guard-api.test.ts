// The guard's composition through its public API (createGuard), issue 28: what the caller's context is
// read as, the consent book (which question a yes answers, how many questions are kept, that an answer
// approves one execution), the model components' contracts, observe's options and matching, release and
// pending, and a check that fails inside. Each states behaviour a caller relies on; they hold whether
// createGuard is one closure or a composition of parts (issue 27 §3).
import { describe, expect, it } from "vitest";
import { createGuard, GuardError, safeCreateGuard, type Guard, type GuardOptions } from "../../src/guard/index.js";
import { createMemorySink, verifyAuditLog } from "../../src/audit/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "./helpers.js";

const certificate = { name: "send_certificate", arguments: { user_id: "mia", amount: 50 } };
const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const cabin = { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } };

function guard(over: Partial<GuardOptions> = {}): { g: Guard; sink: ReturnType<typeof createMemorySink> } {
  const sink = createMemorySink();
  const { config, ...rest } = over;
  const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), policy: "escalate", ...rest, config: { now: NOW, log: sink, ...(config ?? {}) } });
  return { g, sink };
}

function errorOf(f: () => unknown): GuardError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(GuardError);
    return e as GuardError;
  }
  throw new Error("no error");
}

describe("the context is read once, as data; a wrong shape fails the decision closed", () => {
  for (const [what, context, says] of [
    ["a context that is not an object", 5, "context: Error: the context is not an object"],
    ["userMessages that is not a list", { userMessages: "yes" }, "context: Error: `context.userMessages` is not an array"],
    ["messages that is not a list", { messages: { role: "user" } }, "context: Error: `context.messages` is not an array"],
    ["a message that is not an object", { messages: ["yes"] }, "context: Error: an entry of `context.messages` is not an object"],
    ["a null message", { messages: [null] }, "context: Error: an entry of `context.messages` is not an object"],
    ["a message without a string role", { messages: [{ role: 1, content: "yes" }] }, "context: Error: an entry of `context.messages` has no string `role`"],
    ["turnCalls that is not a list", { turnCalls: { name: "x" } }, "context: Error: `context.turnCalls` is not an array"],
  ] as const) {
    it(`${what}: vetoed (internal_error), saying so; nothing pending, the seq and the record kept`, () => {
      const { g, sink } = guard({ policy: "veto" });
      const d = g.check(flights, context as never);
      expect(d).toMatchObject({ seq: 1, route: "Vetoed", approved: false, execution: null, reason: "internal_error" });
      expect(d.detail).toContain(says);
      expect(g.pending()).toEqual([]);
      expect(sink.records).toHaveLength(1);
      // The same call with a good context is approved: nothing else was wrong.
      expect(g.check(flights, {}).route).toBe("Approved");
    });
  }

  it("null and undefined are no context; a message's content that is not a string reads as empty", () => {
    const { g } = guard({ policy: "veto" });
    expect(g.check(flights, null as never).route).toBe("Approved");
    expect(g.check(flights, undefined).route).toBe("Approved");
    const r = guard({ config: { consent: "recent-messages" } }).g;
    const d = r.check(certificate, { messages: [{ role: "assistant", content: "Send the certificate to mia?" }, { role: "user", content: 42 as never }] });
    expect(d.route).toBe("ConsentEscalated");
  });

  it("only string user messages count, the last three of them, by their place in the whole conversation", () => {
    const { g } = guard();
    g.check(certificate, { userMessages: ["send it"] });
    // Asked when there was one message: a yes at index 1 or later answers, a non-string is skipped.
    const d = g.check(certificate, { userMessages: ["send it", "yes", 7 as never, { text: "no" } as never] });
    expect(d).toMatchObject({ route: "ConsentApproved", userMessages: ["yes"] });
    g.release(d.execution!);
    // Four string messages after the question: only the last three are read, the yes is out of the window.
    g.check(certificate, { userMessages: ["send it"] });
    expect(g.check(certificate, { userMessages: ["send it", "yes", "a", "b", "c"] })).toMatchObject({ route: "ConsentEscalated", userMessages: ["a", "b", "c"] });
  });

  it("a conversation longer than the guard reads: a yes after the question still answers it (indexes count from the start)", () => {
    const { g } = guard();
    const long = Array.from({ length: 1500 }, (_, i) => `message ${i}`);
    const q = g.check(certificate, { userMessages: long });
    expect(q.route).toBe("ConsentEscalated");
    // The yes came before the question (at 1499 of 1500): it does not count.
    const before = [...long.slice(0, 1499), "yes"];
    const { g: h } = guard();
    h.check(certificate, { userMessages: before });
    expect(h.check(certificate, { userMessages: before }).route).toBe("ConsentEscalated");
    // After it (index 1500): it does.
    expect(g.check(certificate, { userMessages: [...long, "yes"] })).toMatchObject({ route: "ConsentApproved", userMessages: ["yes"] });
  });

  it("turn scope reads the last MAX_CALLS + 1 earlier calls of the message; a malformed one is kept as it is", () => {
    const { g } = guard({ policy: "veto" });
    const bad = { name: 5, arguments: {} };
    const d = g.check(cabin, { turnCalls: [bad as never, flights] });
    expect(d.forward).toHaveLength(2);
    expect((d.forward[0] as { name: unknown }).name).toBe(5);
  });
});

describe("the consent book (question mode)", () => {
  it("keeps the last MAX_QUESTIONS questions: the oldest is forgotten, and asking again makes a question the newest", async () => {
    const { MAX_QUESTIONS } = await import("../../src/guard/snapshot.js");
    const { g } = guard();
    const call = (i: number) => ({ name: "send_certificate", arguments: { user_id: "mia", amount: i + 1 } });
    for (let i = 0; i < MAX_QUESTIONS; i++) g.check(call(i), { userMessages: [] });
    // Asking again about call 0 makes it the newest; one more question then pushes out call 1, not call 0.
    g.check(call(0), { userMessages: [] });
    g.check(call(MAX_QUESTIONS), { userMessages: [] });
    expect(g.snapshot().questions).toHaveLength(MAX_QUESTIONS);
    expect(g.check(call(0), { userMessages: ["yes"] }).route).toBe("ConsentApproved");
    expect(g.check(call(2), { userMessages: ["yes"] }).route).toBe("ConsentApproved");
    expect(g.check(call(MAX_QUESTIONS), { userMessages: ["yes"] }).route).toBe("ConsentApproved");
    expect(g.check(call(1), { userMessages: ["yes"] }).route).toBe("ConsentEscalated");
  });

  it("asking again moves the question to now: a yes between the two questions no longer answers it", () => {
    const { g } = guard();
    g.check(certificate, { userMessages: [] });
    // The model asked the guard again after the user's "yes" (index 0): the answer must come after this.
    expect(g.check(certificate, { userMessages: ["no"] }).route).toBe("ConsentEscalated");
    expect(g.check(certificate, { userMessages: ["no", "yes"] }).route).toBe("ConsentApproved");
    const snap = g.snapshot();
    expect(snap.questions).toEqual([]);
  });

  it("an answer approves one execution; the question is closed and recorded in the snapshot until then", () => {
    const { g } = guard();
    g.check(certificate, { userMessages: ["hi"] });
    const snap = g.snapshot();
    expect(snap.questions).toHaveLength(1);
    expect(snap.questions[0].asked).toBe(1);
    expect(snap.questions[0].hash).toMatch(/^[0-9a-f]{64}$/);
    const yes = g.check(certificate, { userMessages: ["hi", "yes"] });
    expect(yes.route).toBe("ConsentApproved");
    expect(g.snapshot().questions).toEqual([]);
    expect(g.check(certificate, { userMessages: ["hi", "yes"] }).route).toBe("ConsentEscalated");
  });

  it("a malformed call is never asked about, and the book stays empty", () => {
    const { g } = guard({ policy: "advisory" });
    g.check({ name: "send_certificate", arguments: 5 });
    expect(g.snapshot().questions).toEqual([]);
    const { g: e } = guard();
    expect(e.check({ name: "send_certificate", arguments: 5 }).route).toBe("Vetoed");
    expect(e.snapshot().questions).toEqual([]);
  });

  it("a resumed guard answers the questions of the snapshot, in their order", () => {
    const { g } = guard();
    g.check(certificate, { userMessages: ["a"] });
    g.check(cabin, { userMessages: ["a", "b"] });
    const snap = JSON.parse(JSON.stringify(g.snapshot()));
    const { g: r } = guard({ resume: snap });
    expect(r.snapshot().questions).toEqual(snap.questions);
    expect(r.check(cabin, { userMessages: ["a", "b", "yes"] }).route).toBe("ConsentApproved");
    // The certificate's question was asked at 1 message: "b" and "yes" (indexes 1, 2) answer it.
    expect(r.check(certificate, { userMessages: ["a", "b", "yes"] })).toMatchObject({ route: "ConsentApproved", userMessages: ["b", "yes"] });
  });

  it("recent-messages mode keeps no questions", () => {
    const { g } = guard({ config: { consent: "recent-messages" } });
    g.check(certificate, { userMessages: [] });
    expect(g.snapshot().questions).toEqual([]);
    // The user messages alone are the conversation (no assistant message names the call: no consent).
    expect(g.check(certificate, { userMessages: ["yes"] }).route).toBe("ConsentEscalated");
  });
});

describe("the model components' contracts", () => {
  const mutating = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };
  it("a synchronous check refuses an asynchronous component (async-required); the rejection of its promise is not left unhandled", async () => {
    const unhandled: unknown[] = [];
    const on = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", on);
    try {
      const { g, sink } = guard({ config: { requestClassifier: { id: "c", classify: () => Promise.reject(new Error("offline")) as never } } });
      const e = errorOf(() => g.check(mutating));
      expect(e.code).toBe("async-required");
      expect(e.message).toBe("the request classifier or intent parser is asynchronous");
      expect(sink.records).toEqual([]);
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
      // checkAsync takes it, and fails closed on the rejection.
      const d = await g.checkAsync(mutating);
      expect(d.route).toBe("Vetoed");
      expect(d.detail).toContain("model: component failed: Error: offline");
    } finally {
      process.off("unhandledRejection", on);
    }
  });

  it("an async intent parser alone is refused by check too", () => {
    const { g } = guard({ config: { intentParser: { id: "p", parse: async () => [] } } });
    expect(errorOf(() => g.check(mutating)).code).toBe("async-required");
  });

  it("read-only, unknown and malformed calls skip the components", () => {
    let asked = 0;
    const { g } = guard({ config: { requestClassifier: { id: "c", classify: () => (asked++, "mutating_request" as never) } } });
    g.check({ name: "get_reservation_details", arguments: { reservation_id: "R1" } });
    g.check({ name: "nuke", arguments: {} });
    g.check({ name: 5, arguments: {} });
    g.check(mutating, 5 as never);
    expect(asked).toBe(0);
    g.check(mutating);
    expect(asked).toBe(1);
  });

  it("the components get the last user messages and the call", () => {
    const seen: unknown[] = [];
    const { g } = guard({ config: { requestClassifier: { id: "c", classify: (input) => (seen.push(input), "mutating_request" as never) } } });
    g.check(mutating, { userMessages: ["a", "b", "c", "please cancel R1"] });
    expect(seen).toEqual([{ userMessages: ["b", "c", "please cancel R1"], call: mutating }]);
  });

  for (const [what, parse, says] of [
    ["a classifier that throws", null, "model: component failed: Error: broken"],
    ["targets that are not a list", () => ({ assertions: [] }), "model: the intent parser answered something other than target states"],
    ["a target without assertions", () => [{ label: "x" }], "model: the intent parser answered something other than target states"],
    ["a target that is null", () => [null], "model: the intent parser answered something other than target states"],
    ["an assertion without an id", () => [{ assertions: [{ entity: "reservation", slot: "status", value: "cancelled" }] }], "model: the intent parser answered something other than target states"],
    ["an assertion without a value", () => [{ assertions: [{ entity: "reservation", id: "R1", slot: "status" }] }], "model: the intent parser answered something other than target states"],
    ["an assertion whose slot is not a string", () => [{ assertions: [{ entity: "reservation", id: "R1", slot: 1, value: "x" }] }], "model: the intent parser answered something other than target states"],
    ["an assertion whose entity is not a string", () => [{ assertions: [{ entity: 1, id: "R1", slot: "status", value: "x" }] }], "model: the intent parser answered something other than target states"],
    ["an assertion that is null", () => [{ assertions: [null] }], "model: the intent parser answered something other than target states"],
  ] as const) {
    it(`${what}: the decision fails closed, saying why`, async () => {
      const config = parse === null
        ? { requestClassifier: { id: "c", classify: () => { throw new Error("broken"); } } }
        : { intentParser: { id: "p", parse: parse as never } };
      const { g } = guard({ policy: "veto", config });
      for (const d of [g.check(mutating), await g.checkAsync(mutating)]) {
        expect(d.route).toBe("Vetoed");
        expect(d.reason).toBe("internal_error");
        expect(d.detail).toContain(says);
      }
    });
  }

  it("a classifier's answer outside the classes fails closed, naming it; an async one too", async () => {
    const { g } = guard({ config: { requestClassifier: { id: "c", classify: () => "maybe" as never } } });
    expect(g.check(mutating).detail).toContain("model: the request classifier answered `maybe`");
    const { g: a } = guard({ config: { requestClassifier: { id: "c", classify: async () => "maybe" as never } } });
    expect((await a.checkAsync(mutating)).detail).toContain("model: the request classifier answered `maybe`");
  });

  it("targets without a label are named by their place; the decision records them", async () => {
    const t = [{ assertions: [{ entity: "reservation", id: "R1", slot: "status", value: "cancelled" }] }, { label: "named", assertions: [] }];
    const { g } = guard({ policy: "advisory", config: { intentParser: { id: "p", parse: () => t as never } } });
    const d = g.check(mutating);
    expect(d.targets?.map((x: { label: string }) => x.label)).toEqual(["target 0", "named"]);
    const { g: a } = guard({ policy: "advisory", config: { intentParser: { id: "p", parse: async () => t as never } } });
    expect((await a.checkAsync(mutating)).targets?.map((x: { label: string }) => x.label)).toEqual(["target 0", "named"]);
  });
});

describe("observe: options and matching", () => {
  for (const [what, opts, says] of [
    ["options that are not an object", 5, "observe: the options are not an object"],
    ["null options", null, "observe: the options are not an object"],
    ["`failed` that is not a boolean", { failed: "yes" }, "observe: `failed` is not a boolean"],
    ["`execution` that is not a string", { execution: 1 }, "observe: `execution` is not a string"],
    ["another `outcome`", { outcome: "lost" }, "observe: `outcome` is not `\"unknown\"`"],
  ] as const) {
    it(`${what}: invalid-call, nothing observed`, () => {
      const { g } = guard({ policy: "veto" });
      const d = g.check(flights);
      const e = errorOf(() => g.observe(flights, {}, opts as never));
      expect(e.code).toBe("invalid-call");
      expect(e.message).toBe(says);
      expect(g.pending().map((p) => p.execution)).toEqual([d.execution]);
    });
  }

  it("an execution that is not pending, or that approved another call, is refused by name", () => {
    const { g } = guard({ policy: "veto" });
    const d = g.check(flights);
    expect(errorOf(() => g.observe(flights, {}, { execution: "x99" })).message).toBe("observe: execution `x99` is not pending");
    expect(errorOf(() => g.observe(cabin, {}, { execution: d.execution! })).message).toBe(`observe: execution \`${d.execution}\` approved another call (\`update_reservation_flights\`)`);
    g.observe(flights, {}, { execution: d.execution! });
    expect(errorOf(() => g.observe(flights, {}, { execution: d.execution! })).message).toBe(`observe: execution \`${d.execution}\` is not pending`);
  });

  it("a malformed call is refused, saying what is wrong", () => {
    const { g } = guard();
    expect(errorOf(() => g.observe({ name: "x", arguments: [] } as never, {})).message).toMatch(/^observe: /);
  });

  it("without an execution the oldest pending execution of the same call is the one observed", () => {
    const { g } = guard({ policy: "veto", scope: "session" });
    const a = g.check(flights);
    const b = g.check(flights);
    const r = g.observe(flights, {});
    expect(r.execution).toBe(a.execution);
    expect(g.pending().map((p) => p.execution)).toEqual([b.execution]);
    expect(r.sequenceLength).toBe(1);
    // A call never checked is observed without one.
    expect(g.observe(cabin, {}).execution).toBeNull();
  });

  it("`failed: true` releases the execution: out of pending, not in the sequence", () => {
    const { g } = guard({ policy: "veto", scope: "session" });
    const d = g.check(flights);
    expect(g.observe(flights, undefined, { failed: true })).toEqual({ applied: null, sequenceLength: 0, execution: d.execution, unknown: null });
    expect(g.pending()).toEqual([]);
    expect(g.sequence()).toEqual([]);
    // A failed call that was never checked changes nothing either.
    expect(g.observe(cabin, undefined, { failed: true })).toEqual({ applied: null, sequenceLength: 0, execution: null, unknown: null });
  });

  it("an unknown outcome marks what the call acts on; a read-only call is observed as run, unmarked", () => {
    const { g } = guard({ policy: "veto", scope: "session" });
    const d = g.check(flights);
    const r = g.observe(flights, undefined, { outcome: "unknown" });
    expect(r).toEqual({ applied: null, sequenceLength: 1, execution: d.execution, unknown: [{ entity: "reservation", id: "R1", tool: "update_reservation_flights", execution: d.execution }] });
    expect(g.check(cabin).reason).toBe("unknown_state");
    g.markKnown("reservation", "R1");
    expect(g.check(cabin).reason).not.toBe("unknown_state");
    const read = { name: "get_reservation_details", arguments: { reservation_id: "R2" } };
    expect(g.observe(read, undefined, { outcome: "unknown" }).unknown).toBeNull();
    // An unknown tool acts on everything (turn scope: the unknown tool is not in a later forward sequence).
    const { g: t } = guard({ policy: "veto" });
    expect(t.observe({ name: "nuke", arguments: { x: 1 } }, undefined, { outcome: "unknown" }).unknown).toEqual([{ entity: "*", id: null, tool: "nuke", execution: null }]);
    expect(t.check(flights).reason).toBe("unknown_state");
    t.markKnown();
    expect(t.check(flights).reason).toBe("ok");
  });

  it("a result the projection rules cannot project marks the entity; the report says what was skipped", () => {
    const state = airlineState();
    const { g } = guard({ policy: "veto", state, config: { projection: airlineRules } });
    g.check(flights);
    const r = g.observe(flights, "not json at all {");
    expect(r.applied?.matched).toBe(true);
    expect(r.applied?.skipped.length).toBeGreaterThan(0);
    expect(r.unknown).toMatchObject([{ entity: "reservation", id: "R1", tool: "update_reservation_flights" }]);
    expect(g.check(cabin).reason).toBe("unknown_state");
  });

  it("without projection rules nothing is applied; the session records the parsed result and `before`", () => {
    const { g } = guard({ policy: "veto", scope: "session" });
    g.check(flights);
    const r = g.observe(flights, JSON.stringify({ ok: true }));
    expect(r.applied).toBeNull();
    expect(r.unknown).toBeNull();
    const [entry] = g.sequence();
    expect(entry.name).toBe("update_reservation_flights");
    expect(entry.result).toEqual({ ok: true });
    expect((entry.before as Record<string, unknown>).flights).toEqual([{ flight_number: "HAT001", date: "2024-05-20" }]);
    expect(Object.isFrozen(entry.before)).toBe(true);
    // sequence() is a copy: changing it changes nothing in the guard.
    (g.sequence() as unknown[]).length = 0;
    g.sequence()[0].name = "x";
    expect(g.sequence()[0].name).toBe("update_reservation_flights");
  });

  it("a StateView that is not a LayerB: `before` is read slot by slot, and is the guard's own copy", () => {
    const base = airlineState();
    const held = { status: "confirmed", flights: [{ flight_number: "HAT001", date: "2024-05-20" }] };
    const state = {
      hasEntity: (e: string, id: string) => base.hasEntity(e, id),
      slot: (e: string, id: string, s: string) => (e === "reservation" && id === "R1" && s in held ? (held as Record<string, unknown>)[s] : base.slot(e, id, s)),
    };
    const { g } = guard({ policy: "veto", scope: "session", state });
    g.check(flights);
    g.observe(flights, "{}");
    held.flights[0].flight_number = "CHANGED";
    const before = g.sequence()[0].before as Record<string, unknown>;
    expect(before.flights).toEqual([{ flight_number: "HAT001", date: "2024-05-20" }]);
    expect(before.status).toBe("confirmed");
    expect(Object.isFrozen(before.flights)).toBe(true);
  });
});

describe("what a decision holds", () => {
  it("a context error in session scope: no forward sequence is searched or recorded", () => {
    const { g } = guard({ policy: "veto", scope: "session" });
    g.check(flights);
    g.observe(flights, "{}");
    expect(g.check(cabin, {}).forward).toHaveLength(1);
    const d = g.check(cabin, { userMessages: 5 } as never);
    expect(d.reason).toBe("internal_error");
    expect(d.forward).toEqual([]);
  });

  it("the built-in advisory policy passes a malformed call through without a pending execution", () => {
    const { g } = guard({ policy: "advisory" });
    const d = g.check({ name: "update_reservation_flights", arguments: 5 });
    expect(d).toMatchObject({ route: "AdvisoryPassthrough", approved: true, reason: "malformed_call", execution: null });
    expect(g.pending()).toEqual([]);
  });

  it("an open question does not turn a malformed call into an internal error", () => {
    const { g } = guard();
    g.check(certificate, { userMessages: [] });
    expect(g.check({ name: "send_certificate", arguments: 5 }, { userMessages: ["yes"] }).reason).toBe("malformed_call");
  });

  it("question mode records no consentContext; recent-messages records what the answer answered", () => {
    const { g } = guard();
    expect("consentContext" in g.check(certificate, { userMessages: ["yes"] })).toBe(false);
    const { g: r } = guard({ config: { consent: "recent-messages" } });
    const d = r.check(certificate, { messages: [{ role: "assistant", content: "Shall I send the certificate to mia?" }, { role: "user", content: "yes" }] });
    expect(d.consentContext).toEqual({ question: "Shall I send the certificate to mia?", names: expect.arrayContaining(["send_certificate", "mia"]) });
    expect(Object.isFrozen(d.consentContext)).toBe(true);
  });

  it("a decision is frozen all the way down: its call, verdict, steps and their arguments, messages", () => {
    const { g } = guard({ policy: "veto" });
    const d = g.check(flights, { userMessages: ["change my flight"] });
    expect(Object.isFrozen(d)).toBe(true);
    expect(Object.isFrozen(d.call)).toBe(true);
    expect(Object.isFrozen(d.verdict)).toBe(true);
    expect(Object.isFrozen(d.verdict!.steps)).toBe(true);
    expect(Object.isFrozen(d.verdict!.steps[0])).toBe(true);
    expect(Object.isFrozen(d.verdict!.steps[0].arguments)).toBe(true);
    expect(Object.isFrozen((d.verdict!.steps[0].arguments as { flights: unknown[] }).flights)).toBe(true);
    expect(Object.isFrozen((d.verdict!.steps[0].arguments as { flights: object[] }).flights[0])).toBe(true);
    expect(Object.isFrozen(d.verdict!.bottleneck)).toBe(true);
    expect(Object.isFrozen(d.forward)).toBe(true);
    expect(Object.isFrozen(d.userMessages)).toBe(true);
    expect(Object.isFrozen(d.reads)).toBe(true);
  });
});

describe("the engine", () => {
  it("a backend given as an object is kept after a failure (nothing to rebuild from)", () => {
    const real = referenceFactory(airline.tables, airline.blob);
    let fail = true;
    const backend = { kind: "reference", inputView: () => real.inputView(), run: (...a: unknown[]) => { if (fail) throw new Error("boom"); return (real.run as (...x: unknown[]) => unknown)(...a); } };
    const { g } = guard({ policy: "veto", backend: backend as never });
    expect(g.check(flights).reason).toBe("internal_error");
    fail = false;
    expect(g.check(flights).reason).toBe("ok");
  });

  it("a rebuild that fails keeps the backend it had (and the next failure tries again)", () => {
    let built = 0;
    let failRun = true;
    const { g } = guard({
      policy: "veto",
      backend: (t, b) => {
        built++;
        if (built === 2) throw new Error("no memory");
        const real = referenceFactory(t, b);
        return { kind: "reference", inputView: () => real.inputView(), run: (...a: unknown[]) => { if (failRun) throw new Error("trap"); return (real.run as (...x: unknown[]) => unknown)(...a); } } as never;
      },
    });
    expect(g.check(flights).reason).toBe("internal_error");
    expect(built).toBe(2);
    failRun = false;
    // The first backend is still the one in use, and it answers now.
    expect(g.check(flights).reason).toBe("ok");
    expect(built).toBe(2);
    failRun = true;
    expect(g.check(flights).reason).toBe("internal_error");
    expect(built).toBe(3);
  });
});

describe("observe: what is recorded and marked", () => {
  it("the refusals say what would fix them, with their code", () => {
    const { g } = guard({ policy: "veto" });
    const d = g.check(flights);
    expect(errorOf(() => g.observe(flights, {}, { failed: true, outcome: "unknown" })).help).toBe("a call whose outcome is unknown may have changed something: pass only `outcome`");
    expect(errorOf(() => g.observe(flights, {}, { execution: "x9" })).help).toBe("pass the `execution` of an approved decision, once");
    expect(errorOf(() => g.observe(cabin, {}, { execution: d.execution! })).code).toBe("invalid-call");
  });

  it("an unknown outcome marks the instance named by the key argument (a number as text), or every instance when the call names none", () => {
    const { g } = guard({ policy: "veto" });
    expect(g.observe({ name: "update_reservation_flights", arguments: { reservation_id: 5, flights: [] } }, undefined, { outcome: "unknown" }).unknown)
      .toEqual([{ entity: "reservation", id: "5", tool: "update_reservation_flights", execution: null }]);
    expect(g.observe({ name: "update_reservation_flights", arguments: { flights: [] } }, undefined, { outcome: "unknown" }).unknown)
      .toEqual([{ entity: "reservation", id: null, tool: "update_reservation_flights", execution: null }]);
    expect(g.observe({ name: "update_reservation_flights", arguments: { reservation_id: { id: "R1" }, flights: [] } }, undefined, { outcome: "unknown" }).unknown)
      .toEqual([{ entity: "reservation", id: null, tool: "update_reservation_flights", execution: null }]);
  });

  for (const outcome of [undefined, "unknown"] as const) {
    it(`session scope${outcome ? ", unknown outcome" : ""}: the sequence keeps the call's \`before\` (none for a call on no entity), frozen`, () => {
      const { g } = guard({ policy: "veto", scope: "session" });
      g.check(flights);
      g.observe(flights, "{\"ok\":true}", outcome ? { outcome } : {});
      g.observe({ name: "nuke", arguments: { x: 1 } }, "{\"ok\":true}", outcome ? { outcome } : {});
      const [a, b] = g.sequence();
      expect((a.before as Record<string, unknown>).flights).toEqual([{ flight_number: "HAT001", date: "2024-05-20" }]);
      expect("before" in b).toBe(false);
      if (outcome === undefined) {
        expect(a.result).toEqual({ ok: true });
        expect(Object.isFrozen(a.result)).toBe(true);
      } else expect("result" in a).toBe(false);
      const snap = g.snapshot();
      expect(snap.sequence).toHaveLength(2);
    });
  }

  it("a projection that fails: the report says so and what the call acts on is unknown", () => {
    class Broken extends LayerB {
      override replaceEntity(): void {
        throw new Error("disk full");
      }
    }
    const state = new Broken();
    const base = airlineState();
    for (const id of ["R1"]) state.set("reservation", id, "status", base.slot("reservation", id, "status"));
    const { g } = guard({ policy: "advisory", state, config: { projection: airlineRules } });
    const r = g.observe(flights, JSON.stringify({ status: "confirmed" }));
    expect(r.applied).toEqual({ tool: "update_reservation_flights", matched: true, changes: [], skipped: ["the projection failed: Error: disk full"] });
    expect(r.unknown).toEqual([{ entity: "reservation", id: "R1", tool: "update_reservation_flights", execution: null }]);
  });

  it("a read-only call whose result the rules cannot project marks nothing (it changed nothing)", async () => {
    const { parseProjectionRules } = await import("../../src/projection/rules.js");
    const rules = parseProjectionRules({
      format: "polar-projection/1",
      domain: "airline-test",
      entities: { reservation: { fields: "*" } },
      documents: {},
      tools: { get_reservation_details: [{ entity: "reservation", id: "$result.reservation_id", record: "$result" }] },
    });
    const { g } = guard({ policy: "veto", state: airlineState(), config: { projection: rules } });
    const r = g.observe({ name: "get_reservation_details", arguments: { reservation_id: "R1" } }, "{\"status\":1}");
    expect(r.applied?.matched).toBe(true);
    expect(r.applied?.skipped.length).toBeGreaterThan(0);
    expect(r.unknown).toBeNull();
    expect(g.check(flights).reason).toBe("ok");
  });
});

describe("release and pending", () => {
  it("pending lists approved calls not yet observed nor released, in check order, with their seq", () => {
    const { g } = guard({ policy: "veto" });
    const a = g.check(flights);
    g.check(cabin); // vetoed: not pending
    const b = g.check(flights);
    expect(g.pending()).toEqual([
      { execution: a.execution, seq: 1, call: flights },
      { execution: b.execution, seq: 3, call: flights },
    ]);
    expect(g.release(a.execution!)).toBe(true);
    expect(g.release(a.execution!)).toBe(false);
    expect(g.release("x2")).toBe(false);
    expect(g.release(5 as never)).toBe(false);
    expect(g.pending().map((p) => p.execution)).toEqual([b.execution]);
    g.observe(b.call as never, "{}");
    expect(g.release(b.execution!)).toBe(false);
  });

  it("a read-only call approved is never pending", () => {
    const { g } = guard({ policy: "veto" });
    const d = g.check({ name: "get_reservation_details", arguments: { reservation_id: "R1" } });
    expect(d.execution).toBeNull();
    expect(g.pending()).toEqual([]);
  });

  it("checkpoint: the sequence restarts empty; pending executions stay observable", () => {
    const { g } = guard({ policy: "veto", scope: "session" });
    g.check(flights);
    g.observe(flights, "{}");
    const d = g.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } });
    g.checkpoint();
    expect(g.sequence()).toEqual([]);
    expect(g.observe(d.call as never, "{}").execution).toBe(d.execution);
  });
});

describe("a check that fails inside is a vetoed record, never an exception", () => {
  it("a StateView that throws while an earlier call's `before` is read: vetoed internal_error with a refusal, the seq kept, replayable", () => {
    const base = airlineState();
    const state = { hasEntity: (e: string, id: string) => base.hasEntity(e, id), slot: () => { throw new Error("db down"); } };
    const { g, sink } = guard({ policy: "advisory", state });
    const d = g.check(certificate, { turnCalls: [flights] });
    expect(d).toMatchObject({ seq: 1, route: "Vetoed", approved: false, admissible: false, execution: null, reason: "internal_error", verdict: null, targets: null, consent: null, question: null, unknown: null, forward: [], userMessages: [] });
    expect(d.detail).toBe("guard: Error: db down");
    expect(d.refusal).toBe(d.message);
    expect(d.message).toContain("send_certificate");
    expect(d.call).toEqual(certificate);
    expect(d.policy).toBe("advisory");
    expect(g.pending()).toEqual([]);
    expect(g.snapshot().questions).toEqual([]);
    expect(g.check({ name: "get_reservation_details", arguments: { reservation_id: "R1" } }).seq).toBe(2);
    expect(sink.records.map((r) => r.seq)).toEqual([1, 2]);
    // A malformed call that fails inside is refused too.
    const m = g.check({ name: 5, arguments: {} }, { turnCalls: [flights] });
    expect(m).toMatchObject({ route: "Vetoed", reason: "internal_error" });
    expect(m.message).toBeTruthy();
  });
});

describe("the guard's identity", () => {
  it("exposes its resolved options, frozen", () => {
    const state = new LayerB();
    const g = createGuard({ ontology: airline.blob, state, policy: "advisory", scope: "session", config: { tau: 0.9 } });
    expect(g.policy).toBe("advisory");
    expect(g.scope).toBe("session");
    expect(g.state).toBe(state);
    expect(g.tables.tools.length).toBeGreaterThan(0);
    expect(g.config.tau).toBe(0.9);
    expect(Object.isFrozen(g.config)).toBe(true);
    expect(Object.isFrozen(g.config.tiers)).toBe(true);
    expect(g.configHash).toMatch(/^[0-9a-f]{64}$/);
    expect(createGuard({ ontology: airline.blob, state }).scope).toBe("turn");
  });

  it("`{ tables, hash }` as the ontology: the hash is the one given; an empty hash or no tables is refused", () => {
    const tables = airline.tables;
    const g = createGuard({ ontology: { tables, hash: "abc" }, state: airlineState() });
    expect(g.ontologyHash).toBe("abc");
    expect(g.check(flights).ontologyHash).toBe("abc");
    for (const bad of [{ tables, hash: "" }, { tables: null, hash: "abc" }, { tables, hash: 5 }, null, "blob"]) {
      const e = errorOf(() => createGuard({ ontology: bad as never, state: airlineState() }));
      expect(e.code).toBe("invalid-ontology");
      expect(e.message).toBe("`ontology` is neither a blob (Uint8Array) nor `{ tables, hash }`");
    }
  });

  it("each wrong option is refused with its own message, the first problem first", () => {
    const base = { ontology: airline.blob, state: airlineState() };
    const cases: [unknown, string, string][] = [
      [null, "invalid-config", "createGuard needs an options object"],
      ["x", "invalid-config", "createGuard needs an options object"],
      [{ ...base, config: null }, "invalid-config", "`config` is not an object"],
      [{ ...base, config: { sha256: "sha" } }, "invalid-config", "`config.sha256` is not a function"],
      [{ ...base, config: { log: { append: 1 } } }, "invalid-config", "`config.log` is not an AuditSink (an object with `append(decision)`)"],
      [{ ...base, config: { log: null } }, "invalid-config", "`config.log` is not an AuditSink (an object with `append(decision)`)"],
      [{ ...base, config: { projection: null } }, "invalid-config", "`config.projection` is not parsed projection rules"],
      [{ ...base, config: { projection: { tools: new Map(), actions: new Map(), entities: new Map() } } }, "invalid-config", "`config.projection` is not parsed projection rules"],
      [{ ...base, config: { projection: airlineRules }, state: { hasEntity: () => false, slot: () => undefined } }, "invalid-config", "`config.projection` needs `state` to be a LayerB"],
      [{ ...base, config: { intentParser: { id: "p" } } }, "invalid-config", "`config.intentParser` needs an `id` and a `parse` function"],
      [{ ...base, config: { intentParser: null } }, "invalid-config", "`config.intentParser` needs an `id` and a `parse` function"],
      [{ ...base, config: { requestClassifier: { classify: () => null } } }, "invalid-config", "`config.requestClassifier` needs an `id` and a `classify` function"],
      [{ ...base, config: { consentDetector: { id: "d" } } }, "invalid-config", "`consentDetector` needs an `id` and a `detect` function"],
      [{ ...base, config: { consentDetector: { detect: () => ({ consent: false }) } } }, "invalid-config", "`consentDetector` needs an `id` and a `detect` function"],
      [{ ...base, state: null }, "invalid-state", "`state` is not a StateView (hasEntity, slot)"],
      [{ ...base, state: { hasEntity: () => false } }, "invalid-state", "`state` is not a StateView (hasEntity, slot)"],
      [{ ...base, state: { slot: () => undefined } }, "invalid-state", "`state` is not a StateView (hasEntity, slot)"],
      [{ ...base, policy: "lenient" }, "invalid-config", "unknown policy `lenient`"],
      [{ ...base, scope: "forever" }, "invalid-config", "unknown scope `forever`"],
      [{ ...base, backend: { run: () => null } }, "invalid-backend", "`backend` is neither a SearchBackend nor a factory"],
      [{ ...base, backend: { inputView: () => null } }, "invalid-backend", "`backend` is neither a SearchBackend nor a factory"],
      [{ ...base, backend: () => ({ run: () => null }) }, "invalid-backend", "the backend factory did not return a SearchBackend"],
      [{ ...base, backend: () => null }, "invalid-backend", "the backend factory did not return a SearchBackend"],
      [{ ...base, backend: () => 42 }, "invalid-backend", "the backend factory did not return a SearchBackend"],
      [{ ...base, backend: () => { throw new Error("no wasm"); } }, "invalid-backend", "the backend could not be built: Error: no wasm"],
      // Two problems: the first in the fixed order is the error.
      [{ ...base, policy: "lenient", scope: "forever" }, "invalid-config", "unknown policy `lenient`"],
      [{ ontology: "blob", state: null }, "invalid-ontology", "`ontology` is neither a blob (Uint8Array) nor `{ tables, hash }`"],
    ];
    for (const [options, code, message] of cases) {
      const e = errorOf(() => createGuard(options as never));
      expect([e.code, e.message]).toEqual([code, message]);
    }
    // Shapes that only a type test tells apart: a function carrying the right methods is not the object asked for.
    const fn = <T extends object>(props: T) => Object.assign(() => {}, props);
    for (const [options, message] of [
      [{ ...base, state: fn({ hasEntity: () => false, slot: () => undefined }) }, "`state` is not a StateView (hasEntity, slot)"],
      [{ ...base, config: { log: fn({ append: () => {} }) } }, "`config.log` is not an AuditSink (an object with `append(decision)`)"],
      [{ ...base, config: { requestClassifier: fn({ id: "c", classify: () => null }) } }, "`config.requestClassifier` needs an `id` and a `classify` function"],
      [{ ...base, ontology: { tables: 5, hash: "abc" } }, "`ontology` is neither a blob (Uint8Array) nor `{ tables, hash }`"],
    ] as const) {
      expect(errorOf(() => createGuard(options as never)).message).toBe(message);
    }
    // Each refusal says what would fix it.
    const help = (options: unknown) => errorOf(() => createGuard(options as never)).help;
    expect(help({ ...base, config: { projection: airlineRules }, state: { hasEntity: () => false, slot: () => undefined } })).toBe("observe() applies tool results to a LayerB");
    expect(help({ ...base, policy: "lenient" })).toBe("use veto, escalate, advisory or a DecisionPolicy");
    expect(help({ ...base, policy: { name: "veto", decide: () => ({ route: "Approved", message: null, consent: null }) } })).toBe("the built-in policies' names are veto, escalate and advisory; the audit replay looks policies up by name");
    expect(help({ ...base, scope: "forever" })).toBe("use turn or session");
    expect(help({ ...base, config: { log: 5 } })).toBe("use `createJsonlSink(write)` or `createMemorySink()`");
    expect(help({ ...base, config: { projection: {} } })).toBe("pass `parseProjectionRules(json)`, not the JSON itself");
    const corrupt = airline.blob.slice();
    corrupt[corrupt.length - 3] ^= 0xff;
    const blobError = errorOf(() => createGuard({ ...base, ontology: corrupt }));
    expect(blobError.help).toBe("compile the ontology again with `polar compile`");
    expect(blobError.cause).toBeInstanceOf(Error);
    expect(blobError.message).toBe("the ontology blob is refused: digest-mismatch: blob digest does not match its contents");
    // The injected SHA-256 checks the blob's own digest too: a wrong one refuses the blob.
    expect(errorOf(() => createGuard({ ...base, config: { sha256: () => new Uint8Array(32) } })).code).toBe("invalid-ontology");
    // A factory that throws: its error is the cause.
    const thrown = new Error("no wasm");
    expect(errorOf(() => createGuard({ ...base, backend: () => { throw thrown; } })).cause).toBe(thrown);
    // A custom policy is accepted; unknown options name every known key.
    const e = errorOf(() => createGuard({ ...base, polcy: "x" } as never));
    expect(e.help).toBe("the options are ontology, backend, state, policy, scope, config, resume");
    const c = errorOf(() => createGuard({ ...base, config: { threshold: 1 } } as never));
    expect(c.message).toBe("unknown option `config.threshold`");
    expect(c.help).toContain("tau, tiers, failClosed, now, maxDepth, maxNodes, maxAmount, consent, consentDetector, projection, requestClassifier, intentParser, log, sha256, env");
  });

  it("safeCreateGuard: the guard, or the typed error; anything else thrown becomes invalid-config with its cause", () => {
    const ok = safeCreateGuard({ ontology: airline.blob, state: airlineState() });
    expect(ok.ok).toBe(true);
    expect(ok.ok && typeof ok.guard.check).toBe("function");
    const bad = safeCreateGuard({ ontology: airline.blob, state: null } as never);
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid-state" } });
    const trap = new Error("trap");
    const hostile = new Proxy({}, { ownKeys: () => { throw trap; } });
    const r = safeCreateGuard(hostile as never);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toBeInstanceOf(GuardError);
      expect(r.error.code).toBe("invalid-config");
      expect(r.error.message).toBe("Error: trap");
      expect(r.error.cause).toBe(trap);
    }
  });

  it("every documented config key is accepted", () => {
    const g = createGuard({
      ontology: airline.blob,
      state: new LayerB(),
      config: {
        tau: 0.8, tiers: ["T1"], failClosed: true, now: NOW, maxDepth: 4, maxNodes: 1000, maxAmount: 10, consent: "question",
        consentDetector: { id: "d", detect: () => ({ consent: false, message: null, evidence: null }) as never },
        projection: airlineRules, requestClassifier: { id: "c", classify: () => null as never }, intentParser: { id: "p", parse: () => null as never },
        log: createMemorySink(), sha256: undefined, env: () => undefined,
      },
    });
    expect(g.config.maxDepth).toBe(4);
    expect(g.config.consentDetector).toBe("d");
    expect(g.config.requestClassifier).toBe("c");
    expect(g.config.intentParser).toBe("p");
  });

  it("without components the effective config names none; a backend object (not a factory) is used as given", () => {
    const calls: string[] = [];
    const real = referenceFactory(airline.tables, airline.blob);
    const backend = { kind: real.kind, inputView: () => real.inputView(), run: (...a: unknown[]) => (calls.push("run"), (real.run as (...x: unknown[]) => unknown)(...a)) } as never;
    const g = createGuard({ ontology: airline.blob, state: airlineState(), backend, config: { now: NOW } });
    expect(g.config.requestClassifier).toBeNull();
    expect(g.config.intentParser).toBeNull();
    expect(g.check(flights).route).toBe("Approved");
    expect(calls.length).toBeGreaterThan(0);
  });
});
