// A warm-up session per domain, run once per isolate at module scope (domains.ts). V8 compiles a
// function the first time it runs and tiers it up as it runs again, so the first session of a fresh
// isolate, and an object woken from storage, paid ~15–20 ms of CPU for the guard's JavaScript running
// cold (createGuard, the projection, checks, observe, waking the journal (resuming the guard's
// snapshot), the chained record and its hash). Running that same path once on a tiny session of the
// domain moves most of it into the isolate's startup (a 1 s budget apart from a request's CPU limit).
// The warm-up session is a throwaway: its own guard, its own in-memory journal, nothing stored; it
// shares only the domain's validated ontology and core, which hold no session state.
//
// A warm-up that throws means a session on the domain could not run either: domains.ts keeps it as
// the domain's startup failure, answered as a typed 503, never an approval.
import { buildGuard, sha256, storedMeta, type Meta, type ReadyDomain } from "./build.js";
import { SessionJournal, type JournalStore, type Op } from "./journal.js";

/** A small document of the domain and operations that walk the session path: read-only and mutating
 * checks, an observed result, consent, a checkpoint. */
export interface WarmUp {
  document: Record<string, unknown>;
  ops: Op[];
}

const reservation = {
  reservation_id: "WARM01",
  user_id: "warm_user",
  origin: "AAA",
  destination: "BBB",
  flight_type: "one_way",
  cabin: "economy",
  flights: [{ origin: "AAA", destination: "BBB", flight_number: "WRM001", date: "2024-05-20", price: 100 }],
  passengers: [{ first_name: "Warm", last_name: "Up", dob: "1990-01-01" }],
  payment_history: [{ payment_id: "credit_card_1", amount: 100 }],
  created_at: "2024-05-01T10:00:00",
  total_baggages: 0,
  nonfree_baggages: 0,
  insurance: "no",
};

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });

export const AIRLINE_WARMUP: WarmUp = {
  document: {
    flights: {
      WRM001: {
        flight_number: "WRM001",
        origin: "AAA",
        destination: "BBB",
        scheduled_departure_time_est: "08:00:00",
        scheduled_arrival_time_est: "10:00:00",
        dates: { "2024-05-20": { status: "available", available_seats: { basic_economy: 9, economy: 9, business: 9 }, prices: { basic_economy: 80, economy: 100, business: 300 } } },
      },
    },
    users: {
      warm_user: {
        user_id: "warm_user",
        name: { first_name: "Warm", last_name: "Up" },
        payment_methods: { credit_card_1: { source: "credit_card", id: "credit_card_1", brand: "visa", last_four: "0000" } },
        membership: "gold",
        reservations: ["WARM01"],
      },
    },
    reservations: { WARM01: reservation },
  },
  ops: [
    { op: "check", call: call("get_reservation_details", { reservation_id: "WARM01" }), context: undefined },
    { op: "check", call: call("update_reservation_baggages", { reservation_id: "WARM01", total_baggages: 1, nonfree_baggages: 0, payment_id: "credit_card_1" }), context: undefined },
    { op: "observe", call: call("update_reservation_baggages", { reservation_id: "WARM01", total_baggages: 1, nonfree_baggages: 0, payment_id: "credit_card_1" }), result: { ...reservation, total_baggages: 1 }, failed: false },
    { op: "check", call: call("update_reservation_flights", { reservation_id: "WARM01", cabin: "business", flights: [{ flight_number: "WRM001", date: "2024-05-20" }], payment_id: "credit_card_1" }), context: undefined },
    { op: "check", call: call("cancel_reservation", { reservation_id: "WARM01" }), context: { userMessages: ["please cancel it", "yes, go ahead"], turnCalls: undefined } },
    { op: "checkpoint" },
    { op: "check", call: call("send_certificate", { user_id: "warm_user", amount: 100 }), context: undefined },
    { op: "check", call: call("transfer_to_human_agents", { summary: "help" }), context: undefined },
  ],
};

function memoryStore(): JournalStore {
  const data = new Map<string, unknown>();
  return {
    get: async (key) => data.get(key),
    list: async (prefix, start = "") => new Map([...data.entries()].filter(([k]) => k.startsWith(prefix) && k >= start).sort(([a], [b]) => (a < b ? -1 : 1))),
    commit: async (entries) => {
      for (const [k, v] of Object.entries(entries)) data.set(k, v);
    },
  };
}

/** Runs the warm-up session: created, run, evicted, woken (resumed from its snapshot) and run again.
 * Answers each run's results (what the tests read to see that the warm-up walks the whole path). */
export async function warmUp(name: string, domain: ReadyDomain, sample: WarmUp): Promise<unknown[][]> {
  const runs: unknown[][] = [];
  // Two policies: their verdict paths differ (a veto, a question), and both run cold otherwise.
  for (const policy of ["veto", "escalate"] as const) {
    let meta: Meta = { domain: name, document: sample.document, state: undefined, policy, scope: "session", config: {} };
    const journal = new SessionJournal(memoryStore(), (log, resume) => buildGuard(domain, meta, log, resume), { sha256 });
    // As a Durable Object does: created from the document, woken from the stored Layer B.
    meta = storedMeta(meta, await journal.start());
    runs.push(await journal.run(sample.ops));
    journal.forget();
    runs.push(await journal.run(sample.ops.slice(0, 2)));
  }
  return runs;
}
