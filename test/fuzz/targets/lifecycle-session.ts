// Shared by the lifecycle fuzz targets (guard-parallel, guard-results, consent-timing): the guard tests'
// small airline ontology, its Layer B and projection rules, a pool of calls, and the checks every
// session must pass (frozen records, contiguous seqs, a log that replays clean).
import { createMemorySink, verifyAuditLog } from "../../../src/audit/index.js";
import type { Decision } from "../../../src/guard/index.js";
import { canonicalJson } from "../../../src/projection/index.js";
import { airline } from "../../guard/helpers.js";
import { fail } from "../support.js";

export { airline, airlineRules, airlineState, NOW, referenceFactory } from "../../guard/helpers.js";

export const CALLS: readonly { name: string; arguments: Record<string, unknown> }[] = [
  { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } },
  { name: "update_reservation_flights", arguments: { reservation_id: "R2", flights: [] } },
  { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } },
  { name: "update_reservation_cabin", arguments: { reservation_id: "R2", cabin: "economy" } },
  { name: "cancel_reservation", arguments: { reservation_id: "R1" } },
  { name: "cancel_reservation", arguments: { reservation_id: "R2" } },
  { name: "book_reservation", arguments: { user_id: "mia", flights: [], cabin: "economy" } },
  { name: "send_certificate", arguments: { user_id: "mia" } },
  { name: "send_certificate", arguments: { user_id: "mia", amount: 100 } },
  { name: "apply_voucher", arguments: { voucher_id: "V1" } },
  { name: "get_reservation_details", arguments: { reservation_id: "R1" } },
  { name: "cancel_reservation", arguments: { reservation_id: "R9" } },
];

export function keyOf(call: unknown): string {
  const c = call as { name: unknown; arguments: unknown };
  return canonicalJson({ name: c.name, arguments: c.arguments });
}

function deepFrozen(v: unknown, path: string): void {
  if (typeof v !== "object" || v === null) return;
  if (!Object.isFrozen(v)) fail(`${path} is not frozen`);
  for (const k of Object.keys(v)) deepFrozen((v as Record<string, unknown>)[k], `${path}.${k}`);
}

/** A hash-chained in-memory log (src/audit), as a guard's `config.log`. */
export function newLog(): ReturnType<typeof createMemorySink> {
  return createMemorySink();
}

/** Every record frozen all the way down, seqs 1…n in order, and the log re-derives clean. */
export function checkLog(log: ReturnType<typeof createMemorySink>): void {
  const records: readonly Decision[] = log.records;
  records.forEach((d, i) => {
    if (d.seq !== i + 1) fail(`record ${i} has seq ${d.seq}`);
    deepFrozen(d, `record ${d.seq}`);
  });
  if (records.length === 0) return;
  const report = verifyAuditLog(log.lines(), { ontologies: [airline.blob] });
  if (report.mismatches.length > 0) fail(`the log does not replay: ${JSON.stringify(report.mismatches[0]).slice(0, 400)}`);
}
