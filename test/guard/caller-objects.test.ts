// Issue 21, item 2: the guard never changes objects it does not own. `projectDocument(rules, db)` used to
// share the database's objects with Layer B, and a check froze the Layer B values it read in place: after
// a check (even a veto), a tool updating `db` in place — as τ²-bench's tools do — threw "object is not
// extensible". Layer B now keeps its own frozen copies, and every value a check reads from a StateView
// that is not Layer B's own is copied on read.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/guard/index.js";
import type { StateView } from "../../src/core/types.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { parseProjectionRules, projectDocument } from "../../src/projection/index.js";
import { NOW, referenceFactory, wasmFactory } from "./helpers.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const blob = new Uint8Array(readFileSync(join(root, "ontologies", "airline", "airline.blob")));
const rules = parseProjectionRules(JSON.parse(readFileSync(join(root, "ontologies", "airline", "projection.json"), "utf8")));
const dbText = readFileSync(join(root, "samples", "tau2-airline", "domains", "airline", "db.json"), "utf8");

interface Reservation {
  reservation_id: string;
  cabin: string;
  status?: string;
  flights: { flight_number: string; date: string; price: number }[];
  passengers: { first_name: string; last_name: string; dob: string }[];
  payment_history: { payment_id: string; amount: number }[];
  total_baggages: number;
  nonfree_baggages: number;
}

/** The paths of every frozen, sealed or non-extensible object inside `v`. */
function lockedParts(v: unknown, path = "$", out: string[] = []): string[] {
  if (typeof v !== "object" || v === null) return out;
  if (!Object.isExtensible(v)) out.push(path);
  for (const [k, x] of Object.entries(v)) lockedParts(x, `${path}.${k}`, out);
  return out;
}

/** Every mutating call of the mix on one reservation (admitted or not). */
function calls(r: Reservation) {
  const payment = r.payment_history[0]?.payment_id ?? "credit_card_1";
  return [
    { name: "cancel_reservation", arguments: { reservation_id: r.reservation_id } },
    { name: "update_reservation_flights", arguments: { reservation_id: r.reservation_id, cabin: r.cabin, flights: r.flights.map((f) => ({ flight_number: f.flight_number, date: f.date })), payment_id: payment } },
    { name: "update_reservation_baggages", arguments: { reservation_id: r.reservation_id, total_baggages: r.total_baggages + 1, nonfree_baggages: r.nonfree_baggages, payment_id: payment } },
    { name: "update_reservation_passengers", arguments: { reservation_id: r.reservation_id, passengers: r.passengers } },
  ];
}

for (const [label, backend] of [["reference", referenceFactory], ["wasm", wasmFactory]] as const) {
  describe(`the caller's objects are never frozen or shared (${label})`, () => {
    it("a tool updates the projected db in place after checks, approvals and vetoes alike", () => {
      const db = JSON.parse(dbText) as { reservations: Record<string, Reservation> };
      const state = projectDocument(rules, db);
      const guard = createGuard({ ontology: blob, backend, state, policy: "veto", scope: "session", config: { now: NOW, projection: rules } });
      const routes = new Set<string>();
      for (const r of Object.values(db.reservations)) {
        for (const c of calls(r)) {
          const d = guard.check(c);
          routes.add(d.route);
          if (d.execution !== null) guard.release(d.execution);
        }
      }
      // Both kinds of decision were made (the regression froze the values a veto read too).
      expect([...routes].sort()).toEqual(["Approved", "Vetoed"]);
      expect(lockedParts(db)).toEqual([]);
      // τ²-bench's update_reservation_baggages / cancel_reservation, in place.
      for (const r of Object.values(db.reservations)) {
        r.total_baggages += 1;
        r.payment_history.push({ payment_id: "credit_card_1", amount: 50 });
        r.flights[0].price += 1;
        r.passengers.pop();
      }
    });

    it("an approved call runs on the db in place and is observed; Layer B and the decision keep what was judged", () => {
      const db = JSON.parse(dbText) as { reservations: Record<string, Reservation> };
      const state = projectDocument(rules, db);
      const guard = createGuard({ ontology: blob, backend, state, policy: "veto", scope: "session", config: { now: NOW, projection: rules } });
      // The first mutating call of the mix the guard approves on the sample (which one depends on the
      // ontology's preconditions: a same-cabin flight change is refused when fares moved since booking).
      let picked: { r: Reservation; call: ReturnType<typeof calls>[number] } | undefined;
      for (const x of Object.values(db.reservations)) {
        for (const c of calls(x)) {
          const d = guard.check(c);
          if (d.execution !== null) guard.release(d.execution);
          if (d.approved) { picked = { r: x, call: c }; break; }
        }
        if (picked !== undefined) break;
      }
      expect(picked).toBeDefined();
      const { r, call } = picked!;
      const d = guard.check(call);
      expect(d.approved).toBe(true);
      const judged = JSON.stringify(d);
      const flightsBefore = JSON.stringify(state.slot("reservation", r.reservation_id, "flights"));
      // The tool changes the live record in place (a new price, a flight swapped); nothing throws.
      r.flights[0].price = 999;
      r.flights.reverse();
      r.payment_history.push({ payment_id: "credit_card_1", amount: 999 });
      // Layer B changes only at observe, and the decision holds what it judged.
      expect(JSON.stringify(state.slot("reservation", r.reservation_id, "flights"))).toBe(flightsBefore);
      expect(JSON.stringify(d)).toBe(judged);
      // The tool's result is the live object itself (a JavaScript tool may return it).
      guard.observe(call, r, { execution: d.execution! });
      expect(state.slot("reservation", r.reservation_id, "flights")).toEqual(r.flights);
      expect(lockedParts(db)).toEqual([]);
      r.flights.push({ flight_number: "HAT001", date: "2024-05-30", price: 1 });
      expect((state.slot("reservation", r.reservation_id, "flights") as unknown[]).length).toBe(r.flights.length - 1);
      // The session's `before` of the observed call is what Layer B held when it was checked.
      expect(JSON.stringify(guard.sequence()[0].before?.flights)).toBe(flightsBefore);
    });

    it("a StateView of the caller's own objects: checks read copies, the objects stay unfrozen and changeable", () => {
      const db = JSON.parse(dbText) as { reservations: Record<string, Reservation> };
      const projected = projectDocument(rules, db);
      // The caller's records (plain, mutable), answered by reference.
      const records = new Map<string, Record<string, unknown>>();
      for (const id of projected.ids("reservation")) records.set(id, JSON.parse(JSON.stringify(projected.entity("reservation", id))));
      const view: StateView = {
        hasEntity: (e, id) => (e === "reservation" ? records.has(id) : projected.hasEntity(e, id)),
        slot: (e, id, s) => (e === "reservation" ? records.get(id)?.[s] : projected.slot(e, id, s)),
      };
      const guard = createGuard({ ontology: blob, backend, state: view, policy: "veto", scope: "session", config: { now: NOW } });
      const decisions = [];
      for (const r of Object.values(db.reservations)) {
        for (const c of calls(r)) {
          const d = guard.check(c);
          decisions.push([d, JSON.stringify(d)] as const);
          if (d.execution !== null) guard.release(d.execution);
        }
      }
      expect(lockedParts([...records.values()])).toEqual([]);
      for (const rec of records.values()) {
        (rec.flights as { price: number }[])[0].price = -1;
        (rec.payment_history as unknown[]).push({ payment_id: "x", amount: 1 });
      }
      for (const [d, text] of decisions) expect(JSON.stringify(d)).toBe(text);
    });
  });
}

describe("Layer B keeps its own copies", () => {
  it("set and replaceEntity copy a value (frozen), the caller's object stays as it is", () => {
    const flights = [{ flight_number: "HAT001", date: "2024-05-30" }];
    const b = new LayerB();
    b.set("reservation", "R1", "flights", flights);
    b.replaceEntity("reservation", "R2", { flights });
    for (const id of ["R1", "R2"]) {
      const own = b.slot("reservation", id, "flights") as typeof flights;
      expect(own).toEqual(flights);
      expect(own).not.toBe(flights);
      expect(Object.isFrozen(own[0])).toBe(true);
    }
    expect(Object.isFrozen(flights)).toBe(false);
    flights.push({ flight_number: "HAT002", date: "2024-05-31" });
    expect(b.slot("reservation", "R1", "flights")).toHaveLength(1);
    // A value that is not JSON is kept as given (the guard fails closed on reading it), never frozen.
    const odd = { when: new Date(0) };
    b.set("reservation", "R3", "odd", odd);
    expect(b.slot("reservation", "R3", "odd")).toBe(odd);
    expect(Object.isFrozen(odd)).toBe(false);
  });
});

describe("the `before` snapshot is Layer B as it was at the check", () => {
  it("a write to the entity between the check and observe (in place on Layer B's own record) does not reach `before`", () => {
    const db = JSON.parse(dbText) as { reservations: Record<string, Reservation> };
    const state = projectDocument(rules, db);
    const guard = createGuard({ ontology: blob, backend: wasmFactory, state, policy: "veto", scope: "session", config: { now: NOW, projection: rules } });
    // The first mutating call of the mix the guard approves on the sample.
    let r: Reservation | undefined;
    let i = -1;
    for (const x of Object.values(db.reservations)) {
      i = calls(x).findIndex((c) => {
        const d = guard.check(c);
        if (d.execution !== null) guard.release(d.execution);
        return d.approved;
      });
      if (i >= 0) { r = x; break; }
    }
    if (r === undefined) throw new Error("no call of the mix is approved on the sample");
    const id = r.reservation_id;
    // Layer B's own record for the entity (set writes in place on a record Layer B made itself).
    state.set("reservation", id, "cabin", r.cabin);
    const d = guard.check(calls(r)[i]);
    expect(d.approved).toBe(true);
    const cabin = state.slot("reservation", id, "cabin");
    const flights = state.slot("reservation", id, "flights");
    state.set("reservation", id, "cabin", "changed-after-the-check");
    state.set("reservation", id, "flights", []);
    state.set("reservation", id, "status", "cancelled");
    // A later check's forward sequence holds the pending execution with its `before`.
    const later = guard.check(calls(r)[2]);
    const pending = later.forward[0] as { before?: Record<string, unknown> };
    expect(pending.before?.cabin).toBe(cabin);
    expect(pending.before?.flights).toEqual(flights);
    if (later.execution !== null) guard.release(later.execution);
    guard.observe(calls(r)[i], JSON.stringify({ ...r, cabin }), { execution: d.execution! });
    const before = guard.sequence()[0].before!;
    expect(before.cabin).toBe(cabin);
    expect(before.flights).toEqual(flights);
    expect(Object.isFrozen(before)).toBe(true);
  });
});
