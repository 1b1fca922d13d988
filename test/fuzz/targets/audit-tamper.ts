// Log tampering: a real chained decision log (two guards, veto and escalate, both scopes) and one
// random edit of it — a swap, a duplicate, a deletion, an edited field anywhere in a record (fields no
// verdict reads included), a record rewritten to hide an approval, a cut tail. Any change to the log
// must fail verification: in place and before the tail by the chain, at the tail against an anchored
// head. The untouched log verifies.
import fc from "fast-check";
import { chainHead, createJsonlSink, verifyAuditLog } from "../../../src/audit/index.js";
import { createGuard } from "../../../src/guard/index.js";
import { airline, airlineState, NOW, referenceFactory } from "../../guard/helpers.js";
import { caseBudgetMs, fail, withinTime, type FuzzTarget } from "../support.js";
import { ONTOLOGIES, sha256 } from "./lifecycle-session.js";

const CALLS: unknown[] = [
  { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } },
  { name: "get_reservation_details", arguments: { reservation_id: "R2" } },
  { name: "cancel_reservation", arguments: { reservation_id: "R1" } },
  { name: "send_certificate", arguments: { user_id: "mia", amount: 100 } },
  { name: "update_reservation_flights", arguments: { reservation_id: "R2", flights: [] } },
  { name: "launch_rocket", arguments: {} },
];

/** The log every case tampers with: built once, deterministic. */
function buildLog(): string[] {
  const lines: string[] = [];
  const sink = createJsonlSink((l) => lines.push(l.trimEnd()));
  for (const [policy, scope] of [["veto", "session"], ["escalate", "turn"]] as const) {
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), policy, scope, config: { now: NOW, log: sink } });
    for (const call of CALLS) {
      const d = g.check(call, { userMessages: ["hello"] });
      if (d.route === "ConsentEscalated") g.check(call, { userMessages: ["hello", "yes, go ahead"] });
    }
  }
  return lines;
}

let cached: { lines: string[]; head: string } | null = null;
function log(): { lines: string[]; head: string } {
  if (cached === null) {
    const lines = buildLog();
    const head = chainHead(lines.join("\n") + "\n").hash;
    // The cases verify with node:crypto's SHA-256; the JavaScript one must agree on the same log.
    if (chainHead(lines.join("\n") + "\n", sha256).hash !== head) fail("node:crypto and the JavaScript SHA-256 give the log other heads");
    if (!verifyAuditLog(lines, { ontologies: [airline.blob], head }).ok) fail("the untouched log does not verify with the blob and the JavaScript SHA-256");
    cached = { lines, head };
  }
  return cached;
}

type Json = Record<string, any>;
/** Field edits: each changes a record (or is skipped by the property when it does not). */
const EDITS: Array<[string, (d: Json, v: number) => void]> = [
  ["seq", (d, v) => { d.seq += 1 + (v % 3); }],
  ["chain.index", (d, v) => { d.chain.index += 1 + (v % 2); }],
  ["chain.prev", (d) => { d.chain.prev = "f".repeat(64); }],
  ["an argument no operand reads", (d, v) => { d.call.arguments = { ...d.call.arguments, note: `n${v}` }; }],
  ["a user message", (d, v) => { d.userMessages = [...d.userMessages, `m${v}`]; }],
  ["route", (d, v) => { d.route = ["Approved", "Vetoed", "AdvisoryPassthrough", "ConsentApproved"][v % 4]; }],
  ["approved", (d) => { d.approved = !d.approved; }],
  ["hidden as a fault", (d) => { Object.assign(d, { route: "Vetoed", approved: false, admissible: false, reason: "internal_error", detail: "core-trap: unreachable", verdict: null }); }],
  ["scope", (d) => { d.scope = d.scope === "turn" ? "session" : "turn"; }],
  ["policy", (d) => { d.policy = d.policy === "veto" ? "advisory" : "veto"; }],
  ["tau", (d, v) => { d.tau = (v % 1_000_001); }],
  ["a config key", (d, v) => { d.config = { ...d.config, [`extra${v % 3}`]: v }; }],
  ["config.tau", (d, v) => { d.config = { ...d.config, tau: (v % 100) / 100 }; }],
  ["format", (d) => { d.format = "polar-decision/0"; }],
];

type Tamper =
  | { kind: "swap"; i: number; j: number }
  | { kind: "duplicate"; i: number }
  | { kind: "delete"; i: number }
  | { kind: "edit"; i: number; edit: number; v: number }
  | { kind: "cut"; keep: number }
  | { kind: "none" };

const tamper: fc.Arbitrary<Tamper> = fc.oneof(
  fc.record({ kind: fc.constant("swap" as const), i: fc.nat(), j: fc.nat() }),
  fc.record({ kind: fc.constant("duplicate" as const), i: fc.nat() }),
  fc.record({ kind: fc.constant("delete" as const), i: fc.nat() }),
  { arbitrary: fc.record({ kind: fc.constant("edit" as const), i: fc.nat(), edit: fc.nat({ max: EDITS.length - 1 }), v: fc.nat() }), weight: 4 },
  fc.record({ kind: fc.constant("cut" as const), keep: fc.nat() }),
  fc.constant({ kind: "none" as const }),
);

function apply(lines: string[], t: Tamper): string[] {
  const n = lines.length;
  const out = [...lines];
  switch (t.kind) {
    case "swap": [out[t.i % n], out[t.j % n]] = [out[t.j % n], out[t.i % n]]; return out;
    case "duplicate": out.splice(t.i % n, 0, out[t.i % n]); return out;
    case "delete": out.splice(t.i % n, 1); return out;
    case "cut": return out.slice(0, t.keep % n);
    case "edit": {
      const d = JSON.parse(out[t.i % n]) as Json;
      EDITS[t.edit][1](d, t.v);
      out[t.i % n] = JSON.stringify(d);
      return out;
    }
    default: return out;
  }
}

/** Whether the edit left the records as they were (a swap of a line with itself, a no-op edit). */
function unchanged(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((l, i) => l === b[i] || JSON.stringify(JSON.parse(l)) === JSON.stringify(JSON.parse(b[i])));
}

export async function checkTamper(t: Tamper): Promise<void> {
  const { lines, head } = log();
  const tampered = apply(lines, t);
  // The blob is decoded once (ONTOLOGIES); the chain is checked with real SHA-256 (node:crypto's).
  const verify = () => verifyAuditLog(tampered, { ontologies: ONTOLOGIES, sha256, head });
  const report = withinTime(caseBudgetMs(3000), "verifying a tampered log", verify);
  if (unchanged(lines, tampered)) {
    if (!report.ok) fail(`the untouched log failed: ${JSON.stringify(report.mismatches.slice(0, 3))}`);
    return;
  }
  if (report.ok) fail(`a tampered log verified: ${JSON.stringify(t)}`);
}

export const auditTamperTarget: FuzzTarget = {
  name: "audit-tamper",
  claim: "any reordering, duplication, deletion, cut tail or edit of a chained decision log (fields no verdict reads included) fails verification against its anchored head; the untouched log verifies",
  ciRuns: 250,
  property() {
    return fc.asyncProperty(tamper, (t) => checkTamper(t));
  },
};
