// The airline workload: the checked-in compiled ontology, Layer B projected from τ²-bench's full
// db.json, and a deterministic mix of calls and forward sequences built from real reservations and
// users. Every variant (core, verifier, guard, reference, Cedar) decides exactly these calls.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeBlob } from "../../src/blob/index.js";
import type { ExecutedCall, ToolCall } from "../../src/core/types.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { projectDocument } from "../../src/projection/project.js";
import { parseProjectionRules, type ProjectionRules } from "../../src/projection/rules.js";
import { airlineDbPath, ROOT } from "./paths.js";

/** τ²-bench's fixed clock (domains/airline/policy.md). */
export const AIRLINE_NOW = "2024-05-15T15:00:00";

export interface Reservation {
  reservation_id: string;
  user_id: string;
  cabin: string;
  flights: Array<{ flight_number: string; date: string }>;
  passengers: unknown[];
  total_baggages: number;
  nonfree_baggages: number;
  status?: string | null;
}

export interface AirlineFixture {
  blob: Uint8Array;
  tables: OntologyTables;
  rules: ProjectionRules;
  state: LayerB;
  db: { reservations: Record<string, Reservation>; users: Record<string, unknown>; flights: Record<string, unknown> };
  dbText: string;
  dbSource: "tau2" | "sample";
  dbPath: string;
  /** Single candidate calls, a fixed mix over every tool kind. */
  calls: ToolCall[];
  /** Executed mutating calls (with result and before) on distinct reservations, to build sequences. */
  history: ExecutedCall[];
  /** The same without baggage edits: one admissible edge per executed call. */
  singleEdgeHistory: ExecutedCall[];
}

export function loadAirlineOntology(): { blob: Uint8Array; tables: OntologyTables; rules: ProjectionRules } {
  const dir = join(ROOT, "ontologies", "airline");
  const blob = new Uint8Array(readFileSync(join(dir, "airline.blob")));
  const rules = parseProjectionRules(JSON.parse(readFileSync(join(dir, "projection.json"), "utf8")));
  return { blob, tables: decodeBlob(blob), rules };
}

/** Reservations in id order (deterministic), skipping any already cancelled. */
function liveReservations(db: AirlineFixture["db"]): Reservation[] {
  return Object.keys(db.reservations)
    .sort()
    .map((id) => db.reservations[id])
    .filter((r) => r.status !== "cancelled");
}

function flightRefs(r: Reservation): Array<{ flight_number: string; date: string }> {
  return r.flights.map((f) => ({ flight_number: f.flight_number, date: f.date }));
}

/** The candidate mix: eight kinds of call, cycling over reservations so state reads differ. */
export function buildCalls(db: AirlineFixture["db"], count = 64): ToolCall[] {
  const rs = liveReservations(db);
  const calls: ToolCall[] = [];
  for (let i = 0; calls.length < count; i++) {
    const r = rs[(i * 7) % rs.length];
    const id = r.reservation_id;
    switch (i % 8) {
      case 0: // T2 holds: the same non-free count
        calls.push({ name: "update_reservation_baggages", arguments: { reservation_id: id, total_baggages: r.total_baggages, nonfree_baggages: r.nonfree_baggages, payment_id: "credit_card_1" } });
        break;
      case 1: // T2 bound false, T3 (baggage fee) admits
        calls.push({ name: "update_reservation_baggages", arguments: { reservation_id: id, total_baggages: r.total_baggages + 1, nonfree_baggages: r.nonfree_baggages + 1, payment_id: "credit_card_1" } });
        break;
      case 2: // T2 with a three-part bound; basic economy violates it
        calls.push({ name: "update_reservation_flights", arguments: { reservation_id: id, cabin: r.cabin, flights: flightRefs(r), payment_id: "credit_card_1" } });
        break;
      case 3:
        calls.push({ name: "update_reservation_passengers", arguments: { reservation_id: id, passengers: r.passengers } });
        break;
      case 4: // T3 with identity = new
        calls.push({ name: "cancel_reservation", arguments: { reservation_id: id } });
        break;
      case 5: // T3, creates a reservation
        calls.push({ name: "book_reservation", arguments: { user_id: r.user_id, origin: "JFK", destination: "SEA", flight_type: "one_way", cabin: "economy", flights: flightRefs(r).slice(0, 1), passengers: r.passengers.slice(0, 1), payment_methods: [{ payment_id: "credit_card_1", amount: 100 }], total_baggages: 0, nonfree_baggages: 0, insurance: "no" } });
        break;
      case 6: // T5 + T4: fail closed
        calls.push({ name: "send_certificate", arguments: { user_id: r.user_id, amount: 100 } });
        break;
      default: // read-only
        calls.push({ name: "get_reservation_details", arguments: { reservation_id: id } });
        break;
    }
  }
  return calls;
}

export type HistoryKind = "mixed" | "single-edge";

/** A flight date as τ²-bench's db keeps it. */
interface FlightDate {
  status: string;
  available_seats?: Record<string, number>;
  prices?: Record<string, number>;
}

const CABINS = ["economy", "business", "basic_economy"] as const;

/**
 * A cabin change that keeps the flights, as τ²-bench's `update_reservation_flights` would run it, or
 * null when the tool would refuse it or the ontology's self-undo (airline.flights.self) would not hold:
 * the reservation must be live, unflown and rebookable; the new cabin must have the seats for every
 * passenger on every segment (the tool checks it); basic economy may change cabin but not stay basic
 * economy. A cabin change, not the same itinerary again: τ²-bench's fares have all moved since booking
 * (no reservation's fares are current), so re-writing the same itinerary is never an exact undo, while a
 * cabin change re-prices every segment and its undo's amount is exact. The payment is the user's first
 * credit card (the tool refuses an unknown payment method; a card has no balance to run short). The
 * result is the reservation as the tool returns it: flights re-priced in the new cabin, the difference
 * paid, the cabin set.
 */
function cabinChange(db: AirlineFixture["db"], state: LayerB, r: Reservation): ExecutedCall | null {
  const id = r.reservation_id;
  if (state.slot("reservation", id, "flown") !== false || state.slot("reservation", id, "rebookable") !== true) return null;
  const flights = db.flights as Record<string, { dates?: Record<string, FlightDate> }>;
  const seats = r.passengers.length;
  const cabin = CABINS.find((c) => c !== r.cabin && r.flights.every((f) => {
    const d = flights[f.flight_number]?.dates?.[f.date];
    return d?.status === "available" && (d.available_seats?.[c] ?? 0) >= seats && typeof d.prices?.[c] === "number";
  }));
  const user = db.users[r.user_id] as { payment_methods?: Record<string, { source: string }> } | undefined;
  const card = Object.keys(user?.payment_methods ?? {}).sort().find((k) => user!.payment_methods![k].source === "credit_card");
  if (cabin === undefined || card === undefined) return null;
  const booked = r.flights as Array<{ flight_number: string; date: string; price: number }>;
  const newFlights = booked.map((f) => ({ ...f, price: flights[f.flight_number].dates![f.date].prices![cabin] }));
  const diff = (newFlights.reduce((a, f) => a + f.price, 0) - booked.reduce((a, f) => a + f.price, 0)) * seats;
  const paid = (r as { payment_history?: unknown[] }).payment_history ?? [];
  const payments = [...paid, ...(diff === 0 ? [] : [{ payment_id: card, amount: diff }])];
  const result = { ...r, flights: newFlights, cabin, payment_history: payments };
  return { name: "update_reservation_flights", arguments: { reservation_id: id, cabin, flights: flightRefs(r), payment_id: card }, result, before: {} };
}

/**
 * Executed calls for session sequences: admissible edits (passengers, baggages with the same count, a
 * cabin change: cabinChange) on reservations the candidates do not touch, each with its result (the
 * reservation as the tool returns it) and its `before` snapshot. Every call is admissible alone and the
 * history as a whole is (test/bench/sequences.test.ts), so a sequence's verdict is decided by its
 * candidate, not by a refused history.
 */
export function buildHistory(db: AirlineFixture["db"], state: LayerB, count = 63, kinds: HistoryKind = "mixed"): ExecutedCall[] {
  const rs = liveReservations(db).slice().reverse();
  const out: ExecutedCall[] = [];
  for (let i = 0; out.length < count && i < rs.length; i++) {
    const r = rs[i];
    const id = r.reservation_id;
    const before = { ...(state.entity("reservation", id) ?? {}) };
    const result = db.reservations[id];
    // "single-edge" leaves out the baggage edit, whose two admissible edges (T2 and T3) double the
    // number of complete sequences the search enumerates.
    const kind = kinds === "mixed" ? out.length % 3 : (out.length % 2) * 2;
    if (kind === 0) out.push({ name: "update_reservation_passengers", arguments: { reservation_id: id, passengers: r.passengers }, result, before });
    else if (kind === 1) out.push({ name: "update_reservation_baggages", arguments: { reservation_id: id, total_baggages: r.total_baggages, nonfree_baggages: r.nonfree_baggages, payment_id: "credit_card_1" }, result, before });
    else {
      const c = cabinChange(db, state, r);
      if (c !== null) out.push({ ...c, before });
    }
  }
  return out;
}

/** Forward sequences of length `n`: the last n-1 history calls, then candidate `k` of the mix. */
export function sequence(f: AirlineFixture, n: number, k: number, kind: HistoryKind = "mixed"): ExecutedCall[] {
  const history = kind === "mixed" ? f.history : f.singleEdgeHistory;
  if (n - 1 > history.length) throw new Error(`a sequence of ${n} calls needs ${n - 1} history calls; the ${kind} history of this db has ${history.length}`);
  const head = history.slice(history.length - (n - 1));
  return n === 1 ? [f.calls[k % f.calls.length]] : [...head, f.calls[k % f.calls.length]];
}

/** The workload over τ²-bench's airline db (airlineDbPath: the full data, else the vendored sample), or
 * over the db given. */
export function loadAirline(at: { path: string; source: "tau2" | "sample" } = airlineDbPath()): AirlineFixture {
  const { blob, tables, rules } = loadAirlineOntology();
  const { path, source } = at;
  const dbText = readFileSync(path, "utf8");
  const db = JSON.parse(dbText) as AirlineFixture["db"];
  const state = projectDocument(rules, db, new LayerB());
  const calls = buildCalls(db);
  const history = buildHistory(db, state);
  const singleEdgeHistory = buildHistory(db, state, 63, "single-edge");
  return { blob, tables, rules, state, db, dbText, dbSource: source, dbPath: path, calls, history, singleEdgeHistory };
}

/** The sequence lengths this db can build (the vendored sample has few reservations, so a short
 * history), and the ones it cannot, with the reason, for the results. */
export function lengthsFor(f: AirlineFixture, lengths: readonly number[], kind: HistoryKind): { lengths: number[]; skipped: string[] } {
  const history = kind === "mixed" ? f.history : f.singleEdgeHistory;
  const ok = lengths.filter((n) => n - 1 <= history.length);
  const skipped = lengths.filter((n) => n - 1 > history.length).map((n) => `${kind} n=${n}: the ${f.dbSource} db gives ${history.length} history calls, ${n - 1} needed`);
  return { lengths: ok, skipped };
}
