// The verifier's re-derivation of one record: the record's own shape (configuration, lists, targets),
// the components it names (ontology, policy, consent detector) and where the verifier finds custom
// ones, failures stated by the record (a model, the context) that the replay injects again, the
// intent parser's targets and their reads, the replay's own backend failing, and backend faults at
// decision time accepted as transient only as a plain fail-closed outcome.
import { describe, expect, it } from "vitest";
import { recordHash, verifyAuditLog, type VerifyOptions } from "../../src/audit/index.js";
import { readsDigest, type BackendFactory } from "../../src/guard/index.js";
import type { ConsentDetector } from "../../src/policies/consent.js";
import { vetoPolicy } from "../../src/policies/veto.js";
import type { DecisionPolicy } from "../../src/policies/types.js";
import type { TargetState } from "../../src/policies/classifier.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { airline } from "../guard/helpers.js";
import { cabin, certificate, edited, FIVE, flights, logOf, type Rec } from "./verify-log.js";

const ontologies = [airline.blob];
const verify = (lines: string[], options: Partial<VerifyOptions> = {}) => verifyAuditLog(lines, { ontologies, ...options });
const fields = (lines: string[], options: Partial<VerifyOptions> = {}) => verify(lines, options).mismatches.map((m) => [m.line, m.field]);
/** Edits the last record (so the chain does not report the edit) and returns its mismatches. */
const onLast = (lines: string[], edit: (d: Rec) => void, options: Partial<VerifyOptions> = {}) => verify(edited(lines, lines.length - 1, edit), options).mismatches;

describe("the record's shape", () => {
  it("a configuration that is not an object is named, and the record is not replayed further", () => {
    for (const config of [null, "veto", [1], undefined]) {
      expect(onLast(FIVE, (d) => { d.config = config; })).toEqual([{ line: 5, field: "config", expected: "an effective configuration", actual: config }]);
    }
  });

  it.each(["forward", "userMessages", "reads"])("`%s` that is not a list is named, not replayed as empty", (f) => {
    for (const v of [undefined, null, "x", { 0: "a" }]) {
      expect(verify(edited(FIVE.slice(0, 1), 0, (d) => { d[f] = v; })).mismatches).toEqual([{ line: 1, field: f, expected: "a list", actual: v }]);
    }
  });

  it("targets that are neither null nor a list, or a target that is not an evaluation with reads, are named", () => {
    expect(onLast(FIVE, (d) => { d.targets = "none"; })).toEqual([{ line: 5, field: "targets", expected: "a list of target evaluations or null", actual: "none" }]);
    for (const t of [null, 3, [], { label: "a" }, { label: "a", reads: "x" }]) {
      expect(onLast(FIVE, (d) => { d.targets = [t]; })).toEqual([{ line: 5, field: "targets[0]", expected: "a target evaluation with its reads", actual: t }]);
    }
  });

  it("an ontology the verifier was not given is named", () => {
    expect(onLast(FIVE, (d) => { d.ontologyHash = "f".repeat(64); })).toEqual([{ line: 5, field: "ontologyHash", expected: "an ontology given to the verifier", actual: "f".repeat(64) }]);
  });

  it("a configuration the guard could not have run with is one `record` mismatch, not a crash", () => {
    const m = onLast(FIVE, (d) => { d.config.tiers = "T1"; });
    expect(m).toEqual([{ line: 5, field: "record", expected: "a replayable decision record", actual: expect.stringContaining("tiers") }]);
  });
});

describe("custom policies and consent detectors", () => {
  const strict: DecisionPolicy = { name: "strict", decide: (i) => vetoPolicy.decide(i) };
  const log = logOf((g) => { g.check(flights); g.check(certificate); }, { policy: strict });

  it("are looked up by name; a missing one is named on every record that uses it", () => {
    expect(verify(log, { policies: { strict } })).toMatchObject({ ok: true, verified: 2 });
    expect(verify(log).mismatches).toEqual([1, 2].map((line) => ({ line, field: "policy", expected: "a known policy", actual: "strict" })));
    // A built-in name wins over a custom policy of the same name: the record says which ran.
    expect(fields(FIVE, { policies: { veto: { name: "veto", decide: () => ({ route: "Approved", message: null, consent: null }) } } })).toEqual([]);
  });

  it("a custom consent detector is looked up by its id", () => {
    const always: ConsentDetector = { id: "always@1", detect: () => ({ consent: true, message: 0, evidence: "always" }) };
    const asked = logOf((g) => { g.check(certificate, { userMessages: ["hm"] }); }, { policy: "escalate", config: { consentDetector: always } });
    expect(JSON.parse(asked[0]).config.consentDetector).toBe("always@1");
    expect(verify(asked, { consentDetectors: { "always@1": always } }).ok).toBe(true);
    expect(verify(asked).mismatches).toEqual([{ line: 1, field: "consentDetector", expected: "a known consent detector", actual: "always@1" }]);
  });
});

describe("failures the record states", () => {
  const failing = { id: "down@1", classify: () => { throw new Error("down"); } };
  const modelFailed = logOf((g) => { g.check(cabin); g.check(flights); }, { config: { requestClassifier: failing } });
  const contextFailed = logOf((g) => { g.check(cabin, "not a context" as never); });

  it("a model or context failure is injected again: the record verifies, and is not a transient fault", () => {
    expect(JSON.parse(modelFailed[0])).toMatchObject({ reason: "internal_error", detail: "model: component failed: Error: down" });
    expect(JSON.parse(contextFailed[0])).toMatchObject({ reason: "internal_error", detail: expect.stringMatching(/^context: /u) });
    for (const lines of [modelFailed, contextFailed]) {
      expect(verify(lines)).toMatchObject({ ok: true, transient: [] });
      expect(verify(lines, { acceptTransient: true })).toMatchObject({ ok: true, transient: [] });
    }
  });

  it("only a detail that starts with the component is injected", () => {
    // An approval rewritten as a fault whose detail merely mentions a component: a mismatch.
    const m = onLast(modelFailed, (d) => { Object.assign(d, { route: "Vetoed", approved: false, admissible: false, reason: "internal_error", detail: "core trap (model: none)", verdict: null }); });
    expect(m.map((x) => x.field)).toEqual(expect.arrayContaining(["reason", "detail"]));
    // A stated model failure is injected only for an internal error: another reason with such a
    // detail is just an edited detail.
    expect(onLast(FIVE.slice(0, 2), (d) => { d.detail = "model: down"; }).map((x) => x.field)).toEqual(["detail"]);
    // A detail that is not text states nothing.
    const listed = onLast(modelFailed.slice(0, 1), (d) => { d.detail = ["model: component failed: Error: down"]; });
    expect(listed.map((x) => x.field)).toEqual(expect.arrayContaining(["reason", "detail"]));
  });

  it("a stated failure the replay cannot reach is not accepted as transient", () => {
    // An unknown tool is refused before any model is asked: a record claiming a model failure for it
    // does not follow from its inputs.
    const m = onLast(FIVE.slice(0, 4), (d) => { Object.assign(d, { reason: "internal_error", detail: "model: down" }); }, { acceptTransient: true });
    expect(m.map((x) => x.field)).toEqual(["reason", "detail"]);
  });

  it("a fault the replay reproduces (a policy that throws) verifies as it is, not as transient", () => {
    const throwing: DecisionPolicy = { name: "throws", decide: () => { throw new Error("policy bug"); } };
    const lines = logOf((g) => { g.check(flights); }, { policy: throwing });
    expect(JSON.parse(lines[0])).toMatchObject({ route: "Vetoed", reason: "internal_error", detail: "Error: policy bug" });
    expect(verify(lines, { policies: { throws: throwing }, acceptTransient: true })).toMatchObject({ ok: true, verified: 1, transient: [] });
  });

  it("the classifier's recorded answer is what the replay decides with", () => {
    const mutating = logOf((g) => { g.check(flights); }, { config: { requestClassifier: { id: "m@1", classify: () => "Mutating" } } });
    const answer = logOf((g) => { g.check(flights); }, { config: { requestClassifier: { id: "a@1", classify: () => "JustAnswer" } } });
    expect(JSON.parse(mutating[0])).toMatchObject({ route: "Approved", classification: "Mutating" });
    expect(JSON.parse(answer[0])).toMatchObject({ reason: "unrequested_mutation", classification: "JustAnswer" });
    expect(verify(mutating).ok).toBe(true);
    expect(verify(answer).ok).toBe(true);
    expect(onLast(mutating, (d) => { d.classification = "JustAnswer"; }).map((x) => x.field)).toEqual(["route", "approved", "admissible", "reason", "verdict", "message", "refusal", "reads", "stateDigest"]);
  });
});

describe("the intent parser's targets", () => {
  const target = (label: string, status: string): TargetState => ({ label, assertions: [{ entity: "reservation", id: "R1", slot: "status", value: status }] });
  const parser = { id: "p@1", parse: () => [target("cancelled", "cancelled"), target("confirmed", "confirmed")] };
  const log = logOf((g) => { g.check(cabin); g.check(flights); }, { config: { intentParser: parser, tau: 0.6 } });

  it("each target's search is replayed from its own recorded reads", () => {
    const d = JSON.parse(log[0]);
    expect(d.targets.map((t: Rec) => [t.label, t.reason])).toEqual([["cancelled", "bound_violated"], ["confirmed", "ok"]]);
    expect(d.targets[1].reads.length).toBeGreaterThan(0);
    expect(verify(log)).toMatchObject({ ok: true, verified: 2 });
  });

  it("an edited target read is named by its digest", () => {
    const m = onLast(log, (d) => { d.targets[1].reads[0][3] = "edited"; });
    expect(m).toContainEqual({ line: 2, field: "targets[1].stateDigest", expected: expect.any(String), actual: JSON.parse(log[1]).targets[1].stateDigest });
  });

  it("reads dropped from the targets, with their digests recomputed, are named", () => {
    const dropped = onLast(log, (d) => {
      for (const t of d.targets) {
        t.reads = [];
        t.stateDigest = readsDigest([]);
      }
    });
    const reads = dropped.find((x) => x.field === "reads");
    expect(reads?.expected).toBe("every value the verdict reads");
    // The first five of the six missing values, in the order the replay asked for them (per target: the
    // entity's existence, then its slots in name order, as the verifier reads a candidate's slots).
    expect(reads?.actual).toBe("missing: exists reservation R1; reservation R1 first_departure; reservation R1 status; exists reservation R1; reservation R1 first_departure");
    const one = onLast(log, (d) => { d.targets[1].reads = d.targets[1].reads.slice(1); d.targets[1].stateDigest = readsDigest(d.targets[1].reads); });
    expect(one.find((x) => x.field === "reads")?.actual).toMatch(/^missing: [^;]+$/u);
  });

  it("a read dropped from the record itself is named", () => {
    const m = onLast(FIVE.slice(0, 1), (d) => { d.reads = d.reads.filter((r: unknown[]) => r[2] !== "status"); d.stateDigest = readsDigest(d.reads); });
    expect(m).toContainEqual({ line: 1, field: "reads", expected: "every value the verdict reads", actual: "missing: reservation R1 status" });
  });
});

describe("the replay's own backend", () => {
  it("is built once per ontology, and rebuilt after it fails; the failed record is named", () => {
    let built = 0;
    let runs = 0;
    const factory: BackendFactory = (t) => {
      built++;
      const b = createReferenceBackend(t);
      return { kind: b.kind, inputView: () => b.inputView(), run: () => { if (runs++ === 0) throw new Error("trap"); return b.run(); } };
    };
    const report = verify(FIVE.slice(0, 2), { backend: factory });
    expect(report.mismatches).toEqual([{ line: 1, field: "backend", expected: "a working backend", actual: expect.stringContaining("trap") }]);
    expect(report).toMatchObject({ verified: 1 });
    expect(built).toBe(2);
    built = 0;
    runs = 1;
    expect(verify(FIVE, { backend: factory }).ok).toBe(true);
    expect(built).toBe(1);
  });
});

describe("a backend fault at decision time, accepted as transient", () => {
  // The record as the guard writes a fault: internal_error, no verdict, vetoed (advisory: passed
  // through, still not admissible).
  const fault = (d: Rec) => Object.assign(d, { reason: "internal_error", detail: "core trap", verdict: null, admissible: false, approved: false, route: "Vetoed" });

  it("only as a plain veto under a vetoing policy", () => {
    const accepted = { acceptTransient: true };
    expect(verify(edited(FIVE, 4, fault), accepted)).toMatchObject({ ok: true, transient: [5] });
    const wrong = (edit: (d: Rec) => void) => onLast(FIVE, (d) => { fault(d); edit(d); }, accepted);
    expect(wrong((d) => { d.approved = true; })).toEqual([{ line: 5, field: "route", expected: "Vetoed (internal_error)", actual: "Vetoed" }]);
    expect(wrong((d) => { d.route = "ConsentEscalated"; })).toEqual([{ line: 5, field: "route", expected: "Vetoed (internal_error)", actual: "ConsentEscalated" }]);
    expect(wrong((d) => { d.admissible = true; })).toEqual([{ line: 5, field: "route", expected: "Vetoed (internal_error)", actual: "Vetoed" }]);
    // The hidden approval of the issue: a veto rewritten as a passthrough of a fault.
    expect(wrong((d) => { d.route = "AdvisoryPassthrough"; d.approved = true; })).toEqual([{ line: 5, field: "route", expected: "Vetoed (internal_error)", actual: "AdvisoryPassthrough" }]);
  });

  it("as a passthrough under the advisory policy, which still does not admit it", () => {
    const advisory = logOf((g) => { g.check(flights); g.check(certificate); }, { policy: "advisory" });
    expect(JSON.parse(advisory[1]).route).toBe("AdvisoryPassthrough");
    const passed = (d: Rec) => { fault(d); d.route = "AdvisoryPassthrough"; d.approved = true; };
    expect(verify(edited(advisory, 1, passed), { acceptTransient: true })).toMatchObject({ ok: true, transient: [2] });
    expect(onLast(advisory, fault, { acceptTransient: true })).toEqual([{ line: 2, field: "route", expected: "AdvisoryPassthrough (internal_error)", actual: "Vetoed" }]);
    expect(onLast(advisory, (d) => { passed(d); d.approved = false; }, { acceptTransient: true }).map((x) => x.field)).toEqual(["route"]);
  });

  it("a transient record's recorded reads must still match their digest", () => {
    const m = onLast(FIVE.slice(0, 1), (d) => { fault(d); d.reads[3][3] = "cancelled"; }, { acceptTransient: true });
    expect(m).toEqual([{ line: 1, field: "stateDigest", expected: expect.any(String), actual: JSON.parse(FIVE[0]).stateDigest }]);
  });
});

it("recordHash names the record the report's head points at", () => {
  expect(verify(FIVE).head.hash).toBe(recordHash(JSON.parse(FIVE[4])));
});
