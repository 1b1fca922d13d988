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
        const update = {
          name: "update_reservation_flights",
          arguments: { reservation_id: id, cabin: res.cabin, flights: res.flights.map((f: { flight_number: string; date: string }) => ({ flight_number: f.flight_number, date: f.date })), payment_id: res.payment_history[0]?.payment_id ?? "" },
        };
        const cancel = { name: "cancel_reservation", arguments: { reservation_id: id } };
        const p = probe.check(update);
        if (p.execution !== null) probe.release(p.execution);
        if (p.reason === "ok") return { id, res, update, cancel, alone: probe.check(cancel).reason };
      }
      throw new Error("no reservation of the db qualifies");
    }

    it("airline: update a reservation's flights, then cancel it: refused (overlap_conflict when the cancel alone is fine)", () => {
      const d = domain("airline");
      const { blob, rules, state } = d;
      const { res, update, cancel: cancelCall, alone } = editable(d);
      const sink = createMemorySink();
      const g = createGuard({ ontology: blob, backend: factory, state, scope: "session", config: { now: NOW, projection: rules, log: sink } });
      const first = g.check(update);
      expect(first).toMatchObject({ route: "Approved", reason: "ok" });
      // The tool returns the updated reservation as JSON text (τ²-bench's shape).
      g.observe(update, JSON.stringify(res), { execution: first.execution! });
      const cancel = g.check(cancelCall);
      expect(cancel).toMatchObject({ route: "Vetoed", reason: alone === "ok" ? "overlap_conflict" : alone });
      expect(cancel.forward).toHaveLength(1);
      g.checkpoint();
      expect(g.check(cancelCall).reason).toBe(alone);
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
      expect(d.question).toContain("irreversibly consumes `order.status`");
      const yes = g.check({ name: "cancel_pending_order", arguments: { order_id: pending.order_id, reason: "no longer needed" } }, { userMessages: ["Cancel my order please?", "Do you confirm?", "Yes, confirmed."] });
      expect(yes.route).toBe("ConsentApproved");
      const ret = g.check({ name: "return_delivered_order_items", arguments: { order_id: "#W0000000", item_ids: [], payment_method_id: "x" } });
      expect(ret.reason).toBe("missing_entity");
    });
  });
}
