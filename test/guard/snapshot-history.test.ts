// What a snapshot carries of the calls a guard observed (src/guard/lifecycle.ts exportState, read back by
// src/guard/snapshot.ts): in turn scope a later check judges an earlier call of the message on its
// entity as it was before that call ran, so the snapshot keeps each observed call's `before`, and a
// guard resumed from it judges such a call exactly as the guard that wrote it.
import { describe, expect, it } from "vitest";
import { createMemorySink } from "../../src/audit/index.js";
import { createGuard, type GuardOptions } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "./helpers.js";

const updateFlights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const cancel = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };

function options(state: LayerB, scope: "turn" | "session"): GuardOptions {
  return { ontology: airline.blob, backend: referenceFactory, state, scope, policy: "veto", config: { now: NOW, projection: airlineRules, log: createMemorySink() } };
}

/** A guard that checked and observed the flight change on R1 (Layer B now holds the new flights). */
function afterFlightChange(scope: "turn" | "session") {
  const state = airlineState();
  const g = createGuard(options(state, scope));
  const before = state.entity("reservation", "R1")!;
  const d = g.check(updateFlights);
  expect(d.approved).toBe(true);
  g.observe(updateFlights, JSON.stringify({ ...before, flights: updateFlights.arguments.flights }), { execution: d.execution! });
  expect(state.entity("reservation", "R1")!.flights).toEqual(updateFlights.arguments.flights);
  return { g, state, before };
}

describe("a snapshot keeps what each observed call acted on before it ran", () => {
  it("the history entry of an observed call holds its entity's slots as they were at its check", () => {
    const { g, before } = afterFlightChange("turn");
    const snap = g.snapshot();
    expect(snap.history).toHaveLength(1);
    expect(snap.history[0].call).toEqual(updateFlights);
    expect(snap.history[0].admitted).toBe(true);
    expect(snap.history[0].before).toMatchObject({ flights: before.flights, status: before.status });
  });

  it("turn scope: a resumed guard judges the message's earlier call on that entity as it was, as the original does", () => {
    const { g, state, before } = afterFlightChange("turn");
    const text = JSON.stringify({ snapshot: g.snapshot(), state: state.toJSON() });
    const back = JSON.parse(text) as { snapshot: unknown; state: unknown };
    const resumedState = LayerB.fromJSON(back.state);
    const resumed = createGuard({ ...options(resumedState, "turn"), resume: back.snapshot as never });

    const a = g.check(cancel, { turnCalls: [updateFlights] });
    const b = resumed.check(cancel, { turnCalls: [updateFlights] });
    // The earlier call's entry carries R1 before the flight change, not Layer B's R1 now.
    expect((a.forward[0] as { before: { flights: unknown } }).before.flights).toEqual(before.flights);
    expect(b.forward).toEqual(a.forward);
    expect(b.verdict).toEqual(a.verdict);
    expect(b.reason).toBe(a.reason);
  });

  it("session scope: a pending execution keeps its `before` through a resume, in the next check's forward sequence and in its observe", () => {
    const state = airlineState();
    const g = createGuard(options(state, "session"));
    const before = state.entity("reservation", "R1")!;
    const d = g.check(updateFlights);
    expect(d.approved).toBe(true);
    const snap = g.snapshot();
    expect(snap.executions).toHaveLength(1);
    expect(snap.executions[0].before).toMatchObject({ flights: before.flights });

    const back = JSON.parse(JSON.stringify({ snapshot: snap, state: state.toJSON() })) as { snapshot: unknown; state: unknown };
    const resumedState = LayerB.fromJSON(back.state);
    const resumed = createGuard({ ...options(resumedState, "session"), resume: back.snapshot as never });
    const a = g.check(cancel);
    const b = resumed.check(cancel);
    expect((a.forward[0] as { before: { flights: unknown } }).before.flights).toEqual(before.flights);
    expect(b.forward).toEqual(a.forward);
    expect(b.verdict).toEqual(a.verdict);

    // Observed in the resumed guard after Layer B changed: the sequence keeps the entity as it was at the check.
    const result = JSON.stringify({ ...before, flights: updateFlights.arguments.flights });
    g.observe(updateFlights, result, { execution: d.execution! });
    resumed.observe(updateFlights, result, { execution: d.execution! });
    expect((resumed.sequence()[0] as unknown as { before: { flights: unknown } }).before.flights).toEqual(before.flights);
    expect(resumed.sequence()).toEqual(g.sequence());
  });
});
