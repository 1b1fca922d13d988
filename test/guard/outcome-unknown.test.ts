// guard.observe(call, undefined, { outcome: "unknown" }): a call that may have run but whose answer
// was lost (issue 21, items 4 and 8). It is not released: it stays in the forward sequence, and what it
// acts on is unknown to later decisions until markKnown. `failed: true` stays "known to have changed
// nothing" (released). The MCP gateway uses it for cancelled and timed-out calls.
import { describe, expect, it } from "vitest";
import { createGuard, GuardError, type GuardOptions } from "../../src/guard/index.js";
import { createMemorySink, verifyAuditLog } from "../../src/audit/index.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "./helpers.js";

const rebook = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const cancelR1 = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };
const cancelR2 = { name: "cancel_reservation", arguments: { reservation_id: "R2" } };

function guard(over: Partial<GuardOptions> = {}) {
  const state = airlineState();
  const sink = createMemorySink();
  const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state, scope: "session", config: { now: NOW, projection: airlineRules, log: sink }, ...over });
  return { g, state, sink };
}

describe("observe with an unknown outcome", () => {
  for (const scope of ["session", "turn"] as const) {
    it(`${scope} scope: the entity is unknown to the next decision on it (unknown_state), replayable, until markKnown`, () => {
      const { g, sink } = guard({ scope });
      const d = g.check(rebook);
      expect(d.route).toBe("Approved");
      const report = g.observe(rebook, undefined, { outcome: "unknown", execution: d.execution! });
      expect(report.unknown).toEqual([{ entity: "reservation", id: "R1", tool: "update_reservation_flights", execution: d.execution }]);
      expect(g.pending()).toEqual([]);
      const next = g.check(cancelR1);
      expect(next).toMatchObject({ route: "Vetoed", approved: false, reason: "unknown_state" });
      expect(verifyAuditLog(sink.lines(), { ontologies: [airline.blob] }).mismatches).toEqual([]);
      g.markKnown("reservation", "R1");
      expect(g.check(cancelR1).reason).not.toBe("unknown_state");
    });
  }

  it("session scope: the call stays in the forward sequence (it may have run), so a later π covers it", () => {
    const { g } = guard();
    const d = g.check(rebook);
    g.observe(rebook, undefined, { outcome: "unknown", execution: d.execution! });
    expect(g.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    // A call on another reservation: its forward sequence holds the unknown call, which acts on R1.
    const other = g.check(cancelR2);
    expect(other.reason).toBe("unknown_state");
  });

  it("`failed: true` (known to have changed nothing) releases (nothing changed): no mark, not in the sequence", () => {
    const { g } = guard();
    const d = g.check(rebook);
    const report = g.observe(rebook, undefined, { failed: true, execution: d.execution! });
    expect(report.unknown).toBeNull();
    expect(g.sequence()).toEqual([]);
    expect(g.check(cancelR1).reason).not.toBe("unknown_state");
  });

  it("`failed` with `outcome: unknown`, or another outcome, is an invalid-call error", () => {
    const { g } = guard();
    const d = g.check(rebook);
    expect(() => g.observe(rebook, undefined, { outcome: "unknown", failed: true, execution: d.execution! })).toThrow(GuardError);
    expect(() => g.observe(rebook, undefined, { outcome: "lost" as never, execution: d.execution! })).toThrow(/`outcome`/);
    expect(g.pending()).toHaveLength(1);
  });
});
