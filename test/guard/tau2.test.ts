// The guard on the real τ²-bench ontologies (ontologies/<domain>/) and Layer B projected from the
// real db.json (POLAR_TAU2_DIR, default ../shared/tau2 from the repo root).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createGuard, wrapTools } from "../../src/guard/index.js";
import { createMemorySink, verifyAuditLog } from "../../src/audit/index.js";
import { parseProjectionRules, projectDocument } from "../../src/projection/index.js";
import { NOW, referenceFactory, wasmFactory } from "./helpers.js";
import { TAU2_DIR, describeTau2 } from "../tau2/data-dir.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tau2 = TAU2_DIR;

function domain(name: "airline" | "retail") {
  const blob = new Uint8Array(readFileSync(join(root, "ontologies", name, `${name}.blob`)));
  const rules = parseProjectionRules(JSON.parse(readFileSync(join(root, "ontologies", name, "projection.json"), "utf8")));
  const db = JSON.parse(readFileSync(join(tau2, "domains", name, "db.json"), "utf8"));
  return { blob, rules, state: projectDocument(rules, db), db };
}

for (const [label, factory] of [["reference", referenceFactory], ["wasm", wasmFactory]] as const) {
  describeTau2(`τ²-bench ontologies (${label})`, () => {
    /** A reservation whose flights edit (to the same itinerary) is admitted, VAAOXJ (the example)
     * first: which ones qualify follows the ontology's bounds. */
    function editable(d: ReturnType<typeof domain>) {
      const probe = createGuard({ ontology: d.blob, backend: referenceFactory, state: d.state, scope: "turn", config: { now: NOW } });
      for (const id of ["VAAOXJ", ...Object.keys(d.db.reservations)]) {
        const res = d.db.reservations[id];
        if (res === undefined) continue;
        // The same cabin (its undo's money is exact only with today's fares) or another one (issue 22).
        for (const cabin of [res.cabin, "business", "economy"]) {
          const update = {
            name: "update_reservation_flights",
            arguments: { reservation_id: id, cabin, flights: res.flights.map((f: { flight_number: string; date: string }) => ({ flight_number: f.flight_number, date: f.date })), payment_id: res.payment_history[0]?.payment_id ?? "" },
          };
          const cancel = { name: "cancel_reservation", arguments: { reservation_id: id } };
          const p = probe.check(update);
          if (p.execution !== null) probe.release(p.execution);
          if (p.reason === "ok") return { id, res, update, cancel };
        }
      }
      throw new Error("no reservation of the db qualifies");
    }

    it("airline: update a reservation's flights, then cancel it → no compensation for a gift-card reservation (session scope)", () => {
      const { blob, rules, state, db } = domain("airline");
      const sink = createMemorySink();
      const g = createGuard({ ontology: blob, backend: factory, state, scope: "session", config: { now: NOW, projection: rules, log: sink } });
      // 0MR5MT: economy, nothing flown, both segments still bookable (the undo re-takes the old one),
      // paid with a gift card. (4WQ150, used before, keeps a segment whose business cabin is now full:
      // the bound cannot tell a kept segment from a changed one, so it refuses that undo.)
      const res = db.reservations["0MR5MT"];
      const update = {
        name: "update_reservation_flights",
        // A cabin change paid by credit card: the undo re-prices every segment, so its amount is exact
        // (issue 22: with the cabin unchanged and fares moved since booking, it is not admitted).
        arguments: { reservation_id: "0MR5MT", cabin: "business", flights: [{ flight_number: "HAT068", date: "2024-05-16" }, { flight_number: "HAT279", date: "2024-05-27" }], payment_id: "credit_card_2922116" },
      };
      const first = g.check(update);
      expect(first).toMatchObject({ route: "Approved", reason: "ok" });
      expect(first.verdict?.steps[0]).toMatchObject({ annotation: "airline.flights.self", arguments: { reservation_id: "0MR5MT", flights: [{ flight_number: "HAT068", date: "2024-05-16" }, { flight_number: "HAT279", date: "2024-05-26" }] } });
      // The tool returns the updated reservation as JSON text (τ²-bench's shape).
      g.observe(update, JSON.stringify({ ...res, cabin: "business", flights: [res.flights[0], { ...res.flights[1], date: "2024-05-27" }] }));
      // 0MR5MT was paid with a gift card, which a cancellation does not refill: re-booking it would fail
      // (executed in τ²-bench: "Not enough balance"), so the cancellation's compensation does not apply
      // (its `when`) and its T4 edge does (the gift-card money is spent for good), before and after a
      // checkpoint. (An edit then a cancellation of a re-bookable reservation gives overlap_conflict:
      // test/ontologies/scenarios.test.ts.)
      const cancel = g.check({ name: "cancel_reservation", arguments: { reservation_id: "0MR5MT" } });
      expect(cancel).toMatchObject({ route: "Vetoed", reason: "irreversibly_consumes" });
      expect(cancel.verdict?.bottleneck).toMatchObject({ annotation: "airline.cancel.final" });
      expect(cancel.forward).toHaveLength(1);
      g.checkpoint();
      expect(g.check({ name: "cancel_reservation", arguments: { reservation_id: "0MR5MT" } }).reason).toBe("irreversibly_consumes");
      expect(verifyAuditLog(sink.lines(), { ontologies: [blob] }).mismatches).toEqual([]);
    });

    it("airline, parallel tool calls (Promise.all over wrapTools): the cancel is judged as in sequence", async () => {
      const d = domain("airline");
      const { res, update, cancel } = editable(d);
      const outcomes: unknown[] = [];
      for (const parallel of [false, true]) {
        const g = createGuard({ ontology: d.blob, backend: factory, state: d.state.clone(), scope: "session", config: { now: NOW, projection: d.rules } });
        const ran: string[] = [];
        const tools = wrapTools(g, {
          update_reservation_flights: async () => (ran.push("update"), JSON.stringify(res)),
          cancel_reservation: async () => (ran.push("cancel"), JSON.stringify({ ...res, status: "cancelled" })),
        });
        const out = parallel
          ? await Promise.all([tools.update_reservation_flights(update.arguments), tools.cancel_reservation(cancel.arguments)])
          : [await tools.update_reservation_flights(update.arguments), await tools.cancel_reservation(cancel.arguments)];
        expect(out[1]).toMatchObject({ polar: "Vetoed" });
        expect(ran).toEqual(["update"]);
        outcomes.push(out[1]);
      }
      expect({ ...(outcomes[1] as object), seq: 0 }).toEqual({ ...(outcomes[0] as object), seq: 0 });
    });

    it("airline: a cancel whose result is text leaves the reservation unknown; a later edit of it fails closed", async () => {
      const d = domain("airline");
      const { id, update, cancel } = editable(d);
      const g = createGuard({ ontology: d.blob, backend: factory, state: d.state.clone(), scope: "turn", policy: "advisory", config: { now: NOW, projection: d.rules } });
      const seen: string[] = [];
      const tools = wrapTools(
        g,
        { cancel_reservation: async () => `Reservation ${id} cancelled.`, update_reservation_flights: async () => "ok" },
        { onDecision: (x) => seen.push(x.reason) },
      );
      expect(await tools.cancel_reservation(cancel.arguments)).toBe(`Reservation ${id} cancelled.`);
      await tools.update_reservation_flights(update.arguments);
      expect(seen[1]).toBe("unknown_state");
    });

    it("retail: a pending-order cancel escalates with a question about the consumed resource", () => {
      const { blob, rules, state, db } = domain("retail");
      const pending = Object.values(db.orders as Record<string, { order_id: string; status: string }>).find((o) => o.status === "pending")!;
      const g = createGuard({ ontology: blob, backend: factory, state, scope: "session", policy: "escalate", config: { now: NOW, projection: rules } });
      const d = g.check({ name: "cancel_pending_order", arguments: { order_id: pending.order_id, reason: "no longer needed" } }, { userMessages: ["Cancel my order please?"] });
      expect(d).toMatchObject({ route: "ConsentEscalated", reason: "irreversibly_consumes" });
      expect(d.question).toContain(`Running \`cancel_pending_order\` on order \`${pending.order_id}\`: it consumes the order's status for good`);
      const yes = g.check({ name: "cancel_pending_order", arguments: { order_id: pending.order_id, reason: "no longer needed" } }, { userMessages: ["Cancel my order please?", "Do you confirm?", "Yes, confirmed."] });
      expect(yes.route).toBe("ConsentApproved");
      const ret = g.check({ name: "return_delivered_order_items", arguments: { order_id: "#W0000000", item_ids: [], payment_method_id: "x" } });
      expect(ret.reason).toBe("missing_entity");
    });
  });
}
