// Every class of tampering the audit verifier must catch, each on a small log of real decisions: an
// edited derived field, configuration, engine version, format, ontology or reads, a line that is not a
// record; and what it must accept: the untouched log, each form of giving it the ontologies, and a
// backend fault at decision time that failed closed.
import { describe, expect, it } from "vitest";
import { blobDigestHex } from "../../src/blob/index.js";
import { createGuard } from "../../src/guard/index.js";
import { createMemorySink, recordHash, verifyAuditLog } from "../../src/audit/index.js";
import { airline, airlineState, NOW, referenceFactory } from "../guard/helpers.js";

const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const certificate = { name: "send_certificate", arguments: { user_id: "mia", amount: 50 } };

/** One log: an approval with reads, a veto with a verdict, a consent question and the approval its
 * answer gives, a malformed call. */
function smallLog(): string[] {
  const sink = createMemorySink();
  const veto = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW, log: sink } });
  veto.check(flights);
  veto.check(certificate);
  const escalate = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), policy: "escalate", config: { now: NOW, log: sink } });
  escalate.check(certificate, { userMessages: ["send my certificate"] });
  escalate.check(certificate, { userMessages: ["send my certificate", "yes, go ahead"] });
  veto.check({ name: 7, arguments: {} });
  return sink.lines();
}

let built: string[] | null = null;
/** The log, built by the first test that reads it rather than at import (a mutation run counts code run
 * at import as reached by no test, and reruns every test for each of its mutants). */
const theLog = (): string[] => (built ??= smallLog());
const ontologies = [airline.blob];
type Rec = Record<string, any>;

function tampered(index: number, edit: (d: Rec) => void): string[] {
  const copy = [...theLog()];
  const d = JSON.parse(copy[index]) as Rec;
  edit(d);
  copy[index] = JSON.stringify(d);
  return copy;
}
const fieldsOf = (lines: string[], options = {}) => verifyAuditLog(lines, { ontologies, ...options }).mismatches.map((m) => [m.line, m.field]);

describe("the untouched log", () => {
  it("verifies every record", () => {
    expect(JSON.parse(theLog()[0]).route).toBe("Approved");
    expect(JSON.parse(theLog()[1]).route).toBe("Vetoed");
    expect(JSON.parse(theLog()[2]).route).toBe("ConsentEscalated");
    expect(JSON.parse(theLog()[3]).route).toBe("ConsentApproved");
    expect(JSON.parse(theLog()[4]).reason).toBe("malformed_call");
    expect(verifyAuditLog(theLog(), { ontologies })).toEqual({ ok: true, total: 5, verified: 5, mismatches: [], transient: [], head: { index: 5, hash: recordHash(JSON.parse(theLog()[4])) } });
  });

  it("verifies with the ontologies given by hash, as blobs or as decoded tables", () => {
    const hash = blobDigestHex(airline.blob);
    expect(verifyAuditLog(theLog(), { ontologies: { [hash]: airline.blob } }).verified).toBe(5);
    expect(verifyAuditLog(theLog(), { ontologies: { [hash]: airline.tables } }).verified).toBe(5);
  });

  it("refuses a blob given under another hash", () => {
    expect(() => verifyAuditLog(theLog(), { ontologies: { abc: airline.blob } })).toThrow(`ontology given for hash \`abc\` has hash \`${blobDigestHex(airline.blob)}\``);
  });
});

describe("each tampering is reported on its line and field", () => {
  it.each<[string, number, (d: Rec) => void, string]>([
    ["the route", 1, (d) => { d.route = "Approved"; }, "route"],
    ["the reason", 1, (d) => { d.reason = "ok"; }, "reason"],
    ["the detail", 1, (d) => { d.detail = "fine"; }, "detail"],
    ["the verdict's score", 0, (d) => { d.verdict.phi += 1; }, "verdict"],
    ["the consent evidence", 3, (d) => { d.consent = { ...d.consent, evidence: "sure" }; }, "consent"],
    ["the user's messages", 3, (d) => { d.userMessages = ["no"]; }, "route"],
    ["the scope", 0, (d) => { d.scope = d.scope === "turn" ? "session" : "turn"; }, "scope"],
    ["the policy", 0, (d) => { d.policy = "advisory"; }, "policy"],
    ["τ", 0, (d) => { d.tau += 1; }, "tau"],
    ["an extra config key", 0, (d) => { d.config.extra = 1; }, "config"],
    ["a config value", 0, (d) => { d.config.tau = 0.1; }, "configHash"],
    ["the config hash", 0, (d) => { d.configHash = "0".repeat(64); }, "configHash"],
    ["the engine version", 0, (d) => { d.engineVersion = "0.0.0"; }, "engineVersion"],
    ["the format", 0, (d) => { d.format = "polar-decision/0"; }, "format"],
    ["the ontology hash", 0, (d) => { d.ontologyHash = "0".repeat(64); }, "ontologyHash"],
    ["a read value", 0, (d) => { d.reads[0][3] = "edited"; }, "stateDigest"],
    ["the call", 4, (d) => { d.call = { name: "send_certificate", arguments: { user_id: "mia", amount: 50 } }; }, "reason"],
  ])("%s", (_what, index, edit, field) => {
    expect(fieldsOf(tampered(index, edit))).toContainEqual([index + 1, field]);
    expect(verifyAuditLog(tampered(index, edit), { ontologies }).ok).toBe(false);
  });

  it("an unknown consent detector is named, not guessed", () => {
    expect(fieldsOf(tampered(3, (d) => { d.config.consentDetector = "other@1"; }))).toContainEqual([4, "consentDetector"]);
  });

  it("a line that is not JSON, or JSON that is not a record, is a json mismatch", () => {
    const report = verifyAuditLog([theLog()[0], "{not json", "[1]", theLog()[1]], { ontologies });
    // The record after them is out of place in the chain (its index says 2, it is the fourth line).
    expect(report.mismatches.map((m) => [m.line, m.field])).toEqual([[2, "json"], [3, "json"], [4, "chain.index"]]);
    expect(report.mismatches[1].actual).toBe("Error: not an object");
    expect(report).toMatchObject({ ok: false, total: 4, verified: 1 });
  });

  // The last record: editing an earlier one also breaks the next record's chain link.
  it("the engine version check can be relaxed, and only it", () => {
    // On the last record: an edit anywhere else also breaks the next record's chain link.
    const lines = tampered(4, (d) => { d.engineVersion = "0.0.0"; });
    expect(verifyAuditLog(lines, { ontologies, strictEngineVersion: false }).ok).toBe(true);
    expect(fieldsOf(tampered(4, (d) => { d.engineVersion = "0.0.0"; d.route = "Approved"; }), { strictEngineVersion: false })).toEqual([[5, "route"]]);
  });

  it("an edit before the last record also breaks the chain on the next line", () => {
    expect(fieldsOf(tampered(0, (d) => { d.engineVersion = "0.0.0"; }), { strictEngineVersion: false })).toEqual([[2, "chain.prev"]]);
  });
});

describe("a backend fault at decision time", () => {
  // A record that failed closed with internal_error although its replay decides. By default its claim
  // does not follow from its inputs (an approval rewritten as a fault looks exactly like this), so it
  // is a mismatch; `acceptTransient` lists it instead — but only while it does not approve. On the
  // last record, so the chain is not what reports it.
  const faulted = (approved: boolean, route: string) =>
    tampered(4, (d) => { Object.assign(d, { reason: "internal_error", detail: "core trap", approved, route, verdict: null }); });

  it("is a mismatch by default", () => {
    const report = verifyAuditLog(faulted(false, "Vetoed"), { ontologies });
    expect(report.ok).toBe(false);
    expect(report.transient).toEqual([]);
    expect(report.mismatches.map((m) => [m.line, m.field])).toContainEqual([5, "reason"]);
  });

  it("a vetoed record is listed as transient and verifies when transient faults are accepted", () => {
    expect(verifyAuditLog(faulted(false, "Vetoed"), { ontologies, acceptTransient: true })).toMatchObject({ ok: true, transient: [5], verified: 5 });
  });

  it("an approving record is a route mismatch even then", () => {
    expect(fieldsOf(faulted(true, "Approved"), { acceptTransient: true })).toEqual([[5, "route"]]);
  });
});
