// Shared by the adapter tests: a guard over the small airline test ontology (escalate policy, so one
// guard shows every route), the tools of a scripted agent, and what each call is expected to do.
import { createGuard, createMemorySink, type Decision, type Guard, type PolicyName, type Scope } from "../../src/index.js";
import { verifyAuditLog } from "../../src/audit/api.js";
import { airline, airlineRules, airlineState, NOW } from "../guard/helpers.js";

export interface Fixture {
  guard: Guard;
  log: Decision[];
  /** The log as its sink wrote it (chained JSONL lines). */
  lines(): string[];
  /** Tool name → how many times its implementation ran. */
  ran: Record<string, number>;
  /** The tool implementations (plain functions; each adapter test wraps them its own way). */
  impl: Record<string, (args: Record<string, unknown>) => Promise<unknown>>;
}

export function fixture(policy: PolicyName = "escalate", scope: Scope = "turn"): Fixture {
  const sink = createMemorySink();
  const state = airlineState();
  const guard = createGuard({ ontology: airline.blob, state, policy, scope, config: { now: NOW, projection: airlineRules, log: sink } });
  const ran: Record<string, number> = {};
  const count = (name: string) => (ran[name] = (ran[name] ?? 0) + 1);
  const reservation = (id: string) => state.entity("reservation", id) ?? {};
  const impl: Fixture["impl"] = {
    update_reservation_flights: async (a) => {
      count("update_reservation_flights");
      if ((a.flights as { flight_number?: string }[])[0]?.flight_number === "BROKEN") throw new Error("the booking system is down");
      return { ...reservation(String(a.reservation_id)), flights: a.flights };
    },
    cancel_reservation: async (a) => {
      count("cancel_reservation");
      return { ...reservation(String(a.reservation_id)), status: "cancelled" };
    },
    send_certificate: async () => {
      count("send_certificate");
      return "certificate sent";
    },
    get_reservation_details: async (a) => {
      count("get_reservation_details");
      return reservation(String(a.reservation_id));
    },
  };
  return { guard, log: sink.records as Decision[], lines: () => sink.lines(), ran, impl };
}

export const calls = {
  /** Admissible: a bounded self-undo while the flight has not departed. */
  editFlights: { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT009", date: "2024-05-21" }] } },
  /** After editFlights in the same message: the cancellation re-books under a new id (overlap). */
  cancelR1: { name: "cancel_reservation", arguments: { reservation_id: "R1" } },
  /** Vetoed even under Escalate: the reservation is not in Layer B (missing_entity). */
  cancelMissing: { name: "cancel_reservation", arguments: { reservation_id: "R9" } },
  /** Escalated: an email to the user cannot be recalled. */
  certificate: { name: "send_certificate", arguments: { user_id: "mia" } },
  /** Admissible, but the tool implementation throws. */
  broken: { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "BROKEN", date: "2024-05-21" }] } },
} as const;

export const routes = (log: Decision[]) => log.map((d) => `${(d.call as { name: string }).name}:${d.route}`);

/** The adapter's records are the guard's own: every one re-derives from the record alone. */
export function replays(f: Fixture): boolean {
  const lines = f.lines();
  const r = verifyAuditLog(lines.join("\n") + "\n", { ontologies: [airline.blob] });
  return r.ok && r.verified === f.log.length && lines.length === f.log.length;
}
