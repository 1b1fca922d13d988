// Regression (issue 10 §3): an earlier call of the forward sequence is judged on the state before it
// ran. `update_reservation_flights` on a basic-economy reservation is refused with bound_violated when
// checked; once it has run (it changed the cabin), a later call's verdict used to read the state after
// it and listed an admitted T2 undo of that very call inside π.
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { createVerifier, JsonState } from "../../src/core/verifier.js";
import type { ExecutedCall } from "../../src/core/types.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { loadCore } from "../differential/backends.js";

// The airline annotations of the report (pinned here: ontologies/airline evolves with the policy, and
// now allows basic-economy cabin changes). The bound refused every basic-economy reservation.
const source = `
slot_definition(reservation, cabin, string).
slot_definition(reservation, status, string).
slot_definition(reservation, flown, bool).
slot_definition(reservation, flight_refs, list).
slot_definition(reservation, total_baggages, number).
slot_definition(reservation, nonfree_baggages, number).
loss_class_definition(rebooking_price_diff, weight = 0.10).
tool(update_reservation_flights, acts_on = reservation, key = reservation_id).
tool(update_reservation_baggages, acts_on = reservation, key = reservation_id).
bounded_reversibility(update_reservation_flights,
    reservation.cabin != "basic_economy" and reservation.status != "cancelled"
        and reservation.flown == false,
    rebooking_price_diff, 0.99,
    id = "airline.flights.self",
    args = { reservation_id: call.reservation_id,
             cabin: reservation.cabin,
             flights: reservation.flight_refs,
             payment_id: call.payment_id }).
bounded_reversibility(update_reservation_baggages,
    reservation.status != "cancelled" and call.nonfree_baggages == reservation.nonfree_baggages,
    none, 0.99,
    id = "airline.baggages.self",
    args = { reservation_id: call.reservation_id,
             total_baggages: reservation.total_baggages,
             nonfree_baggages: reservation.nonfree_baggages,
             payment_id: call.payment_id }).
`;
const compiled = compile(source, { name: "airline-report.polar" });
if (!compiled.ok) throw new Error("the pinned airline excerpt does not compile");
const { tables, blob } = compiled;
const core = loadCore();
const NOW = "2024-05-15T15:00:00";

const reservation = (cabin: string) => ({
  user_id: "mia", cabin, status: null, flown: false, total_baggages: 0, nonfree_baggages: 0,
  flight_refs: [{ flight_number: "HAT001", date: "2024-05-20" }],
});
const change: ExecutedCall = {
  name: "update_reservation_flights",
  arguments: { reservation_id: "R1", cabin: "economy", flights: [{ flight_number: "HAT002", date: "2024-05-20" }], payment_id: "credit_card_1" },
};
const bags: ExecutedCall = {
  name: "update_reservation_baggages",
  arguments: { reservation_id: "R2", total_baggages: 1, nonfree_baggages: 0, payment_id: "credit_card_1" },
};

describe.each([
  ["reference", () => createReferenceBackend(tables)],
  ["wasm", () => core.load(blob)],
] as const)("earlier-call bounds on the before snapshot (%s)", (_name, backend) => {
  const verifier = createVerifier(tables, backend(), { now: NOW });

  it("a basic-economy flight change refused when checked is not undone by a later call's π", () => {
    const before = new JsonState({ entities: { reservation: { R1: reservation("basic_economy"), R2: reservation("economy") } } });
    const checked = verifier.verdict([change], before);
    expect(checked.reason).toBe("bound_violated");
    expect(checked.bottleneck.annotation).toBe("airline.flights.self");

    // It ran anyway: the cabin is now economy. The later call's sequence holds it with its snapshot.
    const after = new JsonState({ entities: { reservation: { R1: reservation("economy"), R2: reservation("economy") } } });
    const ran: ExecutedCall = { ...change, result: { reservation_id: "R1" }, before: reservation("basic_economy") };
    const later = verifier.verdict([ran, bags], after);
    expect(later.steps.filter((s) => s.call === 0 && s.tier === "T2")).toEqual([]);
    expect(later.reason).toBe("bound_violated");
    expect(later.bottleneck).toMatchObject({ call: 0, tool: "update_reservation_flights", annotation: "airline.flights.self" });
  });

  it("the same change on an economy reservation is undone with the snapshot's cabin and flights", () => {
    const after = new JsonState({ entities: { reservation: { R1: reservation("business"), R2: reservation("economy") } } });
    const ran: ExecutedCall = { ...change, result: { reservation_id: "R1" }, before: reservation("economy") };
    const later = verifier.verdict([ran, bags], after);
    expect(later.reason).toBe("ok");
    const undo = later.steps.find((s) => s.call === 0);
    expect(undo).toMatchObject({ tier: "T2", annotation: "airline.flights.self" });
    expect(undo?.arguments).toMatchObject({ cabin: "economy", flights: [{ flight_number: "HAT001", date: "2024-05-20" }] });
  });
});
