// wrapTools (src/guard/wrap.ts): a guard in front of a map of tool functions. What a wrapped tool returns
// instead of running, what it hands the hooks, how each result is observed as the execution its check
// approved (whatever order parallel calls finish in), and what a tool that throws leaves behind. The
// guard's side of each path: session.test.ts, lifecycle.test.ts; arguments that change after the
// check: test/fuzz/guard-wrap.test.ts.
import { describe, expect, it } from "vitest";
import { changedNothing, createGuard, isGuardRefusal, NothingChangedError, wrapTools, type Decision, type ObserveReport } from "../../src/guard/index.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "./helpers.js";

const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };

function guard(policy: "veto" | "escalate" | "advisory" = "veto") {
  const state = airlineState();
  return { state, g: createGuard({ ontology: airline.blob, backend: referenceFactory, state, scope: "session", policy, config: { now: NOW, projection: airlineRules } }) };
}

/** A promise and the function that settles it. */
function later<T>(): { promise: Promise<T>; settle: (v: T) => void } {
  let settle!: (v: T) => void;
  return { promise: new Promise<T>((r) => (settle = r)), settle };
}

describe("what a wrapped tool answers", () => {
  it("a call that may not run: the route, the message, the reason and the decision's seq, and the tool does not run", async () => {
    const { g } = guard("escalate");
    let ran = 0;
    const decisions: Decision[] = [];
    const tools = wrapTools(g, { send_certificate: () => void ran++ }, { onDecision: (d) => decisions.push(d) });
    const out = await tools.send_certificate({ user_id: "mia" });
    expect(out).toEqual({ polar: "ConsentEscalated", message: decisions[0].message, reason: decisions[0].reason, seq: decisions[0].seq });
    expect(typeof (out as { message: unknown }).message).toBe("string");
    expect(decisions[0].seq).toBeGreaterThan(0);
    expect(ran).toBe(0);
  });

  it("the context is read when the call arrives, for each call", async () => {
    const { g } = guard("escalate");
    const messages: string[] = [];
    const tools = wrapTools(g, { send_certificate: () => "sent" }, { context: () => ({ userMessages: [...messages] }) });
    expect(isGuardRefusal(await tools.send_certificate({ user_id: "mia" }))).toBe(true);
    messages.push("yes, send it");
    expect(await tools.send_certificate({ user_id: "mia" })).toBe("sent");
  });

  it("a call that runs: the tool's own result, observed as the execution the check approved, each hook told", async () => {
    const { g, state } = guard();
    const seen: [ObserveReport, Decision][] = [];
    const decisions: Decision[] = [];
    const tools = wrapTools(g, { update_reservation_flights: () => JSON.stringify({ ...state.entity("reservation", "R1"), flights: flights.arguments.flights }) }, { onDecision: (d) => decisions.push(d), onObserve: (r, d) => seen.push([r, d]) });
    const out = await tools.update_reservation_flights(flights.arguments);
    expect(JSON.parse(out as string)).toMatchObject({ flights: flights.arguments.flights });
    expect(seen).toHaveLength(1);
    expect(seen[0][1]).toBe(decisions[0]);
    expect(seen[0][0]).toMatchObject({ execution: decisions[0].execution, sequenceLength: 1, unknown: null });
    expect(state.slot("reservation", "R1", "flights")).toEqual(flights.arguments.flights);
    expect(g.pending()).toEqual([]);
  });

  it("parallel calls finishing in the other order are each observed as their own execution", async () => {
    // Advisory: the same call twice, both let through while the first is pending.
    const { g } = guard("advisory");
    const gates = [later<string>(), later<string>()];
    let n = 0;
    const reports: ObserveReport[] = [];
    const decisions: Decision[] = [];
    const tools = wrapTools(g, { update_reservation_flights: () => gates[n++].promise }, { onDecision: (d) => decisions.push(d), onObserve: (r) => reports.push(r) });
    const first = tools.update_reservation_flights(flights.arguments);
    const second = tools.update_reservation_flights(flights.arguments);
    await new Promise((r) => setTimeout(r, 0));
    expect(decisions.map((d) => d.approved)).toEqual([true, true]);
    gates[1].settle("second");
    expect(await second).toBe("second");
    gates[0].settle("first");
    expect(await first).toBe("first");
    expect(reports.map((r) => r.execution)).toEqual([decisions[1].execution, decisions[0].execution]);
  });
});

describe("a tool that throws", () => {
  it("with an error that says it changed nothing: the call is released, the error rethrown as it is", async () => {
    const { g } = guard();
    const reports: ObserveReport[] = [];
    const decisions: Decision[] = [];
    const error = new NothingChangedError("the flight is not offered", { cause: "fare rules" });
    const tools = wrapTools(g, { update_reservation_flights: () => { throw error; } }, { onDecision: (d) => decisions.push(d), onObserve: (r) => reports.push(r) });
    await expect(tools.update_reservation_flights(flights.arguments)).rejects.toBe(error);
    expect(reports).toEqual([{ applied: null, sequenceLength: 0, execution: decisions[0].execution, unknown: null }]);
    expect(g.pending()).toEqual([]);
  });

  it("with any other error: kept in the sequence with an unknown outcome, what it acts on unknown, the error rethrown", async () => {
    const { g } = guard();
    const reports: ObserveReport[] = [];
    const decisions: Decision[] = [];
    const error = new Error("timed out after the write");
    const tools = wrapTools(g, { update_reservation_flights: async () => { throw error; } }, { onDecision: (d) => decisions.push(d), onObserve: (r) => reports.push(r) });
    await expect(tools.update_reservation_flights(flights.arguments)).rejects.toBe(error);
    expect(reports).toEqual([{ applied: null, sequenceLength: 1, execution: decisions[0].execution, unknown: [{ entity: "reservation", id: "R1", tool: "update_reservation_flights", execution: decisions[0].execution }] }]);
    expect(g.check(flights).reason).toBe("unknown_state");
  });

  it("without hooks: the tool's own error, not one of the wrapper's", async () => {
    const { g } = guard();
    const tools = wrapTools(g, { update_reservation_flights: () => { throw new Error("down"); } });
    await expect(tools.update_reservation_flights(flights.arguments)).rejects.toThrow(/^down$/u);
  });
});

describe("the errors and answers a host tells apart", () => {
  it("NothingChangedError says it changed nothing, keeps its cause, and is named", () => {
    const e = new NothingChangedError("invalid flight", { cause: 42 });
    expect([e.name, e.message, e.cause, e.changedNothing, e instanceof Error]).toEqual(["NothingChangedError", "invalid flight", 42, true, true]);
  });

  it("changedNothing: only an own `changedNothing: true`", () => {
    expect(changedNothing(new NothingChangedError("x"))).toBe(true);
    expect(changedNothing({ changedNothing: true })).toBe(true);
    for (const e of [new Error("x"), { changedNothing: "true" }, { changedNothing: 1 }, null, undefined, "changedNothing", true]) expect(changedNothing(e)).toBe(false);
  });

  it("isGuardRefusal: an object with a string route and a string message", () => {
    expect(isGuardRefusal({ polar: "Vetoed", message: "" })).toBe(true);
    for (const x of [null, undefined, "Vetoed", { polar: "Vetoed" }, { message: "m" }, { polar: 1, message: "m" }, { polar: "Vetoed", message: null }]) expect(isGuardRefusal(x)).toBe(false);
  });
});
