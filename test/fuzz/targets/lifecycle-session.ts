// Shared by the lifecycle fuzz targets (guard-parallel, guard-results, consent-timing) and the log and
// Worker targets: the guard tests' small airline ontology, its Layer B and projection rules, a pool of
// calls, and the checks every session must pass (frozen records, contiguous seqs, a log that replays
// clean).
//
// What does not vary between cases is prepared once per process, so a case pays for the guard's
// lifecycle and the log's replay, which is what the properties are about: the blob is decoded and
// hashed once (guards get `{ tables, hash, blob }`, the verifier the tables by hash), and every
// SHA-256 (chain links, reads digests, the verifier's chain check) is node:crypto's, the digest the
// docs tell Node users to pass. Both are checked once against the plain path (`checkPreparedPath`):
// the blob bytes with the JavaScript SHA-256 give the same records, line for line.
import { createHash } from "node:crypto";
import { createMemorySink, verifyAuditLog } from "../../../src/audit/index.js";
import { blobDigestHex, decodeBlob, type Sha256 } from "../../../src/blob/index.js";
import { createGuard, type Decision, type OntologyInput } from "../../../src/guard/index.js";
import type { OntologyTables } from "../../../src/ontology/tables.js";
import { canonicalJson } from "../../../src/projection/index.js";
import { airline, airlineState, NOW, referenceFactory } from "../../guard/helpers.js";
import { fail } from "../support.js";

export { airline, airlineRules, airlineState, NOW, referenceFactory } from "../../guard/helpers.js";

/** Real SHA-256, native: what `config.sha256` / `sha256` options are for in Node. */
export const sha256: Sha256 = (data) => createHash("sha256").update(data).digest();

const tables: OntologyTables = decodeBlob(airline.blob);
const hash = blobDigestHex(airline.blob);

/** The airline blob decoded and hashed once: a guard's `ontology`. */
export const AIRLINE: OntologyInput = Object.freeze({ tables, hash, blob: airline.blob });

/** The verifier's ontologies: the decoded tables by their hash. */
export const ONTOLOGIES: Record<string, OntologyTables> = Object.freeze({ [hash]: tables });

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
  return createMemorySink({ sha256 });
}

/** Every record frozen all the way down, seqs 1…n in order, and the log re-derives clean. */
export function checkLog(log: ReturnType<typeof createMemorySink>): void {
  const records: readonly Decision[] = log.records;
  records.forEach((d, i) => {
    if (d.seq !== i + 1) fail(`record ${i} has seq ${d.seq}`);
    deepFrozen(d, `record ${d.seq}`);
  });
  if (records.length === 0) return;
  const report = verifyAuditLog(log.lines(), { ontologies: ONTOLOGIES, sha256 });
  if (report.mismatches.length > 0) fail(`the log does not replay: ${JSON.stringify(report.mismatches[0]).slice(0, 400)}`);
}

let preparedChecked = false;

/** Once per process: the prepared path (decoded tables, native SHA-256) writes the same log lines as
 * the plain one (blob bytes, JavaScript SHA-256), and each log verifies the other's way. A difference
 * would mean the fast setup tests something other than what a user runs. */
export function checkPreparedPath(): void {
  if (preparedChecked) return;
  const run = (ontology: OntologyInput, hashFn: Sha256 | undefined): string[] => {
    const log = createMemorySink({ sha256: hashFn });
    for (const [policy, scope] of [["veto", "session"], ["escalate", "turn"], ["advisory", "session"]] as const) {
      const g = createGuard({ ontology, backend: referenceFactory, state: airlineState(), policy, scope, config: { now: NOW, log, sha256: hashFn } });
      for (const call of CALLS) {
        const d = g.check(call, { userMessages: ["yes"] });
        if (d.execution !== null) g.observe(call as never, { ok: true }, { execution: d.execution });
      }
    }
    return log.lines();
  };
  const plain = run(airline.blob, undefined);
  const prepared = run(AIRLINE, sha256);
  if (plain.length === 0 || plain.join("\n") !== prepared.join("\n")) fail("the prepared ontology and native SHA-256 write other log lines than the blob and the JavaScript SHA-256");
  const viaBlob = verifyAuditLog(prepared, { ontologies: [airline.blob] });
  const viaTables = verifyAuditLog(plain, { ontologies: ONTOLOGIES, sha256 });
  if (!viaBlob.ok || !viaTables.ok) fail("a log of the prepared path does not verify the plain way, or the other way round");
  preparedChecked = true;
}
