// guard.snapshot() and createGuard({ resume }) (src/guard/snapshot.ts): a guard resumed from a snapshot
// (through JSON) is indistinguishable from the one that wrote it — the same decisions, reports and log
// lines, byte for byte, chain and seq included — and a snapshot that does not fit the guard being
// built is a typed `bad-snapshot` error, never a guard that runs on it. Snapshots and guards share no
// object.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMemorySink } from "../../src/audit/index.js";
import { createGuard, GuardError, safeCreateGuard, SNAPSHOT_FORMAT, type Guard, type GuardOptions, type GuardSnapshot } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { CALLS, sha256 } from "../fuzz/targets/lifecycle-session.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory, retail, wasmFactory } from "./helpers.js";

type Policy = "veto" | "escalate" | "advisory";
type Scope = "turn" | "session";

const SAYINGS = ["yes", "yes please, go ahead", "no", "my id is R1", "네, 진행해 주세요"];
/** Results an observe may get: a usable one (the entity as it is, with a change) or ones the
 * projection cannot use (the acted-on entity becomes unknown). */
const RESULTS = ["good", "Reservation cancelled.", "{", 42, null] as const;

type Op =
  | { kind: "check"; call: number; turn: number[] }
  | { kind: "observe"; pick: number; result: number; failed: boolean; byId: boolean }
  | { kind: "observeUnchecked"; call: number; result: number }
  | { kind: "release"; pick: number }
  | { kind: "checkpoint" }
  | { kind: "markKnown" }
  | { kind: "say"; text: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("check" as const), call: fc.nat(CALLS.length - 1), turn: fc.array(fc.nat(CALLS.length - 1), { maxLength: 3 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("observe" as const), pick: fc.nat(7), result: fc.nat(RESULTS.length - 1), failed: fc.boolean(), byId: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("observeUnchecked" as const), call: fc.nat(CALLS.length - 1), result: fc.nat(RESULTS.length - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("release" as const), pick: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "checkpoint" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "markKnown" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("say" as const), text: fc.nat(SAYINGS.length - 1) }) },
);

interface Run {
  guard: Guard;
  state: LayerB;
  log: ReturnType<typeof createMemorySink>;
  messages: string[];
}

function options(policy: Policy, scope: Scope, state: LayerB, log: ReturnType<typeof createMemorySink>, factory = referenceFactory): GuardOptions {
  return { ontology: airline.blob, backend: factory, state, policy, scope, config: { now: NOW, projection: airlineRules, log, sha256 } };
}

function resultFor(run: Run, call: (typeof CALLS)[number], r: number): unknown {
  const which = RESULTS[r];
  if (which !== "good") return which;
  const id = call.arguments.reservation_id;
  if (call.name === "book_reservation") return JSON.stringify({ reservation_id: "R7", status: "confirmed", user_id: "mia", cabin: "economy", flights: [] });
  const entity = typeof id === "string" ? run.state.entity("reservation", id) : undefined;
  return JSON.stringify({ ...(entity ?? { reservation_id: String(id) }), status: call.name === "cancel_reservation" ? "cancelled" : "confirmed" });
}

/** One operation on one guard; what it answered, as text (decisions, reports, pending lists). Tool
 * results are made from `source`'s Layer B (the original's: a Layer B read back from JSON has its
 * slots in sorted order, so a result copied from it would be other text). */
function apply(run: Run, op: Op, source: Run = run): string {
  const g = run.guard;
  switch (op.kind) {
    case "check": {
      const d = g.check(CALLS[op.call], { userMessages: run.messages.slice(), turnCalls: op.turn.map((i) => CALLS[i]) });
      return JSON.stringify(d);
    }
    case "observe": {
      const pending = g.pending();
      if (pending.length === 0) return "nothing pending";
      const p = pending[op.pick % pending.length];
      const call = CALLS.find((c) => JSON.stringify(c) === JSON.stringify(p.call)) ?? (p.call as (typeof CALLS)[number]);
      const report = g.observe(p.call, resultFor(source, call, op.result), { failed: op.failed, execution: op.byId ? p.execution : undefined });
      return JSON.stringify(report);
    }
    case "observeUnchecked":
      return JSON.stringify(g.observe(CALLS[op.call], resultFor(source, CALLS[op.call], op.result)));
    case "release": {
      const pending = g.pending();
      return pending.length === 0 ? "nothing pending" : String(g.release(pending[op.pick % pending.length].execution));
    }
    case "checkpoint":
      g.checkpoint();
      return "checkpoint";
    case "markKnown":
      g.markKnown();
      return "markKnown";
    case "say":
      run.messages.push(SAYINGS[op.text]);
      return "said";
  }
}

/** What a later decision could see of a guard, beyond its answers. */
function observable(run: Run): string {
  return JSON.stringify({ pending: run.guard.pending(), sequence: run.guard.sequence(), state: run.state.toJSON() });
}

function checkResume(ops: Op[], at: number, policy: Policy, scope: Scope): void {
  const state = airlineState();
  const log = createMemorySink({ sha256 });
  const original: Run = { guard: createGuard(options(policy, scope, state, log)), state, log, messages: [] };
  const cut = Math.min(at, ops.length);
  for (const op of ops.slice(0, cut)) apply(original, op);

  // What a Durable Object stores: the snapshot and Layer B as JSON text, and the log's head.
  const stored = JSON.stringify({ snapshot: original.guard.snapshot(), state: original.state.toJSON() });
  const head = original.log.head();
  const linesBefore = original.log.lines().length;
  const back = JSON.parse(stored) as { snapshot: GuardSnapshot; state: unknown };
  const resumedState = LayerB.fromJSON(back.state);
  const resumedLog = createMemorySink({ sha256, from: head });
  const resumed: Run = {
    guard: createGuard({ ...options(policy, scope, resumedState, resumedLog), resume: back.snapshot }),
    state: resumedState,
    log: resumedLog,
    messages: original.messages.slice(),
  };
  expect(JSON.stringify(resumed.guard.snapshot())).toBe(JSON.stringify(original.guard.snapshot()));
  expect(observable(resumed)).toBe(observable(original));

  ops.slice(cut).forEach((op, i) => {
    const b = apply(resumed, op, original);
    const a = apply(original, op);
    if (a !== b) expect(b, `operation ${cut + i} (${op.kind}) after the resume`).toBe(a);
    const oa = observable(original);
    const ob = observable(resumed);
    if (oa !== ob) expect(ob, `the guard after operation ${cut + i}`).toBe(oa);
  });
  // Every log line after the snapshot, byte for byte (record, seq, chain link).
  expect(resumed.log.lines()).toEqual(original.log.lines().slice(linesBefore));
  expect(JSON.stringify(resumed.guard.snapshot())).toBe(JSON.stringify(original.guard.snapshot()));
}

describe("a guard resumed from its snapshot", () => {
  it("gives the original's decisions, reports and log lines, byte for byte (property)", () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 24 }),
        fc.nat(24),
        fc.constantFrom<Policy>("veto", "escalate", "advisory"),
        fc.constantFrom<Scope>("turn", "session"),
        checkResume,
      ),
      { numRuns: 300, seed: 15 },
    );
  });

  it("the property's sessions reach what a snapshot must carry: pending, committed, sequence, questions, marks", () => {
    // A fixed session that has each part at once (so the property above is not vacuous about them).
    const state = airlineState();
    const log = createMemorySink({ sha256 });
    const g = createGuard(options("escalate", "session", state, log));
    const run: Run = { guard: g, state, log, messages: [] };
    // CALLS (test/fuzz/targets/lifecycle-session.ts): 0 flights R1 (approved), 2 cabin R1 (a question
    // under escalate), 4 cancel R1 and 6 book (approved), 1 flights R2.
    expect(JSON.parse(apply(run, { kind: "check", call: 2, turn: [] })).route).toBe("ConsentEscalated");
    apply(run, { kind: "check", call: 0, turn: [] });
    apply(run, { kind: "observe", pick: 0, result: 0, failed: false, byId: true });
    apply(run, { kind: "check", call: 6, turn: [] });
    apply(run, { kind: "checkpoint" });
    apply(run, { kind: "check", call: 5, turn: [] });
    apply(run, { kind: "observeUnchecked", call: 1, result: 1 });
    const snap = g.snapshot();
    expect(snap.seq).toBe(4);
    expect(snap.executions.map((x) => [x.seq, x.committed])).toEqual([[3, true], [4, false]]);
    expect(snap.sequence.map((x) => x.seq)).toEqual([0]);
    expect(snap.history).toHaveLength(1);
    expect(snap.questions).toHaveLength(1);
    expect(snap.unknown).toEqual([{ entity: "reservation", id: "R2", tool: "update_reservation_flights", execution: null }]);
  });

  it("fixed sessions cut where each part of the snapshot matters", () => {
    const q: Op = { kind: "check", call: 2, turn: [] };
    const yes: Op = { kind: "say", text: 1 };
    const cases: [Op[], number][] = [
      // A booking whose result could not be projected: its user is unknown to later decisions.
      [[{ kind: "check", call: 6, turn: [] }, { kind: "observe", pick: 0, result: 1, failed: false, byId: true }, { kind: "check", call: 4, turn: [] }, { kind: "check", call: 10, turn: [] }], 2],
      // A question asked before the cut, answered after it.
      [[q, yes, q, { kind: "check", call: 2, turn: [] }], 1],
      // A pending execution committed by a checkpoint before the cut, observed after it.
      [[{ kind: "check", call: 0, turn: [] }, { kind: "checkpoint" }, { kind: "observe", pick: 0, result: 0, failed: false, byId: false }, { kind: "check", call: 4, turn: [] }], 2],
    ];
    for (const [ops, at] of cases) {
      for (const scope of ["session", "turn"] as const) checkResume(ops, at, "escalate", scope);
    }
    // The first case does reach an unknown mark.
    const g = createGuard(options("escalate", "session", airlineState(), createMemorySink({ sha256 })));
    const d = g.check(CALLS[6]);
    g.observe(CALLS[6], "Reservation booked.", { execution: d.execution! });
    expect(g.snapshot().unknown).toEqual([{ entity: "user", id: "mia", tool: "book_reservation", execution: d.execution }]);
  });

  it("a mark on everything (a write that names no entity) is resumed: every later decision fails closed on it", () => {
    const g = createGuard(options("veto", "session", airlineState(), createMemorySink({ sha256 })));
    const everything = { entity: "*", id: null, tool: "some_tool", execution: null };
    const resumed = createGuard({ ...options("veto", "session", airlineState(), createMemorySink({ sha256 })), resume: { ...g.snapshot(), unknown: [everything] } });
    expect(resumed.snapshot().unknown).toEqual([everything]);
    const d = resumed.check(CALLS[4]);
    expect(d).toMatchObject({ approved: false, reason: "unknown_state" });
    expect(d.unknown).toEqual([everything]);
    expect(g.check(CALLS[4]).reason).toBe("ok");
  });

  it("resumes on the wasm backend too, with the same answers as the reference's", () => {
    const ops: Op[] = [
      { kind: "check", call: 2, turn: [] },
      { kind: "check", call: 4, turn: [] },
      { kind: "observe", pick: 0, result: 0, failed: false, byId: true },
      { kind: "check", call: 5, turn: [] },
      { kind: "check", call: 0, turn: [] },
    ];
    const state = airlineState();
    const log = createMemorySink({ sha256 });
    const run: Run = { guard: createGuard(options("veto", "session", state, log, wasmFactory)), state, log, messages: [] };
    ops.slice(0, 3).forEach((op) => apply(run, op));
    const s2 = LayerB.fromJSON(JSON.parse(JSON.stringify(state.toJSON())));
    const log2 = createMemorySink({ sha256, from: log.head() });
    const resumed: Run = { guard: createGuard({ ...options("veto", "session", s2, log2, wasmFactory), resume: JSON.parse(JSON.stringify(run.guard.snapshot())) }), state: s2, log: log2, messages: [] };
    for (const op of ops.slice(3)) {
      const b = apply(resumed, op, run);
      expect(b).toBe(apply(run, op));
    }
    expect(log2.lines()).toEqual(log.lines().slice(-2));
  });
});

describe("a snapshot and its guard share nothing", () => {
  function withPending(): { g: Guard; snap: GuardSnapshot } {
    const g = createGuard(options("veto", "session", airlineState(), createMemorySink({ sha256 })));
    const d = g.check(CALLS[4]);
    expect(d.execution).not.toBeNull();
    g.observe(CALLS[0], JSON.stringify({ status: "confirmed", cabin: "economy", flights: [] }));
    return { g, snap: g.snapshot() };
  }

  it("changing the snapshot changes neither the guard that wrote it nor the one resumed from it", () => {
    const { g, snap } = withPending();
    const resumed = createGuard({ ...options("veto", "session", airlineState(), createMemorySink({ sha256 })), resume: snap });
    const before = JSON.stringify(g.snapshot());
    expect(Object.isFrozen(snap.executions[0].call.arguments)).toBe(false);
    (snap.executions[0].call.arguments as Record<string, unknown>).reservation_id = "R2";
    (snap.sequence[0].call.arguments as Record<string, unknown>).reservation_id = "R2";
    snap.executions.push({ ...snap.executions[0], seq: 99 });
    snap.seq = 1000;
    expect(JSON.stringify(g.snapshot())).toBe(before);
    expect(JSON.stringify(resumed.snapshot())).toBe(before);
    expect(resumed.pending()[0].call.arguments.reservation_id).toBe("R1");
  });

  it("a snapshot is exactly its JSON text read back (no undefined, no class, `__proto__` a plain key)", () => {
    const g = createGuard(options("veto", "session", airlineState(), createMemorySink({ sha256 })));
    const hostile = { name: "cancel_reservation", arguments: JSON.parse('{"reservation_id":"R1","__proto__":{"polluted":true}}') as Record<string, unknown> };
    const d = g.check(hostile);
    expect(d.execution).not.toBeNull();
    g.observe(CALLS[0], JSON.stringify({ status: "confirmed", cabin: "economy", flights: [] }));
    const snap = g.snapshot();
    expect(snap).toStrictEqual(JSON.parse(JSON.stringify(snap)));
    const args = snap.executions[0].call.arguments;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(args, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const resumed = createGuard({ ...options("veto", "session", airlineState(), createMemorySink({ sha256 })), resume: JSON.parse(JSON.stringify(snap)) });
    expect(JSON.stringify(resumed.pending())).toBe(JSON.stringify(g.pending()));
  });

  it("the guard going on changes no snapshot it wrote; a snapshot holds none of the guard's objects", () => {
    const { g, snap } = withPending();
    const text = JSON.stringify(snap);
    expect(snap.executions[0].call).not.toBe(g.pending()[0].call);
    expect(snap.executions[0].call.arguments).not.toBe(g.pending()[0].call.arguments);
    expect(snap.sequence[0].call).not.toBe(g.sequence()[0]);
    g.release(g.pending()[0].execution);
    g.check(CALLS[4]);
    g.checkpoint();
    expect(JSON.stringify(snap)).toBe(text);
    expect(JSON.stringify(g.snapshot())).not.toBe(text);
  });

  it("a resumed guard's decisions are frozen and hold none of the snapshot's objects", () => {
    const { snap } = withPending();
    const resumed = createGuard({ ...options("veto", "session", airlineState(), createMemorySink({ sha256 })), resume: snap });
    const d = resumed.check(CALLS[0]);
    expect(Object.isFrozen(d.forward)).toBe(true);
    for (const f of d.forward) {
      expect(Object.isFrozen(f)).toBe(true);
      expect(f).not.toBe(snap.sequence[0].call);
      expect((f as { arguments: unknown }).arguments).not.toBe(snap.sequence[0].call.arguments);
    }
  });
});

describe("a snapshot that does not fit is a typed error, never a guard", () => {
  const base = (): GuardSnapshot => {
    const g = createGuard(options("escalate", "session", airlineState(), createMemorySink({ sha256 })));
    g.check(CALLS[2]);
    g.check(CALLS[4]);
    g.observe(CALLS[0], JSON.stringify({ status: "confirmed", cabin: "economy", flights: [] }));
    g.check(CALLS[5]);
    g.observe(CALLS[1], "not json");
    return g.snapshot();
  };

  function refused(resume: unknown, over: Partial<GuardOptions> = {}): GuardError {
    const result = safeCreateGuard({ ...options("escalate", "session", airlineState(), createMemorySink({ sha256 })), ...over, resume: resume as GuardSnapshot });
    expect(result.ok).toBe(false);
    const error = (result as { error: GuardError }).error;
    expect(error).toBeInstanceOf(GuardError);
    expect(error.code).toBe("bad-snapshot");
    expect(error.message).not.toMatch(/\n/u);
    expect(() => createGuard({ ...options("escalate", "session", airlineState(), createMemorySink({ sha256 })), ...over, resume: resume as GuardSnapshot })).toThrow(GuardError);
    return error;
  }

  it("the snapshot as written resumes (the cases below differ from it in one thing)", () => {
    const snap = base();
    expect(snap.format).toBe(SNAPSHOT_FORMAT);
    const g = createGuard({ ...options("escalate", "session", airlineState(), createMemorySink({ sha256 })), resume: snap });
    expect(g.snapshot()).toEqual(snap);
  });

  it("another ontology", () => {
    const e = refused(base(), { ontology: retail.blob, config: { now: NOW, sha256 } });
    expect(e.message).toMatch(/another ontology .*expected/u);
  });

  it("another configuration", () => {
    expect(refused(base(), { config: { now: NOW, projection: airlineRules, sha256, tau: 0.5 } }).message).toMatch(/another configuration .*expected/u);
  });

  it("another policy", () => {
    expect(refused(base(), { policy: "veto" }).message).toMatch(/another policy \(`policy` `escalate`\): this guard's `veto` expected/u);
  });

  it("another scope", () => {
    expect(refused(base(), { scope: "turn" }).message).toMatch(/another scope \(`scope` `session`\): this guard's `turn` expected/u);
  });

  it("an unknown format version", () => {
    expect(refused({ ...base(), format: "polar-guard-snapshot/2" }).message).toBe("unknown snapshot format `polar-guard-snapshot/2`: `polar-guard-snapshot/1` expected");
    expect(refused({ ...base(), format: undefined }).message).toMatch(/unknown snapshot format `undefined`/u);
  });

  const wrong: [string, (s: GuardSnapshot) => unknown, RegExp][] = [
    ["not an object", () => "snapshot", /not an object/u],
    ["an array", (s) => [s], /not an object/u],
    ["null", () => null, /not an object/u],
    ["a missing key", (s) => ({ ...s, history: undefined }), /has no `history`|`history` is not an array/u],
    ["an unknown key", (s) => ({ ...s, layerB: {} }), /unknown key `layerB`/u],
    ["a seq that is a string", (s) => ({ ...s, seq: String(s.seq) }), /`seq` is `\d+`: an integer/u],
    ["a negative seq", (s) => ({ ...s, seq: -1 }), /`seq` is `-1`/u],
    ["a seq behind an execution", (s) => ({ ...s, seq: 1 }), /executions\[0\]\.seq/u],
    ["executions out of order", (s) => ({ ...s, executions: [...s.executions, ...s.executions] }), /executions\[\d\]\.seq/u],
    ["an execution without its call", (s) => ({ ...s, executions: [{ ...s.executions[0], call: undefined }] }), /executions\[0\]\.call/u],
    ["an execution whose call has no name", (s) => ({ ...s, executions: [{ ...s.executions[0], call: { name: "", arguments: {} } }] }), /no tool name/u],
    ["arguments that are not an object", (s) => ({ ...s, executions: [{ ...s.executions[0], call: { name: "x", arguments: [] } }] }), /arguments/u],
    ["a `before` that is not an object", (s) => ({ ...s, executions: [{ ...s.executions[0], before: "confirmed" }] }), /executions\[0\]\.before/u],
    ["an `admitted` that is not a boolean", (s) => ({ ...s, executions: [{ ...s.executions[0], admitted: 1 }] }), /admitted` is not a boolean/u],
    ["a sequence entry with an extra key", (s) => ({ ...s, sequence: [{ ...s.sequence[0], pending: true }] }), /sequence\[0\]` has an unknown key `pending`/u],
    ["a sequence longer than maxDepth", (s) => ({ ...s, sequence: Array.from({ length: 65 }, () => s.sequence[0]) }), /`sequence` has 65 entries: at most 64/u],
    ["a question hash that is not a SHA-256", (s) => ({ ...s, questions: [{ hash: "ABC", asked: 0 }] }), /questions\[0\]\.hash/u],
    ["a question asked twice", (s) => ({ ...s, questions: [s.questions[0], s.questions[0]] }), /repeats an earlier question/u],
    ["two marks on everything", (s) => ({ ...s, unknown: [{ entity: "*", id: null, tool: "t", execution: null }, { entity: "*", id: null, tool: "t", execution: null }] }), /second mark on everything/u],
    ["a mark without its tool", (s) => ({ ...s, unknown: [{ entity: "reservation", id: "R1", execution: null }] }), /has no `tool`/u],
    ["a value that is not JSON (a Date)", (s) => ({ ...s, sequence: [{ ...s.sequence[0], call: { ...s.sequence[0].call, result: new Date(0) } }] }), /not a plain object: JSON data expected/u],
    ["a value that is not JSON (NaN)", (s) => ({ ...s, history: [{ ...s.history[0], before: { x: Number.NaN } }] }), /not a finite number/u],
    ["a getter that throws", (s) => Object.defineProperty({ ...s }, "executions", { enumerable: true, get: () => { throw new Error("no"); } }), /could not be read: Error: no/u],
  ];
  for (const [what, corrupt, message] of wrong) {
    it(`a wrong shape: ${what}`, () => {
      const snap = base();
      expect(snap.executions.length).toBeGreaterThan(0);
      expect(snap.sequence.length).toBeGreaterThan(0);
      expect(snap.unknown.length).toBeGreaterThan(0);
      expect(snap.history.length).toBeGreaterThan(0);
      expect(snap.questions.length).toBeGreaterThan(0);
      expect(refused(corrupt(snap)).message).toMatch(message);
    });
  }

  it("turn scope carries no forward sequence of its own", () => {
    const g = createGuard(options("escalate", "turn", airlineState(), createMemorySink({ sha256 })));
    const s = g.snapshot();
    const withSequence = { ...s, sequence: [{ seq: 0, call: { name: "cancel_reservation", arguments: { reservation_id: "R1" } } }] };
    expect(refused(withSequence, { scope: "turn" }).message).toMatch(/`sequence` has 1 entries: at most 0/u);
  });
});
