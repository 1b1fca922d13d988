import { describe, expect, it } from "vitest";
import { blobDigestHex } from "../../src/blob/index.js";
import { createGuard, GuardError, readsDigest, safeCreateGuard, type Guard, type GuardOptions } from "../../src/guard/index.js";
import type { DecisionPolicy } from "../../src/policies/index.js";
import { ENGINE_VERSION } from "../../src/version.js";
import { createMemorySink } from "../../src/audit/index.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory, wasmFactory } from "./helpers.js";

function guard(over: Partial<GuardOptions> = {}): Guard {
  return createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW }, ...over });
}

const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const cabin = { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } };
const certificate = { name: "send_certificate", arguments: { user_id: "mia", amount: 50 } };
const voucher = { name: "apply_voucher", arguments: { voucher_id: "V1" } };

describe("guard.check routes", () => {
  it("passes read-only calls without a search", () => {
    const d = guard().check({ name: "get_reservation_details", arguments: { reservation_id: "R1" } });
    expect(d).toMatchObject({ route: "Approved", approved: true, admissible: true, reason: "read_only", verdict: null, reads: [] });
  });

  it("approves a reversible call with an executable inverse (π with concrete arguments)", () => {
    const g = guard();
    const d = g.check(flights);
    expect(d.route).toBe("Approved");
    expect(d.reason).toBe("ok");
    expect(d.verdict?.phi).toBe(990000);
    expect(d.verdict?.steps[0]).toMatchObject({
      tool: "update_reservation_flights",
      annotation: "air.flights",
      arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT001", date: "2024-05-20" }] },
    });
    expect(d.ontologyHash).toBe(blobDigestHex(airline.blob));
    expect(d.engineVersion).toBe(ENGINE_VERSION);
    expect(d.stateDigest).toBe(readsDigest(d.reads));
    expect(d.reads).toContainEqual(["reservation", "R1", null, true]);
    expect(d.reads).toContainEqual(["reservation", "R1", "status", "confirmed"]);
    expect(d.configHash).toMatch(/^[0-9a-f]{64}$/u);
    expect(d.seq).toBe(1);
    expect(g.check(flights).seq).toBe(2);
  });

  it("vetoes below τ with a refusal naming the reason and the bottleneck", () => {
    const d = guard().check(cabin);
    expect(d).toMatchObject({ route: "Vetoed", approved: false, reason: "below_threshold" });
    expect(d.verdict?.phi).toBe(700000);
    expect(d.message).toContain("below_threshold");
    expect(d.message).toContain("air.cabin");
    expect(d.refusal).toBe(d.message);
    // τ is configurable
    expect(guard({ config: { now: NOW, tau: 0.6 } }).check(cabin).route).toBe("Approved");
  });

  it("vetoes a bound that does not hold (departure in the past)", () => {
    const d = guard().check({ name: "update_reservation_flights", arguments: { reservation_id: "R2", flights: [] } });
    expect(d).toMatchObject({ route: "Vetoed", reason: "bound_violated" });
  });

  it("vetoes fail-closed tiers (external sink, consumed resource)", () => {
    expect(guard().check(certificate)).toMatchObject({ route: "Vetoed", reason: "external_side_effect" });
    expect(guard().check(voucher)).toMatchObject({ route: "Vetoed", reason: "irreversibly_consumes" });
  });

  it("escalates with a sink-aware question, and approves on consent (English and Korean)", () => {
    const g = guard({ policy: "escalate" });
    const q = g.check(certificate, { userMessages: ["Send me a certificate"] });
    expect(q).toMatchObject({ route: "ConsentEscalated", approved: false, execution: null });
    expect(q.question).toBe("Running `send_certificate` on user `mia`: it sends its effect to the external sink `email`, which cannot be recalled once sent. Do you confirm? (yes/no)");
    const v = g.check(voucher, { userMessages: ["use my voucher"] });
    expect(v.question).toBe("Running `apply_voucher` on voucher `V1`: it consumes the voucher's balance for good (what is lost: voucher value), and that cannot be restored. Do you confirm? (yes/no)");
    // Issue 21 item 14: what the call does to what, why, in words; a call that can be undone below τ
    // is never said to be impossible to undo, and no reason code is shown.
    const c = g.check(cabin, {});
    expect(c.question).toBe("Running `update_reservation_cabin` on reservation `R1`: it can be undone, but not reliably enough: the best way back is rated 0.7 out of 1, below the 0.8 required. Do you confirm? (yes/no)");
    // The example: the undo's condition does not hold (a departed flight): said in words, the
    // reservation named, no `bound_violated`.
    const b = g.check({ name: "update_reservation_flights", arguments: { reservation_id: "R2", flights: [] } }, {});
    expect(b).toMatchObject({ route: "ConsentEscalated", reason: "bound_violated" });
    expect(b.question).toBe("Running `update_reservation_flights` on reservation `R2`: the way to undo it does not apply here (a condition of the undo, such as a deadline or a limit, does not hold now), so it could not be undone. Do you confirm? (yes/no)");
    for (const d of [q, v, c, b]) {
      expect(d.question).not.toMatch(/below_threshold|bound_violated|external_side_effect|irreversibly_consumes|reason `/);
    }
    // The answer to the guard's question (the user message after it) approves this call, once.
    const yes = g.check(certificate, { userMessages: ["Send me a certificate", "yes, go ahead"] });
    expect(yes).toMatchObject({ route: "ConsentApproved", approved: true, admissible: false, reason: "external_side_effect", userMessages: ["yes, go ahead"] });
    expect(yes.consent).toMatchObject({ consent: true, evidence: "yes" });
    expect(yes.execution).toBe(`x${yes.seq}`);
    expect(g.release(yes.execution!)).toBe(true);
    // Spent: the same messages do not approve a second execution; the guard asks again.
    expect(g.check(certificate, { userMessages: ["Send me a certificate", "yes, go ahead"] }).route).toBe("ConsentEscalated");
    expect(g.check(certificate, { userMessages: ["Send me a certificate", "yes, go ahead", "네, 진행해 주세요"] }).route).toBe("ConsentApproved");
    const k = guard({ policy: "escalate" });
    k.check(certificate, { userMessages: [] });
    expect(k.check(certificate, { userMessages: ["네, 진행하지 마세요"] }).route).toBe("ConsentEscalated");
    expect(k.check(certificate, { userMessages: ["네, 진행하지 마세요", "yes", "a", "b", "c"] }).route).toBe("ConsentEscalated");
    expect(guard({ policy: "escalate" }).check(flights, { userMessages: [] }).route).toBe("Approved");
  });

  it("recent-messages consent (the replay's): a yes counts only as the answer to a message naming the call", () => {
    const g = guard({ policy: "escalate", config: { now: NOW, consent: "recent-messages" } });
    expect(g.config.consent).toBe("recent-messages");
    const named = [
      { role: "user", content: "Send me a certificate" },
      { role: "assistant", content: "I can send a certificate of $50 to mia. Shall I go ahead?" },
      { role: "user", content: "yes, go ahead" },
    ];
    const d = g.check(certificate, { messages: named });
    // The answer to the latest question decides alone, read with what it answers (recorded).
    expect(d).toMatchObject({ route: "ConsentApproved", userMessages: ["yes, go ahead"] });
    expect(d.consentContext?.question).toBe("I can send a certificate of $50 to mia. Shall I go ahead?");
    expect(d.consentContext?.names).toContain("send_certificate");
    g.release(d.execution!);
    const unnamed = [
      { role: "assistant", content: "Anything else I can help with?" },
      { role: "user", content: "yes please" },
    ];
    const e = g.check(certificate, { messages: unnamed });
    expect(e).toMatchObject({ route: "ConsentEscalated", userMessages: [] });
    // Without the assistant's messages no yes answers anything.
    expect(g.check(certificate, { userMessages: ["yes please"] }).route).toBe("ConsentEscalated");
    expect(g.check(voucher, { messages: [{ role: "assistant", content: "Apply voucher V1 now?" }, { role: "user", content: "yes" }] }).route).toBe("ConsentApproved");
    expect(() => guard({ config: { now: NOW, consent: "sometimes" as never } })).toThrow(GuardError);
  });

  it("advisory never blocks and records what the verdict was", () => {
    const g = guard({ policy: "advisory" });
    const sent = g.check(certificate);
    expect(sent).toMatchObject({ route: "AdvisoryPassthrough", approved: true, admissible: false, reason: "external_side_effect", message: null });
    g.release(sent.execution!);
    expect(g.check(flights)).toMatchObject({ route: "Approved", admissible: true });
    expect(g.check({ name: "nuke", arguments: {} })).toMatchObject({ route: "AdvisoryPassthrough", reason: "unknown_tool" });
  });

  it("accepts a custom policy but never lets it approve what the guard could not judge", () => {
    const yesMan: DecisionPolicy = { name: "yes-man", decide: () => ({ route: "Approved", message: null, consent: null }) };
    const g = guard({ policy: yesMan });
    expect(g.check(flights).route).toBe("Approved");
    const d = g.check(certificate);
    expect(d).toMatchObject({ route: "Vetoed", approved: false });
    expect(d.detail).toContain("yes-man");
    const consenting: DecisionPolicy = { name: "always-consent", decide: () => ({ route: "ConsentApproved", message: null, consent: null }) };
    expect(guard({ policy: consenting }).check({ name: "nuke", arguments: {} }).route).toBe("Vetoed");
    const broken: DecisionPolicy = { name: "broken", decide: () => { throw new Error("boom"); } };
    expect(guard({ policy: broken }).check(certificate)).toMatchObject({ route: "Vetoed", reason: "internal_error" });
  });

  it("records the user messages the policy read and the detector's answer; checkAsync agrees with check", async () => {
    const g = guard({ policy: "escalate", config: { now: NOW, consent: "recent-messages" } });
    const messages = [
      { role: "user", content: "hi" },
      { role: "user", content: "send me a certificate" },
      { role: "assistant", content: "send_certificate emails it. Confirm?" },
      { role: "user", content: "what is it?" },
      { role: "user", content: "yes" },
    ];
    const d = g.check(certificate, { messages });
    expect(d.userMessages).toEqual(["yes"]);
    expect(d.consent).toEqual({ consent: true, message: 0, evidence: "yes" });
    // A latest message that says nothing: the window of three, a yes counting only as an answer to a naming message.
    const w = g.check(certificate, { messages: [...messages, { role: "user", content: "my id is mia" }] });
    expect(w.userMessages).toEqual(["what is it?", "yes", "my id is mia"]);
    expect(w.consentContext).toBeUndefined();
    expect(w.consent).toEqual({ consent: true, message: 1, evidence: "yes" });
    const q = guard({ policy: "escalate" });
    q.check(certificate, { userMessages: ["send one"] });
    const a = await q.checkAsync(certificate, { userMessages: ["send one", "yes"] });
    const p = guard({ policy: "escalate" });
    p.check(certificate, { userMessages: ["send one"] });
    const b = p.check(certificate, { userMessages: ["send one", "yes"] });
    expect(a).toEqual(b);
  });

  it("observe applies projection rules to Layer B and reports what changed", () => {
    const state = airlineState();
    const g = guard({ state, config: { now: NOW, projection: airlineRules } });
    const call = { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } };
    const report = g.observe(call, JSON.stringify({ ...state.entity("reservation", "R1"), cabin: "business" }));
    expect(report.applied?.changes).toEqual([{ op: "upsert", entity: "reservation", id: "R1", effective: true }]);
    expect(state.slot("reservation", "R1", "cabin")).toBe("business");
    expect(g.observe(call, "boom", { failed: true }).applied).toBeNull();
    expect(() => guard({ state: { hasEntity: () => true, slot: () => undefined }, config: { projection: airlineRules } })).toThrow(GuardError);
  });

  it("logs every decision to the sink", () => {
    const sink = createMemorySink();
    const g = guard({ config: { now: NOW, log: sink } });
    g.check(flights);
    g.check(certificate);
    expect(sink.records.map((r) => r.route)).toEqual(["Approved", "Vetoed"]);
    expect(sink.lines()[0].startsWith("{")).toBe(true);
  });
});

describe("fail closed", () => {
  const cr = "the call (`cancel_reservation`)";
  const keyMissing = "`cancel_reservation`: argument `reservation_id` naming the `reservation` is missing or not a string";
  const deep: Record<string, unknown> = { reservation_id: "R1" };
  let at = deep;
  for (let i = 0; i < 70; i++) at = (at.d = {}) as Record<string, unknown>;
  const throwing = { get x(): never { throw new Error("boom"); } };
  // Each malformed shape, and the detail that names what is wrong with it (and where).
  const bad: Array<[string, unknown, string]> = [
    ["null call", null, "the call is not an object"],
    ["a string", "cancel_reservation", "the call is not an object"],
    ["name not a string", { name: 42, arguments: {} }, "the call has no tool name (`name` is not a non-empty string)"],
    ["empty name", { name: "", arguments: {} }, "the call has no tool name (`name` is not a non-empty string)"],
    ["arguments an array", { name: "cancel_reservation", arguments: ["R1"] }, `${cr}: \`arguments\` is not a plain object`],
    ["arguments missing", { name: "cancel_reservation" }, `${cr}: \`arguments\` is not a plain object`],
    ["a function argument", { name: "cancel_reservation", arguments: { reservation_id: "R1", cb: () => 1 } }, `${cr}: \`arguments.cb\` is not JSON (function)`],
    ["a Date argument", { name: "cancel_reservation", arguments: { reservation_id: "R1", at: new Date(0) } }, `${cr}: \`arguments.at\` is not JSON (object of class Date)`],
    ["NaN argument", { name: "cancel_reservation", arguments: { reservation_id: "R1", n: NaN } }, `${cr}: \`arguments.n\` is not JSON (non-finite number)`],
    ["a bigint", { name: "cancel_reservation", arguments: { reservation_id: 1n } }, `${cr}: \`arguments.reservation_id\` is not JSON (bigint)`],
    ["a function after JSON in a list", { name: "cancel_reservation", arguments: { reservation_id: "R1", extra: [1, () => 1] } }, `${cr}: \`arguments.extra[1]\` is not JSON (function)`],
    ["NaN in a list", { name: "cancel_reservation", arguments: { reservation_id: "R1", extra: [NaN] } }, `${cr}: \`arguments.extra[0]\` is not JSON (non-finite number)`],
    ["a 70-deep argument", { name: "cancel_reservation", arguments: deep }, `${cr}: \`arguments${".d".repeat(63)}\` is not JSON (too deep)`],
    ["a nested getter that throws", { name: "cancel_reservation", arguments: { reservation_id: "R1", nested: throwing } }, `${cr}: \`arguments.nested\` is not JSON (unreadable)`],
    ["key argument not a string", { name: "cancel_reservation", arguments: { reservation_id: { $ne: null } } }, keyMissing],
    ["key argument missing", { name: "cancel_reservation", arguments: {} }, keyMissing],
  ];
  for (const policy of ["veto", "escalate"] as const) {
    for (const [what, call, detail] of bad) {
      it(`${policy}: a malformed call (${what}) is vetoed, saying what is wrong`, () => {
        const d = guard({ policy }).check(call, { userMessages: ["yes, go ahead"] });
        expect(d).toMatchObject({ route: "Vetoed", approved: false, reason: "malformed_call" });
        expect(d.detail).toBe(detail);
        expect(() => JSON.stringify(d)).not.toThrow();
      });
    }
  }

  it("a cyclic argument is malformed, not a crash", () => {
    const args: Record<string, unknown> = { reservation_id: "R1" };
    args.self = args;
    expect(guard().check({ name: "cancel_reservation", arguments: args }).reason).toBe("malformed_call");
  });

  it("`__proto__` keys stay data and pollute nothing", () => {
    const call = JSON.parse('{"name":"cancel_reservation","arguments":{"reservation_id":"R1","__proto__":{"polluted":true}}}');
    const d = guard().check(call);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(d.route).toBe("Approved");
  });

  it("unknown tools are vetoed, even with consent", () => {
    expect(guard().check({ name: "delete_everything", arguments: {} })).toMatchObject({ route: "Vetoed", reason: "unknown_tool" });
    expect(guard({ policy: "escalate" }).check({ name: "delete_everything", arguments: {} }, { userMessages: ["yes"] })).toMatchObject({ route: "Vetoed", reason: "unknown_tool" });
  });

  it("a missing entity is vetoed with reason missing_entity", () => {
    const d = guard({ policy: "escalate" }).check({ name: "cancel_reservation", arguments: { reservation_id: "NOPE" } }, { userMessages: ["yes"] });
    expect(d).toMatchObject({ route: "Vetoed", reason: "missing_entity" });
    expect(d.reads).toEqual([["reservation", "NOPE", null, false]]);
  });

  it("a corrupt blob: createGuard throws a typed error (safeCreateGuard returns it)", () => {
    const corrupt = airline.blob.slice();
    corrupt[corrupt.length - 3] ^= 0xff;
    expect(() => guard({ ontology: corrupt })).toThrow(GuardError);
    try {
      guard({ ontology: corrupt });
    } catch (e) {
      expect((e as GuardError).code).toBe("invalid-ontology");
    }
    const r = safeCreateGuard({ ontology: airline.blob.slice(0, 50), state: airlineState() });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe("invalid-ontology");
  });

  it("misuse is a typed error", () => {
    const codes = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as GuardError).code;
      }
      return "no error";
    };
    expect(codes(() => guard({ policy: "lenient" as never }))).toBe("invalid-config");
    expect(codes(() => guard({ scope: "forever" as never }))).toBe("invalid-config");
    expect(codes(() => guard({ state: {} as never }))).toBe("invalid-state");
    expect(codes(() => guard({ backend: 42 as never }))).toBe("invalid-backend");
    expect(codes(() => guard({ config: { tau: 2 } }))).toBe("invalid-config");
    expect(codes(() => guard({ config: { now: "yesterday" } }))).toBe("invalid-config");
    expect(codes(() => guard().observe({ name: 1 } as never, {}))).toBe("invalid-call");
  });

  it("a state view that throws is an internal error, not an approval", () => {
    const state = { hasEntity: () => { throw new Error("db down"); }, slot: () => undefined };
    expect(guard({ state }).check(flights)).toMatchObject({ route: "Vetoed", reason: "internal_error" });
  });

  it("a backend that throws fails closed, and the guard rebuilds it from the factory", () => {
    let built = 0;
    const g = guard({
      backend: (t, b) => {
        built++;
        const real = referenceFactory(t, b);
        if (built === 1) return { kind: "reference", inputView: () => real.inputView(), run: () => { throw new Error("boom"); } };
        return real;
      },
    });
    expect(g.check(flights)).toMatchObject({ route: "Vetoed", reason: "internal_error" });
    expect(built).toBe(2);
    expect(g.check(flights)).toMatchObject({ route: "Approved", reason: "ok" });
  });
});

describe("ablation and configuration", () => {
  it("reads POLAR_ABLATION_TIERS / POLAR_DISABLE_FAIL_CLOSED through the env reader; config wins", () => {
    const env = (vars: Record<string, string>) => (name: string) => vars[name];
    const t13 = guard({ config: { now: NOW, env: env({ POLAR_ABLATION_TIERS: "T1,T3" }) } });
    expect(t13.config.tiers).toEqual(["T1", "T3"]);
    expect(t13.check(flights).reason).toBe("no_candidate");
    const open = guard({ config: { now: NOW, env: env({ POLAR_DISABLE_FAIL_CLOSED: "1" }) } });
    expect(open.config.failClosed).toBe(false);
    expect(open.check(certificate).route).toBe("Approved");
    const explicit = guard({ config: { now: NOW, tiers: ["T1", "T2", "T3"], failClosed: true, env: env({ POLAR_ABLATION_TIERS: "T1", POLAR_DISABLE_FAIL_CLOSED: "1" }) } });
    expect(explicit.check(flights).route).toBe("Approved");
    expect(explicit.check(certificate).route).toBe("Vetoed");
    expect(() => guard({ config: { env: env({ POLAR_ABLATION_TIERS: "T9" }) } })).toThrow(GuardError);
    expect(t13.configHash).not.toBe(guard().configHash);
    expect(guard().configHash).toBe(guard().configHash);
  });
});

describe("wasm and reference backends", () => {
  it("give identical decisions", () => {
    const calls = [flights, cabin, certificate, voucher, { name: "cancel_reservation", arguments: { reservation_id: "R1" } },
      { name: "book_reservation", arguments: { user_id: "mia" } }, { name: "update_reservation_flights", arguments: { reservation_id: "R2" } }];
    for (const policy of ["veto", "escalate", "advisory"] as const) {
      const a = guard({ policy, backend: referenceFactory });
      const b = guard({ policy, backend: wasmFactory });
      for (const c of calls) expect(b.check(c, { userMessages: ["ok"] })).toEqual(a.check(c, { userMessages: ["ok"] }));
    }
  });
});
