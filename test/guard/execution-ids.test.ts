// Execution ids are `x<seq>` exactly: another spelling of the same number names no execution (the
// lifecycle looks executions up by seq, so the id text itself must be checked).
import { describe, expect, it } from "vitest";
import { createGuard, GuardError } from "../../src/guard/index.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "./helpers.js";

const updateFlights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };

describe("execution ids", () => {
  it.each(["x01", "x1.0", "x1e0", " x1", "X1", "x+1", "x0x1", "1", ""])("`%s` is not the execution x1", (id) => {
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), scope: "session", config: { now: NOW, projection: airlineRules } });
    const a = g.check(updateFlights);
    expect(a.execution).toBe("x1");
    expect(g.release(id)).toBe(false);
    expect(() => g.observe(updateFlights, "{}", { execution: id })).toThrow(GuardError);
    expect(g.pending().map((p) => p.execution)).toEqual(["x1"]);
    expect(g.release("x1")).toBe(true);
    expect(g.pending()).toEqual([]);
  });
});
