// src/guard/before.ts on its own: a call's `before` snapshot — the acts_on entity's declared slots, frozen,
// each value the guard's own. With a LayerB it is made later from the record Layer B keeps for it.
import { describe, expect, it } from "vitest";
import { BeforeReader } from "../../src/guard/before.js";
import type { StateView } from "../../src/core/types.js";
import { airline, airlineState } from "./helpers.js";

const cancel = (id = "R1") => ({ name: "cancel_reservation", arguments: { reservation_id: id } });

describe("BeforeReader", () => {
  it("a LayerB: a function that makes the snapshot as the entity was when kept", () => {
    const state = airlineState();
    const r = new BeforeReader(airline.tables, state);
    const kept = r.keep(cancel());
    expect(typeof kept).toBe("function");
    state.set("reservation", "R1", "status", "cancelled");
    const b = (kept as () => Record<string, unknown>)();
    expect(b.status).toBe("confirmed");
    expect(Object.keys(b)).toEqual(["status", "flights", "cabin", "first_departure", "user_id"]);
    expect(Object.isFrozen(b)).toBe(true);
    expect(r.now(cancel())).toMatchObject({ status: "cancelled" });
  });

  it("read-only, unknown, keyless calls and calls on no entity have none; a missing entity an empty one", () => {
    const r = new BeforeReader(airline.tables, airlineState());
    expect(r.now({ name: "get_reservation_details", arguments: { reservation_id: "R1" } })).toBeUndefined();
    expect(r.now({ name: "nope", arguments: {} })).toBeUndefined();
    expect(r.now({ name: "cancel_reservation", arguments: {} })).toBeUndefined();
    expect(r.now(cancel("R9"))).toEqual({});
  });

  it("any other StateView: read now, each object value copied and frozen, the caller's object never held", () => {
    const flights = [{ flight_number: "HAT001" }];
    const view: StateView = {
      hasEntity: () => true,
      slot: (_e, _id, slot) => (slot === "flights" ? flights : slot === "status" ? "confirmed" : undefined),
    };
    const r = new BeforeReader(airline.tables, view);
    const b = r.keep(cancel()) as Record<string, unknown>;
    expect(b).toEqual({ status: "confirmed", flights: [{ flight_number: "HAT001" }] });
    expect(b.flights).not.toBe(flights);
    expect(Object.isFrozen(b.flights)).toBe(true);
    expect(Object.isFrozen(flights)).toBe(false);
  });

  it("a value that is not JSON is kept as a frozen JSON-safe copy with a marker", () => {
    const view: StateView = { hasEntity: () => true, slot: (_e, _id, slot) => (slot === "flights" ? [new Date(0)] : undefined) };
    const b = new BeforeReader(airline.tables, view).now(cancel())!;
    expect(b.flights).toEqual([{ $nonjson: "object of class Date" }]);
    expect(Object.isFrozen(b.flights)).toBe(true);
  });

  it("a slot the entity lacks is absent from the snapshot (not a key holding undefined), on either path", () => {
    const state = airlineState();
    state.replaceEntity("reservation", "R3", { status: "confirmed", flights: [], user_id: "mia" });
    const fromLayerB = new BeforeReader(airline.tables, state).now(cancel("R3"))!;
    expect(Object.keys(fromLayerB)).toEqual(["status", "flights", "user_id"]);
    const view: StateView = { hasEntity: () => true, slot: (_e, _id, slot) => (slot === "status" ? "confirmed" : undefined) };
    expect(Object.keys(new BeforeReader(airline.tables, view).now(cancel())!)).toEqual(["status"]);
  });

  it("an entity with no declared slots: an empty snapshot, whatever the record holds", () => {
    const reservation = airline.tables.entities.findIndex((e) => e.name === "reservation");
    const tables = { ...airline.tables, slots: airline.tables.slots.filter((s) => s.entity !== reservation) };
    expect(new BeforeReader(tables, airlineState()).now(cancel())).toEqual({});
    const view: StateView = { hasEntity: () => true, slot: () => "x" };
    expect(new BeforeReader(tables, view).now(cancel())).toEqual({});
  });
  it("holds the acts_on entity's declared slots only, in table order, whatever else the state answers", () => {
    const view: StateView = { hasEntity: () => true, slot: (e, id, slot) => `${e}/${id}/${String(slot)}` };
    const r = new BeforeReader(airline.tables, view);
    expect(r.now(cancel())).toEqual({
      status: "reservation/R1/status",
      flights: "reservation/R1/flights",
      cabin: "reservation/R1/cabin",
      first_departure: "reservation/R1/first_departure",
      user_id: "reservation/R1/user_id",
    });
    // Every tool on an entity, whichever the entity's place in the tables.
    expect(r.now({ name: "send_certificate", arguments: { user_id: "mia", amount: 50 } })).toEqual({ name: "user/mia/name" });
    expect(r.now({ name: "apply_voucher", arguments: { voucher_id: "V1" } })).toEqual({ balance: "voucher/V1/balance" });
  });

  it("a Layer B value is kept as Layer B's own frozen copy (shared, not copied again)", () => {
    const state = airlineState();
    const b = new BeforeReader(airline.tables, state).now(cancel())!;
    expect(b.flights).toBe(state.slot("reservation", "R1", "flights"));
    expect(Object.isFrozen(b.flights)).toBe(true);
  });

  it("a JSON value of any size is kept whole (an inverse restores it), not cut to a marker", () => {
    const flights = Array.from({ length: 100_001 }, (_, i) => i);
    const view: StateView = { hasEntity: () => true, slot: (_e, _id, slot) => (slot === "flights" ? flights : undefined) };
    const b = new BeforeReader(airline.tables, view).now(cancel())!;
    expect((b.flights as number[]).length).toBe(100_001);
    expect((b.flights as number[])[100_000]).toBe(100_000);
    expect(b.flights).not.toBe(flights);
    expect(Object.isFrozen(b.flights)).toBe(true);
  });
});
