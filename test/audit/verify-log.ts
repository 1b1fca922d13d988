// A small log of real decisions for the verifier's tests (test/audit/verify-*.test.ts), built once per
// file and never mutated: each test edits a copy.
import { createGuard, type GuardOptions } from "../../src/guard/index.js";
import { createMemorySink } from "../../src/audit/index.js";
import { airline, airlineState, NOW, referenceFactory } from "../guard/helpers.js";

export const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
export const cabin = { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } };
export const certificate = { name: "send_certificate", arguments: { user_id: "mia", amount: 50 } };

export type Rec = Record<string, any>;

/** The decisions of one guard over the airline fixture, as chained log lines. */
export function logOf(checks: (g: ReturnType<typeof createGuard>) => void, options: Partial<GuardOptions> = {}): string[] {
  const sink = createMemorySink();
  const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), ...options, config: { now: NOW, log: sink, ...options.config } });
  checks(g);
  return sink.lines();
}

/** Five records, seq 1 to 5, of one veto guard: an approval with reads, a veto with a verdict, a
 * veto of a missing entity, an unknown tool, a malformed call. */
export const FIVE = logOf((g) => {
  g.check(flights);
  g.check(certificate);
  g.check({ ...cabin, arguments: { reservation_id: "R9", cabin: "business" } });
  g.check({ name: "launch", arguments: {} });
  g.check({ name: 7, arguments: {} });
});

/** A copy of `lines` with record `index` (0-based) parsed, edited and written back. */
export function edited(lines: readonly string[], index: number, edit: (d: Rec) => void): string[] {
  const copy = [...lines];
  const d = JSON.parse(copy[index]) as Rec;
  edit(d);
  copy[index] = JSON.stringify(d);
  return copy;
}
