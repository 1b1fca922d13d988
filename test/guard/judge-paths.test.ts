// What a check records and leaves behind, through createGuard, on the paths of src/guard/judge.ts the
// other suites pass by: the turn's earlier calls as the record keeps them (frozen, their own `before`,
// none where there is no snapshot, the depth bound counting only what may change state), a question left
// open by a check that failed in between, the help of async-required, and the fallback record's
// refusal when judging itself fails.
import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/guard/index.js";
import type { GuardError } from "../../src/guard/errors.js";
import { airline, airlineState, NOW, referenceFactory } from "./helpers.js";

type Options = Parameters<typeof createGuard>[0];
const guard = (over: Partial<Options> = {}, config: Record<string, unknown> = {}) =>
  createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), ...over, config: { now: NOW, ...config } } as Options);

const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const certificate = { name: "send_certificate", arguments: { user_id: "mia", amount: 50 } };
const cancelR2 = { name: "cancel_reservation", arguments: { reservation_id: "R2" } };
const detailsR1 = { name: "get_reservation_details", arguments: { reservation_id: "R1" } };

describe("the turn's earlier calls in the record", () => {
  it("are the guard's frozen copies all the way down, each with its entity as it was", () => {
    const turn = { name: "update_reservation_flights", arguments: { reservation_id: "R2", flights: [{ flight_number: "HAT001", date: "2024-05-20" }] } };
    const d = guard().check(flights, { turnCalls: [turn] });
    const f = d.forward[0] as { name: string; arguments: { flights: object[] }; before?: Record<string, unknown> };
    expect(f.name).toBe("update_reservation_flights");
    expect(f.arguments).toEqual(turn.arguments);
    expect(f.arguments).not.toBe(turn.arguments);
    expect(Object.isFrozen(f)).toBe(true);
    expect(Object.isFrozen(f.arguments)).toBe(true);
    expect(Object.isFrozen(f.arguments.flights)).toBe(true);
    expect(Object.isFrozen(f.arguments.flights[0])).toBe(true);
    expect(f.before).toMatchObject({ status: "confirmed" });
    expect(Object.isFrozen(turn.arguments)).toBe(false);
  });

  it("a call that comes with its own `before` keeps it (the state now is not read for it)", () => {
    const before = { status: "confirmed", flights: [{ flight_number: "HAT777", date: "2024-05-19" }], cabin: "economy", user_id: "mia" };
    const state = airlineState();
    state.set("reservation", "R2", "status", "cancelled");
    const d = guard({ state }).check(flights, { turnCalls: [{ ...cancelR2, before }] } as never);
    expect((d.forward[0] as { before: unknown }).before).toEqual(before);
  });

  it("a call without a snapshot (read-only, or naming no entity) has no `before` key at all", () => {
    const d = guard().check(flights, { turnCalls: [detailsR1, { name: "cancel_reservation", arguments: {} }] });
    expect(d.forward.map((c) => Object.keys(c as object))).toEqual([["name", "arguments"], ["name", "arguments"]]);
  });

  it("the depth bound counts the calls that may change state: a read-only call between them is kept, not counted", () => {
    const d = guard({}, { maxDepth: 1 }).check(flights, { turnCalls: [cancelR2, detailsR1] });
    expect(d.forward.map((c) => (c as { name: string }).name)).toEqual(["cancel_reservation", "get_reservation_details"]);
    // An unknown tool may change state: it counts (so the bound keeps it, and what came before it goes).
    const u = guard({}, { maxDepth: 1 }).check(flights, { turnCalls: [cancelR2, { name: "wipe_everything", arguments: {} }] });
    expect(u.forward.map((c) => (c as { name: string }).name)).toEqual(["wipe_everything"]);
    // So does a call that is not one at all (fail closed: it is refused, never bounded away).
    const m = guard({}, { maxDepth: 1 }).check(flights, { turnCalls: [cancelR2, { name: 5, arguments: {} }] } as never);
    expect(m.forward).toEqual([{ name: 5, arguments: {} }]);
    expect(m).toMatchObject({ approved: false, reason: "malformed_call", detail: "forward call 0 has no tool name (`name` is not a non-empty string)" });
  });

  it("a turn call that is not an object is refused as malformed, not as an internal failure", () => {
    const d = guard().check(flights, { turnCalls: [null] } as never);
    expect(d).toMatchObject({ route: "Vetoed", approved: false, reason: "malformed_call", detail: "forward call 0 is not an object" });
    expect(d.forward).toEqual([null]);
  });
});

describe("the consent book across checks (question mode)", () => {
  it("a check that fails in between (a malformed context) leaves the question open: the user's yes after it approves", () => {
    const g = guard({ policy: "escalate" });
    expect(g.check(certificate, { userMessages: ["send it"] }).route).toBe("ConsentEscalated");
    expect(g.check(certificate, { userMessages: 5 } as never)).toMatchObject({ route: "Vetoed", reason: "internal_error" });
    expect(g.snapshot().questions).toHaveLength(1);
    expect(g.check(certificate, { userMessages: ["send it", "yes, go ahead"] })).toMatchObject({ route: "ConsentApproved", approved: true });
    expect(g.snapshot().questions).toEqual([]);
  });
});

describe("a check that cannot be made synchronously", () => {
  it("async-required says what to call instead", () => {
    const g = guard({}, { intentParser: { id: "p", parse: async () => [] } });
    let e: GuardError | undefined;
    try {
      g.check(flights);
    } catch (x) {
      e = x as GuardError;
    }
    expect(e).toMatchObject({ code: "async-required", message: "the request classifier or intent parser is asynchronous", help: "use `guard.checkAsync(call, context)`" });
  });
});

describe("the record of a check that failed inside", () => {
  // A StateView that throws while an earlier call's `before` is read (turn scope), outside the evaluation.
  const failing = () => {
    const base = airlineState();
    return { hasEntity: (e: string, id: string) => base.hasEntity(e, id), slot: () => { throw new Error("db down"); } };
  };

  it("refuses in the guard's words, naming the call, with nothing read and no model answer", () => {
    const d = guard({ state: failing() }).check(certificate, { turnCalls: [flights] });
    expect(d).toMatchObject({ route: "Vetoed", reason: "internal_error", detail: "guard: Error: db down", reads: [], classification: null, userMessages: [], forward: [] });
    expect(d.message).toBe("I can't run `send_certificate`: the reversibility check failed (reason `internal_error`).");
    expect(d.refusal).toBe(d.message);
  });

  it("a malformed call's fallback names no tool", () => {
    const d = guard({ state: failing() }).check({ name: "", arguments: {} }, { turnCalls: [flights] });
    expect(d).toMatchObject({ route: "Vetoed", reason: "internal_error" });
    expect(d.message).toBe("I can't run ``: the reversibility check failed (reason `internal_error`).");
  });
});
