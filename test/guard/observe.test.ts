// src/guard/observe.ts on its own: an executed call fed back. Matching to its execution (by id, or the
// oldest pending one of the same call), releasing a failed call, projecting the result into Layer B,
// recording it in the lifecycle, and marking unknown what an unusable result or an unknown outcome
// leaves stale. Wrong options or calls are GuardError `invalid-call`.
import { describe, expect, it } from "vitest";
import type { GuardOptions } from "../../src/guard/types.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "./helpers.js";
import { parts } from "./parts.js";

const options = (over: Partial<GuardOptions> = {}): GuardOptions => ({
  ontology: airline.blob, backend: referenceFactory, state: airlineState(), scope: "session", config: { now: NOW, projection: airlineRules }, ...over,
});
const cabin = (id = "R1", c = "business") => ({ name: "update_reservation_cabin", arguments: { reservation_id: id, cabin: c } });
const result = (c: string) => ({ status: "confirmed", flights: [{ flight_number: "HAT001", date: "2024-05-20" }], cabin: c, first_departure: "2024-05-20T08:00:00", user_id: "mia" });

describe("Observer", () => {
  it("an observed pending execution: projected into Layer B, recorded with its before, no longer pending", () => {
    const p = parts(options({ config: { now: NOW, projection: airlineRules, tau: 0.5 } }));
    const d = p.judge.check(cabin());
    expect(d.execution).toBe("x1");
    const r = p.observer.observe(cabin(), result("business"), { execution: "x1" });
    expect(r).toMatchObject({ execution: "x1", sequenceLength: 1, unknown: null });
    expect(r.applied?.matched).toBe(true);
    expect(p.o.state.slot("reservation", "R1", "cabin")).toBe("business");
    expect(p.lifecycle.pending()).toEqual([]);
    const [entry] = p.lifecycle.sequence();
    expect(entry).toMatchObject({ name: "update_reservation_cabin", result: result("business"), before: { cabin: "economy" } });
    expect(Object.isFrozen(entry)).toBe(true);
  });

  it("without an id the oldest pending execution of the same call is observed; a call never checked is observed too", () => {
    const p = parts(options({ config: { now: NOW, projection: airlineRules, tau: 0.5 } }));
    p.judge.check(cabin());
    p.judge.check(cabin());
    expect(p.observer.observe(cabin(), result("business")).execution).toBe("x1");
    expect(p.lifecycle.pending().map((x) => x.id)).toEqual(["x2"]);
    const r = p.observer.observe(cabin("R2"), { ...result("economy"), first_departure: "2024-05-10T08:00:00" });
    expect(r.execution).toBeNull();
    expect(p.lifecycle.sequence().at(-1)).toMatchObject({ before: { cabin: "business" } });
  });

  it("failed: the execution is released and nothing is recorded or projected", () => {
    const p = parts(options({ config: { now: NOW, projection: airlineRules, tau: 0.5 } }));
    p.judge.check(cabin());
    expect(p.observer.observe(cabin(), "boom", { failed: true })).toEqual({ applied: null, sequenceLength: 0, execution: "x1", unknown: null });
    expect(p.lifecycle.pending()).toEqual([]);
    expect(p.o.state.slot("reservation", "R1", "cabin")).toBe("economy");
  });

  it("an unknown outcome: recorded (it may have run), nothing projected, what it acts on marked unknown", () => {
    const p = parts(options());
    const r = p.observer.observe(cabin(), undefined, { outcome: "unknown" });
    expect(r.unknown).toEqual([{ entity: "reservation", id: "R1", tool: "update_reservation_cabin", execution: null }]);
    expect(r.applied).toBeNull();
    expect(p.unknown.list()).toEqual(r.unknown);
    expect(p.lifecycle.sequence()).toHaveLength(1);
  });

  it("a result the rules cannot project marks what the call acts on unknown", () => {
    const p = parts(options());
    const r = p.observer.observe(cabin(), "Cabin changed.");
    expect(r.applied?.skipped.length).toBeGreaterThan(0);
    expect(r.unknown).toEqual([{ entity: "reservation", id: "R1", tool: "update_reservation_cabin", execution: null }]);
  });

  it("a read-only call is observed without joining the session's sequence", () => {
    const p = parts(options());
    expect(p.observer.observe({ name: "get_reservation_details", arguments: { reservation_id: "R1" } }, "{}").sequenceLength).toBe(0);
  });

  it.each<[string, unknown, unknown, RegExp]>([
    ["options not an object", cabin(), null, /options are not an object/],
    ["failed not a boolean", cabin(), { failed: "yes" }, /`failed` is not a boolean/],
    ["execution not a string", cabin(), { execution: 1 }, /`execution` is not a string/],
    ["an outcome other than unknown", cabin(), { outcome: "ok" }, /`outcome` is not/],
    ["failed and unknown", cabin(), { failed: true, outcome: "unknown" }, /both `failed`/],
    ["a call without a name", { arguments: {} }, {}, /observe: the call has no tool name/],
    ["an execution that is not pending", cabin(), { execution: "x9" }, /execution `x9` is not pending/],
  ])("refuses %s", (_what, call, opts, message) => {
    const p = parts(options());
    expect(() => p.observer.observe(call as never, "{}", opts as never)).toThrow(expect.objectContaining({ code: "invalid-call", message: expect.stringMatching(message) }));
  });

  it("refuses an execution of another call, and leaves it pending", () => {
    const p = parts(options({ config: { now: NOW, projection: airlineRules, tau: 0.5 } }));
    p.judge.check(cabin());
    expect(() => p.observer.observe(cabin("R1", "first"), "{}", { execution: "x1" })).toThrow(/approved another call/);
    expect(p.lifecycle.pending().map((x) => x.id)).toEqual(["x1"]);
  });
});
