// Unusable tool results: a write the guard let through whose result the projection cannot use (text,
// a number, a record without the entity, garbage JSON) makes what it acts on unknown; no later
// decision that reads it is admitted until markKnown, observe never throws for a valid call, and the
// log (with the unknown marks it hit) replays.
import fc from "fast-check";
import { createGuard, type Decision } from "../../../src/guard/index.js";
import { fail, type FuzzTarget } from "../support.js";
import { AIRLINE, airlineRules, airlineState, CALLS, checkLog, checkPreparedPath, newLog, NOW, referenceFactory, sha256 } from "./lifecycle-session.js";

const RESULTS: readonly unknown[] = [
  "Reservation cancelled.", "", "   ", "{", "null", "[]", "42", "1e400", "true", '"ok"', "{\"reservation_id\": 5}",
  null, 7, [], {}, { ok: true }, { reservation_id: "R1" }, "\u0000", "{\"__proto__\": {\"x\": 1}}",
];

type Op = { kind: "run"; call: number; result: number | "good" } | { kind: "markKnown" } | { kind: "checkpoint" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("run" as const), call: fc.nat(CALLS.length - 1), result: fc.oneof(fc.nat(RESULTS.length - 1), fc.constant("good" as const)) }), weight: 8 },
  { arbitrary: fc.constant({ kind: "markKnown" as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: "checkpoint" as const }), weight: 1 },
);

export function checkResults(ops: Op[], scope: "turn" | "session", policy: "veto" | "advisory"): void {
  const state = airlineState();
  const records = newLog();
  const g = createGuard({ ontology: AIRLINE, backend: referenceFactory, state, scope, policy, config: { now: NOW, projection: airlineRules, log: records, sha256 } });
  const unknown = new Set<string>();
  let everything = false;
  for (const op of ops) {
    if (op.kind === "markKnown") {
      g.markKnown();
      unknown.clear();
      everything = false;
      continue;
    }
    if (op.kind === "checkpoint") {
      g.checkpoint();
      continue;
    }
    const call = CALLS[op.call];
    const d = g.check(call);
    const touched = d.reads.some((r) => unknown.has(`${r[0]}/${r[1]}`)) || (everything && d.reason !== "read_only");
    if (touched && d.admissible) fail(`a decision that read an unknown entity was admitted (${call.name}, ${d.reason})`);
    if (touched && d.reason !== "unknown_state" && !["malformed_call", "unknown_tool", "missing_entity", "internal_error"].includes(d.reason)) {
      fail(`a decision that read an unknown entity has reason ${d.reason}`);
    }
    if (!d.approved) continue;
    const id = String(call.arguments.reservation_id ?? "R1");
    const result = op.result === "good" ? JSON.stringify({ ...state.entity("reservation", id), status: "confirmed" }) : RESULTS[op.result];
    let report;
    try {
      report = g.observe(call, result, { execution: d.execution ?? undefined });
    } catch (e) {
      fail(`observe threw on a valid call: ${String(e)}`);
    }
    for (const m of report.unknown ?? []) {
      if (m.id === null) everything = true;
      else unknown.add(`${m.entity}/${m.id}`);
    }
    if (report.applied !== null && report.applied.skipped.length > 0 && d.reason !== "read_only" && report.unknown === null) {
      fail(`an unusable result of \`${call.name}\` left nothing unknown`);
    }
  }
  checkLog(records);
}

export const guardResultsTarget: FuzzTarget = {
  name: "guard-results",
  claim: "a write whose result could not be projected makes what it acts on unknown: no later decision reading it is admitted until markKnown; observe never throws on a valid call; the log replays",
  ciRuns: 500,
  property() {
    checkPreparedPath();
    return fc.property(fc.array(opArb, { maxLength: 12 }), fc.constantFrom("turn" as const, "session" as const), fc.constantFrom("veto" as const, "advisory" as const), checkResults);
  },
};
