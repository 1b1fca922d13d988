// Verdicts of the τ²-bench ontologies on real database records, through the verifier on the reference
// backend (and the WebAssembly core when built; both must answer the same bytes). The φ values are the
// paper's buckets (Table 8): T1 1.0, T2 0.99, T3 0.855 (low loss) / 0.81 (high loss), T4/T5 0.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExecutedCall, Verdict } from "../../src/core/types.js";
import { applyToolResult, parseTomlDocument, type LayerB } from "../../src/projection/index.js";
import { initialState, normalizeTask } from "../../src/tau2/index.js";
import { TAU2_DIR, describeTau2, rulesOf, stateOf, verifiersOf, type Domain } from "./helpers.js";

const ONE = 1_000_000;

/** The verdict on every available backend; they must agree byte for byte. */
function verdict(d: Domain, forward: ExecutedCall[], state: LayerB): Verdict {
  const all = verifiersOf(d).map(({ verifier }) => verifier.verdict(forward, state));
  for (const v of all.slice(1)) expect(Buffer.from(v.bytes).equals(Buffer.from(all[0].bytes))).toBe(true);
  return all[0];
}

const call = (name: string, args: Record<string, unknown>): ExecutedCall => ({ name, arguments: args });

/** Sorted ids of an entity type whose slots satisfy `pred` (deterministic picks from the real db). */
function idsWhere(state: LayerB, entity: string, pred: (slot: (s: string) => unknown) => boolean): string[] {
  return state
    .ids(entity)
    .filter((id) => pred((s) => state.slot(entity, id, s)))
    .sort();
}

describeTau2("airline (now = 2024-05-15T15:00:00)", () => {
  const state = stateOf("airline");
  const live = (cabin: string) =>
    idsWhere(state, "reservation", (s) => s("cabin") === cabin && s("flown") === false && s("status") === null)[0];

  // A reservation the re-booking would go through for (the cancellation's `when`): every segment
  // available with seats, booked at today's fares, paid once by credit card.
  const rebookable = () =>
    idsWhere(state, "reservation", (s) => s("status") === null && s("rebookable") === true && s("fares_current") === true && s("card_only") === true && s("payment_count") === 1)[0];

  it("cancel_reservation is compensated by re-booking under a new id only while the re-booking would go through", () => {
    // Re-priced fares: book_reservation would refuse the old amounts, so there is no compensation.
    const repriced = idsWhere(state, "reservation", (s) => s("status") === null && s("rebookable") === true && s("fares_current") === false && s("card_only") === true)[0];
    const refused = verdict("airline", [call("cancel_reservation", { reservation_id: repriced })], state);
    expect([refused.reason, refused.bottleneck.annotation]).toEqual(["bound_violated", "airline.cancel.rebook"]);
  });

  it("cancel_reservation is compensated by re-booking under a new id: T3, φ 0.81, the rebooking loss", () => {
    const id = rebookable();
    expect(id).toBeDefined();
    const v = verdict("airline", [call("cancel_reservation", { reservation_id: id })], state);
    expect(v.reason).toBe("ok");
    expect(v.phi).toBe(810_000);
    expect(v.loss).toBe(100_000);
    expect(v.steps).toHaveLength(1);
    const step = v.steps[0];
    expect(step).toMatchObject({ tool: "book_reservation", tier: "T3", annotation: "airline.cancel.rebook", lossClass: "rebooked_under_new_id" });
    // The inverse is an executable book_reservation with the reservation's own values.
    expect(step.arguments).toMatchObject({
      user_id: state.slot("reservation", id, "user_id"),
      cabin: state.slot("reservation", id, "cabin"),
      passengers: state.slot("reservation", id, "passengers"),
      payment_methods: state.slot("reservation", id, "payment_history"),
      insurance: state.slot("reservation", id, "insurance"),
    });
    const flights = step.arguments!.flights as Array<Record<string, unknown>>;
    expect(flights.every((f) => Object.keys(f).sort().join() === "date,flight_number")).toBe(true);
  });

  it("update_reservation_flights on a basic-economy reservation that stays basic economy gives up its itinerary (T4)", () => {
    const id = live("basic_economy");
    const v = verdict("airline", [call("update_reservation_flights", { reservation_id: id, cabin: "basic_economy", flights: [], payment_id: "credit_card_1" })], state);
    expect([v.reason, v.phi]).toEqual(["irreversibly_consumes", 0]);
    expect(v.bottleneck).toMatchObject({ call: 0, tool: "update_reservation_flights", annotation: "airline.flights.final" });
    // Changing the cabin of the same reservation is allowed by policy, so its undo is not refused.
    const up = verdict("airline", [call("update_reservation_flights", { reservation_id: id, cabin: "economy", flights: [], payment_id: "credit_card_1" })], state);
    expect(up.bottleneck?.annotation).not.toBe("airline.flights.final");
  });

  /** A credit card of the reservation's user (payment_balances maps it to null). */
  const creditCardOf = (id: string): string => {
    const balances = state.slot("reservation", id, "payment_balances") as Record<string, unknown>;
    return Object.keys(balances).find((k) => balances[k] === null)!;
  };

  it("update_reservation_flights on an economy reservation with nothing flown restores itself: T2, φ 0.99", () => {
    const id = live("economy");
    const card = creditCardOf(id);
    const v = verdict("airline", [call("update_reservation_flights", { reservation_id: id, cabin: "business", flights: [], payment_id: card })], state);
    expect(v.reason).toBe("ok");
    expect(v.phi).toBe(990_000);
    expect(v.steps[0].arguments).toEqual({
      reservation_id: id,
      cabin: "economy",
      flights: state.slot("reservation", id, "flight_refs"),
      payment_id: card,
    });
    // A payment method the user does not have: τ²-bench refuses the undo ("Payment method not found").
    const unknown = verdict("airline", [call("update_reservation_flights", { reservation_id: id, cabin: "business", flights: [], payment_id: "credit_card_1" })], state);
    expect(unknown.reason).toBe("bound_violated");
  });

  it("update_reservation_flights once a segment has flown gives up its itinerary (T4)", () => {
    const id = idsWhere(state, "reservation", (s) => s("cabin") === "business" && s("flown") === true)[0];
    const v = verdict("airline", [call("update_reservation_flights", { reservation_id: id, cabin: "business", flights: [], payment_id: "credit_card_1" })], state);
    expect([v.reason, v.bottleneck?.annotation]).toEqual(["irreversibly_consumes", "airline.flights.final"]);
  });

  it("baggage: free bags undo exactly (T2 0.99), a paid bag leaves its fee (T3 0.855)", () => {
    const id = live("business");
    const nonfree = state.slot("reservation", id, "nonfree_baggages") as number;
    const card = creditCardOf(id);
    const free = verdict("airline", [call("update_reservation_baggages", { reservation_id: id, total_baggages: 9, nonfree_baggages: nonfree, payment_id: card })], state);
    expect([free.reason, free.phi, free.loss, free.steps[0].annotation]).toEqual(["ok", 990_000, 0, "airline.baggages.self"]);
    const paid = verdict("airline", [call("update_reservation_baggages", { reservation_id: id, total_baggages: 9, nonfree_baggages: nonfree + 1, payment_id: card })], state);
    expect([paid.reason, paid.phi, paid.loss, paid.steps[0].annotation]).toEqual(["ok", 855_000, 50_000, "airline.baggages.fee"]);
    // The fee stays paid: $50, stated per step, in total and by the bottleneck (fixed point).
    expect([paid.steps[0].amount, paid.amount, paid.bottleneck.amount]).toEqual([50_000_000, 50_000_000, 50_000_000]);
    expect(paid.steps[0].arguments).toMatchObject({ nonfree_baggages: nonfree });
  });

  it("send_certificate emails the user: external_side_effect, fail-closed", () => {
    const v = verdict("airline", [call("send_certificate", { user_id: "mia_li_3668", amount: 100 })], state);
    expect(v.reason).toBe("external_side_effect");
    expect(v.phi).toBe(0);
    expect(v.steps[0]).toMatchObject({ tier: "T5", sink: "email", tool: null });
  });

  it("transfer_to_human_agents is a hand-off: external_side_effect", () => {
    const v = verdict("airline", [call("transfer_to_human_agents", { summary: "x" })], state);
    expect([v.reason, v.steps[0].sink]).toEqual(["external_side_effect", "human_handoff"]);
  });

  it("read-only calls need no undo; unknown tools and unknown reservations fail closed", () => {
    expect(verdict("airline", [call("get_reservation_details", { reservation_id: live("economy") })], state).reason).toBe("ok");
    expect(verdict("airline", [call("delete_everything", {})], state).reason).toBe("unknown_tool");
    expect(verdict("airline", [call("cancel_reservation", { reservation_id: "NOSUCH" })], state).reason).toBe("no_candidate");
  });

  describe("book, then cancel, in one session", () => {
    const session = stateOf("airline");
    const booked = {
      reservation_id: "HATHAT",
      user_id: "mia_li_3668",
      origin: "DTW",
      destination: "PHX",
      flight_type: "one_way",
      cabin: "economy",
      flights: [{ flight_number: "HAT097", origin: "DTW", destination: "PHX", date: "2024-05-17", price: 175 }],
      passengers: [{ first_name: "Mia", last_name: "Li", dob: "1990-04-05" }],
      payment_history: [{ payment_id: "credit_card_4421486", amount: 175 }],
      created_at: "2024-05-15T15:00:00",
      total_baggages: 0,
      nonfree_baggages: 0,
      insurance: "no",
      status: null,
    };
    const bookArgs = {
      user_id: "mia_li_3668", origin: "DTW", destination: "PHX", flight_type: "one_way", cabin: "economy",
      flights: [{ flight_number: "HAT097", date: "2024-05-17" }], passengers: booked.passengers,
      payment_methods: booked.payment_history, total_baggages: 0, nonfree_baggages: 0, insurance: "no",
    };

    it("booking is compensated by cancelling the new id (T3, φ 0.81); after it ran the id is concrete", () => {
      const before = verdict("airline", [call("book_reservation", bookArgs)], session);
      expect([before.reason, before.phi, before.steps[0].tool]).toEqual(["ok", 810_000, "cancel_reservation"]);
      expect(before.steps[0].arguments).toEqual({ reservation_id: { $pending: "new.id" } });

      const report = applyToolResult(rulesOf("airline"), session, call("book_reservation", bookArgs), JSON.stringify(booked));
      expect(report.changes.some((c) => c.op === "create" && c.id === "HATHAT" && c.effective)).toBe(true);
      expect(session.slot("flight_date", "HAT097/2024-05-17", "available_seats")).toMatchObject({ economy: 6 });
      const after = verdict("airline", [{ ...call("book_reservation", bookArgs), result: booked }], session);
      expect(after.steps[0].arguments).toEqual({ reservation_id: "HATHAT" });
    });

    it("cancelling it: turn scope compensates (φ 0.81); session scope finds the overlap", () => {
      const executedBook: ExecutedCall = { ...call("book_reservation", bookArgs), result: booked };
      const cancel = call("cancel_reservation", { reservation_id: "HATHAT" });
      const turn = verdict("airline", [cancel], session);
      expect([turn.reason, turn.phi]).toEqual(["ok", 810_000]);
      // Re-booking leaves the replacement under a new id, so the booking's inverse (cancel HATHAT)
      // no longer undoes anything: the two inverses conflict (docs/semantics.md, overlap).
      const whole = verdict("airline", [executedBook, cancel], session);
      expect(whole.reason).toBe("overlap_conflict");
      expect(whole.bottleneck).toMatchObject({ call: 0, tool: "book_reservation", annotation: "airline.book.cancel" });
    });

    it("an edit before a cancellation of the same reservation conflicts the same way", () => {
      const id = rebookable();
      // An earlier call is judged on its before snapshot (docs/semantics.md): the reservation as it was.
      const before = { status: state.slot("reservation", id, "status") ?? null, passengers: state.slot("reservation", id, "passengers") };
      const edit: ExecutedCall = { ...call("update_reservation_passengers", { reservation_id: id, passengers: [] }), result: {}, before };
      const v = verdict("airline", [edit, call("cancel_reservation", { reservation_id: id })], state);
      expect(v.reason).toBe("overlap_conflict");
    });
  });
});

describeTau2("retail", () => {
  const state = stateOf("retail");
  const order = (status: string) => idsWhere(state, "order", (s) => s("status") === status)[0];

  it("return_delivered_order_items emails the user: external_side_effect", () => {
    const v = verdict("retail", [call("return_delivered_order_items", { order_id: order("delivered"), item_ids: [], payment_method_id: "x" })], state);
    expect([v.reason, v.phi, v.steps[0].sink, v.steps[0].annotation]).toEqual(["external_side_effect", 0, "email", "retail.return.email"]);
  });

  it("exchange_delivered_order_items emails the user: external_side_effect", () => {
    const v = verdict("retail", [call("exchange_delivered_order_items", { order_id: order("delivered"), item_ids: [], new_item_ids: [], payment_method_id: "x" })], state);
    expect(v.reason).toBe("external_side_effect");
  });

  it("cancel_pending_order and the one-shot modifications consume the order for good", () => {
    const id = order("pending");
    expect(verdict("retail", [call("cancel_pending_order", { order_id: id, reason: "no longer needed" })], state).reason).toBe("irreversibly_consumes");
    expect(verdict("retail", [call("modify_pending_order_items", { order_id: id, item_ids: [], new_item_ids: [], payment_method_id: "x" })], state).reason).toBe("irreversibly_consumes");
    expect(verdict("retail", [call("modify_pending_order_payment", { order_id: id, payment_method_id: "x" })], state).reason).toBe("irreversibly_consumes");
  });

  it("modify_pending_order_address restores the old address while the order is pending (T2 0.99)", () => {
    const id = order("pending");
    const v = verdict("retail", [call("modify_pending_order_address", { order_id: id, address1: "1 New St", address2: "", city: "X", state: "NY", country: "USA", zip: "10001" })], state);
    expect([v.reason, v.phi]).toEqual(["ok", 990_000]);
    const address = state.slot("order", id, "address") as Record<string, string>;
    expect(v.steps[0].arguments).toEqual({ order_id: id, ...address });
    const delivered = verdict("retail", [call("modify_pending_order_address", { order_id: order("delivered"), address1: "x", address2: "", city: "x", state: "x", country: "x", zip: "x" })], state);
    expect(delivered.reason).toBe("bound_violated");
  });

  it("modify_user_address is its own exact inverse (T1 1.0)", () => {
    const user = state.ids("user").sort()[0];
    const v = verdict("retail", [call("modify_user_address", { user_id: user, address1: "x", address2: "", city: "x", state: "x", country: "x", zip: "x" })], state);
    expect([v.reason, v.phi, v.steps[0].tier]).toEqual(["ok", ONE, "T1"]);
    expect(v.steps[0].arguments).toEqual({ user_id: user, ...(state.slot("user", user, "address") as object) });
  });
});

describeTau2("telecom (now = 2025-02-25T12:08:00)", () => {
  const state = stateOf("telecom");

  it("toggle_roaming on the device is its own exact inverse: T1, φ 1.0", () => {
    const v = verdict("telecom", [call("toggle_roaming", {})], state);
    expect([v.reason, v.phi, v.steps[0].tool, v.steps[0].tier]).toEqual(["ok", ONE, "toggle_roaming", "T1"]);
  });

  it("enable_roaming is undone by disable_roaming on the same line (T1)", () => {
    const v = verdict("telecom", [call("enable_roaming", { customer_id: "C1001", line_id: "L1001" })], state);
    expect([v.reason, v.phi]).toEqual(["ok", ONE]);
    expect(v.steps[0]).toMatchObject({ tool: "disable_roaming", arguments: { customer_id: "C1001", line_id: "L1001" } });
  });

  it("suspend_line is compensated by resume_line (T3, φ 0.855)", () => {
    const v = verdict("telecom", [call("suspend_line", { customer_id: "C1001", line_id: "L1001", reason: "travel" })], state);
    expect([v.reason, v.phi, v.steps[0].tool, v.steps[0].lossClass]).toEqual(["ok", 855_000, "resume_line", "service_interruption"]);
  });

  it("refuel_data charges the bill (T4) and send_payment_request notifies the customer (T5)", () => {
    expect(verdict("telecom", [call("refuel_data", { customer_id: "C1001", line_id: "L1002", gb_amount: 2 })], state).reason).toBe("irreversibly_consumes");
    expect(verdict("telecom", [call("send_payment_request", { customer_id: "C1001", bill_id: "B1002" })], state).reason).toBe("external_side_effect");
    expect(verdict("telecom", [call("make_payment", {})], state).reason).toBe("external_side_effect");
  });

  it("grant_app_permission is undoable only when the permission was already granted", () => {
    expect(state.slot("app", "messaging", "storage")).toBe(true);
    expect(state.slot("app", "messaging", "network")).toBe(false);
    const again = verdict("telecom", [call("grant_app_permission", { app_name: "messaging", permission: "storage" })], state);
    expect([again.reason, again.phi]).toEqual(["ok", 990_000]);
    const fresh = verdict("telecom", [call("grant_app_permission", { app_name: "messaging", permission: "network" })], state);
    // A grant that changes the permission has no revoke tool: the per-permission T4 edge says so.
    expect([fresh.reason, fresh.bottleneck?.annotation]).toEqual(["irreversibly_consumes", "telecom.device.grant_network_final"]);
  });

  it("reseat_sim_card is a no-op on a present SIM (T2) and final on a missing one (T4); toggling airplane mode loses the Wi-Fi association (T3 0.855)", () => {
    expect(state.slot("device", "device", "sim_card_missing")).toBe(false);
    const present = verdict("telecom", [call("reseat_sim_card", {})], state);
    expect([present.reason, present.phi, present.steps[0].annotation]).toEqual(["ok", 990_000, "telecom.device.reseat_noop"]);
    const missing = state.clone();
    missing.set("device", "device", "sim_card_missing", true);
    expect(verdict("telecom", [call("reseat_sim_card", {})], missing).reason).toBe("irreversibly_consumes");
    const unread = state.clone();
    unread.set("device", "device", "sim_card_missing", null);
    expect(verdict("telecom", [call("reseat_sim_card", {})], unread).reason).toBe("irreversibly_consumes");
    expect(verdict("telecom", [call("toggle_airplane_mode", {})], state).phi).toBe(855_000);
  });

  it("a session of device toggles composes step by step, weakest step first", () => {
    const s = stateOf("telecom");
    const rules = rulesOf("telecom");
    applyToolResult(rules, s, call("toggle_airplane_mode", {}), "Airplane Mode is now ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%");
    expect(s.slot("device", "device", "airplane_mode")).toBe(true);
    const forward: ExecutedCall[] = [
      { ...call("toggle_airplane_mode", {}), result: "Airplane Mode is now ON." },
      { ...call("toggle_data", {}), result: "Mobile Data is now OFF." },
      call("toggle_roaming", {}),
    ];
    const v = verdict("telecom", forward, s);
    expect(v.reason).toBe("ok");
    expect(v.steps.map((x) => x.tool)).toEqual(["toggle_roaming", "toggle_data", "toggle_airplane_mode"]);
    expect(v.phi).toBe(855_000);
    expect(v.loss).toBe(50_000);
  });
});

describeTau2("telecom task initial states (initialization actions through the projection's `actions`)", () => {
  const base = join(TAU2_DIR, "domains", "telecom");
  const documents = {
    db: parseTomlDocument(readFileSync(join(base, "db.toml"), "utf8")),
    user_db: parseTomlDocument(readFileSync(join(base, "user_db.toml"), "utf8")),
  };
  const tasks = (JSON.parse(readFileSync(join(base, "tasks.json"), "utf8")) as unknown[]).map(normalizeTask);

  it("applies every initialization action of every task", () => {
    const unsupported = new Set<string>();
    for (const t of tasks) for (const u of initialState(rulesOf("telecom"), documents, t).report.unsupported) unsupported.add(u);
    expect([...unsupported]).toEqual([]);
  });

  it("a line suspended for an overdue bill: the payment request is grounded (T5), resuming is compensable", () => {
    const task = tasks.find((t) => t.initialState?.initializationActions.some((a) => a.funcName === "suspend_line_for_overdue_bill"))!;
    const action = task.initialState!.initializationActions.find((a) => a.funcName === "suspend_line_for_overdue_bill")!;
    const { state } = initialState(rulesOf("telecom"), documents, task);
    const { customer_id, line_id, new_bill_id } = action.arguments as Record<string, string>;
    expect(state.slot("bill", new_bill_id, "status")).toBe("Overdue");
    expect(state.slot("line", line_id, "status")).toBe("Suspended");
    const request = verdict("telecom", [call("send_payment_request", { customer_id, bill_id: new_bill_id })], state);
    expect([request.reason, request.steps[0].sink]).toEqual(["external_side_effect", "customer_notice"]);
    const resume = verdict("telecom", [call("resume_line", { customer_id, line_id })], state);
    expect([resume.reason, resume.phi, resume.steps[0].tool]).toEqual(["ok", 855_000, "suspend_line"]);
  });

  it("a permission removed at start makes granting it back irreversible (irreversibly_consumes)", () => {
    const task = tasks.find((t) => t.initialState?.initializationActions.some((a) => a.funcName === "remove_app_permission"))!;
    const action = task.initialState!.initializationActions.find((a) => a.funcName === "remove_app_permission")!;
    const { app_name, permission } = action.arguments as Record<string, string>;
    const { state } = initialState(rulesOf("telecom"), documents, task);
    expect(state.slot("app", app_name, permission)).toBe(false);
    expect(verdict("telecom", [call("grant_app_permission", { app_name, permission })], state).reason).toBe("irreversibly_consumes");
  });
});
