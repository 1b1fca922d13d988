// A call's life in the guard (src/guard/lifecycle.ts): checked → approved and pending → observed or
// released → committed, keyed by execution id. Each block is the regression test of one class of
// issue 11 (parallel calls, barriers by execution, unknown state, frozen decisions, bounded records).
import { describe, expect, it } from "vitest";
import { changedNothing, createGuard, GuardError, NothingChangedError, wrapTools, type Decision, type GuardOptions, type ObserveReport } from "../../src/guard/index.js";
import { createMemorySink, verifyAuditLog } from "../../src/audit/index.js";
import type { StateView } from "../../src/core/types.js";
import { UnknownMarks } from "../../src/guard/unknown.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory, wasmFactory } from "./helpers.js";

const updateFlights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const cancel = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };
const certificate = { name: "send_certificate", arguments: { user_id: "mia" } };

function guard(over: Partial<GuardOptions> = {}) {
  const state = airlineState();
  const sink = createMemorySink();
  const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state, scope: "session", config: { now: NOW, projection: airlineRules, log: sink }, ...over });
  return { g, state, sink };
}

function flightsResult(state: ReturnType<typeof airlineState>): string {
  return JSON.stringify({ ...state.entity("reservation", "R1"), flights: updateFlights.arguments.flights });
}

for (const [label, factory] of [["reference", referenceFactory], ["wasm", wasmFactory]] as const) {
  describe(`parallel calls (${label})`, () => {
    for (const scope of ["session", "turn"] as const) {
      it(`${scope} scope: a call checked before an earlier approved one is observed is judged with it pending`, () => {
        const { g, sink } = guard({ backend: factory, scope });
        const a = g.check(updateFlights);
        expect(a).toMatchObject({ route: "Approved", execution: `x${a.seq}` });
        expect(g.pending()).toEqual([{ execution: a.execution, seq: a.seq, call: updateFlights }]);
        const b = g.check(cancel);
        expect(b).toMatchObject({ route: "Vetoed", reason: "overlap_conflict", execution: null });
        expect(b.forward).toEqual([{ ...updateFlights, before: expect.objectContaining({ status: "confirmed" }), pending: true }]);
        // Released (it did not run): the cancel alone is fine.
        expect(g.release(a.execution!)).toBe(true);
        expect(g.release(a.execution!)).toBe(false);
        expect(g.check(cancel)).toMatchObject({ route: "Approved", reason: "ok" });
        expect(verifyAuditLog(sink.lines(), { ontologies: [airline.blob] }).mismatches).toEqual([]);
      });
    }

    it("wrapTools with Promise.all refuses the cancel exactly as the sequential run does", async () => {
      for (const parallel of [false, true]) {
        const { g, state } = guard({ backend: factory });
        const ran: string[] = [];
        const tools = wrapTools(g, {
          update_reservation_flights: async () => {
            ran.push("update");
            return flightsResult(state);
          },
          cancel_reservation: async () => {
            ran.push("cancel");
            return JSON.stringify({ ...state.entity("reservation", "R1"), status: "cancelled" });
          },
        });
        const results = parallel
          ? await Promise.all([tools.update_reservation_flights(updateFlights.arguments), tools.cancel_reservation(cancel.arguments)])
          : [await tools.update_reservation_flights(updateFlights.arguments), await tools.cancel_reservation(cancel.arguments)];
        expect(results[1]).toMatchObject({ polar: "Vetoed", reason: "overlap_conflict" });
        expect(ran).toEqual(["update"]);
        expect(g.pending()).toEqual([]);
        expect(g.sequence()).toHaveLength(1);
      }
    });
  });
}

describe("executions", () => {
  it("observe finds the execution by id or by call; a wrong or spent id is a typed error", () => {
    const { g, state } = guard();
    const a = g.check(updateFlights);
    expect(() => g.observe(cancel, "{}", { execution: a.execution! })).toThrow(GuardError);
    expect(() => g.observe(updateFlights, "{}", { execution: "x999" })).toThrow(/not pending/u);
    const report = g.observe(updateFlights, flightsResult(state), { execution: a.execution! });
    expect(report).toMatchObject({ execution: a.execution, sequenceLength: 1, unknown: null });
    expect(() => g.observe(updateFlights, "{}", { execution: a.execution! })).toThrow(GuardError);
    // Without an id, the oldest pending execution of the same call (in any key order).
    const b = g.check({ name: "update_reservation_flights", arguments: { flights: updateFlights.arguments.flights, reservation_id: "R1" } });
    expect(g.observe(updateFlights, flightsResult(state)).execution).toBe(b.execution);
    expect(g.pending()).toEqual([]);
  });

  it("a failed run releases the execution; a checkpoint commits pending ones, which still update Layer B", () => {
    const { g, state } = guard();
    const a = g.check(updateFlights);
    expect(g.observe(updateFlights, "boom", { failed: true }).execution).toBe(a.execution);
    expect(g.pending()).toEqual([]);
    const b = g.check(updateFlights);
    g.checkpoint();
    expect(g.pending()).toEqual([]);
    expect(g.check(cancel).forward).toEqual([]);
    g.release(`x${b.seq + 1}`);
    g.observe(updateFlights, flightsResult(state), { execution: b.execution! });
    expect(state.slot("reservation", "R1", "flights")).toEqual(updateFlights.arguments.flights);
    expect(g.sequence()).toEqual([]); // committed before it was observed: it does not rejoin the sequence
  });

  it("an unadmitted call commits what was checked before it, not what was checked after it", () => {
    const { g, state } = guard({ policy: "advisory" });
    const a = g.check(updateFlights);
    const sent = g.check(certificate);
    expect(sent).toMatchObject({ route: "AdvisoryPassthrough", admissible: false });
    const later = g.check({ name: "update_reservation_cabin", arguments: { reservation_id: "R2", cabin: "economy" } });
    g.observe(certificate, "sent", { execution: sent.execution! });
    // updateFlights (checked before the certificate) is committed; the cabin change (after) is not.
    g.observe(updateFlights, flightsResult(state), { execution: a.execution! });
    expect(g.sequence()).toEqual([]);
    expect(g.check(cancel).forward).toEqual([expect.objectContaining({ name: "update_reservation_cabin", pending: true })]);
    expect(later.execution).not.toBeNull();
  });
});

describe("barriers belong to executions, not call texts", () => {
  it("turn scope: an admitted re-run of a call that once ran unadmitted does not truncate the forward sequence", () => {
    const state = airlineState();
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state, scope: "turn", policy: "escalate", config: { now: NOW } });
    // First message: after an earlier email, the flight change is inadmissible; the user consents.
    const asked = g.check(updateFlights, { turnCalls: [certificate], userMessages: ["change my flight"] });
    expect(asked.route).toBe("ConsentEscalated");
    const yes = g.check(updateFlights, { turnCalls: [certificate], userMessages: ["change my flight", "yes"] });
    expect(yes).toMatchObject({ route: "ConsentApproved", admissible: false });
    g.observe(updateFlights, "ok", { execution: yes.execution! });
    // A later message runs the same call again, admitted this time, then cancels.
    const rerun = g.check(updateFlights);
    expect(rerun).toMatchObject({ route: "Approved", admissible: true });
    g.observe(updateFlights, "ok", { execution: rerun.execution! });
    const c = g.check(cancel, { turnCalls: [updateFlights] });
    expect(c.forward).toHaveLength(1);
    expect(c.reason).toBe("overlap_conflict");
    // The same in session scope.
    const s = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), scope: "session", config: { now: NOW } });
    s.observe(updateFlights, "ok", { execution: s.check(updateFlights).execution! });
    expect(s.check(cancel).reason).toBe("overlap_conflict");
  });
});

describe("a result the projection could not use", () => {
  it("makes the entity unknown: a later decision on it fails closed (recorded, replayable) until markKnown", async () => {
    const { g, state, sink } = guard({ policy: "escalate" });
    const reports: ObserveReport[] = [];
    const tools = wrapTools(
      g,
      {
        cancel_reservation: async () => "Reservation R1 cancelled.",
        update_reservation_flights: async () => flightsResult(state),
      },
      { onObserve: (r) => reports.push(r) },
    );
    expect(await tools.cancel_reservation(cancel.arguments)).toBe("Reservation R1 cancelled.");
    expect(reports[0].unknown).toEqual([{ entity: "reservation", id: "R1", tool: "cancel_reservation", execution: "x1" }]);
    expect(reports[0].applied?.skipped[0]).toContain("`record` is not an object");
    expect(state.slot("reservation", "R1", "status")).toBe("confirmed"); // stale: the cancel did run
    const d = g.check(updateFlights);
    expect(d).toMatchObject({ route: "Vetoed", approved: false, reason: "unknown_state", unknown: [{ entity: "reservation", id: "R1" }] });
    expect(d.detail).toContain("`reservation` `R1` is unknown");
    expect(d.message).toContain("unknown_state");
    expect(await tools.update_reservation_flights(updateFlights.arguments)).toMatchObject({ polar: "Vetoed", reason: "unknown_state" });
    expect(verifyAuditLog(sink.lines(), { ontologies: [airline.blob] }).mismatches).toEqual([]);
    // A call that reads nothing of R1 is judged as before once the cancel leaves the sequence.
    g.checkpoint();
    expect(g.check({ name: "update_reservation_cabin", arguments: { reservation_id: "R2", cabin: "business" } }).unknown).toBeNull();
    // Re-read: the host projected the state again.
    state.set("reservation", "R1", "status", "cancelled");
    g.markKnown("reservation", "R1");
    expect(g.check(updateFlights)).toMatchObject({ reason: "bound_violated", unknown: null });
  });

  it("a booking whose result is unusable makes its user unknown to every decision that reads it", () => {
    const { g } = guard({ policy: "advisory" });
    const book = { name: "book_reservation", arguments: { user_id: "mia", flights: [], cabin: "economy" } };
    g.observe(book, "booked!", { execution: g.check(book).execution! });
    const d = g.check(updateFlights);
    expect(d).toMatchObject({ route: "AdvisoryPassthrough", reason: "unknown_state" });
    expect(g.check({ name: "get_reservation_details", arguments: { reservation_id: "R1" } }).route).toBe("Approved");
    g.markKnown();
    g.checkpoint();
    expect(g.check(updateFlights).reason).toBe("ok");
  });

  it("a mark that names no entity (a creating tool without acts_on) is hit by every mutating decision", () => {
    const marks = new UnknownMarks();
    marks.mark({ entity: "*", id: null, tool: "book", execution: null });
    expect(UnknownMarks.hits(marks.list()!, [], [])).toHaveLength(1);
    marks.clear("reservation", "R1");
    expect(marks.empty).toBe(false);
    marks.clear();
    expect(marks.list()).toBeNull();
  });
});

describe("turn scope: an earlier call of the message not observed yet", () => {
  it("is in the record with its `before` frozen too (found by the adapter-ids fuzz target)", () => {
    const { g } = guard({ scope: "turn" });
    const d = g.check(cancel, { turnCalls: [updateFlights] });
    expect(d.forward[0]).toMatchObject({ name: "update_reservation_flights" });
    expect(Object.isFrozen((d.forward[0] as { before?: object }).before)).toBe(true);
  });
});

describe("a failure with an unknown outcome (issue 21, item 8)", () => {
  it("observe with `outcome: unknown` keeps the call in the sequence and marks what it acts on unknown", () => {
    const { g, state, sink } = guard();
    const a = g.check(updateFlights);
    const report = g.observe(updateFlights, undefined, { outcome: "unknown", execution: a.execution! });
    expect(report).toMatchObject({ applied: null, execution: a.execution, unknown: [{ entity: "reservation", id: "R1", tool: "update_reservation_flights", execution: a.execution }] });
    expect(g.pending()).toEqual([]);
    expect(g.sequence()).toHaveLength(1);
    // Layer B still says the old flights; π would restore them over whatever the tool wrote.
    expect(state.slot("reservation", "R1", "flights")).not.toEqual(updateFlights.arguments.flights);
    expect(g.check(updateFlights)).toMatchObject({ approved: false, reason: "unknown_state" });
    expect(g.check(cancel)).toMatchObject({ approved: false, reason: "unknown_state" });
    expect(verifyAuditLog(sink.lines(), { ontologies: [airline.blob] }).mismatches).toEqual([]);
    g.markKnown("reservation", "R1");
    expect(g.check(cancel).reason).not.toBe("unknown_state");
  });

  it("refuses an outcome it does not know and `failed` together with `unknown`", () => {
    const { g } = guard();
    const a = g.check(updateFlights);
    expect(() => g.observe(updateFlights, undefined, { outcome: "lost" as never, execution: a.execution! })).toThrow(GuardError);
    expect(() => g.observe(updateFlights, undefined, { outcome: "unknown", failed: true, execution: a.execution! })).toThrow(/both/);
    expect(g.pending()).toHaveLength(1);
  });

  it("wrapTools: a tool that throws after writing marks the entity unknown; NothingChangedError releases", async () => {
    const { g } = guard();
    const reports: ObserveReport[] = [];
    let fail: Error = new Error("timed out after the write");
    const tools = wrapTools(g, { update_reservation_flights: async () => { throw fail; }, cancel_reservation: async () => "ok" }, { onObserve: (r) => reports.push(r) });
    fail = new NothingChangedError("the flight number is not valid");
    await expect(tools.update_reservation_flights(updateFlights.arguments)).rejects.toThrow("not valid");
    expect(reports[0]).toMatchObject({ unknown: null });
    expect(g.pending()).toEqual([]);
    expect(g.sequence()).toEqual([]);
    expect(g.check(cancel).reason).toBe("ok");
    g.release(g.pending()[0].execution);
    fail = new Error("timed out after the write");
    await expect(tools.update_reservation_flights(updateFlights.arguments)).rejects.toThrow("timed out");
    expect(reports[1].unknown).toEqual([expect.objectContaining({ entity: "reservation", id: "R1" })]);
    expect(await tools.cancel_reservation(cancel.arguments)).toMatchObject({ polar: "Vetoed", reason: "unknown_state" });
    expect(changedNothing({ changedNothing: true })).toBe(true);
    expect(changedNothing({ changedNothing: "yes" })).toBe(false);
  });
});

describe("a decision owns its data", () => {
  it("is frozen all the way down and shares nothing with Layer B, the sequence or the log", () => {
    const { g, state, sink } = guard();
    const a = g.check(updateFlights);
    g.observe(updateFlights, flightsResult(state), { execution: a.execution! });
    const d = g.check(updateFlights) as Decision;
    g.release(d.execution!);
    const step = d.verdict!.steps[d.verdict!.steps.length - 1];
    expect(() => {
      (step.arguments as Record<string, unknown>).flights = [];
    }).toThrow(TypeError);
    expect(() => (d.reads as unknown[]).push(["x"])).toThrow(TypeError);
    // Layer B values are frozen in place (Layer B never mutates one), not copied: nobody can change them.
    const flightsRead = d.reads.find((r) => r[2] === "flights")![3] as { flight_number: string }[];
    expect(Object.isFrozen(flightsRead)).toBe(true);
    expect(Object.isFrozen(flightsRead[0])).toBe(true);
    expect(() => {
      flightsRead[0].flight_number = "HAT666";
    }).toThrow(TypeError);
    expect(state.slot("reservation", "R1", "flights")).toEqual(updateFlights.arguments.flights);
    expect(Object.isFrozen((d.forward[0] as { before: { flights: object } }).before.flights)).toBe(true);
    expect(Object.isFrozen(d.call)).toBe(true);
    expect(Object.isFrozen(d.userMessages)).toBe(true);
    expect(sink.records[1]).toBe(sink.records[1]);
    // Later verdicts are unchanged by anything a holder tried.
    expect(g.check(updateFlights).verdict).toEqual(d.verdict);
  });
});

describe("records and checks are bounded by maxDepth, not by the session", () => {
  /** A StateView that counts reads: the work of a check, measured in steps, not wall time. */
  function counting(base: StateView): StateView & { reads: number } {
    const v = {
      reads: 0,
      hasEntity: (e: string, id: string) => (v.reads++, base.hasEntity(e, id)),
      slot: (e: string, id: string, s: string) => (v.reads++, base.slot(e, id, s)),
    };
    return v;
  }

  function afterObserves(n: number, scope: "session" | "turn"): { bytes: number; reads: number; forward: number; sequence: number } {
    const state = counting(airlineState());
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state, scope, config: { now: NOW } });
    const turnCalls: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const call = { name: "update_reservation_cabin", arguments: { reservation_id: i % 2 === 0 ? "R1" : "R2", cabin: `c${i % 7}` } };
      g.observe(call, { ok: true });
      if (scope === "turn") turnCalls.push(call);
    }
    state.reads = 0;
    const d = g.check(cancel, { turnCalls: turnCalls as never });
    // The record's size, without the digits of counters that grow with n (seq) : the stated bound.
    const bytes = JSON.stringify({ ...d, seq: 0 }).length;
    return { bytes, reads: state.reads, forward: d.forward.length, sequence: g.sequence().length };
  }

  for (const scope of ["session", "turn"] as const) {
    it(`${scope}: after 20,000 observes one check reads and records what it does after 100 (≤ maxDepth calls)`, () => {
      const small = afterObserves(100, scope);
      const large = afterObserves(20_000, scope);
      expect(large.forward).toBe(64);
      expect(large).toEqual(small);
      // docs/guard.md states it: at most maxDepth forward entries, each bounded by the call-copy budget.
      expect(large.bytes).toBeLessThan(64 * 1024);
      if (scope === "session") expect(large.sequence).toBe(64);
    });
  }
});
