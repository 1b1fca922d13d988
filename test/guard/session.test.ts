import { describe, expect, it } from "vitest";
import { createGuard, wrapTools, isGuardRefusal, NothingChangedError, type Decision } from "../../src/guard/index.js";
import { airline, airlineRules, airlineState, faultCore, NOW, referenceFactory, retail, retailState, wasmFactory } from "./helpers.js";
import { LayerB } from "../../src/projection/layer-b.js";

const updateFlights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const cancel = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };

for (const [label, factory] of [["reference", referenceFactory], ["wasm", wasmFactory]] as const) {
  describe(`session scope (${label})`, () => {
    it("airline: editing a reservation's flights and then cancelling it is an overlap conflict", () => {
      const state = airlineState();
      const g = createGuard({ ontology: airline.blob, backend: factory, state, scope: "session", config: { now: NOW, projection: airlineRules } });
      const first = g.check(updateFlights);
      expect(first.route).toBe("Approved");
      g.observe(updateFlights, JSON.stringify({ ...state.entity("reservation", "R1"), flights: updateFlights.arguments.flights }));
      expect(state.slot("reservation", "R1", "flights")).toEqual(updateFlights.arguments.flights);
      expect(g.sequence()).toHaveLength(1);
      // The inverse of the edit needs the old flights, recorded at check time, not the projected ones.
      expect(g.sequence()[0].before?.flights).toEqual([{ flight_number: "HAT001", date: "2024-05-20" }]);

      const second = g.check(cancel);
      expect(second).toMatchObject({ route: "Vetoed", reason: "overlap_conflict" });
      expect(second.forward).toHaveLength(1);
      expect(second.verdict?.bottleneck).toMatchObject({ call: 0, tool: "update_reservation_flights", reason: "overlap_conflict" });

      // In turn scope, the same cancel alone is fine (T3, φ = 0.95 · 0.9); after a checkpoint too.
      g.checkpoint();
      expect(g.sequence()).toHaveLength(0);
      const alone = g.check(cancel);
      expect(alone).toMatchObject({ route: "Approved", reason: "ok" });
      expect(alone.verdict?.phi).toBe(855000);
      expect(alone.verdict?.steps[0]).toMatchObject({ tool: "book_reservation", tier: "T3", arguments: { user_id: "mia", cabin: "economy" } });
    });

    it("airline, turn scope: the earlier call of the same message is in the forward sequence", () => {
      const g = createGuard({ ontology: airline.blob, backend: factory, state: airlineState(), scope: "turn", config: { now: NOW } });
      expect(g.check(cancel, { turnCalls: [updateFlights] }).reason).toBe("overlap_conflict");
      expect(g.check(cancel).reason).toBe("ok");
    });

    it("retail: two pending-order edits compose; a later return (email) and a cancel after an edit do not", () => {
      const state = retailState();
      const g = createGuard({ ontology: retail.blob, backend: factory, state, scope: "session", policy: "escalate", config: { now: NOW } });
      const address = { name: "modify_pending_order_address", arguments: { order_id: "O1", address: { city: "Dallas" } } };
      const items = { name: "modify_pending_order_items", arguments: { order_id: "O1", items: ["lamp", "rug"] } };
      expect(g.check(address).route).toBe("Approved");
      g.observe(address, { order_id: "O1", status: "pending" });
      state.set("order", "O1", "address", { city: "Dallas" });
      const second = g.check(items);
      expect(second.route).toBe("Approved");
      expect(second.verdict?.steps.map((s) => s.annotation)).toEqual(["shop.items", "shop.address"]);
      // The address inverse restores the address from before the first call, not the current one.
      expect(second.verdict?.steps[1].arguments).toEqual({ order_id: "O1", address: { city: "Austin" } });
      g.observe(items, { order_id: "O1" });

      const ret = { name: "return_delivered_order_items", arguments: { order_id: "O2", item_ids: ["desk"] } };
      const asked = g.check(ret, { userMessages: ["I want to return the desk"] });
      expect(asked).toMatchObject({ route: "ConsentEscalated", reason: "external_side_effect" });
      expect(asked.forward).toHaveLength(2);
      expect(asked.question).toContain("`email`");

      const cancelOrder = { name: "cancel_pending_order", arguments: { order_id: "O1", reason: "no longer needed" } };
      expect(g.check(cancelOrder, { userMessages: ["I want to return the desk", "yes"] }).reason).toBe("overlap_conflict");
      expect(g.check(cancelOrder, { userMessages: ["I want to return the desk", "yes", "yes, cancel it"] }).route).toBe("ConsentApproved");
      g.checkpoint();
      expect(g.check(cancelOrder).route).toBe("Approved");
    });
  });
}

describe("consent in a session", () => {
  it("a consented irreversible call commits the session; a question names an earlier culprit", () => {
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), scope: "session", policy: "escalate", config: { now: NOW } });
    expect(g.check(updateFlights).route).toBe("Approved");
    g.observe(updateFlights, { ok: true });
    const certificate = { name: "send_certificate", arguments: { user_id: "mia" } };
    expect(g.check(certificate, { userMessages: ["send me a certificate"] }).route).toBe("ConsentEscalated");
    expect(g.check(certificate, { userMessages: ["send me a certificate", "yes, send it"] }).route).toBe("ConsentApproved");
    g.observe(certificate, "sent");
    expect(g.sequence()).toEqual([]);
    expect(g.check(updateFlights).forward).toEqual([]);

    const turn = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), policy: "escalate", config: { now: NOW } });
    const q = turn.check(updateFlights, { turnCalls: [certificate] });
    expect(q.question).toBe(
      "Running `update_reservation_flights` on reservation `R1` after the earlier `send_certificate`: `send_certificate` sends its effect to the external sink `email`, which cannot be recalled once sent. Do you confirm? (yes/no)",
    );
  });
});

describe("an inadmissible call that ran anyway", () => {
  it("advisory: an irreversible call that passed through commits the session, later calls are judged on their own", () => {
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), scope: "session", policy: "advisory", config: { now: NOW } });
    const certificate = { name: "send_certificate", arguments: { user_id: "mia" } };
    const sent = g.check(certificate);
    expect(sent).toMatchObject({ route: "AdvisoryPassthrough", admissible: false, reason: "external_side_effect" });
    g.observe(certificate, "sent");
    // Without the barrier the email would sit in every later forward sequence and pin φ at 0.
    expect(g.sequence()).toEqual([]);
    const next = g.check(updateFlights);
    expect(next).toMatchObject({ route: "Approved", admissible: true });
    expect(next.forward).toEqual([]);
    g.observe(updateFlights, { ok: true });
    // An admitted call still joins the sequence, so a later cancel conflicts with it.
    expect(g.sequence()).toHaveLength(1);
    expect(g.check(cancel).reason).toBe("overlap_conflict");
  });

  it("turn scope: a passed-through irreversible call of the same message is a barrier too", () => {
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), scope: "turn", policy: "advisory", config: { now: NOW } });
    const certificate = { name: "send_certificate", arguments: { user_id: "mia" } };
    // Before it ran, an earlier irreversible call of the message pins the later one at 0.
    expect(g.check(updateFlights, { turnCalls: [certificate] })).toMatchObject({ admissible: false, reason: "external_side_effect" });
    expect(g.check(certificate).route).toBe("AdvisoryPassthrough");
    g.observe(certificate, "sent");
    const next = g.check(updateFlights, { turnCalls: [{ ...certificate, result: "sent" } as never] });
    expect(next).toMatchObject({ route: "Approved", admissible: true });
    expect(next.forward).toEqual([]);
    // Calls after the barrier still count.
    const after = g.check(cancel, { turnCalls: [certificate, updateFlights] });
    expect(after.reason).toBe("overlap_conflict");
    g.checkpoint();
    expect(g.check(updateFlights, { turnCalls: [certificate] }).admissible).toBe(false);
  });
});

describe("a forced core trap", () => {
  it("vetoes with internal_error, then the guard keeps serving correct verdicts", () => {
    const core = faultCore();
    let instances = 0;
    const g = createGuard({
      ontology: airline.blob,
      // The first backend comes from the fault build; after the trap the factory builds a fresh one.
      backend: (t, blob) => (instances++ === 0 ? core.load(blob!) : wasmFactory(t, blob)),
      state: airlineState(),
      config: { now: NOW },
    });
    const reference = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW } });
    const expected = reference.check(updateFlights);
    core.exports.arm_trap(0);
    const trapped = g.check(updateFlights);
    expect(trapped).toMatchObject({ route: "Vetoed", approved: false, reason: "internal_error", verdict: null });
    expect(trapped.detail).toContain("core-trap");
    expect(instances).toBe(2);
    for (let i = 0; i < 3; i++) {
      const d = g.check(updateFlights);
      expect(d.verdict).toEqual(expected.verdict);
      expect(d.route).toBe("Approved");
      g.release(d.execution!); // not run: the next check is judged alone again
    }
  });

  it("advisory mode passes the call through but records the internal error", () => {
    const core = faultCore();
    const g = createGuard({ ontology: airline.blob, backend: () => core.load(airline.blob), state: airlineState(), policy: "advisory", config: { now: NOW } });
    core.exports.arm_trap(0);
    expect(g.check(updateFlights)).toMatchObject({ route: "AdvisoryPassthrough", admissible: false, reason: "internal_error" });
    expect(g.check(updateFlights)).toMatchObject({ route: "Approved", reason: "ok" });
  });
});

describe("wrapTools", () => {
  it("runs approved calls and observes them; returns the refusal or the question instead of running", async () => {
    const state = airlineState();
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state, scope: "session", policy: "escalate", config: { now: NOW, projection: airlineRules } });
    const ran: string[] = [];
    const messages: string[] = ["please change my flight"];
    const decisions: Decision[] = [];
    const tools = wrapTools(
      g,
      {
        update_reservation_flights: async (args) => {
          ran.push("update");
          return JSON.stringify({ ...state.entity("reservation", String(args.reservation_id)), flights: args.flights });
        },
        cancel_reservation: async (args) => {
          ran.push("cancel");
          return { ...state.entity("reservation", String(args.reservation_id)), status: "cancelled" };
        },
        send_certificate: async () => {
          ran.push("certificate");
          return "sent";
        },
        get_reservation_details: async (args) => state.entity("reservation", String(args.reservation_id)),
      },
      { context: () => ({ userMessages: messages }), onDecision: (d) => decisions.push(d) },
    );
    await tools.update_reservation_flights(updateFlights.arguments);
    expect(state.slot("reservation", "R1", "flights")).toEqual(updateFlights.arguments.flights);
    const refused = await tools.cancel_reservation({ reservation_id: "R1" });
    expect(isGuardRefusal(refused)).toBe(true);
    expect(refused).toMatchObject({ polar: "ConsentEscalated", reason: "overlap_conflict" });
    const asked = await tools.send_certificate({ user_id: "mia" });
    expect(asked).toMatchObject({ polar: "ConsentEscalated" });
    expect((asked as { message: string }).message).toContain("Do you confirm?");
    messages.push("yes, send it");
    expect(await tools.send_certificate({ user_id: "mia" })).toBe("sent");
    expect(await tools.get_reservation_details({ reservation_id: "R1" })).toMatchObject({ status: "confirmed" });
    expect(ran).toEqual(["update", "certificate"]);
    expect(decisions.map((d) => d.route)).toEqual(["Approved", "ConsentEscalated", "ConsentEscalated", "ConsentApproved", "Approved"]);
    // The consented certificate committed the session: the forward sequence restarted after it.
    expect(g.sequence()).toEqual([]);
  });

  it("a tool that throws saying it changed nothing is not observed; one that may have written stays, unknown", async () => {
    const g = createGuard({ ontology: airline.blob, state: new LayerB().clone(), scope: "session", config: { now: NOW } });
    const s = g.state as LayerB;
    s.replaceEntity("reservation", "R1", airlineState().entity("reservation", "R1")!);
    let error: Error = new NothingChangedError("tool down");
    const tools = wrapTools(g, { update_reservation_flights: async () => { throw error; } });
    await expect(tools.update_reservation_flights(updateFlights.arguments)).rejects.toThrow("tool down");
    expect(g.sequence()).toHaveLength(0);
    error = new Error("tool down after the write");
    await expect(tools.update_reservation_flights(updateFlights.arguments)).rejects.toThrow("after the write");
    expect(g.sequence()).toHaveLength(1);
    expect(g.check(updateFlights).reason).toBe("unknown_state");
  });
});
