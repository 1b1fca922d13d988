// One decision from its inputs (evaluate): the gate's fail-closed reasons in order, what a policy may
// and may not return, failures of the state, the verifier and the policy, unknown state, and candidate
// targets. Every failure is a veto with a reason and a detail, never an approval.
import { describe, expect, it } from "vitest";
import { createVerifier, VerifierError, type Verifier } from "../../src/core/verifier.js";
import type { StateView } from "../../src/core/types.js";
import { resolveConfig } from "../../src/guard/config.js";
import { evaluate, NO_MODEL, type EvaluateInput } from "../../src/guard/evaluate.js";
import { defaultConsentDetector } from "../../src/policies/consent.js";
import { advisoryPolicy } from "../../src/policies/advisory.js";
import { vetoPolicy } from "../../src/policies/veto.js";
import type { DecisionPolicy, PolicyOutcome } from "../../src/policies/types.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { airline, airlineState, NOW } from "./helpers.js";

const verifier = createVerifier(airline.tables, createReferenceBackend(airline.tables));
const config = Object.freeze(resolveConfig({ scope: "turn", policy: "veto", consentDetector: defaultConsentDetector.id, requestClassifier: null, intentParser: null, now: NOW }));
const cabin = { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } };
const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const certificate = { name: "send_certificate", arguments: { user_id: "mia", amount: 50 } };
const read = { name: "get_reservation_details", arguments: { reservation_id: "R1" } };

function run(over: Partial<EvaluateInput> = {}) {
  return evaluate({
    tables: airline.tables, verifier, config, policy: vetoPolicy, detector: defaultConsentDetector,
    call: flights, forward: [], state: airlineState(), userMessages: [], model: NO_MODEL, ...over,
  });
}

/** A policy with a fixed answer (missing message and consent are null) or one that runs `out`. */
const policyAnswering = (out: Partial<PolicyOutcome> | (() => PolicyOutcome)): DecisionPolicy => ({
  name: "custom",
  decide: typeof out === "function" ? out : () => ({ message: null, consent: null, route: "Vetoed", ...out }),
});

describe("the gate", () => {
  it("an admissible call is approved with its verdict and reads", () => {
    const e = run();
    expect(e).toMatchObject({ route: "Approved", approved: true, admissible: true, reason: "ok", detail: null, refusal: null, question: null, backendFailed: false });
    expect(e.verdict?.complete).toBe(true);
    expect(e.reads.length).toBeGreaterThan(0);
    expect(e.call).toEqual(flights);
  });

  it("a read-only call is approved without asking the policy", () => {
    const e = run({ call: read, policy: policyAnswering(() => { throw new Error("asked"); }) });
    expect(e).toMatchObject({ route: "Approved", approved: true, admissible: true, reason: "read_only", verdict: null, message: null });
  });

  it.each<[string, Partial<EvaluateInput>, string, string | null]>([
    ["a malformed call", { call: { name: 3 } }, "malformed_call", "the call has no tool name (`name` is not a non-empty string)"],
    ["a malformed forward entry", { forward: [{ name: "x" }] }, "malformed_call", "forward call 0 (`x`): `arguments` is not a plain object"],
    ["an unknown tool", { call: { name: "launch", arguments: {} } }, "unknown_tool", null],
    ["a model that failed", { model: { ...NO_MODEL, error: "model: timeout" } }, "internal_error", "model: timeout"],
    ["a key argument that is not a string or number", { call: { ...cabin, arguments: { reservation_id: true, cabin: "x" } } }, "malformed_call", "`update_reservation_cabin`: argument `reservation_id` naming the `reservation` is missing or not a string"],
    ["an entity not in Layer B", { call: { ...cabin, arguments: { reservation_id: "R9", cabin: "x" } } }, "missing_entity", "`reservation` `R9` is not in Layer B"],
  ])("%s is vetoed", (_what, over, reason, detail) => {
    const e = run(over);
    expect(e).toMatchObject({ route: "Vetoed", approved: false, admissible: false, reason, detail, verdict: null });
    expect(typeof e.refusal).toBe("string");
  });

  it("a numeric key argument names the entity by its text", () => {
    const state = airlineState();
    state.replaceEntity("reservation", "7", { status: "confirmed", flights: [], cabin: "economy", first_departure: "2024-06-20T08:00:00", user_id: "mia" });
    expect(run({ call: { ...cabin, arguments: { reservation_id: 7, cabin: "business" } }, state }).reason).not.toBe("malformed_call");
    expect(run({ call: { ...cabin, arguments: { reservation_id: 8, cabin: "business" } } })).toMatchObject({ reason: "missing_entity", detail: "`reservation` `8` is not in Layer B" });
  });

  it("a request the classifier says is not a mutation is unrequested_mutation, with the class", () => {
    expect(run({ model: { ...NO_MODEL, classification: "JustAnswer" } })).toMatchObject({ route: "Vetoed", reason: "unrequested_mutation", classification: "JustAnswer" });
    expect(run({ model: { ...NO_MODEL, classification: "Mutating" } })).toMatchObject({ route: "Approved", classification: "Mutating" });
  });

  it("a state that throws is an internal error; the checked call is still recorded", () => {
    const state: StateView = { hasEntity: () => { throw new Error("db down"); }, slot: () => undefined };
    expect(run({ state })).toMatchObject({ route: "Vetoed", reason: "internal_error", detail: "Error: db down", call: flights });
    expect(run({ state, call: { name: 3 } }).reason).toBe("malformed_call");
  });

  it("a Layer B value that is not JSON fails closed and records no reads", () => {
    const base = airlineState();
    const state: StateView = { hasEntity: (e, id) => base.hasEntity(e, id), slot: (e, id, s) => (s === "status" ? NaN : base.slot(e, id, s)) };
    const e = run({ state });
    expect(e).toMatchObject({ route: "Vetoed", reason: "internal_error", verdict: null, reads: [] });
    expect(e.detail).toMatch(/^layer b value is not json: /);
    expect(e.digest.get()).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("verifier failures", () => {
  const failing = (err: Error): Verifier => ({ ...verifier, verdict: () => { throw err; } });
  it.each<[string, Error, string, boolean]>([
    ["a malformed-call error", new VerifierError("malformed-call", "bad call"), "malformed_call", false],
    ["a typed error of another kind", new VerifierError("input-too-large", "too big"), "internal_error", false],
    ["an internal error", new VerifierError("internal-error", "trap"), "internal_error", true],
    ["anything else", new Error("boom"), "internal_error", true],
  ])("%s vetoes; only an untyped failure marks the backend as failed", (_what, err, reason, backendFailed) => {
    const e = run({ verifier: failing(err) });
    expect(e).toMatchObject({ route: "Vetoed", reason, backendFailed, verdict: null });
    expect(e.detail).toContain(err.message);
  });
});

describe("what a policy may return", () => {
  it("Approved for an inadmissible call is turned into a veto that says so", () => {
    const e = run({ call: cabin, policy: policyAnswering({ route: "Approved", consent: { consent: true, message: 0, evidence: "yes" } }) });
    expect(e).toMatchObject({ route: "Vetoed", approved: false, reason: "below_threshold", consent: null, detail: "policy `custom` returned `Approved` for reason `below_threshold`; vetoed" });
    expect(typeof e.refusal).toBe("string");
  });

  it("ConsentApproved is allowed for an inadmissible call, not for one the guard could not judge", () => {
    const consentApproved = policyAnswering({ route: "ConsentApproved", message: "ok", consent: { consent: true, message: 0, evidence: "yes" } });
    expect(run({ call: cabin, policy: consentApproved })).toMatchObject({ route: "ConsentApproved", approved: true, admissible: false, message: "ok" });
    expect(run({ call: { ...cabin, arguments: { reservation_id: "R9", cabin: "x" } }, policy: consentApproved })).toMatchObject({ route: "Vetoed", reason: "missing_entity", detail: "policy `custom` returned `ConsentApproved` for reason `missing_entity`; vetoed" });
  });

  it("AdvisoryPassthrough of a call the guard could not judge: only the built-in advisory policy", () => {
    const unknownTool = { name: "launch", arguments: {} };
    expect(run({ call: unknownTool, policy: policyAnswering({ route: "AdvisoryPassthrough" }) })).toMatchObject({ route: "Vetoed", reason: "unknown_tool" });
    expect(run({ call: unknownTool, policy: advisoryPolicy })).toMatchObject({ route: "AdvisoryPassthrough", approved: true, reason: "unknown_tool" });
    expect(run({ call: cabin, policy: policyAnswering({ route: "AdvisoryPassthrough" }) })).toMatchObject({ route: "AdvisoryPassthrough", approved: true });
  });

  it("ConsentEscalated carries its message as the question, Vetoed as the refusal", () => {
    expect(run({ call: certificate, policy: policyAnswering({ route: "ConsentEscalated", message: "confirm?" }) })).toMatchObject({ approved: false, question: "confirm?", refusal: null, message: "confirm?" });
    expect(run({ call: certificate, policy: policyAnswering({ route: "Vetoed", message: "no" }) })).toMatchObject({ approved: false, question: null, refusal: "no" });
  });

  it("a route that does not exist, or a policy that throws, is an internal-error veto", () => {
    const bogus = run({ policy: policyAnswering({ route: "Bogus" as never }) });
    expect(bogus).toMatchObject({ route: "Vetoed", approved: false, admissible: false, reason: "internal_error", detail: "Error: policy `custom` returned route `Bogus`", consent: null });
    expect(typeof bogus.refusal).toBe("string");
    const thrown = run({ policy: policyAnswering(() => { throw new Error("policy bug"); }) });
    expect(thrown).toMatchObject({ route: "Vetoed", reason: "internal_error", detail: "Error: policy bug" });
    // The refusal is the one for an internal error of this call.
    expect(thrown.refusal).toMatch(/^I can't run `update_reservation_flights`: the reversibility check failed \(reason `internal_error`[;)]/);
  });
});

describe("unknown state", () => {
  const mark = { entity: "reservation", id: "R1", tool: "update_reservation_flights", execution: "x3" };
  it("a decision that reads an entity marked unknown fails closed, naming it and the tool", () => {
    const e = run({ unknown: [mark] });
    expect(e).toMatchObject({ route: "Vetoed", admissible: false, reason: "unknown_state", unknown: [mark] });
    expect(e.detail).toBe("`reservation` `R1` is unknown: the result of `update_reservation_flights` (x3) could not be projected; re-read the state");
  });

  it("a mark on everything names Layer B; a mark without execution names none", () => {
    expect(run({ unknown: [{ ...mark, id: null, execution: null }] }).detail).toBe("Layer B is unknown: the result of `update_reservation_flights` could not be projected; re-read the state");
  });

  it("a mark the reads do not touch changes nothing; a harder reason is kept", () => {
    expect(run({ unknown: [{ ...mark, id: "R2" }] })).toMatchObject({ route: "Approved", unknown: null });
    expect(run({ unknown: [] })).toMatchObject({ route: "Approved", unknown: null });
    expect(run({ unknown: [mark], call: { ...cabin, arguments: { reservation_id: true, cabin: "x" } } }).reason).toBe("malformed_call");
    // The missing entity is read (its existence), and the mark on it does not replace the reason.
    expect(run({ unknown: [{ ...mark, id: "R9" }], call: { ...cabin, arguments: { reservation_id: "R9", cabin: "x" } } })).toMatchObject({ reason: "missing_entity", detail: "`reservation` `R9` is not in Layer B" });
  });
});

describe("candidate targets", () => {
  const confirmed = { label: "confirmed", assertions: [{ entity: "reservation", id: "R1", slot: "status", value: "confirmed" }] };
  const cancelled = { label: "cancelled", assertions: [{ entity: "reservation", id: "R1", slot: "status", value: "cancelled" }] };
  const tau06 = Object.freeze(resolveConfig({ ...config, env: undefined, tau: 0.6 }));

  it("admits when one target is admissible, reporting every target's search", () => {
    const e = run({ call: cabin, config: tau06, model: { ...NO_MODEL, targets: [cancelled, confirmed] } });
    expect(e).toMatchObject({ route: "Approved", admissible: true, reason: "ok" });
    expect(e.targets?.map((t) => [t.label, t.admissible, t.reason])).toEqual([["cancelled", false, "bound_violated"], ["confirmed", true, "ok"]]);
    expect(e.targets?.[1].stateDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a target whose search fails internally is not outvoted by an admissible one", () => {
    let n = 0;
    const flaky: Verifier = { ...verifier, verdict: (...a) => (n++ === 0 ? (() => { throw new Error("trap"); })() : verifier.verdict(...a)) };
    const e = run({ call: cabin, config: tau06, verifier: flaky, model: { ...NO_MODEL, targets: [cancelled, confirmed] } });
    expect(e).toMatchObject({ route: "Vetoed", admissible: false, reason: "internal_error", detail: "target `cancelled`: internal_error", backendFailed: true });
  });

  it("no admissible target: the one with the best score decides, wherever it is in the list", () => {
    const e = run({ call: cabin, model: { ...NO_MODEL, targets: [cancelled] } });
    expect(e).toMatchObject({ route: "Vetoed", reason: "bound_violated" });
    // τ 0.9: the confirmed target scores 0.7 (below_threshold), the cancelled one has no score.
    const tau09 = Object.freeze(resolveConfig({ ...config, env: undefined, tau: 0.9 }));
    for (const targets of [[cancelled, confirmed], [confirmed, cancelled]]) {
      const d = run({ call: cabin, config: tau09, model: { ...NO_MODEL, targets } });
      expect(d).toMatchObject({ route: "Vetoed", admissible: false, reason: "below_threshold" });
      expect(d.verdict).toEqual(d.targets?.find((t) => t.label === "confirmed")?.verdict);
    }
    expect(run({ call: cabin, model: { ...NO_MODEL, targets: [] } }).targets).toBeNull();
  });
});
