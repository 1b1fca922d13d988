// src/guard/judge.ts on its own (the hot path): check → decide → judge → record. What a decision changes
// in the other parts (seq, the lifecycle's pending executions, the consent book), the record's fields and
// freezing, the fallback record when judging itself fails, and a sink that throws.
import { describe, expect, it } from "vitest";
import { LazyCall } from "../../src/guard/consent-book.js";
import { DECISION_FORMAT } from "../../src/guard/decision.js";
import { readsDigest } from "../../src/guard/reads.js";
import type { GuardOptions } from "../../src/guard/types.js";
import { ENGINE_VERSION } from "../../src/version.js";
import { airline, airlineState, NOW, referenceFactory } from "./helpers.js";
import { parts } from "./parts.js";

const options = (over: Partial<GuardOptions> = {}): GuardOptions => ({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW }, ...over });
const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const certificate = { name: "send_certificate", arguments: { user_id: "mia", amount: 50 } };

describe("Judge", () => {
  it("an approved call: seq advances, the lifecycle holds a pending execution x<seq>, the record is complete and frozen", () => {
    const p = parts(options());
    const d = p.judge.check(flights);
    expect(p.judge.seq).toBe(1);
    expect(d).toMatchObject({ format: DECISION_FORMAT, seq: 1, route: "Approved", approved: true, execution: "x1", reason: "ok", policy: "veto", scope: "turn", engineVersion: ENGINE_VERSION });
    expect(d.ontologyHash).toBe(p.o.ontologyHash);
    expect(d.configHash).toBe(p.o.configHash);
    expect(d.config).toBe(p.o.config);
    expect(d.stateDigest).toBe(readsDigest(d.reads));
    expect(p.lifecycle.pending().map((x) => x.id)).toEqual(["x1"]);
    expect(p.lifecycle.pending()[0].before).toMatchObject({ status: "confirmed" });
    expect(Object.isFrozen(d)).toBe(true);
    expect(Object.isFrozen(d.verdict)).toBe(true);
    expect(Object.isFrozen(d.verdict!.steps[0])).toBe(true);
    expect(Object.isFrozen(d.call)).toBe(true);
    expect(Object.keys(d)).toEqual([
      "format", "seq", "route", "approved", "execution", "admissible", "reason", "detail", "call", "forward", "verdict", "targets", "classification",
      "policy", "tau", "message", "refusal", "question", "userMessages", "consent", "unknown", "reads", "stateDigest", "ontologyHash", "config",
      "configHash", "engineVersion", "scope",
    ]);
  });

  it("a read-only call and a refusal make no pending execution", () => {
    const p = parts(options());
    expect(p.judge.check({ name: "get_reservation_details", arguments: { reservation_id: "R1" } }).execution).toBeNull();
    expect(p.judge.check(certificate).execution).toBeNull();
    expect(p.lifecycle.pending()).toEqual([]);
    expect(p.judge.seq).toBe(2);
  });

  it("question mode: an escalation opens a question in the book, a yes after it approves once and closes it", () => {
    const p = parts(options({ policy: "escalate" }));
    const q = p.judge.check(certificate, { userMessages: ["send it"] });
    expect(q.route).toBe("ConsentEscalated");
    expect(p.book.list()).toEqual([{ hash: new LazyCall(certificate).hash(), asked: 1 }]);
    const a = p.judge.check(certificate, { userMessages: ["send it", "yes, go ahead"] });
    expect(a).toMatchObject({ route: "ConsentApproved", execution: "x2", userMessages: ["yes, go ahead"] });
    expect(p.book.list()).toEqual([]);
  });

  it("a sink that throws: the check throws and nothing is decided (no seq, no execution, no question)", () => {
    const p = parts(options({ policy: "escalate", config: { now: NOW, log: { append: () => { throw new Error("disk full"); } } } }));
    expect(() => p.judge.check(flights)).toThrow("disk full");
    expect(() => p.judge.check(certificate)).toThrow("disk full");
    expect(p.judge.seq).toBe(0);
    expect(p.lifecycle.pending()).toEqual([]);
    expect(p.book.list()).toEqual([]);
  });

  it("judging that fails outside the evaluation is a vetoed internal_error record, never a throw", () => {
    // Turn scope reads an earlier call's `before` from the state: a state that throws there.
    const layer = airlineState();
    let fail = false;
    const state = {
      hasEntity: (e: string, id: string) => layer.hasEntity(e, id),
      slot: (e: string, id: string, s: string) => {
        if (fail) throw new Error("state gone");
        return layer.slot(e, id, s);
      },
    };
    const p = parts(options({ state, backend: referenceFactory }));
    fail = true;
    const d = p.judge.check(flights, { turnCalls: [{ name: "cancel_reservation", arguments: { reservation_id: "R2" } }] });
    expect(d).toMatchObject({ route: "Vetoed", approved: false, execution: null, reason: "internal_error", forward: [], verdict: null });
    expect(d.detail).toBe("guard: Error: state gone");
    expect(d.refusal).toBe(d.message);
    expect(d.message).not.toBeNull();
    expect(p.judge.seq).toBe(1);
    expect(p.lifecycle.pending()).toEqual([]);
  });

  it("a context of the wrong shape fails the decision closed, with the reason", () => {
    const p = parts(options());
    const d = p.judge.check(flights, { userMessages: "yes" } as never);
    expect(d).toMatchObject({ route: "Vetoed", reason: "internal_error", forward: [] });
    expect(d.detail).toMatch(/context\.userMessages/);
  });

  it("session scope: a pending execution is in the next check's forward sequence, marked pending", () => {
    const p = parts(options({ scope: "session" }));
    p.judge.check(flights);
    const d = p.judge.check({ name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } });
    expect(d.forward).toHaveLength(1);
    expect(d.forward[0]).toMatchObject({ name: "update_reservation_flights", pending: true });
  });

  it("a synchronous model component is asked in check; an asynchronous one needs checkAsync", async () => {
    const sync = parts(options({ config: { now: NOW, requestClassifier: { id: "c", classify: () => "JustAnswer" } } }));
    expect(sync.judge.check(flights).reason).toBe("unrequested_mutation");
    const async_ = parts(options({ config: { now: NOW, requestClassifier: { id: "c", classify: async () => "Mutating" as const } } }));
    expect(() => async_.judge.check(flights)).toThrow(expect.objectContaining({ code: "async-required" }));
    expect(async_.judge.seq).toBe(0);
    expect((await async_.judge.checkAsync(flights)).route).toBe("Approved");
  });
});
