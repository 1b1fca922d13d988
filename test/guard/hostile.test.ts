// Hostile hosts and callers (issue 11, items 6, 11, 12, 13): consent the model could spend, contexts
// that throw, options that would only fail later, and custom policies that try to approve what the
// guard could not judge. Each test fails on the guard before the fix.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createGuard, GuardError, type Decision, type GuardOptions } from "../../src/guard/index.js";
import { createMemorySink, verifyAuditLog } from "../../src/audit/index.js";
import { advisoryPolicy, type DecisionPolicy } from "../../src/policies/index.js";
import { loadGuard } from "../../src/runtimes/node.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "./helpers.js";

const certificate = { name: "send_certificate", arguments: { user_id: "mia" } };
const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [] } };

function guard(over: Partial<GuardOptions> = {}) {
  const sink = createMemorySink();
  const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), policy: "escalate", config: { now: NOW, log: sink }, ...over });
  return { g, sink };
}

describe("consent answers the guard's own question about this exact call", () => {
  it("a yes from before the question does not count; the answer after it does", () => {
    const { g } = guard();
    const before = ["hi", "yes please"];
    expect(g.check(certificate, { userMessages: before })).toMatchObject({ route: "ConsentEscalated", userMessages: [] });
    expect(g.check(certificate, { userMessages: before })).toMatchObject({ route: "ConsentEscalated" });
    expect(g.check(certificate, { userMessages: [...before, "yes"] })).toMatchObject({ route: "ConsentApproved", userMessages: ["yes"] });
  });

  it("an answer to the question about another call (or other arguments) does not approve this one", () => {
    const { g } = guard();
    const other = { name: "send_certificate", arguments: { user_id: "mia", amount: 500 } };
    g.check(other, { userMessages: ["send a certificate"] });
    expect(g.check(certificate, { userMessages: ["send a certificate", "yes"] }).route).toBe("ConsentEscalated");
    expect(g.check(other, { userMessages: ["send a certificate", "yes"] }).route).toBe("ConsentApproved");
  });

  it("a no, or a hedge, after the question asks again", () => {
    const { g } = guard();
    g.check(certificate, { userMessages: [] });
    expect(g.check(certificate, { userMessages: ["no"] }).route).toBe("ConsentEscalated");
    expect(g.check(certificate, { userMessages: ["no", "hmm maybe"] }).route).toBe("ConsentEscalated");
    expect(g.check(certificate, { userMessages: ["no", "hmm maybe", "yes, send it"] }).route).toBe("ConsentApproved");
  });

  it("the decisions replay from their records", () => {
    const { g, sink } = guard();
    g.check(certificate, { userMessages: ["yes"] });
    g.check(certificate, { userMessages: ["yes", "ok go ahead"] });
    expect(sink.records.map((r) => r.route)).toEqual(["ConsentEscalated", "ConsentApproved"]);
    expect(verifyAuditLog(sink.lines(), { ontologies: [airline.blob] }).mismatches).toEqual([]);
  });
});

describe("no exception escapes check(), and every seq has a record", () => {
  const revoked = (() => {
    const r = Proxy.revocable({}, {});
    r.revoke();
    return r.proxy;
  })();
  class Hostile extends Array {
    static override get [Symbol.species](): never {
      throw new Error("species");
    }
  }
  const hostileTurn = Hostile.from([certificate]);
  const contexts: [string, unknown][] = [
    ["a throwing getter", { get userMessages(): never { throw new Error("getter"); } }],
    ["a Proxy context", new Proxy({}, { get: () => { throw new Error("trap"); } })],
    ["a revoked Proxy context", revoked],
    ["revoked userMessages", { userMessages: revoked }],
    ["a Proxy turnCalls", { turnCalls: new Proxy([], { get: () => { throw new Error("trap"); } }) }],
    ["turnCalls with a hostile species", { turnCalls: hostileTurn }],
    ["a string context", "yes"],
    ["userMessages that are not an array", { userMessages: "yes" }],
    ["messages without roles", { messages: [{ content: "yes" }] }],
  ];
  for (const [what, context] of contexts) {
    it(`${what}: a fail-closed decision, logged`, () => {
      for (const scope of ["turn", "session"] as const) {
        const { g, sink } = guard({ scope });
        let d: Decision | undefined;
        expect(() => (d = g.check(flights, context as never))).not.toThrow();
        expect(d!.seq).toBe(1);
        if (what !== "turnCalls with a hostile species") expect(d).toMatchObject({ approved: false, reason: "internal_error" });
        // Read by index, never through the species: the earlier email pins the turn's later call.
        else expect(d!.reason).toBe(scope === "turn" ? "external_side_effect" : "ok");
        if (d!.execution !== null) g.release(d!.execution);
        expect(g.check(flights).seq).toBe(2);
        expect(sink.records.map((r) => r.seq)).toEqual([1, 2]);
        expect(verifyAuditLog(sink.lines(), { ontologies: [airline.blob] }).mismatches).toEqual([]);
      }
    });
  }

  it("a sink that throws: the check throws, consumes no seq and leaves no pending execution", () => {
    let fail = true;
    const records: Decision[] = [];
    const g = createGuard({
      ontology: airline.blob,
      state: airlineState(),
      config: { now: NOW, log: { append: (d) => { if (fail) throw new Error("disk full"); records.push(d); } } },
    });
    expect(() => g.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } })).toThrow("disk full");
    expect(g.pending()).toEqual([]);
    fail = false;
    expect(g.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } }).seq).toBe(1);
  });
});

describe("options are validated at construction, with typed errors", () => {
  const base = { ontology: airline.blob, state: airlineState() };
  const bad: [string, () => unknown, RegExp][] = [
    ["config.log: 5", () => createGuard({ ...base, config: { log: 5 as never } }), /config\.log/u],
    ["config.projection: {x:1}", () => createGuard({ ...base, config: { projection: { x: 1 } as never } }), /config\.projection/u],
    ["raw projection rules", () => createGuard({ ...base, config: { projection: airlineRules.source as never } }), /parsed projection rules/u],
    ["a throwing config.env", () => createGuard({ ...base, config: { env: () => { throw new Error("env"); } } }), /config\.env.*threw/u],
    ["config.env answering a number", () => createGuard({ ...base, config: { env: (() => 1) as never } }), /not a string/u],
    ["config.threshold", () => createGuard({ ...base, config: { threshold: 0.5 } as never }), /unknown option `config\.threshold`/u],
    ["a top-level `polcy`", () => createGuard({ ...base, polcy: "advisory" } as never), /unknown option `polcy`/u],
    ["config: 5", () => createGuard({ ...base, config: 5 as never }), /`config` is not an object/u],
    ["a classifier without classify", () => createGuard({ ...base, config: { requestClassifier: { id: "x" } as never } }), /requestClassifier/u],
  ];
  for (const [what, make, message] of bad) {
    it(`${what} → GuardError invalid-config`, () => {
      let err: unknown;
      try {
        make();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(GuardError);
      expect((err as GuardError).code).toBe("invalid-config");
      expect((err as GuardError).message).toMatch(message);
    });
  }

  it("loadGuard with no options, or with wasm bytes that do not compile, is a typed error", async () => {
    await expect(loadGuard(undefined as never)).rejects.toMatchObject({ name: "GuardError", code: "invalid-config" });
    const blob = new Uint8Array(readFileSync(new URL("../../ontologies/airline/airline.blob", import.meta.url)));
    await expect(loadGuard({ blob, wasm: new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9]), state: airlineState() })).rejects.toMatchObject({ name: "RuntimeError", code: "core-unavailable" });
  });
});

describe("custom policies cannot approve what the guard could not judge", () => {
  const passthrough: DecisionPolicy = { name: "pass-everything", decide: () => ({ route: "AdvisoryPassthrough", message: null, consent: null }) };
  it("unknown_tool, missing_entity and malformed_call routed to AdvisoryPassthrough are vetoed", () => {
    const { g } = guard({ policy: passthrough });
    for (const call of [{ name: "nuke", arguments: {} }, { name: "cancel_reservation", arguments: { reservation_id: "R9" } }, { name: "cancel_reservation", arguments: 5 }]) {
      const d = g.check(call);
      expect(d).toMatchObject({ route: "Vetoed", approved: false });
      expect(d.detail).toContain("pass-everything");
    }
    // The built-in advisory policy still passes them through (recorded), by definition.
    expect(guard({ policy: advisoryPolicy }).g.check({ name: "nuke", arguments: {} }).route).toBe("AdvisoryPassthrough");
    // A custom policy may still let a judged, inadmissible call through.
    expect(g.check(certificate).route).toBe("AdvisoryPassthrough");
  });

  it("a custom policy cannot take a built-in name", () => {
    for (const name of ["veto", "escalate", "advisory"]) {
      expect(() => guard({ policy: { ...passthrough, name } })).toThrow(/cannot be named/u);
    }
  });
});
